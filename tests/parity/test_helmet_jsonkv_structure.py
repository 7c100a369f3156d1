"""json_kv has HELMET's structure: helmet_jsonkv_structure.jsonl holds HELMET's settings
per length and the prompts its own loader built (scripts/parity/helmet_jsonkv.py), on
lctui's examples' data and on rows lost-in-the-middle's renderer made.

Compared: pairs per length, answer tokens, two demonstrations, the order of the parts
(object, instruction, demonstrations, key, answer prefix), and token use: on the same
data lctui's plain prompt differs from HELMET's by its wording only, the same number of
tokens at every length, and its object costs what the cited renderer's does per pair.
"""

from __future__ import annotations

from collections import defaultdict
from functools import cache
from statistics import mean
from typing import Any

import pytest

from helpers.parity_fixtures import load_fixture
from lctui.core.types import Example
from lctui.tasks import get_task
from lctui.tasks.json_kv import INSTRUCTION, helmet_pair_count
from lctui.tasks.tokenizers import reference_tokenizer

FIXTURE = load_fixture("helmet_jsonkv_structure")
LENGTHS = [r for r in FIXTURE.rows if r["kind"] == "length"]
PROMPTS = [r for r in FIXTURE.rows if r["kind"] == "prompt"]
LITM = [r for r in FIXTURE.rows if r["kind"] == "litm"]
# Our instruction and labels against HELMET's, in o200k_base tokens (measured: 42).
WORDING_TOKENS = 50


@cache
def _example(task: str, length: int, seed: int, index: int, tokenizer: str) -> Example:
    return get_task(task).generate(length, seed, index, reference_tokenizer(tokenizer))


def _parts_order(example: Example) -> list[str]:
    prompt = example.render_plain()
    demos = example.metadata["demos"]
    assert isinstance(demos, list)
    places = {
        "context": prompt.find(example.context),
        "instruction": prompt.find(INSTRUCTION),
        "question": prompt.rfind(str(example.metadata["key"])),
    }
    for i, (key, _value) in enumerate(demos, 1):
        places[f"demo_{i}"] = prompt.find(key)
    assert min(places.values()) >= 0, places
    return sorted(places, key=places.__getitem__)


def test_the_fixture_covers_helmets_six_lengths() -> None:
    assert [r["length"] for r in LENGTHS] == [4096, 8192, 16384, 32768, 65536, 131072]
    assert {r["example"]["length"] for r in PROMPTS} == {r["length"] for r in LENGTHS}
    assert {r["length"] for r in LITM} == {r["length"] for r in LENGTHS}


@pytest.mark.parametrize("row", LENGTHS, ids=[r["name"] for r in LENGTHS])
def test_pairs_answer_tokens_and_demonstrations_per_length(row: dict[str, Any]) -> None:
    example = _example("json_kv", row["length"], 0, 0, "o200k_base")
    assert helmet_pair_count(row["length"]) == row["num_kvs"]
    assert example.metadata["num_kvs"] == row["num_kvs"]
    assert example.max_new_tokens == row["generation_max_length"]
    assert len(example.metadata["demos"]) == row["shots"]
    # HELMET runs JSON KV without chat template, and so does json_kv by default.
    assert row["use_chat_template"] is False
    assert get_task("json_kv").prompt_format == "plain"


@pytest.mark.parametrize(
    "row", PROMPTS, ids=[f"{r['example']['length']}-{r['example']['index']}" for r in PROMPTS]
)
def test_prompt_structure_equals_helmets_on_the_same_data(row: dict[str, Any]) -> None:
    example = _example(**row["example"])
    assert example.metadata["num_kvs"] == row["num_kvs"]
    assert _parts_order(example) == row["parts_order"]
    assert len(example.metadata["demos"]) == row["demos_used"]
    assert example.render_plain().endswith(example.answer_prefix) is row["answer_prefix_at_end"]


def test_token_use_differs_from_helmets_by_the_wording_alone() -> None:
    tokenizer = reference_tokenizer("o200k_base")
    differences = set()
    for row in PROMPTS:
        example = _example(**row["example"])
        ours = tokenizer.count(example.render_plain())
        differences.add(ours - row["prompt_tokens"])
        # lctui reserves the template allowance besides: still about HELMET's share.
        used = (example.prompt_tokens + example.max_new_tokens) / example.length
        assert row["budget_use"] <= used <= row["budget_use"] + 0.03
    assert len(differences) == 1, differences  # the same data costs the same tokens
    assert 0 < differences.pop() <= WORDING_TOKENS


def test_the_object_costs_what_the_cited_renderer_costs_per_pair() -> None:
    tokenizer = reference_tokenizer("o200k_base")
    theirs: dict[int, list[float]] = defaultdict(list)
    for row in LITM:
        theirs[row["length"]].append(row["context_tokens"] / row["num_kvs"])
    for length, per_pair in theirs.items():
        example = _example("json_kv", length, 0, 0, "o200k_base")
        ours = tokenizer.count(example.context) / int(example.metadata["num_kvs"])
        assert ours == pytest.approx(mean(per_pair), rel=0.02), length
