"""`get_generation` answers with a frozen, typed `GenerationRecord` on a real file."""

from __future__ import annotations

import dataclasses
from datetime import datetime

import pytest

from helpers.store_factories import MODEL, make_example, make_generation, make_score
from lctui.core.types import Span
from lctui.store import Store, get_generation
from lctui.store.read.generations import (
    AttemptRecord,
    GenerationRecord,
    RubricPointRecord,
    ScoreRecord,
)


def test_get_generation_is_a_frozen_record_with_typed_scores_points_and_attempts(
    store: Store,
) -> None:
    example = make_example()
    store.add_model(MODEL, "fp-tiny", "o200k_base", 8192)
    store.start_run("run-1", {"argv": ["run"]})
    store.add_example(example)
    store.add_generation(make_generation(example), {"max_new_tokens": 32})
    store.add_score("gen-0", make_score(0.75))
    store.finish_run("run-1", "finished")

    record = get_generation(store, "gen-0")
    assert isinstance(record, GenerationRecord)
    with pytest.raises(dataclasses.FrozenInstanceError):
        record.output = "changed"  # type: ignore[misc]
    assert (record.model, record.task, record.length, record.idx) == (
        "tiny",
        "niah_single",
        4096,
        0,
    )
    assert record.gold == ("4217",) and record.spans == (Span(280, 306, "needle", "n0"),)
    assert record.prompt == "<|user|>\n" + example.user_text + (record.prompt_tail or "")
    assert (record.score, record.score_status, record.result_status) == (0.75, "ok", "ok")
    (score,) = record.scores
    assert isinstance(score, ScoreRecord) and isinstance(score.scored_at, datetime)
    assert score.extracted == ("4217",)
    assert all(isinstance(p, RubricPointRecord) for p in score.points)
    assert [p.capabilities for p in score.points] == [("retrieval",), ("format", "brevity")]
    (attempt,) = record.attempts
    assert isinstance(attempt, AttemptRecord) and attempt.generation_id == "gen-0"
    assert store.get_generation("gen-0") == record


def test_get_generation_without_its_example_has_no_prompt(store: Store) -> None:
    store.add_model(MODEL, "fp-tiny", "o200k_base", 8192)
    store.start_run("run-1", {"argv": ["run"]})
    store.add_generation(make_generation(make_example()), {"max_new_tokens": 32})
    store.finish_run("run-1", "finished")

    record = get_generation(store, "gen-0")
    assert record is not None
    assert (record.prompt, record.task, record.gold, record.spans) == (None, None, (), ())
    assert (record.scores, record.result_status) == ((), "unscored")
