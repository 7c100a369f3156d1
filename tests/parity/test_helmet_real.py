"""lctui's re-ranking, ICL, long-QA and MC metrics equal HELMET's on every row of helmet_real.jsonl.

The fixture holds HELMET's own results (scripts/parity/helmet_real.py ran its loaders'
post-processing from data.py and utils.py, with the real pytrec_eval and rouge_score)
for outputs we wrote. Rows without chat template have the prefix put in front, as
HELMET's eval.py does; lctui's scorers do the same for every output (the prefix is
pre-filled in every prompt format), so those rows also go through the scorers.
"""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from helpers.example_factory import make_test_example
from helpers.parity_fixtures import load_fixture
from lctui.core.types import Example, ScoreStatus
from lctui.scoring import score_example
from lctui.scoring.helmet import (
    choice_match,
    icl_label_match,
    ndcg_at_10,
    parse_ranking,
    qa_rouge_l,
)

FIXTURE = load_fixture("helmet_real")
ROWS = FIXTURE.rows
SCORERS = {"rerank": "helmet_rerank", "icl": "helmet_icl", "qa": "helmet_rouge", "mc": "helmet_mc"}
VALUE = {"rerank": "NDCG@10", "icl": "exact_match", "qa": "rougeL_f1", "mc": "exact_match"}


def _row_id(row: dict[str, Any]) -> str:
    chat = "chat" if row["use_chat_template"] else "prefixed"
    digest = hashlib.sha1(repr((row["gold"], row["output"])).encode()).hexdigest()[:6]
    return f"{row['kind']}-{row['case'][:40]}-{chat}-{digest}"


def _scored(row: dict[str, Any]) -> str:
    output: str = row["output"]
    return output if row["use_chat_template"] else row["prefix"] + output


@pytest.mark.parametrize("row", ROWS, ids=[_row_id(r) for r in ROWS])
def test_metric_equals_helmets(row: dict[str, Any]) -> None:
    theirs = row["helmet"]
    text = _scored(row)
    if row["kind"] == "rerank":
        ranking = parse_ranking(text)
        run = {doc: int(score) for doc, score in ranking.run_scores().items()}
        assert run == theirs["parsed_output"]
        assert len(ranking.ids) == theirs["num_preds"]
        assert ndcg_at_10(ranking, row["qrels"]) == theirs["NDCG@10"]
    elif row["kind"] == "icl":
        match = icl_label_match(text, row["gold"][0], row["prefix"])
        assert match.parsed == theirs["parsed_output"]
        assert match.exact_match == theirs["exact_match"]
    elif row["kind"] == "qa":
        result = qa_rouge_l(text, row["gold"], row["prefix"])
        assert result.parsed == theirs["parsed_output"]
        assert result.f1 == theirs["rougeL_f1"]
    else:
        choice = choice_match(text, row["gold"])
        assert choice.parsed == theirs["parsed_output"]
        assert choice.exact_match == theirs["exact_match"]
        assert float(choice.by_option_text) == theirs["substring_exact_match"]


def _example(row: dict[str, Any]) -> Example:
    metadata: dict[str, Any] = {"scorer": SCORERS[row["kind"]]}
    if row["kind"] == "rerank":
        metadata["qrels"] = row["qrels"]
    return make_test_example(
        task=f"helmet_{row['kind']}",
        category="helmet",
        length=4096,
        tokenizer="test",
        preamble="",
        context="context",
        question="question",
        answer_prefix=row["prefix"],
        gold=tuple(row["gold"]),
        max_new_tokens=200,
        prompt_tokens=4000,
        metadata=metadata,
    )


PREFIXED = [r for r in ROWS if not r["use_chat_template"]]


@pytest.mark.parametrize("row", PREFIXED, ids=[_row_id(r) for r in PREFIXED])
def test_the_scorer_gives_helmets_value(row: dict[str, Any]) -> None:
    score = score_example(_example(row), row["output"])
    assert score.value == row["helmet"][VALUE[row["kind"]]]
    assert score.scorer == SCORERS[row["kind"]]
    assert score.status in (ScoreStatus.OK, ScoreStatus.UNPARSED)
    assert score.points and score.scorer_version == 1


def test_the_fixture_reaches_every_branch() -> None:
    assert FIXTURE.repository == "princeton-nlp/HELMET"
    assert FIXTURE.commit.startswith("4526dfbd")
    for kind, key in VALUE.items():
        for chat in (False, True):
            values = {
                r["helmet"][key]
                for r in ROWS
                if r["kind"] == kind and r["use_chat_template"] is chat
            }
            assert {0.0, 1.0} <= values, (kind, chat)
    for kind in ("rerank", "qa"):
        assert any(0.0 < r["helmet"][VALUE[kind]] < 1.0 for r in ROWS if r["kind"] == kind)
    rerank = [r for r in ROWS if r["kind"] == "rerank"]
    # No integer at all: HELMET ranks the whole cleaned output as one id.
    assert any(r["case"] == "prose_only" and r["helmet"]["num_preds"] == 1 for r in rerank)
    # Repeats keep their first place; unknown ids are kept in the run.
    assert any("999" in r["helmet"]["parsed_output"] for r in rerank)
    # HELMET's MC rule credits an empty answer when the gold letter is A (an article).
    assert any(r["case"] == "A_empty" and r["helmet"]["exact_match"] == 1.0 for r in ROWS)
