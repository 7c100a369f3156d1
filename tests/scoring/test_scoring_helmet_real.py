"""The rubric points of HELMET's real-data scorers say what the metric hides.

The values are HELMET's (tests/parity/test_helmet_real.py checks them against the
original); these tests check the points and explanations beside them.
"""

from __future__ import annotations

from typing import Any

import pytest

from helpers.example_factory import make_test_example
from lctui.core.types import Example, Score, ScoreStatus
from lctui.scoring import SCORER_VERSIONS, score_example
from lctui.scoring.helmet_alce import POINT_CITES, POINT_LISTED_CORRECT, POINT_SUB_ANSWERS
from lctui.scoring.helmet_scorers import (
    POINT_ALL_RANKED,
    POINT_BEST_FIRST,
    POINT_GOLD_COVERED,
    POINT_GOLD_OPTION,
    POINT_KNOWN_IDS,
    POINT_KNOWN_LABEL,
    POINT_LABEL_LINE,
    POINT_NO_PADDING,
    POINT_ONCE,
    POINT_ONE_LETTER,
)
from lctui.scoring.relation import DIAGNOSTIC_POINTS, score_relation

QRELS = {"11": 3, "22": 2, "33": 1, "44": 0, "55": 0, "66": 0}


def _example(scorer: str, gold: tuple[str, ...], prefix: str, **metadata: Any) -> Example:
    return make_test_example(
        task=scorer,
        category="helmet",
        length=4096,
        tokenizer="test",
        preamble="",
        context="context",
        question="question",
        answer_prefix=prefix,
        gold=gold,
        max_new_tokens=200,
        prompt_tokens=4000,
        metadata={"scorer": scorer, **metadata},
    )


def _rerank(output: str) -> Score:
    example = _example("helmet_rerank", ("11 > 22 > 33",), "Ranking:", qrels=QRELS)
    return score_example(example, output)


def _earned(score: Score) -> dict[str, float]:
    return {point.name: point.earned for point in score.points}


def _said(score: Score, name: str) -> str:
    return next(point.explanation for point in score.points if point.name == name)


def test_a_full_ideal_ranking_earns_every_point() -> None:
    score = _rerank(" 11 > 22 > 33 > 44 > 55 > 66")
    assert score.value == 1.0 and score.status == ScoreStatus.OK
    assert set(_earned(score).values()) == {1.0}


def test_a_partial_ranking_is_scored_by_ndcg_but_the_point_counts_the_passages_left_out() -> None:
    score = _rerank(" 11 > 22")
    assert score.value is not None and 0.0 < score.value < 1.0
    assert _earned(score)[POINT_ALL_RANKED] == pytest.approx(2 / 6)
    assert _said(score, POINT_ALL_RANKED) == "ranks 2 of the 6 passages"
    assert _earned(score)[POINT_BEST_FIRST] == 1.0


def test_unknown_and_repeated_ids_are_named() -> None:
    score = _rerank(" 999 > 22 > 22 > 11")
    earned = _earned(score)
    assert earned[POINT_KNOWN_IDS] == pytest.approx(2 / 3)
    assert "999" in _said(score, POINT_KNOWN_IDS)
    assert earned[POINT_ONCE] == pytest.approx(3 / 4)
    # The first passage ranked that exists is 22 (label 2 of a best 3).
    assert earned[POINT_BEST_FIRST] == pytest.approx(2 / 3)
    assert "unknown id" in score.explanation


def test_an_output_without_ids_is_unparsed_and_earns_nothing() -> None:
    score = _rerank(" I would rather not rank these.")
    assert score.value == 0.0 and score.status == ScoreStatus.UNPARSED
    assert set(_earned(score).values()) == {0.0}
    assert score.extracted == ()


def test_a_rerank_example_without_labels_is_a_task_bug() -> None:
    example = _example("helmet_rerank", ("11",), "Ranking:")
    with pytest.raises(ValueError, match="qrels"):
        score_example(example, " 11 > 22")


ICL_NAMES = {"0": "LOC", "3": "NUM", "5": "HUM"}


def _icl(output: str) -> Score:
    example = _example("helmet_icl", ("3",), "label:", label_names=ICL_NAMES)
    return score_example(example, output)


def test_a_wrong_label_is_explained_with_the_labels_it_stands_for() -> None:
    score = _icl(" 5")
    assert score.value == 0.0 and score.status == ScoreStatus.OK
    assert "3 (NUM)" in score.explanation and "HUM" in score.explanation
    assert _earned(score) == {POINT_LABEL_LINE: 1.0, POINT_KNOWN_LABEL: 1.0}


def test_a_label_the_task_does_not_have_loses_the_known_label_point() -> None:
    score = _icl(" 42")
    assert _earned(score)[POINT_KNOWN_LABEL] == 0.0
    assert "none of the task's 3 labels" in _said(score, POINT_KNOWN_LABEL)


def test_an_empty_label_line_is_unparsed() -> None:
    score = _icl("\n3")  # HELMET reads only the answer line, which is empty
    assert score.value == 0.0 and score.status == ScoreStatus.UNPARSED
    assert _earned(score)[POINT_LABEL_LINE] == 0.0


def test_rouge_points_split_recall_from_padding() -> None:
    example = _example("helmet_rouge", ("Mary Ann Smith", "Mary"), "Answer:")
    score = score_example(example, " It was Mary Ann Smith who wrote the letter.")
    earned = _earned(score)
    assert earned[POINT_GOLD_COVERED] == 1.0
    assert 0.0 < earned[POINT_NO_PADDING] < 0.5
    assert "'Mary Ann Smith'" in score.explanation
    empty = score_example(example, "")
    assert empty.value == 0.0 and empty.status == ScoreStatus.UNPARSED


def _mc(letter: str, output: str) -> Score:
    text = {"A": "A. The lighthouse", "B": "B. The harbour"}[letter]
    return score_example(_example("helmet_mc", (letter, text), "Answer:"), output)


def test_an_empty_answer_gets_helmets_credit_for_gold_a_and_the_points_say_why() -> None:
    score = _mc("A", "")
    assert score.value == 1.0  # HELMET's value: "A" normalises to "" (an article)
    assert _earned(score) == {POINT_ONE_LETTER: 0.0, POINT_GOLD_OPTION: 0.0}
    assert "normalises to nothing" in score.explanation
    assert _mc("B", "").value == 0.0


def test_the_option_text_counts_and_a_wrong_letter_does_not() -> None:
    by_text = _mc("B", " I pick b. the harbour.")
    assert by_text.value == 1.0 and _earned(by_text)[POINT_GOLD_OPTION] == 1.0
    wrong = _mc("B", " C")
    assert wrong.value == 0.0
    assert _earned(wrong) == {POINT_ONE_LETTER: 1.0, POINT_GOLD_OPTION: 0.0}


@pytest.mark.parametrize(
    "scorer",
    [
        "helmet_rerank",
        "helmet_icl",
        "helmet_rouge",
        "helmet_mc",
        "helmet_alce_asqa",
        "helmet_alce_qampari",
    ],
)
def test_each_scorer_has_a_version_and_a_relation(scorer: str) -> None:
    assert SCORER_VERSIONS[scorer] == 1
    relation = score_relation(scorer, "")
    assert relation.startswith(("score = HELMET's", "score = ALCE's"))
    assert relation.endswith(DIAGNOSTIC_POINTS)


ASQA_GROUPS = [["Paris", "City of Light"], ["1889"], ["Gustave Eiffel"]]
QAMPARI_GROUPS = [["Oslo"], ["Bergen"], ["Trondheim"], ["Stavanger"], ["Tromsø"], ["Bodø"]]


def _alce(dataset: str, groups: list[list[str]], output: str) -> Score:
    scorer = f"helmet_alce_{dataset}"
    gold = tuple(group[0] for group in groups)
    return score_example(_example(scorer, gold, "", answer_groups=groups), output)


def test_asqa_names_the_sub_questions_it_misses_and_whether_it_cites() -> None:
    score = _alce("asqa", ASQA_GROUPS, "In the City of Light [1], opened 1889 [2].")
    assert score.value == pytest.approx(2 / 3)
    assert "misses Gustave Eiffel" in _said(score, POINT_SUB_ANSWERS)
    assert _earned(score)[POINT_CITES] == 1.0 and score.extras["str_hit"] == 0.0
    uncited = _alce("asqa", ASQA_GROUPS, "Paris, 1889, Gustave Eiffel.")
    assert uncited.value == 1.0 and uncited.extras["str_hit"] == 1.0
    assert _earned(uncited)[POINT_CITES] == 0.0


def test_qampari_recall_stops_at_five_and_precision_counts_wrong_items() -> None:
    names = ", ".join(group[0] for group in QAMPARI_GROUPS[:5])
    score = _alce("qampari", QAMPARI_GROUPS, names + ", Paris, London.")
    assert score.value == 1.0  # five of six gold answers is full recall at 5
    assert _earned(score)[POINT_LISTED_CORRECT] == pytest.approx(5 / 7)
    assert _said(score, POINT_LISTED_CORRECT) == "5 of 7 listed answers are gold answers"
    assert score.extracted[:2] == ("oslo", "bergen")


def test_an_alce_answer_without_words_is_unparsed() -> None:
    assert _alce("asqa", ASQA_GROUPS, " [1] [2]").status == ScoreStatus.UNPARSED
    assert _alce("qampari", QAMPARI_GROUPS, ", ,").status == ScoreStatus.UNPARSED


def test_alce_examples_without_answer_groups_are_a_task_bug() -> None:
    example = _example("helmet_alce_asqa", ("Paris",), "", answer_groups=[["Paris"], []])
    with pytest.raises(ValueError, match="answer_groups"):
        score_example(example, "Paris")


def test_remembered_stems_give_rouge_scores_the_same_as_rouge_scores_own_tokenizer() -> None:
    from rouge_score.rouge_scorer import RougeScorer

    from lctui.scoring.helmet import rouge_l

    own = RougeScorer(["rougeL"], use_stemmer=True)
    gold = "The runners were running quickly towards the finishing lines"
    text = "Runner ran; runs, quicker running-lines finished! " * 50 + "towards the lines"
    ours = rouge_l(text, [gold])
    theirs = own.score(target=gold, prediction=text)["rougeL"]
    assert (ours.precision, ours.recall, ours.f1) == (
        theirs.precision,
        theirs.recall,
        theirs.fmeasure,
    )
    assert 0.0 < ours.f1 < 1.0


ODD_OUTPUTS = [
    "\ud800 lone surrogate > \udfff",
    "\x00\x07\x1b[31m 11 > \x00 22",
    "9" * 5000 + " > " + "0" * 5000,
    ">" * 10000,
    "[" * 5000 + "1" + "]" * 5000,
    "11 > 22 > " * 100_000,
    "\u2028\u0085".join(["label: 3", "Answer: A", "Paris, 1889"] * 1000),
]


def _odd_examples() -> list[Example]:
    return [
        _example("helmet_rerank", ("11 > 22",), "Ranking:", qrels=QRELS),
        _example("helmet_icl", ("3",), "label:", label_names=ICL_NAMES),
        _example("helmet_rouge", ("Mary Ann Smith",), "Answer:"),
        _example("helmet_mc", ("A", "A. The lighthouse"), "Answer:"),
        _example("helmet_alce_asqa", ("Paris",), "", answer_groups=ASQA_GROUPS),
        _example("helmet_alce_qampari", ("Oslo",), "", answer_groups=QAMPARI_GROUPS),
    ]


@pytest.mark.parametrize("output", ODD_OUTPUTS, ids=range(len(ODD_OUTPUTS)))
def test_every_helmet_scorer_scores_odd_outputs_itself_in_range(output: str) -> None:
    from lctui.scoring import SCORERS

    for example in _odd_examples():
        # The scorer itself, not score_example: an exception must fail the test, not
        # become a 0.
        score = SCORERS[str(example.metadata["scorer"])](example, output)
        assert score.value is not None and 0.0 <= score.value <= 1.0, example.task
        assert score.status in (ScoreStatus.OK, ScoreStatus.UNPARSED)
        assert all(0.0 <= point.earned <= 1.0 for point in score.points)


def test_passage_ids_trec_eval_cannot_take_are_refused_as_a_task_bug() -> None:
    example = _example("helmet_rerank", ("11",), "Ranking:", qrels={"\ud800": 1, "11": 0})
    with pytest.raises(ValueError, match="printable ASCII"):
        score_example(example, " 11")
