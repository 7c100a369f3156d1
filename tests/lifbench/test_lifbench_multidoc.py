"""LIFBench MultiDoc: LIFBench's structure (labels, missing fields, duplicate groups),
budgets, reference answers, and the original's point rules on wrong answers."""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path

import pytest

from helpers.lifbench_checks import (
    check_covers_every_sample,
    check_deterministic_per_seed,
    check_fits,
    check_gold_run_scores_one,
    check_reference_score,
    covering_indices,
    earned_points,
)
from lctui.backends.gold import reference_answer
from lctui.core.types import Example, ScoreStatus
from lctui.scoring import score_example
from lctui.suites.lifbench.tasks.multidoc import DUP_FIELDS, LABEL_SETS, MultiDocTask
from lctui.suites.lifbench.tasks.multidoc_context import (
    FIELDS,
    GROUP_SHARE,
    MAX_GROUPS,
    docs_stream,
    parse_docs,
    plain_value,
)
from lctui.suites.lifbench.tasks.shared import RULES_CORRECTED
from lctui.tasks import get_task, select_tasks
from lctui.tasks.tokenizers import TiktokenTokenizer

NAMES = ["lifbench_find_dup_text", "lifbench_batch_label"]
ID22 = re.compile(r"^[A-Za-z0-9_-]{22}$")


def _task(name: str, **params: object) -> MultiDocTask:
    task = get_task(name)
    assert isinstance(task, MultiDocTask)
    changed = task.with_params(params) if params else task
    assert isinstance(changed, type(task))
    return changed


def test_both_tasks_are_registered_after_the_list_tasks() -> None:
    assert [t.name for t in select_tasks(",".join(NAMES))] == NAMES
    assert [t.name for t in select_tasks("lifbench")][6:8] == NAMES
    for name in NAMES:
        task = _task(name)
        assert task.category == task.suite == "lifbench" and task.metric == "lifeval_ars"
        assert len(task.spec.expressions) >= 5 and len(task.spec.variables) >= 5
        assert task.max_new_tokens == 4096 == task.answer_tokens(122880)
        assert task.answer_tokens(3072) < 1024
        assert task.params == {"rules": "original"}


def _check_reference(
    task: MultiDocTask, length: int, index: int, o200k: TiktokenTokenizer
) -> Example:
    example = task.generate(length, seed=3, index=index, tokenizer=o200k)
    meta = example.metadata
    assert (meta["expression"], meta["variable"]) == task.choice(index)
    assert meta["scenario"] == "multidoc" and meta["scorer"] == "lifeval"
    score = check_reference_score(example, reference_answer(example), task.spec.name)
    assert all(p.earned == 1.0 for p in score.points)
    check_fits(example, o200k)
    assert len(parse_docs(example.context)) == meta["n_docs"]
    return example


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("length", [3072, 6144, 13312])
def test_reference_scores_one_for_every_expression_and_variable(
    name: str, length: int, o200k: TiktokenTokenizer
) -> None:
    for task in (_task(name), _task(name, rules=RULES_CORRECTED)):
        seen = {
            (e.metadata["expression"], e.metadata["variable"])
            for e in (_check_reference(task, length, i, o200k) for i in covering_indices(task))
        }
        check_covers_every_sample(task, seen)


@pytest.mark.parametrize("name", NAMES)
def test_reference_scores_one_at_a_longer_length(name: str, o200k: TiktokenTokenizer) -> None:
    _check_reference(_task(name), 28672, 7, o200k)


def test_every_short_prompt_fits_the_budget(o200k: TiktokenTokenizer) -> None:
    """Small gaps are filled by closing documents (one, or two in place of a whole one)."""
    task = _task("lifbench_batch_label")
    for index in range(16):
        check_fits(task.generate(3072, seed=index, index=index, tokenizer=o200k), o200k)


def test_documents_have_the_asked_fields_and_duplicates(o200k: TiktokenTokenizer) -> None:
    example = _task("lifbench_find_dup_text").generate(28672, seed=1, index=0, tokenizer=o200k)
    docs = parse_docs(example.context)
    assert len(docs) == example.metadata["n_docs"] >= 40
    ids = [d["id"] for d in docs]
    assert all(ID22.match(i) for i in ids) and len(set(ids)) == len(ids)
    for doc in docs:
        assert str(uuid.UUID(doc["iD2"])) == doc["iD2"] and uuid.UUID(doc["iD2"]).version == 4
        assert set(doc) >= {"id", "iD2", "date", "text"} and set(doc) <= set(FIELDS)
        assert all(plain_value(doc[f]) for f in ("id", "iD2", "title", "source") if f in doc)
    lengths = [o200k.count(d["text"]) for d in docs]
    assert all(300 <= n <= 500 for n in lengths[:-2]), lengths
    assert any("title" not in d for d in docs) and any("source" not in d for d in docs)
    assert len({tuple(d) for d in docs}) > 5  # field orders vary
    by_text: dict[str, list[int]] = {}
    for number, doc in enumerate(docs, 1):
        by_text.setdefault(doc["text"], []).append(number)
    groups = [g for g in by_text.values() if len(g) > 1]
    assert groups == example.metadata["groups"]
    assert 1 <= len(groups) <= MAX_GROUPS and groups[0][:2] == [1, 2]
    fields = example.metadata["fields"]
    assert example.metadata["values"] == [
        [[docs[k - 1].get(f) for f in fields] for k in group] for group in groups
    ]


def test_duplicate_groups_follow_lifbenchs_pool(o200k: TiktokenTokenizer) -> None:
    """Five groups over the pool, the first holding documents 1 and 2, a quarter of the
    documents from the third on in some group."""
    stream = docs_stream(11, o200k)
    stream.cover(300 * 500, o200k)  # some 300 documents
    docs = stream.docs
    by_text: dict[str, list[int]] = {}
    for number, doc in enumerate(docs, 1):
        by_text.setdefault(doc.text, []).append(number)
    groups = sorted(g for g in by_text.values() if len(g) > 1)
    assert len(groups) == MAX_GROUPS and groups[0][:2] == [1, 2]
    members = sum(len(g) for g in groups) - 2  # docs 1 and 2 are in one by construction
    assert abs(members / (len(docs) - 2) - GROUP_SHARE) < 0.07, members / len(docs)


def test_titles_and_sources_are_missing_as_often_as_in_lifbench(o200k: TiktokenTokenizer) -> None:
    """LIFBench: a quarter of its pool (GovReport) has no title; one document in nine has
    no source."""
    stream = docs_stream(12, o200k)
    stream.cover(400 * 500, o200k)
    docs = stream.docs
    no_title = sum(d.title is None for d in docs) / len(docs)
    no_source = sum(d.source is None for d in docs) / len(docs)
    assert abs(no_title - 1 / 4) < 0.06 and abs(no_source - 1 / 9) < 0.05, (no_title, no_source)


def test_batch_label_uses_lifbenchs_four_labels_by_title_and_source(
    o200k: TiktokenTokenizer,
) -> None:
    assert LABEL_SETS == (
        ("11311", "22422", "33233", "44444"),
        ("apple", "banana", "cat", "dog"),
        ("dog", "cat", "apple", "banana"),
        ("complete", "miss_title", "miss_source", "incomplete"),
        ("incomplete", "miss_source", "miss_title", "complete"),
    )
    task = _task("lifbench_batch_label")
    assert [tuple(v["labels"]) for v in task.spec.variables] == list(LABEL_SETS)
    slots: set[int] = set()
    for index in range(len(task.spec.expressions) * len(LABEL_SETS)):
        example = task.generate(28672, seed=2, index=index, tokenizer=o200k)
        labels = example.metadata["labels"]
        for doc, label in zip(
            parse_docs(example.context), example.metadata["expected"], strict=True
        ):
            slot = 2 * ("title" not in doc) + ("source" not in doc)
            assert label == labels[slot]
            slots.add(slot)
    assert slots == {0, 1, 2, 3}


def test_find_dup_text_asks_for_lifbenchs_fields() -> None:
    task = _task("lifbench_find_dup_text")
    assert DUP_FIELDS == (
        ("iD2",),
        ("id",),
        ("id", "title"),
        ("iD2", "date"),
        ("id", "source", "title"),
    )
    assert [tuple(v["fields"]) for v in task.spec.variables] == list(DUP_FIELDS)


def test_short_lengths_still_have_a_duplicate_group(o200k: TiktokenTokenizer) -> None:
    task = _task("lifbench_find_dup_text")
    for seed in range(4):
        meta = task.generate(3072, seed=seed, index=0, tokenizer=o200k).metadata
        assert 1 <= len(meta["groups"]) <= 2 and meta["groups"][0][:2] == [1, 2]


# -- the original's rules on wrong answers (hand-checked values; the parity fixtures
# -- hold hundreds more, computed by the original's code)


def _dup_example(o200k: TiktokenTokenizer, fields: int = 1, **params: object) -> Example:
    task = _task("lifbench_find_dup_text", **params)
    for index in range(40):
        example = task.generate(6144, seed=2, index=index, tokenizer=o200k)
        if len(example.metadata["fields"]) == fields:
            return example
    raise AssertionError("no such example")


def test_find_dup_text_keeps_the_originals_slicing_and_comma_quote_bugs(
    o200k: TiktokenTokenizer,
) -> None:
    original, corrected = _dup_example(o200k, 3), _dup_example(o200k, 3, rules=RULES_CORRECTED)
    groups = original.metadata["values"]
    prose = "Groups: " + "\n".join(json.dumps(g) for g in groups)
    # Every span is cut at the whole output's first "[" (offset 8): none parses.
    assert earned_points(score_example(original, prose))["format"] == pytest.approx(2.5 / 5)
    assert earned_points(score_example(corrected, prose))["format"] == pytest.approx(4.5 / 5)
    compact = "\n".join(json.dumps(g, separators=(",", ":")) for g in groups)
    # `,"` deleted before the literal read: ["id","src","title"] becomes one value.
    assert earned_points(score_example(original, compact))["ori"] < 1.0
    assert earned_points(score_example(corrected, compact))["ori"] == 1.0


def test_find_dup_text_ori_can_exceed_its_weight_as_published(o200k: TiktokenTokenizer) -> None:
    original, corrected = _dup_example(o200k, 3), _dup_example(o200k, 3, rules=RULES_CORRECTED)
    first = original.metadata["values"][0]
    short_first = json.dumps([first[0][:1], [v for row in first for v in row]])
    score = score_example(original, short_first)
    assert earned_points(score)["ori"] > 1.0 and score.value is not None
    assert earned_points(score_example(corrected, short_first))["ori"] <= 1.0


def test_find_dup_text_output_without_an_answer_earns_what_the_original_gives(
    o200k: TiktokenTokenizer,
) -> None:
    example = _dup_example(o200k)
    groups = len(example.metadata["groups"])
    score = score_example(example, "I could not find any duplicates.")
    points = earned_points(score)
    # No span: the "none fails" and "all lists of lists" checks hold vacuously (2 of 5),
    # and num_text gives 4 * (1 - G / (G + 2)) of 5.
    assert points["format"] == pytest.approx(2 / 5) and points["correct"] == 0.0
    assert points["num_text"] == pytest.approx(4 * (1 - groups / (groups + 2)) / 5)
    assert score.status is ScoreStatus.OK
    assert score_example(example, "  ").status is ScoreStatus.UNPARSED


def _label_example(o200k: TiktokenTokenizer, **params: object) -> tuple[Example, dict[str, str]]:
    task = _task("lifbench_batch_label", **params)
    example = task.generate(6144, seed=4, index=18, tokenizer=o200k)  # complete/.../incomplete
    assert "complete" in example.metadata["labels"]
    return example, json.loads(example.metadata["reference"])


def test_batch_label_reads_labels_by_position_and_substring(o200k: TiktokenTokenizer) -> None:
    example, answer = _label_example(o200k)
    corrected, _ = _label_example(o200k, rules=RULES_CORRECTED)
    n = example.metadata["n_docs"]
    assert "complete" in answer.values()
    swapped = json.dumps({k: "incomplete" if v == "complete" else v for k, v in answer.items()})
    assert score_example(example, swapped).value == 1.0  # "complete" is in "incomplete"
    assert earned_points(score_example(corrected, swapped))["logit_correct"] < 1.0
    missing = dict(answer)
    del missing["doc2"]
    points = earned_points(score_example(example, json.dumps(missing)))
    # No span splits into n parts: no label credit at all.
    assert points["candi_ori"] == points["logit_correct"] == 0.0
    assert points["num_doc"] == pytest.approx((2.5 * (1 - 1 / n)) / 3)
    upper = earned_points(
        score_example(example, json.dumps({k: v.upper() for k, v in answer.items()}))
    )
    assert upper["candi_ori"] == upper["logit_correct"] == 0.0 and upper["format"] == 1.0


def test_garbage_scores_zero_for_batch_label(o200k: TiktokenTokenizer) -> None:
    example = _task("lifbench_batch_label").generate(3072, seed=0, index=0, tokenizer=o200k)
    score = score_example(example, "I could not sort them.")
    assert score.status is ScoreStatus.UNPARSED and score.value == 0.0


@pytest.mark.parametrize("name", NAMES)
def test_deterministic_per_seed(name: str, o200k: TiktokenTokenizer) -> None:
    a, c = check_deterministic_per_seed(_task(name), o200k)
    assert c.metadata["reference"] != a.metadata["reference"]


def test_gold_run_through_the_cli_scores_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    check_gold_run_scores_one(tmp_path / "multidoc.duckdb", ",".join(NAMES), 4)
    capsys.readouterr()
