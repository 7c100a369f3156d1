"""Scorer for synthetic recall tasks: RULER niah_*, vt, cwe, fwe and HELMET JSON KV.

The value is the task's paper metric, so numbers stay comparable; extraction and rubric
points add what that recall-only metric hides: values the output lists unasked (from the
prompt or from nowhere) and values it gives more than once. The points are diagnostics:
they do not add up to the value (see scoring/relation.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from lctui.core.text import plural
from lctui.core.types import Example, RubricPoint, Score, ScoreStatus
from lctui.scoring.extract import Extraction, extract_values
from lctui.scoring.metrics import (
    AnswerMetrics,
    answer_metrics,
    helmet_prefixes,
    ruler_hits,
    ruler_prediction,
    string_match_all,
    string_match_part,
)
from lctui.scoring.rubric import RECOG, list_values, make_point, share

SCORER_NAME = "recall"
POINT_ALL_PRESENT = "all requested values present"
POINT_NO_SPURIOUS = "no values that were not asked for"
POINT_ONCE = "each value given once"
# A word or value of the prompt: letters and digits, joined by inner hyphens or
# apostrophes, so a UUID, a 7-digit number, a name and "well-known" are one each.
_PROMPT_WORD = re.compile(r"[^\W_]+(?:[-'\u2019][^\W_]+)*")

MetricFn = Callable[[Example, str], float]


def _helmet_metrics(example: Example, output: str) -> AnswerMetrics:
    """HELMET's EM, F1 and SubEM of `output`, with the answer prefix in front.

    lctui pre-fills the answer prefix in every prompt format, so the output continues
    it: the prefix goes in front, as HELMET's eval.py puts it before an output
    generated without chat template, and it finds the answer line. Without a prefix,
    HELMET's default "Answer:" finds it. An example from HELMET's inputs says what
    HELMET put in front and parsed with (`helmet_prefixes`).
    """
    put, parse = helmet_prefixes(example)
    return answer_metrics(put + output, example.gold, parse)


RECALL_METRICS: dict[str, MetricFn] = {
    "string_match_all": lambda example, output: string_match_all(output, example.gold),
    "string_match_part": lambda example, output: string_match_part(output, example.gold),
    "subem": lambda example, output: _helmet_metrics(example, output).substring_exact_match,
    "em": lambda example, output: _helmet_metrics(example, output).exact_match,
}


@dataclass(frozen=True)
class _Settings:
    metric: str
    pattern: re.Pattern[str] | None
    candidates: tuple[str, ...] | None

    @property
    def noun(self) -> str:
        return "value" if self.candidates is None else "word"


def _settings(example: Example) -> _Settings:
    where = f"example {example.example_id} of task {example.task}"
    meta = example.metadata
    metric = meta.get("metric")
    if metric not in RECALL_METRICS:
        raise ValueError(
            f"{where}: metadata 'metric' is {metric!r}; the recall scorer knows "
            f"{', '.join(RECALL_METRICS)}"
        )
    candidates = meta.get("candidates")
    if candidates is not None:
        if isinstance(candidates, str) or not isinstance(candidates, Sequence):
            raise ValueError(f"{where}: metadata 'candidates' must be a list of words")
        if not all(isinstance(word, str) for word in candidates):
            raise ValueError(f"{where}: metadata 'candidates' must hold only strings")
        return _Settings(metric, None, tuple(candidates))
    pattern = meta.get("value_pattern")
    if not isinstance(pattern, str) or not pattern:
        raise ValueError(
            f"{where}: the recall scorer needs metadata 'value_pattern' (a regex matching "
            "answer values) or 'candidates' (the words of the list)"
        )
    try:
        compiled = re.compile(pattern)
    except re.error as err:
        raise ValueError(
            f"{where}: metadata 'value_pattern' {pattern!r} is invalid: {err}"
        ) from err
    return _Settings(metric, compiled, None)


def _asking_text(example: Example) -> str:
    """The part of the question that asks: values the output repeats from it are echoes,
    not answers. A question that also holds solved examples (json_kv's demonstrations)
    names it in metadata 'asked_text', so a value copied from a solved example counts
    as an unasked value of the prompt, not as an echo."""
    asked = example.metadata.get("asked_text")
    return asked if isinstance(asked, str) else example.question


def _check_golds(golds: Sequence[str]) -> None:
    # A task bug, whatever the metric: an empty gold is found in every output.
    if not golds:
        raise ValueError("cannot score against an empty list of gold answers")
    if any(not gold.strip() for gold in golds):
        raise ValueError(f"gold answers must not be empty or blank: {list(golds)!r}")


def _extract(example: Example, output: str, settings: _Settings) -> Extraction:
    return extract_values(
        output,
        example.gold,
        pattern=settings.pattern,
        candidates=settings.candidates,
        instruction=_asking_text(example) + "\n" + example.answer_prefix,
    )


def _found_text(extraction: Extraction, noun: str) -> str:
    found, missing = len(extraction.found), len(extraction.missing)
    total = found + missing
    if total == 1:
        if found:
            return f"found the requested {noun}"
        return f"did not find the requested {noun} {extraction.missing[0]}"
    if not missing:
        return f"found all {total} requested {noun}s"
    if not found:
        return f"found none of the {total} requested {noun}s"
    return f"found {found} of {total} requested {noun}s; missing: {list_values(extraction.missing)}"


def _in_prompt(example: Example, values: Sequence[str]) -> list[bool]:
    """Whether each value is a word (or value) of the prompt, case-insensitively.

    One pass over the prompt builds its set of words: a substring search per value
    would take seconds on a 128K prompt and an output of thousands of made-up words.
    """
    prompt = "\n".join((example.preamble, example.context, example.question, example.answer_prefix))
    words = {word.lower() for word in _PROMPT_WORD.findall(prompt)}
    haystack: str | None = None
    found: list[bool] = []
    for value in values:
        key = value.lower()
        if _PROMPT_WORD.fullmatch(value):
            found.append(key in words)
            continue
        # A value of several words ("ice cream"): few, so searched as a substring.
        haystack = prompt.lower() if haystack is None else haystack
        found.append(key in haystack)
    return found


def _nothing_given(extraction: Extraction, noun: str) -> str:
    """What an output without values gives, said so that it stays true: a number of
    the wrong length is no value of the asked kind, and a question word is an echo."""
    text = (
        "output lists no words" if noun == "word" else f"output gives no {noun}s of the asked kind"
    )
    if extraction.echoed:
        text += f" other than the question's own ({list_values(extraction.echoed)})"
    return text


def _spurious_text(extraction: Extraction, noun: str, example: Example) -> str:
    if extraction.spurious:
        count = plural(len(extraction.spurious), noun)
        verb = "was" if len(extraction.spurious) == 1 else "were"
        text = f"output lists {count} that {verb} not asked for: {list_values(extraction.spurious)}"
        # Told apart because they are different failures: a distractor (or the solved
        # example's answer) taken from the prompt, or a value made up.
        in_prompt = _in_prompt(example, extraction.spurious)
        invented = [v for v, known in zip(extraction.spurious, in_prompt, strict=True) if not known]
        if len(invented) == len(extraction.spurious) == 1:
            text += f"; it is not a {noun} of the prompt"
        elif len(invented) == len(extraction.spurious):
            text += f"; none of them is a {noun} of the prompt"
        elif invented:
            verb = "is not a" if len(invented) == 1 else "are not"
            ending = noun if len(invented) == 1 else noun + "s"
            text += f"; {len(invented)} of them {verb} {ending} of the prompt: "
            text += list_values(invented)
        return text
    if extraction.values:
        return f"every {noun} the output gives was asked for"
    return _nothing_given(extraction, noun) + ", so it shows no precision to credit"


def _once_text(extraction: Extraction, noun: str) -> str:
    if extraction.repeated:
        count = plural(len(extraction.repeated), noun)
        listed = list_values([f"{v} ({n} times)" for v, n in extraction.repeated])
        return f"output gives {count} more than once: {listed}"
    if len(extraction.values) == 1:
        return f"output gives its one {noun} once"
    if extraction.values:
        return f"output gives each of its {len(extraction.values)} {noun}s once"
    return _nothing_given(extraction, noun) + ", so there is nothing given once to credit"


def _points(extraction: Extraction, noun: str, example: Example) -> tuple[RubricPoint, ...]:
    if example.metadata.get("gold_mode") == "any" and extraction.found:
        # The golds are alternatives (a question's accepted answers, HELMET RAG): one
        # found is the whole answer, the others are not missing.
        extraction = replace(extraction, missing=())
    recall = share(len(extraction.found), len(extraction.found) + len(extraction.missing))
    # With nothing extracted there is no precision to credit: an empty answer must not
    # earn a part of the rubric for "listing nothing unasked" or "repeating nothing".
    precision = share(len(extraction.values) - len(extraction.spurious), len(extraction.values))
    once = share(len(extraction.values), extraction.entries)
    spurious = _spurious_text(extraction, noun, example)
    return (
        make_point(POINT_ALL_PRESENT, 2.0, recall, _found_text(extraction, noun), (RECOG,)),
        make_point(POINT_NO_SPURIOUS, 1.0, precision, spurious, (RECOG,)),
        make_point(POINT_ONCE, 1.0, once, _once_text(extraction, noun), (RECOG,)),
    )


def _ruler_note(output: str, golds: Sequence[str], extraction: Extraction, noun: str) -> str:
    """Where RULER's substring test and the extraction disagree on a gold, said so, so the
    explanation stays true next to the metric's value ("" when they agree).

    The metric counts a gold anywhere in the lower-cased output (inside a longer word,
    say), which the extraction does not take as a given value; and the extraction's
    case folding accepts a few letters that Python's str.lower() does not ("İ" for "i").
    """
    counted = {
        gold.lower() for gold, hit in zip(golds, ruler_hits(output, golds), strict=True) if hit
    }
    inside = [gold for gold in extraction.missing if gold.lower() in counted]
    uncounted = [gold for gold in extraction.found if gold.lower() not in counted]
    notes = []
    if inside:
        notes.append(
            f"the metric's substring test also counts {list_values(inside)}, not given as "
            f"a separate {noun}"
        )
    if uncounted:
        notes.append(
            f"the metric does not count {list_values(uncounted)}: lower-cased as RULER "
            "does, the output does not contain it"
        )
    return "; ".join(notes)


def _unparsed_reason(output: str, extraction: Extraction, settings: _Settings) -> str:
    if not output.strip():
        return "unparsed: the output is empty"
    if not ruler_prediction(output):
        return "unparsed: the output holds only whitespace and control characters"
    if settings.pattern is not None:
        reason = (
            "unparsed: the output holds none of the requested values and no value of the "
            f"expected kind (pattern {settings.pattern.pattern})"
        )
    else:
        reason = (
            "unparsed: the output names none of the requested words nor any word of the "
            "list, and lists no other words"
        )
    if extraction.echoed:
        reason += f"; it only repeats {list_values(extraction.echoed)} from the question"
    return reason


def score_recall(example: Example, output: str) -> Score:
    """Score `output` for a recall example; `example.metadata` says metric and value kind."""
    settings = _settings(example)
    try:
        _check_golds(example.gold)
        value = RECALL_METRICS[settings.metric](example, output)
    except ValueError as err:
        raise ValueError(f"example {example.example_id} of task {example.task}: {err}") from err
    extraction = _extract(example, output, settings)
    points = _points(extraction, settings.noun, example)
    extracted, spurious = len(extraction.values), len(extraction.spurious)
    extras = {
        "spurious": spurious,
        "extracted": extracted,
        "precision": points[1].earned,
        "recall": points[0].earned,
        "echoed": len(extraction.echoed),
        "repeats": extraction.entries - extracted,
    }
    # The metric can credit an answer extraction does not see (SubEM normalisation, a
    # gold word inside a longer word); that is a weak answer, not an unparsed one.
    if not extraction.values and value == 0.0:
        status = ScoreStatus.UNPARSED
        explanation = _unparsed_reason(output, extraction, settings) + "."
    else:
        status = ScoreStatus.OK
        explanation = f"{settings.metric} = {value:.2f}: {_found_text(extraction, settings.noun)}"
        if settings.metric in ("string_match_all", "string_match_part"):
            note = _ruler_note(output, example.gold, extraction, settings.noun)
            explanation += f" ({note})" if note else ""
        if settings.metric == "em" and value == 0.0 and extraction.found:
            explanation += ", but the answer is not exactly a requested value"
        if spurious:
            explanation += f"; also lists {plural(spurious, settings.noun)} not asked for"
        elif extracted:
            explanation += f"; no other {settings.noun}s"
        if extraction.repeated:
            repeated = plural(len(extraction.repeated), settings.noun)
            explanation += f"; gives {repeated} more than once"
        explanation += "."
    return Score(
        scorer=SCORER_NAME,
        metric=settings.metric,
        value=value,
        status=status,
        extracted=extraction.values,
        explanation=explanation,
        points=points,
        extras=extras,
    )
