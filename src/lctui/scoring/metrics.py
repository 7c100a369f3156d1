"""Answer metrics of RULER (string_match_all/part) and HELMET (SubEM, EM, F1), as pure functions.

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
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from lctui.core.types import OUTPUT_PREFIX, PARSE_PREFIX, Example
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


# HELMET's answer metrics (utils.py of princeton-nlp/HELMET), rule for rule: each takes
# one gold string or several and keeps the best. Unlike RULER's, a gold that normalises
# to "" ("The", "a") is kept: HELMET scores it as found in every output, and so do we.
Golds = str | Sequence[str]
# A prediction or gold that normalises to one of these gets F1 only by equalling the other.
_YES_NO = ("yes", "no", "noanswer")


def _normalized_golds(golds: Golds) -> list[str]:
    listed = [golds] if isinstance(golds, str) else list(golds)
    if not listed:
        raise ValueError("cannot score against an empty list of gold answers")
    return [normalize_answer(gold) for gold in listed]


# Each metric below on an already normalised prediction and golds: answer_metrics
# normalises a long output once for all three, not once per metric.
def _exact_match(prediction: str, golds: list[str]) -> float:
    return max(float(gold == prediction) for gold in golds)


def _substring_exact_match(prediction: str, golds: list[str]) -> float:
    return max(float(gold in prediction) for gold in golds)


def _f1(prediction: str, golds: list[str]) -> float:
    return max(_token_f1(prediction, gold) for gold in golds)


def _token_f1(prediction: str, gold: str) -> float:
    """Token F1 of two normalised answers; yes, no and noanswer score only when equal."""
    if (prediction in _YES_NO or gold in _YES_NO) and prediction != gold:
        return 0.0
    predicted, expected = prediction.split(), gold.split()
    same = sum((Counter(predicted) & Counter(expected)).values())
    if same == 0:
        return 0.0
    # The same operations in the same order as the original, so floats agree bit for bit.
    precision = 1.0 * same / len(predicted)
    recall = 1.0 * same / len(expected)
    return (2 * precision * recall) / (precision + recall)


def exact_match(prediction: str, golds: Golds) -> float:
    """HELMET's EM: 1.0 if the normalised prediction equals a normalised gold answer."""
    return _exact_match(normalize_answer(prediction), _normalized_golds(golds))


def substring_exact_match(prediction: str, golds: Golds) -> float:
    """HELMET's SubEM: 1.0 if a normalised gold answer occurs in the normalised prediction."""
    return _substring_exact_match(normalize_answer(prediction), _normalized_golds(golds))


def f1(prediction: str, golds: Golds) -> float:
    """HELMET's (SQuAD's) token F1 of the normalised answers, the best over the golds."""
    return _f1(normalize_answer(prediction), _normalized_golds(golds))


def parse_output(output: str, prefix: str = DEFAULT_ANSWER_PREFIX) -> str:
    """The answer line of `output`, the way HELMET parses it.

    The rest of the line after the first `prefix` (case-insensitive), else the first
    line; stripped, and one repeated prefix removed (chat models often echo it).
    Unlike the original, `prefix` is matched literally, not as a regex (equal for
    prefixes without regex metacharacters, as all of ours are).
    """
    escaped = re.escape(prefix)
    found = re.search(f"{escaped}(.*)", output, flags=re.IGNORECASE) if prefix else None
    line = (found.group(1) if found else output.split("\n", 1)[0]).strip()
    if prefix:
        line = re.sub(f"^{escaped}", "", line, flags=re.IGNORECASE)
    return line.strip()


def helmet_prefixes(example: Example) -> tuple[str, str]:
    """(the text put in front of an output before it is scored, the prefix its answer
    line is parsed by), as HELMET's eval.py and post-processing take them.

    An example from HELMET's own inputs names both (its output prefix is the answer
    prefix only when HELMET ran without chat template). lctui's own examples pre-fill
    their answer prefix in every prompt format: it goes in front and finds the line
    (HELMET's default "Answer:" without one).
    """
    put, parse = example.metadata.get(OUTPUT_PREFIX), example.metadata.get(PARSE_PREFIX)
    if isinstance(put, str) and isinstance(parse, str):
        return put, parse
    return example.answer_prefix, example.answer_prefix or DEFAULT_ANSWER_PREFIX


@dataclass(frozen=True)
class AnswerMetrics:
    """HELMET's metrics of one answer, each the better of the raw and the parsed output."""

    exact_match: float
    f1: float
    substring_exact_match: float
    parsed: str  # the answer line parse_output found


def answer_metrics(output: str, golds: Golds, prefix: str = DEFAULT_ANSWER_PREFIX) -> AnswerMetrics:
    """EM, F1 and SubEM of `output` as HELMET's post-processing computes them.

    Each metric is taken on the whole output and on its answer line (`parse_output`
    with `prefix`), and the larger value is kept. The output is scored as given: a
    caller whose prompt pre-filled the answer prefix puts it in front first, as
    HELMET's eval.py does for prompts without chat template.
    """
    parsed = parse_output(output, prefix)
    normalized_golds = _normalized_golds(golds)
    raw = normalize_answer(output)
    line = raw if parsed == output else normalize_answer(parsed)
    return AnswerMetrics(
        exact_match=max(_exact_match(raw, normalized_golds), _exact_match(line, normalized_golds)),
        f1=max(_f1(raw, normalized_golds), _f1(line, normalized_golds)),
        substring_exact_match=max(
            _substring_exact_match(raw, normalized_golds),
            _substring_exact_match(line, normalized_golds),
        ),
        parsed=parsed,
    )
