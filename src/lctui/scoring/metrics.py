"""Answer metrics of RULER (string_match_all/part) and HELMET (SubEM, EM), as pure functions.

Each returns a float in [0, 1]; an empty gold list is a task bug and raises ValueError.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from lctui.scoring.normalize import normalize_answer

DEFAULT_ANSWER_PREFIX = "Answer:"


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


def string_match_all(output: str, golds: Sequence[str]) -> float:
    """RULER's metric: the share of gold strings found in `output`, case-insensitively."""
    _check_golds(golds)
    haystack = output.lower()
    return sum(1.0 for gold in golds if gold.lower() in haystack) / len(golds)


def string_match_part(output: str, golds: Sequence[str]) -> float:
    """RULER's QA metric: 1.0 if any gold string is in `output` (case-insensitive), else 0.0."""
    _check_golds(golds)
    haystack = output.lower()
    return 1.0 if any(gold.lower() in haystack for gold in golds) else 0.0


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
