"""How a score's value relates to its rubric points, in one sentence for every screen.

A recall score is the original benchmark's metric (RULER's string_match_all, HELMET's
SubEM...), kept equal to the original harness's number; its rubric points are
diagnostics beside it and do not add up to it. A LIFEval score is its points (their
weighted mean; a suite's scorer declares its sentence, `SuiteScorer.relation`), and a
judge's score is computed from the judge's grades. The inspector
and `lctui show` print this sentence under a score, so a reader never has to guess why
the points and the value differ. Derived from the scorer and metric names alone, so it
holds for scores stored before it was written.
"""

from __future__ import annotations

from lctui.core.suites import declared_scorer
from lctui.scoring.helmet_alce import ASQA_SCORER, QAMPARI_SCORER
from lctui.scoring.helmet_scorers import ICL_SCORER, MC_SCORER, RERANK_SCORER, ROUGE_SCORER
from lctui.scoring.judge import JUDGE_SCORER, METRICS, QA, SUMM
from lctui.scoring.recall import SCORER_NAME as RECALL_SCORER

DIAGNOSTIC_POINTS = "the rubric points are diagnostics and do not add up to the score"
# HELMET's real-data scorers (scoring/helmet_scorers.py, helmet_alce.py): their value
# is the metric.
_HELMET_RULES = {
    RERANK_SCORER: "HELMET's NDCG@10 (trec_eval, graded labels, rounded to 5 decimals) "
    "of the ranking read from the output",
    ICL_SCORER: "HELMET's EM, 1 if the label on the answer line equals the gold label once "
    "both are normalised, else 0",
    ROUGE_SCORER: "HELMET's ROUGE-L F1 (rouge-score, stemmed), the best over the gold "
    "answers and over the output and its answer line",
    MC_SCORER: "HELMET's multiple-choice EM, 1 if the output or its answer line equals the "
    "gold letter or option once normalised, or holds the gold option's text, else 0",
    ASQA_SCORER: "ALCE's STR-EM, the share of sub-questions one of whose short answers "
    "occurs in the output once citations are removed and both are normalised",
    QAMPARI_SCORER: "ALCE's QAMPARI recall at 5, the gold answers named exactly by an item "
    "of the comma-separated output, at most 5, over min(5, gold answers)",
}


def _recall_rule(metric: str, gold_count: int | None) -> str | None:
    if gold_count is None:
        golds, any_gold = "the gold answers", "a gold answer"
    elif gold_count == 1:
        golds = any_gold = "the gold answer"
    else:
        golds, any_gold = f"the {gold_count} gold answers", f"one of the {gold_count} gold answers"
    share = (
        f"1 if {golds} occurs in the output (case-insensitive substring), else 0"
        if gold_count == 1
        else f"the share of {golds} that occur in the output (case-insensitive substrings)"
    )
    rules = {
        "string_match_all": f"RULER's string_match_all, {share}",
        "string_match_part": f"RULER's string_match_part, 1 if {any_gold} occurs in the "
        "output (case-insensitive substring), else 0",
        "subem": f"HELMET's SubEM, 1 if {any_gold} occurs in the output or its answer line "
        "once both are normalised (lower case, no ASCII punctuation, no articles), else 0",
        "em": f"HELMET's EM, 1 if the output or its answer line equals {any_gold} once both "
        "are normalised, else 0",
    }
    return rules.get(metric)


def score_relation(scorer: str, metric: str, gold_count: int | None = None) -> str:
    """One sentence: the metric's rule, and whether the rubric points are the score.

    `gold_count` (how many gold answers the example has) makes recall rules concrete.
    """
    if scorer == RECALL_SCORER:
        rule = _recall_rule(metric, gold_count)
        if rule is not None:
            return f"score = {rule}; {DIAGNOSTIC_POINTS}"
    if scorer in _HELMET_RULES:
        return f"score = {_HELMET_RULES[scorer]}; {DIAGNOSTIC_POINTS}"
    declared = declared_scorer(scorer)
    if declared is not None and declared.relation:
        return declared.relation
    if scorer == JUDGE_SCORER and metric == METRICS[QA]:
        return (
            "score = fluency x correctness / 3, from the judge's two grades in the rubric "
            "points (their product, not their weighted mean)"
        )
    if scorer == JUDGE_SCORER and metric == METRICS[SUMM]:
        return (
            "score = F1 of the recall points (key points covered) and the precision points "
            "(sentences backed), times the fluency point: computed from the points, not "
            "their weighted mean"
        )
    return (
        f"score = {metric or 'a value'} from scorer {scorer or '(unnamed)'}; how its rubric "
        "points relate to it is not recorded"
    )
