"""lctui's ALCE answer correctness equals HELMET's on every row of helmet_alce.jsonl.

The fixture holds the numbers eval_alce.py (HELMET's copy of ALCE's evaluation) wrote
for one-example results files of our outputs (scripts/parity/helmet_alce.py). ALCE
reports means x 100; lctui's scores are the unscaled shares.
"""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from helpers.example_factory import make_test_example
from helpers.parity_fixtures import load_fixture
from lctui.scoring import score_example
from lctui.scoring.helmet_alce import listed_answers, qampari_scores, sub_answers_found

FIXTURE = load_fixture("helmet_alce")
ROWS = FIXTURE.rows


def _row_id(row: dict[str, Any]) -> str:
    digest = hashlib.sha1(repr((row["groups"], row["output"])).encode()).hexdigest()[:6]
    return f"{row['dataset']}-{row['case'][:40]}-{digest}"


@pytest.mark.parametrize("row", ROWS, ids=[_row_id(r) for r in ROWS])
def test_answer_correctness_equals_helmets(row: dict[str, Any]) -> None:
    theirs = row["helmet"]
    if row["dataset"] == "asqa":
        found = sub_answers_found(row["output"], row["groups"])
        assert 100 * (sum(found) / len(found)) == theirs["str_em"]
        assert 100 * float(all(found)) == theirs["str_hit"]
    else:
        result = qampari_scores(row["output"], row["groups"])
        assert 100 * result.rec_top5 == theirs["qampari_rec_top5"]
        assert 100 * result.precision == theirs["qampari_prec"]
        assert len(listed_answers(row["output"])) == theirs["num_preds"]


@pytest.mark.parametrize("row", ROWS, ids=[_row_id(r) for r in ROWS])
def test_the_scorer_gives_helmets_value(row: dict[str, Any]) -> None:
    scorer = f"helmet_alce_{row['dataset']}"
    example = make_test_example(
        task=scorer,
        category="helmet",
        length=4096,
        tokenizer="test",
        preamble="",
        context="documents",
        question="question",
        answer_prefix="",
        gold=tuple(group[0] for group in row["groups"]),
        max_new_tokens=300,
        prompt_tokens=4000,
        metadata={"scorer": scorer, "answer_groups": row["groups"]},
    )
    score = score_example(example, row["output"])
    key = "str_em" if row["dataset"] == "asqa" else "qampari_rec_top5"
    assert score.value is not None
    assert 100 * score.value == row["helmet"][key]
    if row["dataset"] == "asqa":
        assert 100 * score.extras["str_hit"] == row["helmet"]["str_hit"]


def test_the_fixture_reaches_every_branch() -> None:
    assert FIXTURE.repository == "princeton-nlp/HELMET"
    str_em = {r["helmet"]["str_em"] for r in ROWS if r["dataset"] == "asqa"}
    assert {0.0, 100.0} <= str_em and any(0 < v < 100 for v in str_em)
    qampari = [r["helmet"] for r in ROWS if r["dataset"] == "qampari"]
    assert {0.0, 100.0} <= {h["qampari_rec_top5"] for h in qampari}
    # Seven gold answers: five named is full recall at 5.
    assert any(r["case"] == "five_cited" and r["helmet"]["qampari_rec_top5"] == 100.0 for r in ROWS)
    assert any(h["num_preds"] == 0 for h in qampari)
