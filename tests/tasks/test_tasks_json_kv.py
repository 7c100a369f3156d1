"""json_kv: HELMET's structure (pair counts per length, two solved lookups after the JSON,
then the key), a size that never exceeds the length, in our own wording.

tests/parity/test_helmet_jsonkv_structure.py compares the same examples with prompts
HELMET's own loader built.
"""

from __future__ import annotations

import json
import re
import uuid

import pytest

from lctui.core.errors import UserInputError
from lctui.tasks import all_tasks, get_task
from lctui.tasks.json_kv import (
    ANSWER_PREFIX,
    HELMET_PAIRS,
    INSTRUCTION,
    KEY_LABEL,
    helmet_pair_count,
)
from lctui.tasks.tokenizers import TiktokenTokenizer

UUID4 = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")


def test_pair_counts_are_helmets_at_its_lengths_and_scaled_elsewhere() -> None:
    assert {length: helmet_pair_count(length) for length in HELMET_PAIRS} == {
        4096: 50,
        8192: 105,
        16384: 220,
        32768: 440,
        65536: 900,
        131072: 1800,
    }
    # Below 4k and above 128k: the nearest count per token; in between: linear.
    assert helmet_pair_count(1024) == 12
    assert helmet_pair_count(2048) == 25
    assert helmet_pair_count(6144) == 78
    assert helmet_pair_count(262144) == 3600
    assert helmet_pair_count(256) == 3


@pytest.mark.parametrize("length", [1024, 4096, 8192])
def test_the_object_holds_the_count_of_uuid4_pairs(length: int, o200k: TiktokenTokenizer) -> None:
    example = get_task("json_kv").generate(length, 0, 1, o200k)
    data = json.loads(example.context)
    assert len(data) == example.metadata["num_kvs"] == helmet_pair_count(length)
    assert example.metadata["num_kvs_target"] == helmet_pair_count(length)
    assert all(UUID4.fullmatch(k) and UUID4.fullmatch(v) for k, v in data.items())
    assert data[example.metadata["key"]] == example.gold[0]
    assert example.max_new_tokens == 100


def test_uuids_are_uniform_version_4(o200k: TiktokenTokenizer) -> None:
    example = get_task("json_kv").generate(16384, 0, 0, o200k)
    data = json.loads(example.context)
    values = [*data, *data.values()]
    assert all(uuid.UUID(v).version == 4 for v in values)
    # Every first hex digit occurs (a 122-bit draw printed as 31 digits gives only 0-3).
    assert {v[0] for v in values} == set("0123456789abcdef")


def test_json_first_then_instruction_two_solved_lookups_and_the_key(
    o200k: TiktokenTokenizer,
) -> None:
    example = get_task("json_kv").generate(4096, 0, 2, o200k)
    key = example.metadata["key"]
    assert example.preamble == ""
    assert example.user_text.startswith("{")
    demos = example.metadata["demos"]
    assert len(demos) == 2
    solved = "\n\n".join(f"{KEY_LABEL} {k}\n{ANSWER_PREFIX} {v}" for k, v in demos)
    assert example.question == f"\n\n{INSTRUCTION}\n\n{solved}\n\n{KEY_LABEL} {key}"
    assert example.metadata["asked_text"] == f"{KEY_LABEL} {key}"
    assert example.answer_prefix == ANSWER_PREFIX
    # The solved lookups are separate random pairs: neither key nor value is in the object.
    for demo_key, demo_value in demos:
        assert demo_key not in example.context and demo_value not in example.context
    assert example.render_plain().endswith(f"{KEY_LABEL} {key}\n\n{ANSWER_PREFIX}")


def test_the_asked_pair_sits_at_the_depth(o200k: TiktokenTokenizer) -> None:
    task = get_task("json_kv").with_params({"depths": [0, 50, 100]})
    indices = [task.generate(4096, 0, i, o200k).metadata["asked_index"] for i in range(3)]
    assert indices == [0, 24, 49]  # of 50 pairs: first, middle (24.5 rounds to even), last
    last = task.generate(4096, 0, 2, o200k)
    assert list(json.loads(last.context))[-1] == last.metadata["key"]


def test_json_kv_alone_does_not_fill_its_budget() -> None:
    # LongBench v2 keeps a short context whole; json_kv is the only generated one.
    assert [t.name for t in all_tasks() if not t.fills_budget and not t.needs_data] == ["json_kv"]


def test_a_count_too_large_for_the_length_gets_the_most_pairs_that_fit(
    o200k: TiktokenTokenizer,
) -> None:
    task = get_task("json_kv").with_params({"num_pairs": 100})
    example = task.generate(2048, 0, 0, o200k)
    assert example.metadata["num_kvs_target"] == 100
    pairs = example.metadata["num_kvs"]
    assert 2 <= pairs < 100 and len(json.loads(example.context)) == pairs
    assert o200k.count(example.user_text) + example.template_overhead + 100 <= 2048
    # One pair more (of the same shape: a metadata demo's key and value) would not fit.
    extra_key, extra_value = example.metadata["demos"][0]
    wider = example.context[:-1] + f',\n "{extra_key}": "{extra_value}"}}'
    user_text = example.user_text.replace(example.context, wider)
    assert o200k.count(user_text) + example.template_overhead + 100 > 2048


def test_lengths_too_short_and_a_single_pair_are_refused(o200k: TiktokenTokenizer) -> None:
    with pytest.raises(UserInputError, match="too short"):
        get_task("json_kv").generate(256, 0, 0, o200k)
    with pytest.raises(UserInputError, match="num_pairs must be 0"):
        get_task("json_kv").with_params({"num_pairs": 1})


@pytest.mark.slow
def test_smollm2s_tokenizer_gets_fewer_pairs_at_1k_and_2k_and_helmets_at_4k() -> None:
    """SmolLM2's tokenizer spends about 71 tokens on a pair (o200k_base: 50): the sample
    runs' 1k and 2k examples hold fewer pairs than the rule's, never more tokens."""
    from transformers import AutoTokenizer

    from lctui.backends.embedded import embedded_checkpoint
    from lctui.backends.hf_tokenizer import HFTokenizer

    tokenizer = HFTokenizer(AutoTokenizer.from_pretrained(embedded_checkpoint()))
    task = get_task("json_kv")
    for length in (1024, 2048, 4096):
        example = task.generate(length, 0, 0, tokenizer)
        total = tokenizer.count(example.user_text) + example.template_overhead + 100
        assert total <= length
        pairs, target = example.metadata["num_kvs"], example.metadata["num_kvs_target"]
        assert target == helmet_pair_count(length)
        assert pairs == target if length == 4096 else 2 <= pairs < target
