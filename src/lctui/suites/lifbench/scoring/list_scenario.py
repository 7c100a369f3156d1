"""LIFEval's rubric programs for the List scenario of LIFBench: the original's rules.

Each point awards exactly the fraction LIFBench's own evaluation code awards (its
`EvaluateFunc.py`, snapshot adb554d; the parity fixtures in tests/parity check every
branch), and the response total is computed as it computes it:

- single_query_id, offset_query_id, offset_query_element (format 1, correct 2, ori 1):
  format 0.2 for an output as long as some list entry (between the shortest and the
  longest); 0.8 more when the output is exactly one entry, 0.3 when it holds exactly
  one entry inside other text. ori 1 when some entry occurs. correct 1 when the
  expected entry occurs (case-sensitive), 0.5 when the whole output is within
  Levenshtein distance len(expected) / 6 + 3 of it. An output holding no entry scores
  0 in total, whatever its format point shows.
- multi_query_id (format 2, num 3, correct 3, order 2): format from JSON (the whole
  output a list of strings 1, another list 0.75, other JSON 0.25; else the span from
  the first `[` to the last `]`: 0.75, 0.5, 0.25); num from the list's length (or the
  entries counted in the output): ([n' == n] + 2 max(0, 1 - |n' - n| / n)) / 3;
  correct the share of asked entries present; order 1 when they appear in the asked
  order, 0.5 when at most one is present.
- blur_offset_query_id, blur_offset_query_element (ori 1, position 3, format 1):
  format and the zero total as above; position 1 when every entry present lies on
  the asked side of the named one, 1/3 when some is the named one itself.

The original's bugs are kept under the default `rules="original"` (the published
scores have them) and fixed under `rules="corrected"` (docs/suites.md, LIFBench deviations):
the zero total of an output with no entry; the half credit for a near miss, which
only an output holding some *other* entry can reach (and every wrong uuid1 entry is
a near miss of every other). multi_query_id never crashes where the original does
(an escape its unicode_escape decoding cannot read: we read it as written; JSON
nested past Python's recursion limit: not JSON).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from rapidfuzz.distance import Levenshtein

from lctui.core.text import plural, shorten
from lctui.core.types import Example
from lctui.scoring.json_text import loads
from lctui.scoring.rubric import list_values
from lctui.suites.lifbench.scoring.list_answer import ListIndex, unescape
from lctui.suites.lifbench.scoring.output_text import Awarded, in_spec_order, rubric_point
from lctui.suites.lifbench.scoring.point_specs import PointSpec
from lctui.suites.lifbench.tasks.list_context import parse_list, parse_numbered_list

CORRECTED = "corrected"
NO_ENTRY = "no list entry occurs in the output: the original stops here and scores the response 0"
# metadata["list_reading"] of an example whose context is a list of LIFBench's own
# prompts (tasks/inputs/lifbench.py): read as its evaluation reads it, entries running
# from one `\nN. ` to the next (one may hold newlines); else one entry per numbered line.
LIFBENCH_READING = "lifbench"


@lru_cache(maxsize=8)
def _list_index(context: str, reading: str | None = None) -> ListIndex:
    """The list of a context, indexed once for all the responses scored against it."""
    items = parse_numbered_list(context) if reading == LIFBENCH_READING else parse_list(context)
    return ListIndex(items)


def list_points(example: Example, output: str, specs: Mapping[str, PointSpec]) -> Awarded:
    """The points and total of one output of a List task."""
    meta = example.metadata
    reading = meta.get("list_reading")
    index = _list_index(example.context, reading if isinstance(reading, str) else None)
    corrected = example.params.get("rules") == CORRECTED
    text = output.strip()
    task = str(meta["lifeval_task"])
    if not text:
        points = [rubric_point(p, 0.0, "the output is empty") for p in specs.values()]
        return Awarded((), points, 0.0, unparsed=True)
    if task == "multi_query_id":
        return _multi(meta, specs, text, index)
    if task.startswith("blur_"):
        return _blur(meta, specs, text, index, corrected)
    return _single(meta, specs, text, index, corrected)


def _found(index: ListIndex, counts: Mapping[int, int]) -> tuple[str, ...]:
    return tuple(index.items[i] for i in sorted(counts))


def _format_start(text: str, index: ListIndex) -> tuple[float, str]:
    """The format point's first 0.2: an output as long as some entry of the list."""
    n = len(text)
    span = f"{index.shortest} to {index.longest}"
    if index.shortest <= n <= index.longest:
        return 0.2, f"0.2: the output's length ({n} characters) is within the entries' ({span})"
    return 0.0, f"no 0.2: the output's length ({n} characters) is outside the entries' ({span})"


def _format_rest(
    earned: float, why: str, text: str, index: ListIndex, entries: int
) -> tuple[float, str]:
    """The format point's rest, given how many entries the output holds."""
    if entries == 1:
        if text in index.item_set:
            return earned + 0.8, why + "; 0.8 more: the output is exactly one list entry"
        return earned + 0.3, why + "; 0.3 more: exactly one list entry, inside other text"
    if entries > 1:
        return earned, why + f"; no more: {entries} list entries, not one"
    return earned, why + "; no more: no list entry"


def _single(
    meta: Mapping[str, Any], specs: Mapping[str, PointSpec], text: str, index: ListIndex,
    corrected: bool,
) -> Awarded:  # fmt: skip
    """single_query_id, offset_query_id, offset_query_element."""
    expected = str(meta["expected"][0])
    position = int(meta["expected_positions"][0])
    counts = index.occurrences(text)
    count = sum(counts.values())
    fmt, fmt_why = _format_rest(*_format_start(text, index), text, index, count)
    ori = 1.0 if count else 0.0
    names = list_values([shorten(e, 40) for e in _found(index, counts)], 3)
    ori_why = (
        f"list entries occur {plural(count, 'time')} ({shorten(names, 120)})"
        if count
        else "no list entry occurs in the output"
    )
    correct, correct_why = 0.0, "not judged: no list entry occurs"
    if count or corrected:
        correct, correct_why = _correctness(expected, position, text, count, corrected)
    points = {
        "format": rubric_point(specs["format"], fmt, fmt_why),
        "correct": rubric_point(specs["correct"], correct, correct_why),
        "ori": rubric_point(specs["ori"], ori, ori_why),
    }
    if not count and not corrected:
        return Awarded((), in_spec_order(specs, points), 0.0, unparsed=True, note=NO_ENTRY)
    # The original's arithmetic: its raw points (correct counts 2 for 1.0) summed in its
    # order, over R_t.
    total = (fmt + correct * 2.0 + ori) / 4.0
    return Awarded(_found(index, counts), in_spec_order(specs, points), total)


def _correctness(
    expected: str, position: int, text: str, count: int, corrected: bool
) -> tuple[float, str]:
    wanted = f"the entry at position {position}"
    if expected in text:
        return 1.0, f"{wanted} occurs in the output"
    limit = len(expected) / 6 + 3
    distance = Levenshtein.distance(expected, text, score_cutoff=int(limit))
    if distance <= limit:
        if corrected and count:
            return 0.0, (
                f"{wanted} does not occur; the output is within {distance} edits of it, "
                "but it reproduces another entry (no near-miss credit under the corrected rules)"
            )
        return 0.5, (
            f"0.5: {wanted} does not occur, but the whole output is within "
            f"{distance} edits of it (up to {limit:.2f} earn half)"
        )
    return 0.0, f"{wanted} does not occur, and the output is more than {limit:.2f} edits from it"


def _blur(
    meta: Mapping[str, Any], specs: Mapping[str, PointSpec], text: str, index: ListIndex,
    corrected: bool,
) -> Awarded:  # fmt: skip
    """blur_offset_query_id, blur_offset_query_element: any entry on the asked side."""
    pivot = int(meta["pivot"])
    after = meta.get("direction") == "after"
    counts = index.occurrences(text)
    present = sorted(counts)  # 0-based entry indices; the original asks presence, not count
    fmt, fmt_why = _format_rest(*_format_start(text, index), text, index, len(present))
    positions = [i + 1 for i in present]
    side = "after" if after else "before"
    if not present:
        points = {
            "ori": rubric_point(specs["ori"], 0.0, "reproduces no list entry"),
            "position": rubric_point(specs["position"], 0.0, "not judged: no list entry occurs"),
            "format": rubric_point(specs["format"], fmt, fmt_why),
        }
        ordered = in_spec_order(specs, points)
        if corrected:
            return Awarded((), ordered, fmt / 5.0)
        return Awarded((), ordered, 0.0, unparsed=True, note=NO_ENTRY)
    shown = list_values([str(p) for p in positions], 5)
    beyond = all(p > pivot for p in positions) if after else all(p < pivot for p in positions)
    reaching = all(p >= pivot for p in positions) if after else all(p <= pivot for p in positions)
    if beyond:
        position = 3.0
        why = f"every entry given (at {shown}) lies {side} position {pivot}"
    elif reaching:
        position = 1.0
        why = (
            f"1/3: the entries given (at {shown}) include position {pivot} itself, the rest {side}"
        )
    else:
        position = 0.0
        why = f"an entry given (at {shown}) does not lie {side} position {pivot}"
    points = {
        "ori": rubric_point(
            specs["ori"], 1.0, f"reproduces {plural(len(present), 'list entry', 'list entries')}"
        ),
        "position": rubric_point(specs["position"], position / 3.0, why),
        "format": rubric_point(specs["format"], fmt, fmt_why),
    }
    total = (1.0 + position + fmt) / 5.0
    return Awarded(_found(index, counts), in_spec_order(specs, points), total)


def _json_format(text: str) -> tuple[float, int | None, list[Any] | None, str]:
    """(format's raw points of 2, the list's length or None, the list, why), as the
    original reads JSON."""
    for candidate, whole in ((text, True), (_bracket_span(text), False)):
        try:
            value = loads(candidate)
        except ValueError:  # not JSON, or nested too deep to read safely
            if whole:
                continue
            return 0.0, None, None, "not JSON, nor is the span from the first [ to the last ]"
        where = "the whole output" if whole else "the span from the first [ to the last ]"
        if not isinstance(value, list):
            return 0.5, None, None, f"0.25: {where} is JSON but not a list"
        if all(isinstance(v, str) for v in value):
            raw = 2.0 if whole else 1.5
            return raw, len(value), value, f"{raw / 2:g}: {where} is a JSON list of strings"
        raw = 1.5 if whole else 1.0
        return raw, len(value), value, f"{raw / 2:g}: {where} is a JSON list, not all of strings"
    raise AssertionError("unreachable")  # the span's attempt always returns


def _bracket_span(text: str) -> str:
    """text[first '[' : last ']' + 1], with Python's slicing of missing brackets (-1)."""
    return text[text.find("[") : text.rfind("]") + 1]


def _multi(
    meta: Mapping[str, Any], specs: Mapping[str, PointSpec], text: str, index: ListIndex
) -> Awarded:
    """multi_query_id: the entries at several positions, as a JSON list."""
    expected = [str(e) for e in meta["expected"]]
    n = len(expected)
    fmt, length, parsed, fmt_why = _json_format(text)
    counts = index.occurrences(text) if parsed is None else {}
    if length is None:
        length = sum(counts.values())
        counted = f"the output holds {plural(length, 'list entry', 'list entries')}"
    else:
        counted = f"the JSON list has {plural(length, 'item')}"
    num = 1.0 if length == n else 0.0
    num += max(0.0, 1.0 - abs(length - n) / n) * 2
    num_why = f"{counted} for {n} positions asked"
    decoded, crashes = unescape(text)
    matched = [e for e in expected if e in decoded]
    correct = len(matched) / n * 3.0
    correct_why = f"{len(matched)} of the {n} asked entries occur in the output"
    if crashes:
        correct_why += " (text the original cannot decode, where it crashes, is read as written)"
    order, order_why = _order(matched, decoded)
    points = {
        "format": rubric_point(specs["format"], fmt / 2.0, fmt_why),
        "num": rubric_point(specs["num"], num / 3.0, num_why),
        "correct": rubric_point(specs["correct"], correct / 3.0, correct_why),
        "order": rubric_point(specs["order"], order / 2.0, order_why),
    }
    total = (fmt + num + correct + order) / 10.0
    extracted = (
        tuple(v if isinstance(v, str) else repr(v) for v in parsed)
        if parsed is not None
        else _found(index, counts)
    )
    return Awarded(extracted, in_spec_order(specs, points), total)


def _order(matched: Sequence[str], decoded: str) -> tuple[float, str]:
    """The order point's raw value (of 2): the asked entries' first places never go back."""
    if len(matched) <= 1:
        return (
            1.0,
            f"0.5: {plural(len(matched), 'asked entry', 'asked entries')} present, "
            "no order to judge",
        )
    last = 0
    for rank, entry in enumerate(matched, 1):
        place = decoded.find(entry)
        if place < last:
            return (
                0.0,
                f"the asked entries present are out of order (the {rank}. one comes earlier)",
            )
        last = place
    return 2.0, f"the {len(matched)} asked entries present appear in the asked order"
