"""ALCE's citation rules (scoring/citations.py) as a score: one rubric point per sentence,
precision beside recall, the edge cases ALCE has (no sentence, no citation, out of range,
more than three citations), with entailment decided by a rule written for the test."""

from __future__ import annotations

from lctui.core.types import ScoreStatus
from lctui.scoring.citations import (
    CITATION_SCORER,
    PRECISION_METRIC,
    CitedDoc,
    citation_result,
    citation_score,
    split_sentences,
)

DOCS = [
    CitedDoc("Brava", "Brava is a river."),
    CitedDoc("Dunmor", "Dunmor is a town."),
    CitedDoc("Velkio", "Velkio is a lake."),
]


def rule_entails(premise: str, hypothesis: str) -> bool:
    """Entailed when every capitalised word of the claim is in the premise."""
    names = {w.strip(".,") for w in hypothesis.split() if w[:1].isupper()}
    return bool(names) and all(name in premise for name in names)


def test_each_sentence_is_a_point_earned_when_its_citations_entail_it() -> None:
    output = "Brava is a river [1]. Dunmor is a town [3]. Velkio is a lake [3][1]."
    result = citation_result(output, "q", DOCS, rule_entails, qampari=False)
    score = citation_score(result, len(DOCS), "rule")
    assert (score.scorer, score.metric, score.status) == (CITATION_SCORER, "citation_rec", "ok")
    assert score.value == 2 / 3
    # Citations counted: 1 + 1 + 2; needed: [1], and [3] of the last ([1] is not needed).
    assert score.extras[PRECISION_METRIC] == 2 / 4
    assert [p.earned for p in score.points] == [1.0, 0.0, 1.0]
    assert "do not entail" in score.points[1].explanation
    assert "not needed: [1]" in score.points[2].explanation
    assert score.extras["cited"] == [[1], [3], [3, 1]]


def test_no_citation_out_of_range_and_a_fourth_citation() -> None:
    output = "Brava is a river. Brava is a river [4]. Brava is a river [2][3][2][1]."
    result = citation_result(output, "q", DOCS, rule_entails, qampari=False)
    assert [v.supported for v in result.sentences] == [False, False, False]
    assert [v.counted for v in result.sentences] == [(), (), (2, 3, 2)]
    points = citation_score(result, len(DOCS), "rule").points
    assert "cites no document" in points[0].explanation
    assert "not all of them among the 3 documents" in points[1].explanation


def test_an_output_without_sentences_is_left_out_not_scored_zero() -> None:
    result = citation_result("Ok. [1]", "q", DOCS, rule_entails, qampari=False)
    assert result.recall is None and result.precision is None
    score = citation_score(result, len(DOCS), "rule")
    assert score.status == ScoreStatus.UNPARSED and "leaves this output out" in score.explanation
    # QAMPARI always has an item: an empty output is one uncited answer, scored 0.
    empty = citation_result("", "Which?", DOCS, rule_entails, qampari=True)
    assert (empty.recall, empty.precision) == (0.0, 0.0)


def test_qampari_items_are_read_with_the_question_in_front() -> None:
    assert split_sentences("Brava [1],\nDunmor [2].", "Which?", qampari=True) == [
        "Which? Brava [1]",
        "Which? Dunmor [2]",
    ]
