"""Answer metrics of RULER (string_match_all/part) and HELMET (SubEM, EM), as pure functions.

Each returns a float in [0, 1]; an empty gold list is a task bug and raises ValueError.
RULER's two metrics read the output as RULER's evaluation does (`ruler_prediction`) and
compare with Python's `str.lower()` only: no Unicode normalisation, no punctuation
removal, so lctui is never more lenient than the original. RULER reports a row's share
x 100 rounded to 2 decimals and a task's mean x 100 rounded to 2 decimals; lctui keeps the
unrounded share per row, and its rounded task mean equals RULER's
(tests/parity/test_ruler_metrics.py).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from lctui.scoring.normalize import normalize_answer

DEFAULT_ANSWER_PREFIX = "Answer:"
# RULER's evaluation turns every C0 control character (tab and newline included) into a
# newline before matching.
_CONTROL_CHARACTERS = re.compile(r"[\x00-\x1f]")


def _check_golds(golds: Sequence[str]) -> None:
    # A bare string is a Sequence[str] too; iterating it would score single characters.
    if isinstance(golds, str):
        raise TypeError(f"golds must be a sequence of strings, not the string {golds!r}")
    if not golds:
        raise ValueError("cannot score against an empty list of gold answers")
    if any(not gold.strip() for gold in golds):
        # An empty gold is a substring of every output and would score anything as correct.
        raise ValueError(f"gold answers must not be empty or blank: {list(golds)!r}")


def _normalized_golds(golds: Sequence[str]) -> list[str]:
    _check_golds(golds)
    normalized = [normalize_answer(gold) for gold in golds]
    for gold, norm in zip(golds, normalized, strict=True):
        if not norm:
            # e.g. the label "A" is an article: normalised it would match every output.
            raise ValueError(
                f"gold answer {gold!r} is empty after normalisation (articles and "
                "punctuation removed); score it with a metric that does not normalise"
            )
    return normalized


def ruler_prediction(output: str) -> str:
    """The output as RULER scores it: stripped, control characters made newlines, stripped."""
    return _CONTROL_CHARACTERS.sub("\n", output.strip()).strip()


def ruler_hits(output: str, golds: Sequence[str]) -> list[bool]:
    """Whether RULER finds each gold in `output`: a substring once both are lower-cased."""
    _check_golds(golds)
    haystack = ruler_prediction(output).lower()
    return [gold.lower() in haystack for gold in golds]


def string_match_all(output: str, golds: Sequence[str]) -> float:
    """RULER's metric: the share of gold strings found in `output`, case-insensitively."""
    return sum(1.0 for hit in ruler_hits(output, golds) if hit) / len(golds)


def string_match_part(output: str, golds: Sequence[str]) -> float:
    """RULER's QA metric: 1.0 if any gold string is in `output` (case-insensitive), else 0.0."""
    return 1.0 if any(ruler_hits(output, golds)) else 0.0


def _candidates(output: str, parsed: str | None) -> list[str]:
    return [output] if parsed is None else [output, parsed]


def subem(output: str, golds: Sequence[str], parsed: str | None = None) -> float:
    """HELMET's SubEM: 1.0 if a normalised gold is a substring of the normalised output.

    The max is taken over the gold answers and over the raw and the parsed output.
    """
    normalized = _normalized_golds(golds)
    for text in _candidates(output, parsed):
        norm_text = normalize_answer(text)
        if any(gold in norm_text for gold in normalized):
            return 1.0
    return 0.0


def exact_match(output: str, golds: Sequence[str], parsed: str | None = None) -> float:
    """HELMET's EM: 1.0 if the normalised output equals a normalised gold answer.

    The max is taken over the gold answers and over the raw and the parsed output.
    """
    normalized = set(_normalized_golds(golds))
    for text in _candidates(output, parsed):
        if normalize_answer(text) in normalized:
            return 1.0
    return 0.0


def parse_answer(output: str, prefix: str = DEFAULT_ANSWER_PREFIX) -> str:
    """The answer part of `output`, the way HELMET parses it.

    The rest of the line after the first `prefix` (case-insensitive), else the first
    line; a repeated prefix is stripped, because chat models often echo it.
    """
    prefix = prefix.strip()
    escaped = re.escape(prefix)
    text = output.strip()
    found = re.search(f"{escaped}(.*)", text, flags=re.IGNORECASE) if prefix else None
    line = found.group(1) if found else text.split("\n", 1)[0]
    line = line.strip()
    if prefix:
        line = re.sub(f"^{escaped}", "", line, flags=re.IGNORECASE)
    return line.strip()
