"""The sentence that says how a score relates to its rubric points, per scorer and metric."""

from __future__ import annotations

import pytest

from lctui.scoring import score_example, score_relation
from lctui.scoring.rubric import weighted_fraction
from lctui.tasks import get_task
from lctui.tasks.tokenizers import reference_tokenizer


@pytest.mark.parametrize(
    ("scorer", "metric", "golds", "expected"),
    [
        (
            "recall",
            "string_match_all",
            10,
            "score = RULER's string_match_all, the share of the 10 gold answers that occur "
            "in the output (case-insensitive substrings); the rubric points are diagnostics "
            "and do not add up to the score",
        ),
        (
            "recall",
            "string_match_all",
            1,
            "score = RULER's string_match_all, 1 if the gold answer occurs in the output "
            "(case-insensitive substring), else 0; the rubric points are diagnostics and do "
            "not add up to the score",
        ),
        (
            "recall",
            "subem",
            1,
            "score = HELMET's SubEM, 1 if the gold answer occurs in the output or its answer "
            "line once both are normalised (lower case, no ASCII punctuation, no articles), "
            "else 0; the rubric points are diagnostics and do not add up to the score",
        ),
    ],
)
def test_recall_scores_name_their_metric_and_call_the_points_diagnostics(
    scorer: str, metric: str, golds: int, expected: str
) -> None:
    assert score_relation(scorer, metric, golds) == expected


@pytest.mark.parametrize("metric", ["string_match_part", "em"])
def test_every_recall_metric_has_its_rule(metric: str) -> None:
    relation = score_relation("recall", metric, 4)
    assert relation.startswith("score = ") and "not recorded" not in relation
    assert relation.endswith("the rubric points are diagnostics and do not add up to the score")


def test_scores_made_of_their_points_say_so() -> None:
    assert score_relation("lifeval", "ars").endswith("the points are the score")
    assert score_relation("lifeval", "lifeval_ars").endswith("the points are the score")
    qa = score_relation("judge", "judge_qa")
    assert qa.startswith("score = fluency x correctness / 3")
    assert "diagnostics" not in qa
    assert score_relation("judge", "judge_summ").startswith("score = F1 of the recall points")


def test_an_unknown_scorer_is_not_guessed() -> None:
    relation = score_relation("custom", "bleu")
    assert relation == (
        "score = bleu from scorer custom; how its rubric points relate to it is not recorded"
    )


def test_the_relation_explains_the_gap_of_issue_15() -> None:
    """cwe: the score (0.10) and the points' weighted mean differ; the line says why."""
    example = get_task("cwe").generate(
        1024, seed=0, index=0, tokenizer=reference_tokenizer("o200k_base")
    )
    score = score_example(example, ", ".join([example.gold[0], "pursuit", "fliers", "fliers"]))
    assert score.value == pytest.approx(0.1)
    assert weighted_fraction(score.points) != pytest.approx(score.value)
    relation = score_relation(score.scorer, score.metric, len(example.gold))
    assert "string_match_all" in relation and "the 10 gold answers" in relation
    assert "do not add up to the score" in relation
