"""HELMET's answer correctness for generation with citations (ALCE ASQA and QAMPARI).

HELMET scores its citation tasks with ALCE's evaluation (eval_alce.py), and these are
the parts of it that need no model:

- ASQA `str_em`: the share of the question's sub-questions one of whose short answers
  occurs in the output once both are normalised (HELMET's normalisation); `str_hit`
  is 1 when all of them do. The category score uses str_em.
- QAMPARI `qampari_rec_top5`: the output read as a comma-separated list; the number of
  gold answers (each a group of aliases) named exactly by a list item, capped at 5,
  over min(5, number of gold answers).

Before either, the output is prepared as ALCE does: runs of newlines become one space,
"<|im_end|>" is removed, and the citation marks ("[1]", " [2]", "|") are deleted.
Citation recall and precision need an NLI model (a later step; not scored here).
ALCE reports means x 100; a score here is the unscaled share, so a task's mean x 100
equals ALCE's number (tests/parity/helmet_alce.jsonl holds ALCE's own results).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from lctui.core.types import Example, RubricPoint, Score, ScoreStatus
from lctui.scoring.normalize import normalize_answer
from lctui.scoring.rubric import FMT, RECOG, list_values, make_point, share

ASQA_SCORER, QAMPARI_SCORER = "helmet_alce_asqa", "helmet_alce_qampari"
STR_EM_METRIC, REC_TOP5_METRIC = "str_em", "qampari_rec_top5"
POINT_SUB_ANSWERS = "sub-questions answered"
POINT_ANSWERS_TOP5 = "gold answers named (up to 5)"
POINT_LISTED_CORRECT = "listed answers correct"
POINT_CITES = "cites documents"
TOP = 5

_NEWLINES = re.compile(r"\n+")
_SPACED_CITATION = re.compile(r" \[\d+")
_CITATION = re.compile(r"\[\d+")
_CITED = re.compile(r"\[\d+\]")


def prepare_output(output: str) -> str:
    """The output as ALCE scores answers: newline runs as spaces, no end token, no citations."""
    text = _NEWLINES.sub(" ", output).replace("<|im_end|>", "")
    text = _CITATION.sub("", _SPACED_CITATION.sub("", text))
    return text.replace(" |", "").replace("]", "")


def sub_answers_found(output: str, groups: Sequence[Sequence[str]]) -> list[bool]:
    """For each sub-question, whether one of its short answers is in the prepared output."""
    text = normalize_answer(prepare_output(output))
    return [any(normalize_answer(answer) in text for answer in group) for group in groups]


def listed_answers(output: str) -> list[str]:
    """The prepared output as ALCE reads a QAMPARI list: comma-separated, normalised items."""
    text = prepare_output(output).rstrip().rstrip(".").rstrip(",")
    items = [normalize_answer(item.strip()) for item in text.split(",")]
    return [item for item in items if item]


@dataclass(frozen=True)
class QampariResult:
    """ALCE's QAMPARI numbers of one output."""

    rec_top5: float
    precision: float
    named: tuple[int, ...]  # indices of the gold answers a list item names
    listed: tuple[str, ...]


def qampari_scores(output: str, groups: Sequence[Sequence[str]]) -> QampariResult:
    """QAMPARI recall at 5 and precision of the listed answers, as ALCE computes them."""
    listed = listed_answers(output)
    answers = [[normalize_answer(alias) for alias in group] for group in groups]
    every_alias = {alias for group in answers for alias in group}
    named = tuple(i for i, group in enumerate(answers) if any(a in listed for a in group))
    precision = sum(item in every_alias for item in listed) / len(listed) if listed else 0
    rec_top5 = min(TOP, len(named)) / min(TOP, len(answers))
    return QampariResult(rec_top5, float(precision), named, tuple(listed))


def _groups(example: Example) -> list[list[str]]:
    groups = example.metadata.get("answer_groups")
    checked: list[list[str]] = []
    if isinstance(groups, (list, tuple)):
        for group in groups:
            if not isinstance(group, (list, tuple)) or not group:
                break
            aliases = [alias for alias in group if isinstance(alias, str)]
            if len(aliases) != len(group):
                break
            checked.append(aliases)
    if not checked or not isinstance(groups, (list, tuple)) or len(checked) != len(groups):
        raise ValueError(
            f"example {example.example_id} of task {example.task}: metadata "
            "'answer_groups' must list, per sub-question or gold answer, its accepted "
            "answers (a non-empty list of strings)"
        )
    return checked


def _cites_point(output: str) -> RubricPoint:
    marks = len(_CITED.findall(output))
    said = f"cites documents {marks} times" if marks else "cites no document ([n])"
    return make_point(POINT_CITES, 1.0, float(marks > 0), said, (FMT,))


def score_helmet_alce_asqa(example: Example, output: str) -> Score:
    """ALCE's STR-EM of an ASQA answer, with the sub-questions it misses named."""
    groups = _groups(example)
    found = sub_answers_found(output, groups)
    value = share(sum(found), len(found))
    missed = [group[0] for group, hit in zip(groups, found, strict=True) if not hit]
    points = (
        make_point(
            POINT_SUB_ANSWERS,
            2.0,
            value,
            f"answers {sum(found)} of {len(found)} sub-questions"
            + (f"; misses {list_values(missed)}" if missed else ""),
            (RECOG,),
        ),
        _cites_point(output),
    )
    words = bool(normalize_answer(prepare_output(output)))
    return Score(
        scorer=ASQA_SCORER,
        metric=STR_EM_METRIC,
        value=value,
        status=ScoreStatus.OK if words or value else ScoreStatus.UNPARSED,
        extracted=(),
        explanation=(
            f"str_em = {value:.2f}: {sum(found)} of {len(found)} sub-questions answered."
            if words or value
            else "unparsed: the output holds no words."
        ),
        points=points,
        extras={"str_hit": float(all(found))},
    )


def score_helmet_alce_qampari(example: Example, output: str) -> Score:
    """ALCE's QAMPARI recall at 5 of the listed answers, with their precision beside it."""
    groups = _groups(example)
    result = qampari_scores(output, groups)
    points = (
        make_point(
            POINT_ANSWERS_TOP5,
            2.0,
            result.rec_top5,
            f"names {len(result.named)} of {len(groups)} gold answers "
            f"(counted up to {min(TOP, len(groups))})",
            (RECOG,),
        ),
        make_point(
            POINT_LISTED_CORRECT,
            1.0,
            result.precision,
            f"{round(result.precision * len(result.listed))} of {len(result.listed)} "
            "listed answers are gold answers"
            if result.listed
            else "lists no answers",
            (RECOG,),
        ),
        _cites_point(output),
    )
    return Score(
        scorer=QAMPARI_SCORER,
        metric=REC_TOP5_METRIC,
        value=result.rec_top5,
        status=ScoreStatus.OK if result.listed or result.rec_top5 else ScoreStatus.UNPARSED,
        extracted=result.listed,
        explanation=(
            f"qampari_rec_top5 = {result.rec_top5:.2f}: names {len(result.named)} of "
            f"{len(groups)} gold answers in a list of {len(result.listed)}."
            if result.listed
            else "unparsed: the output lists no answers."
        ),
        points=points,
        extras={"precision": result.precision, "listed": len(result.listed)},
    )
