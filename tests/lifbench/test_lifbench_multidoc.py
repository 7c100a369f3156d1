"""LIFBench MultiDoc: documents, budgets, reference answers, the rubric on wrong answers."""

from __future__ import annotations

import json
import re
import uuid
from collections import Counter
from pathlib import Path

import pytest
from lifbench_checks import (
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
from lctui.tasks import get_task, select_tasks
from lctui.tasks.lifbench.multidoc import MultiDocTask
from lctui.tasks.lifbench.multidoc_context import FIELDS, parse_docs

NAMES = ["lifbench_find_dup_text", "lifbench_batch_label"]
ID22 = re.compile(r"^[A-Za-z0-9_-]{22}$")


def _task(name: str) -> MultiDocTask:
    task = get_task(name)
    assert isinstance(task, MultiDocTask)
    return task


def test_both_tasks_are_registered_after_the_list_tasks() -> None:
    assert [t.name for t in select_tasks(",".join(NAMES))] == NAMES
    assert [t.name for t in select_tasks("lifbench")][6:8] == NAMES
    for name in NAMES:
        task = _task(name)
        assert task.category == task.suite == "lifbench" and task.metric == "lifeval_ars"
        assert len(task.spec.expressions) >= 5 and len(task.spec.variables) >= 5
        assert task.max_new_tokens == 4096 == task.answer_tokens(122880)
        assert task.answer_tokens(3072) < 1024


def _check_reference(task: MultiDocTask, length: int, index: int, o200k) -> Example:  # type: ignore[no-untyped-def]
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
@pytest.mark.parametrize("length", [3072, 6144])
def test_reference_scores_one_for_every_expression_and_variable(
    name: str, length: int, o200k
) -> None:  # type: ignore[no-untyped-def]
    task = _task(name)
    seen = {
        (e.metadata["expression"], e.metadata["variable"])
        for e in (_check_reference(task, length, i, o200k) for i in covering_indices(task))
    }
    check_covers_every_sample(task, seen)


@pytest.mark.parametrize("name", NAMES)
def test_reference_scores_one_at_a_longer_length(name: str, o200k) -> None:  # type: ignore[no-untyped-def]
    _check_reference(_task(name), 28672, 7, o200k)


def test_every_short_prompt_fits_the_budget(o200k) -> None:  # type: ignore[no-untyped-def]
    """Small gaps are filled by closing documents (one, or two in place of a whole one)."""
    task = _task("lifbench_batch_label")
    for index in range(16):
        check_fits(task.generate(3072, seed=index, index=index, tokenizer=o200k), o200k)


def test_documents_have_the_asked_fields_and_duplicates(o200k) -> None:  # type: ignore[no-untyped-def]
    example = _task("lifbench_find_dup_text").generate(28672, seed=1, index=0, tokenizer=o200k)
    docs = parse_docs(example.context)
    assert len(docs) == example.metadata["n_docs"] >= 40
    ids = [d["id"] for d in docs]
    assert all(ID22.match(i) for i in ids) and len(set(ids)) == len(ids)
    for doc in docs:
        assert str(uuid.UUID(doc["iD2"])) == doc["iD2"] and uuid.UUID(doc["iD2"]).version == 4
        assert set(doc) >= {"id", "iD2", "date", "text"} and set(doc) <= set(FIELDS)
    lengths = [o200k.count(d["text"]) for d in docs]
    assert all(300 <= n <= 500 for n in lengths[:-2]), lengths
    assert any("title" not in d for d in docs) and any("source" not in d for d in docs)
    assert len({tuple(d) for d in docs}) > 5  # field orders vary
    by_text: dict[str, list[int]] = {}
    for number, doc in enumerate(docs, 1):
        by_text.setdefault(doc["text"], []).append(number)
    groups = [g for g in by_text.values() if len(g) > 1]
    assert groups == example.metadata["groups"]
    assert 1 <= len(groups) <= 5
    copies = sum(len(g) - 1 for g in groups)
    assert 0.18 <= copies / len(docs) <= 0.3
    assert example.metadata["values"] == ids


def test_short_lengths_still_have_a_duplicate_group(o200k) -> None:  # type: ignore[no-untyped-def]
    task = _task("lifbench_find_dup_text")
    for seed in range(4):
        meta = task.generate(3072, seed=seed, index=0, tokenizer=o200k).metadata
        assert 1 <= len(meta["groups"]) <= 2 and meta["n_docs"] >= 4


# -- find_dup_text: wrong answers lose the right points


def _dup_example(o200k, field: str = "id", fmt: str = "json") -> Example:  # type: ignore[no-untyped-def]
    task = _task("lifbench_find_dup_text")
    for index in range(40):
        example = task.generate(6144, seed=2, index=index, tokenizer=o200k)
        meta = example.metadata
        if meta["field"] == field and meta["format"] == fmt and len(meta["groups"]) >= 2:
            return example
    raise AssertionError("no such example")


def _dup_lines(example: Example, groups: list[list[int]], field: str | None = None) -> str:
    docs = parse_docs(example.context)
    wanted = field or example.metadata["field"]
    return "\n".join(json.dumps([docs[k - 1].get(wanted, "None") for k in g]) for g in groups)


def test_a_group_missing_a_document_loses_correct_and_num_text(o200k) -> None:  # type: ignore[no-untyped-def]
    example = _dup_example(o200k)
    groups = [list(g) for g in example.metadata["groups"]]
    groups[0] = groups[0][:-1]
    score = score_example(example, _dup_lines(example, groups))
    points = earned_points(score)
    assert points["correct"] < 1.0 and points["num_text"] < 1.0
    assert points["ori"] == 1.0 and points["format"] == 1.0
    assert "missed (doc" in score.explanation


def test_an_extra_group_loses_only_num_text(o200k) -> None:  # type: ignore[no-untyped-def]
    example = _dup_example(o200k)
    groups = [list(g) for g in example.metadata["groups"]]
    grouped = {k for g in groups for k in g}
    loners = [k for k in range(1, example.metadata["n_docs"] + 1) if k not in grouped]
    points = earned_points(score_example(example, _dup_lines(example, [*groups, loners[:2]])))
    assert points["num_text"] < 1.0
    assert points["correct"] == points["ori"] == points["format"] == 1.0


def test_the_wrong_field_loses_ori_and_correct(o200k) -> None:  # type: ignore[no-untyped-def]
    example = _dup_example(o200k)
    score = score_example(example, _dup_lines(example, example.metadata["groups"], "iD2"))
    points = earned_points(score)
    assert points["ori"] == 0.0 and points["correct"] == 0.0
    assert points["num_text"] == 1.0 and points["format"] == 1.0
    assert "no id matches" in score.explanation


def test_misspelled_ids_earn_part_of_ori(o200k) -> None:  # type: ignore[no-untyped-def]
    example = _dup_example(o200k)
    reference = example.metadata["reference"]
    first = json.loads(reference.splitlines()[0])[0]
    typo = first[:5] + ("x" if first[5] != "x" else "y") + first[6:]
    points = earned_points(score_example(example, reference.replace(first, typo, 1)))
    assert 0.0 < points["ori"] < 1.0
    assert points["correct"] == points["num_text"] == points["format"] == 1.0


def test_the_wrong_list_format_loses_only_format(o200k) -> None:  # type: ignore[no-untyped-def]
    example = _dup_example(o200k, "title", "bare")
    as_json = _dup_lines(example, example.metadata["groups"])
    points = earned_points(score_example(example, as_json))
    assert points["format"] == 0.0
    assert points["correct"] == points["num_text"] == points["ori"] == 1.0
    json_example = _dup_example(o200k, "id", "json")
    lines = _dup_lines(json_example, json_example.metadata["groups"]).splitlines()
    points = earned_points(score_example(json_example, "[" + ", ".join(lines) + "]"))
    assert points["format"] == 0.25 and points["correct"] == 1.0


def test_garbage_is_unparsed(o200k) -> None:  # type: ignore[no-untyped-def]
    for name in NAMES:
        example = _task(name).generate(3072, seed=0, index=0, tokenizer=o200k)
        score = score_example(example, "I could not find anything of the kind.")
        assert score.status is ScoreStatus.UNPARSED and score.value == 0.0


# -- batch_label


def _label_example(o200k) -> tuple[Example, dict[str, str]]:  # type: ignore[no-untyped-def]
    example = _task("lifbench_batch_label").generate(6144, seed=4, index=6, tokenizer=o200k)
    return example, json.loads(example.metadata["reference"])


def _other(labels: list[str], label: str) -> str:
    return next(x for x in labels if x != label)


def test_one_wrong_label_loses_part_of_logit_correct(o200k) -> None:  # type: ignore[no-untyped-def]
    example, answer = _label_example(o200k)
    labels, n = example.metadata["labels"], example.metadata["n_docs"]
    right = answer["doc3"]
    answer["doc3"] = _other(labels, right)
    score = score_example(example, json.dumps(answer))
    points = earned_points(score)
    assert points["logit_correct"] == pytest.approx((n - 1) / n)
    assert points["candi_ori"] == points["num_doc"] == points["format"] == 1.0
    assert f"doc3: expected {right!r}, got {answer['doc3']!r}" in score.explanation


def test_a_label_outside_the_set_loses_candi_ori(o200k) -> None:  # type: ignore[no-untyped-def]
    example, answer = _label_example(o200k)
    answer["doc2"] = "purple"
    points = earned_points(score_example(example, json.dumps(answer)))
    assert points["candi_ori"] < 1.0 and points["logit_correct"] < 1.0
    assert points["num_doc"] == points["format"] == 1.0


def test_missing_and_extra_documents_lose_num_doc(o200k) -> None:  # type: ignore[no-untyped-def]
    example, answer = _label_example(o200k)
    n = example.metadata["n_docs"]
    missing = dict(answer)
    del missing["doc5"]
    score = score_example(example, json.dumps(missing))
    points = earned_points(score)
    assert points["num_doc"] == pytest.approx((n - 1) / n) and "missing doc5" in score.explanation
    assert points["candi_ori"] == points["format"] == 1.0
    extra = {**answer, f"doc{n + 1}": answer["doc1"]}
    points = earned_points(score_example(example, json.dumps(extra)))
    assert points["num_doc"] < 1.0 and points["logit_correct"] == 1.0


def test_prose_instead_of_json_loses_format(o200k) -> None:  # type: ignore[no-untyped-def]
    example, answer = _label_example(o200k)
    lines = "\n".join(f"{key}: {label}" for key, label in answer.items())
    points = earned_points(score_example(example, lines))
    assert points["format"] == 0.0
    assert points["candi_ori"] == points["logit_correct"] == points["num_doc"] == 1.0
    wrapped = "Here are the labels:\n" + json.dumps(answer) + "\nDone."
    assert earned_points(score_example(example, wrapped))["format"] == 0.5
    counts = Counter(answer.values())
    assert sum(counts.values()) == example.metadata["n_docs"]


@pytest.mark.parametrize("name", NAMES)
def test_deterministic_per_seed(name: str, o200k) -> None:  # type: ignore[no-untyped-def]
    a, c = check_deterministic_per_seed(_task(name), o200k)
    assert c.metadata["reference"] != a.metadata["reference"]


def test_gold_run_through_the_cli_scores_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    check_gold_run_scores_one(tmp_path / "multidoc.duckdb", ",".join(NAMES), 4)
    capsys.readouterr()
