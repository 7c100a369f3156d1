"""LIFEval's points for find_dup_text, by the original's rules (EvaluateFunc.py l.143-284).

G is the number of true groups. The output is read two ways, as the original does:
its `[[...]]` spans (one per line at most, see original_reading) parsed as JSON,
and, after "null" is written "None" and newlines, escaped quotes and backslashes are
turned into commas, the same spans read as Python literals.

- format (5): `[` and `]` occur (0.5); the output starts with `[` and ends with `]`
  (0.5); one span per line (1); a span parses (1); no span fails to parse (1); every
  parsed span is a list of lists (1). The last two hold when there is no span.
- num_text (5): [spans == G] + 4 * max(0, 1 - |spans - G| / (G + 2)).
- ori (6): 3 * the share of the values in parsed spans found in the documents (None
  counts as found), plus 3 * (values of the literal spans found in the prompt, with
  its quotes removed) / (sum over those spans of rows x the length of the first row).
  That denominator can be smaller than the count (rows longer than the first), so
  ori can exceed its weight, as in the published scores.
- correct (4): 3 * the share of the true values (None as "None") found in the
  output with its escapes decoded, plus 1 * the share of ordered pairs of true
  documents whose "same group" agrees with "same line" of the answer.

Plain bugs kept under the original rules (rules="corrected" fixes them): each span
is cut at the positions of the whole output's first `[` and last `]` before it is
parsed (text before the first `[` breaks every span); `,"` is deleted before the
literal read (compact JSON `["a","b"]` becomes `["ab"]`); the ori denominator above.
Where the original crashes (an escape it cannot decode; a line whose rows are not
lists; nothing left of the output once escaped quotes are removed), the bad escapes
are dropped, such a line counts as unparseable, and an empty text has no spans.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from lctui.core.text import plural, shorten
from lctui.core.types import Example, RubricPoint
from lctui.scoring.substrings import occurring
from lctui.suites.lifbench.scoring.original_reading import (
    CORRECTED,
    award,
    decode_escapes,
    double_bracket_spans,
    json_value,
    python_literal,
    rules_of,
)
from lctui.suites.lifbench.scoring.output_text import in_spec_order
from lctui.suites.lifbench.scoring.point_specs import PointSpec


def _row_strings(row: Any) -> tuple[tuple[Any, ...], list[str]] | None:
    """(the key the original maps a row of an answer line by, the row's values as
    strings), or None where the original's op_answer2map raises on the row."""
    if isinstance(row, list):
        strings = [str(v) for v in row]
        return tuple(strings), strings
    if isinstance(row, dict):  # indexed 0..n-1 by position; absurd, but it runs
        if not all(d in row for d in range(len(row))):
            return None
        return tuple(row), [str(row[d]) for d in range(len(row))]
    if isinstance(row, tuple | str | bytes | set) and not row:
        return (), []
    return None


def dup_format(
    brackets: bool, only: bool, per_line: bool, parsed: bool, none_failed: bool, all_tables: bool
) -> float:
    """format earned of 5: `[` and `]` occur, nothing else around them, one span per line,
    a span parses, none fails, every parsed span is a list of lists."""
    return 0.5 * brackets + 0.5 * only + per_line + parsed + none_failed + all_tables


def dup_num(spans: int, groups: int) -> float:
    """num_text earned of 5 for `spans` group lines where `groups` are."""
    return float(spans == groups) + max(0.0, 1 - abs(spans - groups) / (groups + 2)) * 4


def _format(out: str, spans: Sequence[str], corrected: bool) -> tuple[float, list[Any], str]:
    """(format points earned of 5, the parsed spans that are lists of lists, why)."""
    first, last = out.find("["), out.rfind("]")
    brackets, only = first >= 0 and last >= 0, first == 0 and last == len(out) - 1
    lines = out.count("\n") + 1
    tables: list[Any] = []
    parsed = failed = odd = 0
    for span in spans:
        ok, value = json_value(span if corrected else span[first : last + 1])
        if not ok:
            failed += 1
            continue
        parsed += 1
        if isinstance(value, list) and all(isinstance(row, list) for row in value):
            tables.append(value)
        else:
            odd += 1
    earned = dup_format(brackets, only, len(spans) == lines, parsed > 0, not failed, not odd)
    cut = "" if corrected or first <= 0 else f", each cut from offset {first} (text before '[')"
    why = [
        ("brackets" if brackets else "no brackets")
        + (", nothing around them" if only else "")
        + f"; {plural(len(spans), '[[...]] span')} on {plural(lines, 'line')}",
        f"{parsed} parse as JSON{cut}, {failed} fail, {odd} not a list of lists",
    ]
    return earned, tables, "; ".join(why)


def dup_points(
    example: Example, output: str, specs: Mapping[str, PointSpec]
) -> tuple[tuple[str, ...], list[RubricPoint]]:
    """(the answer's `[[...]]` spans, the four points) of a find_dup_text output."""
    meta = example.metadata
    corrected = rules_of(example) == CORRECTED
    out = output.strip()
    truth: list[list[list[str | None]]] = [list(group) for group in meta["values"]]
    if not out:
        return (), [award(specs[name], 0.0, "empty output") for name in specs]
    groups = len(truth)
    spans = double_bracket_spans(out)
    format_earned, tables, format_why = _format(out, spans, corrected)

    num = dup_num(len(spans), groups)
    num_why = f"{plural(len(spans), 'group line')} for {plural(groups, 'group')}"

    documents = example.context.strip()
    values = [v for table in tables for row in table for v in row]
    in_docs = occurring((str(v) for v in values if v is not None), documents)
    found = sum(v is None or str(v) in in_docs for v in values)
    ori = 3.0 * found / len(values) if values else 0.0
    ori_why = [f"{found} of {plural(len(values), 'parsed value')} are in the documents"]

    # correct, part 1: the true values in the output, "null" read as None.
    out = out.replace("null", "None")
    decoded, crashed = decode_escapes(out)
    contents = [str(v) for group in truth for doc in group for v in doc]
    present = sum(content in decoded for content in contents)
    correct = 3.0 * present / len(contents)
    correct_why = [f"{present} of {plural(len(contents), 'true value')} appear in the output"]
    if crashed:
        correct_why.append("(an escape the original cannot decode was dropped)")

    # The literal reading: group lines joined by commas, escapes flattened.
    flat = out.replace("\n", ",").replace('\\"', "").replace("\\", ",").strip()
    prompt = example.user_text.strip().replace('"', "")
    lines: dict[tuple[Any, ...], int] = {}
    cells = line_no = 0
    strings: list[str] = []
    for span in double_bracket_spans(flat):
        ok, value = python_literal(span if corrected else span.replace(',"', ""))
        rows = [_row_strings(row) for row in value] if ok else []
        if not ok or None in rows:
            continue
        texts = [text for _, row_texts in filter(None, rows) for text in row_texts]
        cells += len(texts) if corrected else len(value) * len(value[0])
        strings += texts
        for key, _ in filter(None, rows):
            lines[key] = line_no
        line_no += 1
    if cells:
        in_prompt = occurring(strings, prompt)
        known = sum(s in in_prompt for s in strings)
        ori += 3.0 * known / cells
        ori_why.append(f"{known} literal values in the prompt per {cells} cells")

    truth_lines: dict[tuple[str, ...], int] = {}
    for number, group in enumerate(truth):
        for doc in group:
            truth_lines[tuple(str(v).replace('"', "") for v in doc)] = number
    placed = [(group, lines[key]) for key, group in truth_lines.items() if key in lines]
    agree = sum((a == b) == (la == lb) for a, la in placed for b, lb in placed)
    correct += agree / len(truth_lines) ** 2
    correct_why.append(
        f"{len(placed)} of {plural(len(truth_lines), 'duplicate document')} found in the "
        f"lines, {agree} of {len(truth_lines) ** 2} document pairs grouped right"
    )
    points = {
        "correct": award(specs["correct"], correct / 4, "; ".join(correct_why)),
        "num_text": award(specs["num_text"], num / 5, num_why),
        "ori": award(specs["ori"], ori / 6, "; ".join(ori_why)),
        "format": award(specs["format"], format_earned / 5, format_why),
    }
    return tuple(shorten(span, 120) for span in spans), in_spec_order(specs, points)
