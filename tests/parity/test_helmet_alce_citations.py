"""lctui's ALCE citation recall and precision equal HELMET's on every row of
helmet_alce_citations.jsonl.

The fixture holds what eval_alce.py (HELMET's copy of ALCE's evaluation) computed, with
its NLI model replaced by a deterministic oracle, on one-example results files of our
outputs (scripts/parity/helmet_alce_citations.py), plus the (premise, claim) pairs it
asked the oracle, in order. Here the same oracle decides entailment for lctui's rules;
sentences are split by the untrained Punkt tokenizer on both sides.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from helpers.parity_fixtures import load_fixture
from lctui.scoring import citations
from lctui.scoring.citations import CitedDoc, citation_result

FIXTURE = load_fixture("helmet_alce_citations")
ROWS = FIXTURE.rows
FACT = re.compile(r"\b[a-z]+\d+\b")


def oracle_entails(premise: str, hypothesis: str) -> bool:
    """The fixture's stand-in for the NLI model (the glue script's rule)."""
    wanted = set(FACT.findall(hypothesis))
    return bool(wanted) and wanted <= set(FACT.findall(premise))


@pytest.fixture(autouse=True)
def _untrained_punkt(monkeypatch: pytest.MonkeyPatch) -> None:
    from nltk.tokenize.punkt import PunktSentenceTokenizer

    split = PunktSentenceTokenizer().tokenize
    monkeypatch.setattr(citations, "_sentence_splitter", lambda: (split, "punkt-untrained"))


@pytest.mark.parametrize("row", ROWS, ids=[f"{r['dataset']}-{r['case']}" for r in ROWS])
def test_citation_recall_and_precision_equal_helmets(row: dict[str, Any]) -> None:
    calls: list[list[str]] = []

    def entails(premise: str, hypothesis: str) -> bool:
        calls.append([premise, hypothesis])
        return oracle_entails(premise, hypothesis)

    qampari = row["dataset"] == "qampari"
    docs = [CitedDoc(d["title"], d["text"]) for d in row["docs"]]
    results = [citation_result(o, row["question"], docs, entails, qampari) for o in row["outputs"]]
    counted = [r for r in results if r.recall is not None]
    theirs = row["helmet"]
    # ALCE leaves an output without sentences out of its means (0 when none is left).
    recall = 100 * sum(r.recall or 0.0 for r in counted) / len(counted) if counted else 0
    precision = 100 * sum(r.precision or 0.0 for r in counted) / len(counted) if counted else 0
    assert recall == pytest.approx(theirs["citation_rec"], abs=1e-9)
    assert precision == pytest.approx(theirs["citation_prec"], abs=1e-9)
    assert calls == theirs["calls"]


def test_the_fixture_reaches_every_rule() -> None:
    cases = {(r["dataset"], r["case"]): r["helmet"] for r in ROWS}
    # Out of range: no check at all; "[0]" is the last document (ALCE's index - 1).
    assert cases["asqa", "out_of_range"]["calls"] == []
    assert cases["asqa", "zero_is_last_doc"]["citation_rec"] == 100.0
    # An unneeded citation halves precision; a fourth citation is not read.
    assert cases["asqa", "one_unneeded"]["citation_prec"] == 50.0
    assert cases["asqa", "four_citations"]["citation_prec"] == pytest.approx(100 / 3)
    # No sentence: left out of the mean.
    assert cases["asqa", "empty"]["citation_rec"] == 0
    assert any(r["case"] == "all_cases_in_one_file" for r in ROWS)
