"""Every task generator: gold in the context as asked, determinism, length tolerance."""

from __future__ import annotations

import json

import pytest

from helpers.whole_units import unit_allowance
from lctui.core.errors import UserInputError
from lctui.core.protocols import Tokenizer
from lctui.core.types import Example
from lctui.suites.ruler.tasks.aggregation import NOISE_TOKEN
from lctui.tasks import all_tasks, get_task, select_tasks
from lctui.tasks.budget import Budget
from lctui.tasks.tokenizers import TiktokenTokenizer

TASKS = [t.name for t in all_tasks()]
# Tasks whose gold values are copied from the context. LIFBench's golds are answers
# (labels, option words, formatted groups); their own tests check that the reference
# answer scores 1.0 instead, as the re-ranking tests do for its gold (a ranking of ids)
# the long-document QA tests for theirs (answers written by people, an option letter),
# the summarization tests for theirs (a reference summary) and LongBench v2's for its
# option letter.
RETRIEVAL = [
    t.name
    for t in all_tasks()
    if t.suite not in ("lifbench", "longbench") and t.category not in ("rerank", "longqa", "summ")
]


def _within_tolerance(example: Example, tokenizer: Tokenizer) -> tuple[int, int]:
    """The example's real total, and how far under its length it may land: a task that
    does not fill its budget (json_kv's fixed pair counts) may land anywhere under; one
    of whole units (RULER's filler and distractor sentences, cwe's words) one unit more."""
    real = tokenizer.count(example.user_text) + example.template_overhead
    total = real + example.max_new_tokens
    if not get_task(example.task).fills_budget:
        return total, example.length
    tolerance = Budget(example.length, example.max_new_tokens).tolerance
    return total, tolerance + unit_allowance(example, tokenizer)


# Tasks on real data are built here from the fixture files, which hold passages for 2K
# only (tests/tasks/test_tasks_helmet_rag.py fits them at 4K to 128K from larger pools).
@pytest.mark.parametrize(
    ("name", "length"),
    [
        (name, length)
        for name in TASKS
        for length in (2048, 4096, 32768)  # 2048: cwe's short regime
        if length == 2048 or not get_task(name).needs_data
    ],
)
def test_gold_present_and_length_within_tolerance(
    name: str, length: int, o200k: TiktokenTokenizer
) -> None:
    example = get_task(name).generate(length, seed=1, index=2, tokenizer=o200k)
    total, tolerance = _within_tolerance(example, o200k)
    assert length - tolerance <= total <= length, (total, length, tolerance)
    assert example.prompt_tokens == total - example.max_new_tokens
    assert example.gold and all(example.gold)
    if name not in RETRIEVAL:
        return
    for gold in example.gold:
        assert gold in example.context, gold
    for span in example.spans:
        if span.kind == "gold":
            assert example.context[span.start : span.end] in example.gold


@pytest.mark.slow
@pytest.mark.parametrize("name", [t.name for t in all_tasks() if not t.needs_data])
def test_length_within_tolerance_at_128k(name: str, o200k: TiktokenTokenizer) -> None:
    example = get_task(name).generate(131072, seed=0, index=0, tokenizer=o200k)
    total, tolerance = _within_tolerance(example, o200k)
    assert 131072 - tolerance <= total <= 131072
    assert name not in RETRIEVAL or all(g in example.context for g in example.gold)


@pytest.mark.parametrize("name", TASKS)
def test_deterministic_per_seed_and_varies_with_seed(name: str, o200k: TiktokenTokenizer) -> None:
    task = get_task(name)
    a = task.generate(2048, seed=5, index=1, tokenizer=o200k)
    b = task.generate(2048, seed=5, index=1, tokenizer=o200k)
    c = task.generate(2048, seed=6, index=1, tokenizer=o200k)
    assert a == b
    assert a.example_id == task.example_id(2048, 5, 1, "o200k_base")
    assert c.example_id != a.example_id
    # A task without a context (LongBench v2 without its document) varies its question.
    assert c.context != a.context if a.context else c.question != a.question
    # A dataset file repeats each question once per gold depth: seeds may meet one again.
    assert name not in RETRIEVAL or task.needs_data or c.gold != a.gold


@pytest.mark.parametrize("name", [n for n in TASKS if n.startswith("niah") or n == "json_kv"])
def test_needle_depth_follows_the_depth_list(name: str, o200k: TiktokenTokenizer) -> None:
    task = get_task(name).with_params({"depths": [0, 50, 100]})
    depths = [task.generate(4096, 0, i, o200k).depth for i in range(3)]
    assert all(d is not None for d in depths)
    low, mid, high = depths
    assert low is not None and mid is not None and high is not None
    assert low < 5 and 40 < mid < 60 and high > 90


def test_json_kv_context_is_valid_json_with_the_asked_key(o200k: TiktokenTokenizer) -> None:
    example = get_task("json_kv").generate(8192, 0, 0, o200k)
    data = json.loads(example.context)
    assert data[example.metadata["key"]] == example.gold[0]


def test_vt_gold_is_the_whole_chain_in_order(o200k: TiktokenTokenizer) -> None:
    example = get_task("vt").generate(4096, 0, 0, o200k)
    positions = [example.context.index(f"Set {name} to") for name in example.gold]
    assert positions == sorted(positions)
    assert len(example.gold) == 5


def test_cwe_gold_words_are_the_most_frequent(o200k: TiktokenTokenizer) -> None:
    example = get_task("cwe").generate(8192, 0, 0, o200k)
    words = [item.split(". ", 1)[1] for item in example.context.split(" ") if ". " in item] or [
        w for w in example.context.split() if not w.rstrip(".").isdigit()
    ]
    counts = {w: words.count(w) for w in set(words)}
    top = sorted(counts, key=counts.__getitem__, reverse=True)[:10]
    assert set(top) == set(example.gold)
    assert min(counts[g] for g in example.gold) > max(
        c for w, c in counts.items() if w not in example.gold
    )


def test_fwe_gold_are_the_three_most_frequent_after_the_filler(o200k: TiktokenTokenizer) -> None:
    example = get_task("fwe").generate(4096, 0, 0, o200k)
    words = example.context.split()
    counts = {w: words.count(w) for w in set(words)}
    ranked = sorted(counts, key=counts.__getitem__, reverse=True)
    assert ranked[0] == example.metadata["noise_token"] == NOISE_TOKEN
    assert list(example.gold) == ranked[1:4]
    assert NOISE_TOKEN in example.preamble and NOISE_TOKEN in example.question


def test_selection_by_category_suite_glob_and_errors() -> None:
    assert {t.name for t in select_tasks("synthetic")} == {
        t.name for t in all_tasks() if t.category == "synthetic"
    }
    assert {t.name for t in select_tasks("helmet")} == {
        "json_kv",
        "kilt_nq",
        "kilt_triviaqa",
        "kilt_hotpotqa",
        "kilt_popqa",
        "msmarco_rerank",
        "icl_trec_coarse",
        "icl_trec_fine",
        "icl_banking77",
        "icl_clinc150",
        "icl_nlu",
        "alce_asqa",
        "alce_qampari",
        "narrativeqa",
        "infbench_qa",
        "infbench_mc",
        "infbench_sum",
        "multi_lexsum",
    }
    assert {t.name for t in select_tasks("niah_multi*")} == {
        "niah_multikey_1",
        "niah_multikey_2",
        "niah_multikey_3",
        "niah_multivalue",
        "niah_multiquery",
    }
    with pytest.raises(UserInputError, match=r"unknown task 'nope'.*niah_single_1"):
        select_tasks("nope")
    with pytest.raises(UserInputError, match="no parameter"):
        select_tasks("vt", {"vt": {"hops": 3}})


def test_parameters_change_the_examples(o200k: TiktokenTokenizer) -> None:
    six_hops = select_tasks("vt", {"vt": {"num_hops": 6}})[0]
    example = six_hops.generate(4096, 0, 0, o200k)
    assert len(example.gold) == 7
    four_keys = select_tasks("niah_multiquery", {"niah_multiquery": {"num_queries": 2}})[0]
    assert len(four_keys.generate(4096, 0, 0, o200k).gold) == 2


def test_too_short_length_is_a_clear_error(o200k: TiktokenTokenizer) -> None:
    with pytest.raises(UserInputError, match="too short"):
        get_task("cwe").generate(400, 0, 0, o200k)
