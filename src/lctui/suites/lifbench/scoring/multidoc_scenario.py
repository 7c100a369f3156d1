"""LIFEval's points for the MultiDoc scenario, by the original's rules.

batch_label (EvaluateFunc.py l.7-115), N documents, the true label of each by which
of title and source it has:

- format (5): the whole output parses as JSON (2), or else the longest `{...}` span
  does (1); the parsed value is a non-empty object (1); plus 2 * the share of doc1..docN
  named anywhere in the output ("doc1" also inside "doc10").
- num_doc (3): n = the length of the parsed object or list, else how often "doc"
  occurs; 2.5 * max(0, 1 - |n - N| / N) + 0.5 * [n == N].
- candi_ori (3), logit_correct (3): the first `{...}` span (in order of length when
  the whole output is not JSON) that splits at commas into exactly N parts gives
  the labels by position: a part earns candi_ori if some label of the set occurs in
  it and logit_correct if the document's true label occurs in it, each as a
  case-sensitive substring. With no such span both are 0.

The substring test lets "incomplete" count as "complete" (a plain bug; with
rules="corrected" a part's label must equal the label: the text after its last
colon, without blanks, quotes and braces). find_dup_text's points are in find_dup_text.py.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from lctui.core.text import plural, shorten
from lctui.core.types import Example, RubricPoint
from lctui.scoring.rubric import list_values
from lctui.suites.lifbench.scoring.find_dup_text import dup_points
from lctui.suites.lifbench.scoring.original_reading import (
    CORRECTED,
    braced_spans,
    json_value,
    rules_of,
)
from lctui.suites.lifbench.scoring.output_text import in_spec_order, rubric_point
from lctui.suites.lifbench.scoring.point_specs import PointSpec


def label_format(whole: bool, span: bool, mapping: bool, named: int, n: int) -> float:
    """format earned of 5: JSON whole (2) or a span (1), an object (1), doc keys named."""
    return 2.0 * whole + 1.0 * (span and not whole) + 1.0 * mapping + 2.0 * named / n


def label_count(given: int, n: int) -> float:
    """num_doc earned of 3 for `given` entries where `n` documents are."""
    return max(0.0, 1.0 - abs(given - n) / n) * 2.5 + 0.5 * (given == n)


def _value(part: str) -> str:
    """A part's label under the corrected rules: after its last colon, bare."""
    return part.rpartition(":")[2].strip().strip("{}").strip().strip("\"'").strip()


def _parts_span(spans: Sequence[str], n: int) -> list[str] | None:
    for span in spans:
        parts = span.split(",")
        if len(parts) == n:
            return parts
    return None


def label_points(
    example: Example, output: str, specs: Mapping[str, PointSpec]
) -> tuple[tuple[str, ...], list[RubricPoint]]:
    """(the labels read, the four points) of a batch_label output."""
    meta = example.metadata
    labels = [str(label) for label in meta["labels"]]
    expected = [str(label) for label in meta["expected"]]
    n = len(expected)
    corrected = rules_of(example) == CORRECTED
    out = output.strip()

    spans = braced_spans(out)
    whole, value = json_value(out)
    span_ok = False
    if not whole and spans:
        spans = sorted(spans, key=len, reverse=True)  # the original sorts them in place
        span_ok, value = json_value(spans[0])
    parsed: Any = value if (whole or span_ok) else None
    mapping = bool(parsed) and isinstance(parsed, dict)
    named = sum(f"doc{k}" in out for k in range(1, n + 1))
    if whole:
        how = "the whole output is JSON (+2)"
    elif span_ok:
        how = "the longest {...} span is JSON, with other text around it (+1)"
    else:
        how = "no JSON found"
    format_why = (
        f"{how}; {'a non-empty object (+1)' if mapping else 'no non-empty object (+0)'}; "
        f"names {named} of doc1..doc{n}"
    )

    if parsed and isinstance(parsed, dict | list):
        given, source = len(parsed), f"{plural(len(parsed), 'entry', 'entries')} parsed"
    else:
        given = out.count("doc")
        source = f"'doc' occurs {plural(given, 'time')}"
    count_why = f"{source} for {plural(n, 'document')}"

    parts = _parts_span(spans, n)
    if parts is None:
        why = f"no {{...}} span splits at commas into {n} parts, so no label is read"
        candi = logit = 0
        candi_why = logit_why = why
        extracted: tuple[str, ...] = ()
    else:
        if corrected:
            values = [_value(part) for part in parts]
            candi = sum(v in labels for v in values)
            right = [v == want for v, want in zip(values, expected, strict=True)]
        else:
            candi = sum(any(label in part for label in labels) for part in parts)
            right = [want in part for part, want in zip(parts, expected, strict=True)]
        logit = sum(right)
        test = "equal to" if corrected else "containing"
        candi_why = f"{candi} of {n} parts name a label of the set"
        wrong = [
            f"doc{k}: expected {want!r}, got {shorten(part.strip(), 24)!r}"
            for k, (part, want, ok) in enumerate(zip(parts, expected, right, strict=True), 1)
            if not ok
        ]
        logit_why = f"{logit} of {n} parts {test} the document's true label"
        if wrong:
            logit_why += f"; {list_values(wrong, 3)}"
        extracted = tuple(shorten(part.strip(), 40) for part in parts)
    points = {
        "candi_ori": rubric_point(specs["candi_ori"], candi / n, candi_why),
        "logit_correct": rubric_point(specs["logit_correct"], logit / n, logit_why),
        "num_doc": rubric_point(specs["num_doc"], label_count(given, n) / 3, count_why),
        "format": rubric_point(
            specs["format"], label_format(whole, span_ok, mapping, named, n) / 5, format_why
        ),
    }
    return extracted, in_spec_order(specs, points)


def multidoc_points(
    example: Example, output: str, specs: Mapping[str, PointSpec]
) -> tuple[tuple[str, ...], list[RubricPoint]]:
    """(extracted answers, rubric points) of one output of a MultiDoc task."""
    if example.metadata["lifeval_task"] == "find_dup_text":
        return dup_points(example, output, specs)
    return label_points(example, output, specs)
