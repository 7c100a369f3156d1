"""One row that cannot be stored as it came never refuses the batch it is in.

Lone UTF-16 surrogates (what a server splitting a pair between two stream chunks
sends) become U+FFFD, a pair split and joined again becomes its character, and a
value out of its column's range becomes NULL; the row says so in `repaired`.
"""

from __future__ import annotations

import dataclasses

from helpers.store_factories import make_example, make_generation, make_score
from lctui.core.types import RubricPoint
from lctui.store import Store
from lctui.store.storable import repair_text


def _fetch(store: Store, sql: str) -> list[tuple[object, ...]]:
    return store.cursor().execute(sql).fetchall()


def test_text_repair_replaces_lone_surrogates_and_rejoins_split_pairs() -> None:
    assert repair_text("plain") == ("plain", False)
    assert repair_text("café ☕") == ("café ☕", False)
    assert repair_text("a\ud800b") == ("a\ufffdb", True)
    assert repair_text("x\ud83d\ude00y") == ("x\U0001f600y", True)  # halves of 😀
    assert repair_text("\ude00\ud83d") == ("\ufffd\ufffd", True)  # wrong order: both lone


def test_a_lone_surrogate_in_an_output_stores_its_row_and_the_rest_of_the_batch(
    store: Store,
) -> None:
    example = make_example()
    store.add_example(example)
    for i in range(5):
        generation = make_generation(example, f"key-{i}", f"gen-{i}")
        if i == 2:
            generation = dataclasses.replace(generation, output="4217 \ud800 and \ud83d\ude00")
        store.add_generation(generation, {})
        store.add_score(f"gen-{i}", make_score())
    store.flush()
    rows = _fetch(store, "SELECT generation_id, output, repaired FROM generations ORDER BY 1")
    assert rows == [
        ("gen-0", "4217.", False),
        ("gen-1", "4217.", False),
        ("gen-2", "4217 \ufffd and \U0001f600", True),
        ("gen-3", "4217.", False),
        ("gen-4", "4217.", False),
    ]
    assert _fetch(store, "SELECT repaired FROM results WHERE generation_id = 'gen-2'") == [(True,)]


def test_error_text_example_text_and_score_text_go_through_the_same_repair(
    store: Store,
) -> None:
    example = dataclasses.replace(make_example(), context="hay \udfff hay", gold=("42\ud800",))
    failed = dataclasses.replace(
        make_generation(example), output="", error="BackendError: server said \ud800"
    )
    score = dataclasses.replace(
        make_score(),
        explanation="found \ud800",
        extracted=("\ud800",),
        points=(RubricPoint("point \ud800", 1.0, 1.0, "why \ud800", ("retrieval",)),),
    )
    store.add_example(example)
    store.add_generation(failed, {})
    store.add_score("gen-0", score)
    store.flush()
    assert _fetch(store, "SELECT context, gold, repaired FROM examples") == [
        ("hay \ufffd hay", '["42\ufffd"]', True)
    ]
    assert _fetch(store, "SELECT error, repaired FROM generations") == [
        ("BackendError: server said \ufffd", True)
    ]
    assert _fetch(store, "SELECT explanation, extracted, repaired FROM scores") == [
        ("found \ufffd", '["\ufffd"]', True)
    ]
    assert _fetch(store, "SELECT name, explanation, repaired FROM rubric_points") == [
        ("point \ufffd", "why \ufffd", True)
    ]


def test_a_number_out_of_its_column_range_becomes_null_not_a_refused_batch(
    store: Store,
) -> None:
    example = make_example()
    store.add_example(example)
    store.add_generation(make_generation(example, "key-0", "gen-0"), {})
    store.add_score("gen-0", make_score())
    huge = dataclasses.replace(
        make_generation(example, "key-1", "gen-1"), prompt_tokens=2**40, output_tokens=7
    )
    store.add_generation(huge, {})
    store.add_score("gen-1", make_score())
    store.flush()
    rows = _fetch(
        store,
        "SELECT generation_id, prompt_tokens, output_tokens, repaired FROM generations ORDER BY 1",
    )
    assert rows == [("gen-0", 3911, 3, False), ("gen-1", None, 7, True)]
