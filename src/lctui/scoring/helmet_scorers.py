"""Scorers of HELMET's real-data categories: re-ranking, ICL, long-QA ROUGE-L, InfiniteBench MC.

Each score's value is HELMET's metric (scoring/helmet.py), equal to the original's
number; the rubric points are diagnostics beside it that say what the metric hides
(a ranking that leaves passages out, a label that is no label of the task, an answer
padded with words). What each scorer reads from the example:

- `helmet_rerank`: metadata `qrels` {passage id: graded label} for every passage of the
  prompt; `gold` the ideal ranking (shown only).
- `helmet_icl`: `gold` the integer label; metadata `label_names` {label: the natural
  label it stands for in this example} (optional, for explanations and the point
  "a label of the task").
- `helmet_rouge`: `gold` the answers.
- `helmet_mc`: `gold` (letter, "letter. option text"), as HELMET stores it.

The answer prefix is pre-filled in every lctui prompt format, so each output is scored
with it in front, as HELMET's eval.py does for prompts without chat template; an example
from HELMET's own inputs says what HELMET put in front (`helmet_prefixes`).
"""

from __future__ import annotations

from collections.abc import Mapping

from lctui.core.text import plural
from lctui.core.types import Example, RubricPoint, Score, ScoreStatus
from lctui.scoring.helmet import (
    as_qrels,
    choice_match,
    icl_label_match,
    ndcg_at_10,
    parse_ranking,
    qa_rouge_l,
)
from lctui.scoring.metrics import helmet_prefixes
from lctui.scoring.normalize import normalize_answer
from lctui.scoring.rubric import FMT, ORI, RECOG, SPAT, list_values, make_point, share

RERANK_SCORER, ICL_SCORER, ROUGE_SCORER, MC_SCORER = (
    "helmet_rerank",
    "helmet_icl",
    "helmet_rouge",
    "helmet_mc",
)
NDCG_METRIC, EM_METRIC, ROUGE_METRIC = "ndcg@10", "em", "rougeL_f1"

POINT_RANKING_FOUND = "a ranking of ids"
POINT_ALL_RANKED = "every passage ranked"
POINT_KNOWN_IDS = "only ids of the prompt"
POINT_ONCE = "each id once"
POINT_BEST_FIRST = "a most relevant passage first"
POINT_LABEL_LINE = "a label on the answer line"
POINT_KNOWN_LABEL = "a label of the task"
POINT_GOLD_COVERED = "gold answer's words covered"
POINT_NO_PADDING = "no words beyond the answer"
POINT_ONE_LETTER = "one option letter"
POINT_GOLD_OPTION = "the gold option named"


def _where(example: Example) -> str:
    return f"example {example.example_id} of task {example.task}"


def _scored_text(example: Example, output: str) -> tuple[str, str]:
    put, parse = helmet_prefixes(example)
    return put + output, parse


def _status(found: bool, value: float) -> ScoreStatus:
    return ScoreStatus.UNPARSED if not found and value == 0.0 else ScoreStatus.OK


# Re-ranking ----------------------------------------------------------------------


def score_helmet_rerank(example: Example, output: str) -> Score:
    """NDCG@10 of the ranking in `output` (HELMET's re-ranking metric)."""
    try:
        qrels = as_qrels(example.metadata.get("qrels"))
    except ValueError as err:
        raise ValueError(f"{_where(example)}: {err}") from err
    scored, _ = _scored_text(example, output)
    ranking = parse_ranking(scored)
    value = ndcg_at_10(ranking, qrels)
    ranked = [doc for doc in ranking.ids if doc in qrels] if ranking.found else []
    unknown = [doc for doc in ranking.ids if doc not in qrels] if ranking.found else []
    best = max(qrels.values())
    first = qrels.get(ranked[0], 0) if ranked else 0
    points = (
        make_point(
            POINT_RANKING_FOUND,
            1.0,
            float(ranking.found),
            f"reads the ranking {_shown(ranking.ids)}"
            if ranking.found
            else "the output holds no integer id, so no ranking",
            (FMT,),
        ),
        make_point(
            POINT_ALL_RANKED,
            1.0,
            share(len(ranked), len(qrels)),
            f"ranks {len(ranked)} of the {plural(len(qrels), 'passage')}",
            (RECOG,),
        ),
        make_point(
            POINT_KNOWN_IDS,
            1.0,
            share(len(ranked), len(ranking.ids)) if ranking.found else 0.0,
            f"names {plural(len(unknown), 'id')} of no passage: {list_values(unknown)}"
            if unknown
            else ("every id names a passage" if ranking.found else "names no id"),
            (RECOG,),
        ),
        make_point(
            POINT_ONCE,
            1.0,
            share(len(ranking.ids), ranking.entries) if ranking.found else 0.0,
            f"names {plural(ranking.entries - len(ranking.ids), 'id')} again (the first "
            "place counts)"
            if ranking.entries > len(ranking.ids)
            else ("names each id once" if ranking.found else "names no id"),
            (SPAT,),
        ),
        make_point(
            POINT_BEST_FIRST,
            1.0,
            share(first, best),
            f"ranks first {ranked[0]} (label {first}; the best label is {best})"
            if ranked
            else "ranks no passage first",
            (SPAT, RECOG),
        ),
    )
    if not ranking.found and value == 0.0:
        explanation = "unparsed: the output holds no integer id, so no ranking."
    else:
        explanation = (
            f"NDCG@10 = {value:.3f}: ranks {len(ranked)} of {len(qrels)} passages"
            + (f", plus {plural(len(unknown), 'unknown id')}" if unknown else "")
            + "."
        )
    return Score(
        scorer=RERANK_SCORER,
        metric=NDCG_METRIC,
        value=value,
        status=_status(ranking.found, value),
        extracted=ranking.ids if ranking.found else (),
        explanation=explanation,
        points=points,
        extras={"ranked": len(ranked), "unknown_ids": len(unknown), "passages": len(qrels)},
    )


def _shown(ids: tuple[str, ...], limit: int = 5) -> str:
    head = " > ".join(ids[:limit])
    return head if len(ids) <= limit else f"{head} > ... ({len(ids)} ids)"


# In-context learning ---------------------------------------------------------------


def _label_names(example: Example) -> Mapping[str, str]:
    names = example.metadata.get("label_names")
    if names is None:
        return {}
    if not isinstance(names, Mapping) or not all(isinstance(v, str) for v in names.values()):
        raise ValueError(f"{_where(example)}: metadata 'label_names' must map labels to names")
    return {str(label): name for label, name in names.items() if isinstance(name, str)}


def _named(label: str, names: Mapping[str, str]) -> str:
    name = names.get(label)
    return f"{label} ({name})" if name else label


def score_helmet_icl(example: Example, output: str) -> Score:
    """Exact match of the label on the answer line (HELMET's ICL metric)."""
    if len(example.gold) != 1:
        raise ValueError(f"{_where(example)}: an ICL example has one gold label")
    gold = example.gold[0]
    names = _label_names(example)
    scored, prefix = _scored_text(example, output)
    match = icl_label_match(scored, gold, prefix)
    answer = normalize_answer(match.parsed)
    known = {normalize_answer(label) for label in names}
    points = (
        make_point(
            POINT_LABEL_LINE,
            1.0,
            float(bool(answer)),
            f"reads the answer line {match.parsed!r}" if answer else "the answer line is empty",
            (FMT,),
        ),
        make_point(
            POINT_KNOWN_LABEL,
            1.0,
            float(answer in known) if known else float(bool(answer)),
            (
                f"{match.parsed!r} is a label of the task"
                if answer in known
                else f"{match.parsed!r} is none of the task's {len(known)} labels"
            )
            if known
            else "the example lists no labels to check against",
            (RECOG,),
        ),
    )
    if not answer:
        explanation = "unparsed: the answer line holds no label."
    elif match.exact_match:
        explanation = f"em = 1: the label {_named(gold, names)}."
    else:
        explanation = (
            f"em = 0: answered {match.parsed!r}, the label is {_named(gold, names)}"
            + (f"; {match.parsed!r} stands for {names[answer]}" if answer in names else "")
            + "."
        )
    return Score(
        scorer=ICL_SCORER,
        metric=EM_METRIC,
        value=match.exact_match,
        status=_status(bool(answer), match.exact_match),
        extracted=(match.parsed,) if answer else (),
        explanation=explanation,
        points=points,
    )


# Long-document QA --------------------------------------------------------------------


def score_helmet_rouge(example: Example, output: str) -> Score:
    """ROUGE-L F1 of the answer, the best over golds, raw output and answer line."""
    if not example.gold:
        raise ValueError(f"{_where(example)}: cannot score against an empty list of gold answers")
    scored, prefix = _scored_text(example, output)
    result = qa_rouge_l(scored, example.gold, prefix)
    best = result.best
    points = (
        make_point(
            POINT_GOLD_COVERED,
            1.0,
            best.recall,
            f"ROUGE-L recall {best.recall:.2f} of the gold {best.gold!r}",
            (ORI,),
        ),
        make_point(
            POINT_NO_PADDING,
            1.0,
            best.precision,
            f"ROUGE-L precision {best.precision:.2f}: the share of the answer's words in "
            "the gold's order",
            (FMT,),
        ),
    )
    words = bool(normalize_answer(output))
    explanation = (
        f"rougeL_f1 = {result.f1:.3f} against {best.gold!r}."
        if words or result.f1
        else "unparsed: the output holds no words."
    )
    return Score(
        scorer=ROUGE_SCORER,
        metric=ROUGE_METRIC,
        value=result.f1,
        status=_status(words, result.f1),
        extracted=(result.parsed,) if result.parsed else (),
        explanation=explanation,
        points=points,
    )


# InfiniteBench multiple choice ---------------------------------------------------------

_LETTERS = ("a", "b", "c", "d")


def score_helmet_mc(example: Example, output: str) -> Score:
    """HELMET's exact match of an InfiniteBench multiple-choice answer."""
    try:
        match = choice_match(_scored_text(example, output)[0], example.gold)
    except ValueError as err:
        raise ValueError(f"{_where(example)}: {err}") from err
    letter = example.gold[0]
    given = match.parsed.strip().rstrip(".").strip().lower()
    one_letter = given in _LETTERS
    names_gold = given == letter.lower() or match.by_option_text
    points: tuple[RubricPoint, ...] = (
        make_point(
            POINT_ONE_LETTER,
            1.0,
            float(one_letter),
            f"answers with the letter {given.upper()}"
            if one_letter
            else f"the answer line {match.parsed!r} is not one letter A-D",
            (FMT,),
        ),
        make_point(
            POINT_GOLD_OPTION,
            1.0,
            float(names_gold),
            f"names the gold option {letter}"
            if names_gold
            else f"does not name the gold option {letter}",
            (RECOG,),
        ),
    )
    explanation = f"em = {match.exact_match:.0f}"
    if match.exact_match and not names_gold:
        # HELMET's normalisation deletes articles: the letter "A" becomes "", which an
        # empty answer (or "The") equals. The value stays HELMET's; the point says it.
        explanation += (
            f": HELMET credits {match.parsed!r} because the gold letter {letter} "
            "normalises to nothing (an article), not because it names the option"
        )
    elif match.by_option_text:
        explanation += f": the output holds the gold option {example.gold[1]!r}"
    elif match.exact_match:
        explanation += f": the answer is the gold letter {letter}"
    else:
        explanation += f": the gold is {letter}"
    return Score(
        scorer=MC_SCORER,
        metric=EM_METRIC,
        value=match.exact_match,
        status=_status(bool(given), match.exact_match),
        extracted=(match.parsed,) if given else (),
        explanation=explanation + ".",
        points=points,
    )
