"""LongBench v2's answer reading and score: which of the four options a response names.

The original asks for one closing sentence naming the option and reads only that
sentence, with or without parentheses around the letter, after dropping Markdown
asterisks; anything else names no option (never a guess). Its score is 1 when the
named option is the gold one, else 0; a response that names none scores 0 and is
counted apart here (`unparsed`), and its "compensated" accuracy counts it as 0.25,
the chance of a guess (`Score.extras["compensated"]`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lctui.core.types import Example, Score, ScoreStatus
from lctui.scoring.rubric import FMT, RECOG, make_point

SCORER = "longbench"
METRIC = "accuracy"
# What the original's compensated accuracy credits a response that names no option.
GUESS_CREDIT = 0.25
POINT_SENTENCE = "answer sentence"
POINT_GOLD = "gold option"

_WITH_PARENS = re.compile(r"The correct answer is \(([A-D])\)")
_BARE = re.compile(r"The correct answer is ([A-D])")


@dataclass(frozen=True)
class ChoiceSpan:
    """Where a response names its option: the answer sentence's offsets in the response
    (asterisks inside it included) and the letter it names."""

    start: int
    end: int
    letter: str


def choice_span(response: str) -> ChoiceSpan | None:
    """The answer sentence the option is read from, or None when the response names none.

    The sentence is looked for in the response without its asterisks, as the original
    reads it, and its offsets are mapped back to the response (the inspector marks it)."""
    kept = [i for i, char in enumerate(response) if char != "*"]
    text = "".join(response[i] for i in kept)
    found = _WITH_PARENS.search(text) or _BARE.search(text)
    if found is None:
        return None
    return ChoiceSpan(kept[found.start()], kept[found.end() - 1] + 1, found.group(1))


def extract_choice(response: str) -> str | None:
    """The option letter `response` names (A-D), or None when it names none."""
    found = choice_span(response)
    return found.letter if found else None


def score_longbench(example: Example, output: str) -> Score:
    """1 when the response's answer sentence names the gold option, else 0 (unparsed
    when it names none)."""
    if not example.gold or example.gold[0] not in "ABCD" or len(example.gold[0]) != 1:
        raise ValueError(f"example {example.example_id}: gold {example.gold!r} is not a letter A-D")
    gold = example.gold[0]
    pred = extract_choice(output)
    value = float(pred == gold)
    points = (
        make_point(
            POINT_SENTENCE,
            1.0,
            float(pred is not None),
            f'"The correct answer is ({pred})" names option {pred}'
            if pred is not None
            else 'no sentence "The correct answer is (X)" with X one of A-D',
            (FMT,),
        ),
        make_point(
            POINT_GOLD,
            1.0,
            value,
            f"names the gold option {gold}"
            if pred == gold
            else f"names {pred}, not the gold option {gold}"
            if pred is not None
            else f"names no option (gold {gold})",
            (RECOG,),
        ),
    )
    if pred is None:
        explanation = f"unparsed: no option named (compensated {GUESS_CREDIT:g})"
    else:
        explanation = f"pred {pred}, gold {gold}: {'right' if value else 'wrong'}"
    return Score(
        scorer=SCORER,
        metric=METRIC,
        value=value,
        status=ScoreStatus.OK if pred is not None else ScoreStatus.UNPARSED,
        extracted=(pred,) if pred is not None else (),
        explanation=explanation,
        points=points,
        extras={"pred": pred, "compensated": GUESS_CREDIT if pred is None else value},
    )
