"""lctui's EM, F1 and SubEM equal HELMET's on every row of helmet_metrics.jsonl.

The fixture holds HELMET's own results (scripts/parity/helmet_metrics.py ran its
utils.py and data.py) for outputs we wrote: on lctui's json_kv examples with lctui's
answer prefix, and on free-text probes with "Answer:". Rows without chat template
have the prefix put in front, as HELMET's eval.py does; lctui's recall scorer does
the same for every json_kv output (the prefix is pre-filled in every prompt format),
so those rows also go through the scorer itself.
"""

from __future__ import annotations

import hashlib
from functools import cache
from typing import Any

import pytest

from helpers.parity_fixtures import load_fixture
from lctui.core.types import Example
from lctui.scoring import score_example
from lctui.scoring.metrics import answer_metrics
from lctui.tasks import get_task
from lctui.tasks.tokenizers import reference_tokenizer

FIXTURE = load_fixture("helmet_metrics")
ROWS = FIXTURE.rows


def _expand(output: Any) -> str:
    if isinstance(output, dict):
        return str(output["repeat"]) * int(output["times"]) + str(output["then"])
    return str(output)


def _same_parsed(ours: str, theirs: Any) -> bool:
    if isinstance(theirs, dict):  # stored by its length and ends
        return (len(ours), ours[:40], ours[-60:]) == (
            theirs["chars"],
            theirs["head"],
            theirs["tail"],
        )
    return ours == theirs


@cache
def _example(task: str, length: int, seed: int, index: int, tokenizer: str) -> Example:
    return get_task(task).generate(length, seed, index, reference_tokenizer(tokenizer))


def _row_id(row: dict[str, Any]) -> str:
    named = row["example"]
    where = f"{named['length']}-{named['index']}" if named else "probe"
    chat = "chat" if row["use_chat_template"] else "prefixed"
    digest = hashlib.sha1(repr(row["output"]).encode()).hexdigest()[:6]
    return f"{row['task']}-{where}-{row['case'][:40]}-{chat}-{digest}"


@pytest.mark.parametrize("row", ROWS, ids=[_row_id(r) for r in ROWS])
def test_metrics_equal_helmets(row: dict[str, Any]) -> None:
    output = _expand(row["output"])
    prefix = row["prefix"]
    scored = output if row["use_chat_template"] else prefix + output
    ours = answer_metrics(scored, row["gold"], prefix)
    theirs = row["helmet"]
    assert ours.substring_exact_match == theirs["substring_exact_match"]
    assert ours.exact_match == theirs["exact_match"]
    assert ours.f1 == pytest.approx(theirs["f1"], abs=1e-9)
    assert _same_parsed(ours.parsed, theirs["parsed_output"])


PREFIXED_JSON_KV = [r for r in ROWS if r["task"] == "json_kv" and not r["use_chat_template"]]


@pytest.mark.parametrize("row", PREFIXED_JSON_KV, ids=[_row_id(r) for r in PREFIXED_JSON_KV])
def test_the_json_kv_scorer_gives_helmets_subem(row: dict[str, Any]) -> None:
    example = _example(**row["example"])
    # The fixture was made from these examples: a changed generator needs it regenerated.
    assert list(example.gold) == row["gold"] and example.answer_prefix == row["prefix"]
    score = score_example(example, _expand(row["output"]))
    assert score.value == row["helmet"]["substring_exact_match"]
    assert score.metric == "subem"


def test_the_fixture_reaches_every_branch() -> None:
    assert FIXTURE.repository == "princeton-nlp/HELMET"
    for task in ("json_kv", "qa"):
        rows = [r for r in ROWS if r["task"] == task]
        for chat in (False, True):
            values = {
                r["helmet"]["substring_exact_match"] for r in rows if r["use_chat_template"] is chat
            }
            assert values == {0.0, 1.0}, (task, chat)
    helmet = [r["helmet"] for r in ROWS]
    # SubEM without EM, EM from the answer line alone, partial F1, a gold matching all.
    assert any(h["substring_exact_match"] == 1.0 and h["exact_match"] == 0.0 for h in helmet)
    assert any(0.0 < h["f1"] < 1.0 for h in helmet)
    assert any(
        r["case"] == "value_on_second_line" and r["helmet"]["parsed_output"] == "" for r in ROWS
    )
    assert any(r["gold"] == ["the an a"] and r["helmet"]["exact_match"] == 1.0 for r in ROWS)
    cases = {r["case"] for r in ROWS if r["task"] == "json_kv"}
    assert {"hyphen_to_en_dash", "curly_quoted", "prefix_repeated", "demo_value"} <= cases
