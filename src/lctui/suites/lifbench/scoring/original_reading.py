"""Model output read the way LIFBench's own evaluation code reads it, in linear time.

LIFEval's points are the original's (evaluation/EvaluateFunc.py of
SheldonWu0327/LIFBench-2024): the rubric programs ask the same questions of the
output. This module holds the readings they share, each giving what the original's
expression gives, without its cost or its risks:

- `braced_spans` and `double_bracket_spans` are `re.findall` of the original's
  patterns `\\{[^\\]]+\\}` and `\\[\\[.*?\\]\\]`, whose backtracking is quadratic on a run
  of `{` or `[[`;
- `decode_escapes` is its `.encode("utf-8").decode("unicode_escape")`, which raises
  on a trailing backslash or a bad escape (the original then crashes; here the bad
  escapes are dropped and the caller is told);
- `python_literal` stands in for its `eval()` of output: the value of a Python
  literal, read by `ast.literal_eval` (which evaluates no code); anything else is
  not parseable, as eval's errors are;
- `json_value` is `json.loads`, bounded in depth (json_text).

`rules_of` names the rule set an example asks for: "original" (the default) or
"corrected" (the original's plain bugs fixed, see docs/suites.md, LIFBench deviations).
"""

from __future__ import annotations

import ast
import math
from typing import Any

from lctui.core.types import Example, RubricPoint
from lctui.scoring.json_text import loads
from lctui.suites.lifbench.scoring.output_text import rubric_point
from lctui.suites.lifbench.scoring.point_specs import PointSpec

ORIGINAL, CORRECTED = "original", "corrected"


def rules_of(example: Example) -> str:
    """The point rules the example's task asks for (its `rules` parameter)."""
    return CORRECTED if example.params.get("rules") == CORRECTED else ORIGINAL


def award(spec: PointSpec, earned: float, explanation: str) -> RubricPoint:
    """A point earning `earned` of its weight; only an unbounded point may exceed 1."""
    if spec.bounded:
        return rubric_point(spec, earned, explanation)
    if not math.isfinite(earned) or earned < 0:
        raise ValueError(f"rubric point {spec.name!r}: earned must be finite and >= 0")
    return RubricPoint(spec.name, float(spec.weight), float(earned), explanation, spec.capabilities)


def braced_spans(text: str) -> list[str]:
    """`re.findall(r"\\{[^\\]]+\\}", text)`: per run of text between two `]`, the span
    from its first `{` to its last `}` when at least one character lies between."""
    spans = []
    for segment in text.split("]"):
        start, end = segment.find("{"), segment.rfind("}")
        if start >= 0 and end >= start + 2:
            spans.append(segment[start : end + 1])
    return spans


def double_bracket_spans(text: str) -> list[str]:
    """`re.findall(r"\\[\\[.*?\\]\\]", text)`: from each `[[` to the first `]]` after it on
    the same line (`.` matches anything but a newline)."""
    spans = []
    pos, size = 0, len(text)
    while (start := text.find("[[", pos)) >= 0:
        line_end = text.find("\n", start)
        line_end = size if line_end < 0 else line_end
        close = text.find("]]", start + 2, line_end)
        if close < 0:
            pos = line_end + 1  # no later `[[` of this line closes either
            continue
        spans.append(text[start : close + 2])
        pos = close + 2
    return spans


def _escape_bytes(text: str) -> tuple[bytes, bool]:
    try:
        return text.encode("utf-8"), False
    except UnicodeEncodeError:  # a lone surrogate: the original raises here too
        return text.encode("utf-8", "surrogatepass"), True


def decode_escapes(text: str) -> tuple[str, bool]:
    """(the original's `text.encode("utf-8").decode("unicode_escape")`, whether that
    raised). Where it raises, the bad escapes are dropped (errors="ignore")."""
    data, failed = _escape_bytes(text)
    if not failed:
        try:
            return data.decode("unicode_escape"), False
        except UnicodeDecodeError:
            pass
    return data.decode("unicode_escape", "ignore"), True


def decode_escapes_retrying(text: str) -> tuple[str, bool]:
    """extract's reading: `decode_escapes`, then again without the last character
    (the original's own retry, which mends a trailing backslash), and only when both
    raise (the original crashes) the bad escapes dropped."""
    decoded, failed = decode_escapes(text)
    if not failed:
        return decoded, False
    data, bad = _escape_bytes(text[:-1])
    if not bad:
        try:
            return data.decode("unicode_escape"), False
        except UnicodeDecodeError:
            pass
    return decoded, True


def json_value(text: str) -> tuple[bool, Any]:
    """(whether `json.loads(text)` gives a value, that value). JSON nested deeper than
    json_text allows counts as not parseable."""
    try:
        return True, loads(text)
    except ValueError:
        return False, None


def python_literal(text: str) -> tuple[bool, Any]:
    """(whether `eval(text)` gives a value, that value), for Python literals only.

    `ast.literal_eval` parses literals (strings, numbers, None, True/False, lists,
    tuples, dicts, sets) and evaluates nothing. Nesting past 200 brackets, the
    parser's own limit, fails in both. An expression that is not a literal (a name, a
    call, arithmetic, an f-string) counts as not parseable: eval would run it.
    """
    try:
        return True, ast.literal_eval(text)
    except Exception:  # as the original's is_valid_eval: any error means "not parseable"
        return False, None
