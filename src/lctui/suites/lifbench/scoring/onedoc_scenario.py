"""LIFEval's points for the OneDoc scenario (repeat, extract, qa), by the original's rules.

The tagged sentences come from the example's metadata, as the original's label:
per type (in the original's order), its sentences in id order, each key or fake.

extract (EvaluateFunc.py l.408-513), the key sentences of one type T:

- format (4): the whole output is JSON: a list of strings 4 (the empty list counts
  as one for |Summary|), another list 3, not a list 1; else the text from its first
  `[` to its last `]` is JSON: 3, 2 or 1 alike; else 0.
- order (4), ori (2): full when any tagged sentence (of any type, fakes included)
  occurs in the output with its escapes decoded, else 0. The order check never
  fails: the position it compares with stays 0 (a plain bug; rules="corrected"
  compares each sentence with the furthest one found before it).
- correct (4): 3.5 * (T's key sentences found) / max(tagged sentences found, list
  length, T's key sentences), + 0.5 unless T's fake occurs.
- For |Summary| (no sentence of it) an output of exactly `[]` earns every point; `[ ]`
  or a fenced `[]` go the normal way (with rules="corrected", any output that is an
  empty JSON list earns every point).

repeat (l.534-624), num sentences asked with separator sep:

- ori (2): 1 always (its check that a quote was found cannot fail, a plain bug;
  rules="corrected" asks for one), + 1 if a type name occurs in the output.
- hit (2): 2 * min(1, (tagged sentences quoted - 0.5 * fakes quoted) / num).
- format (3): 0.5 if the output has a newline or num is 1; 0.5 if sep occurs; and
  when it does, 2 * min(1, lines holding sep exactly once / max(lines, num)).
- num (4): separators == num, non-empty lines == num, quotes == num (1 each), and a
  third per equal pair among those three counts.
- correct (3): the share of lines whose text before the first sep is within
  len(s) // 6 + 3 edits of a tagged sentence s of a type named after it (the whole
  line for both when sep is missing). Every line counts (its filter of lines that
  name a type is always true, a plain bug; rules="corrected" counts only those).

qa (l.627-675), options (yes, no), option 0 meaning "it is a key sentence":

- format (2): 1 if the output is as long as one option, else 0.5 if it is more than
  3 characters longer than both; + 0.5 if both options occur in it, else 1 if one does.
- correct (3): both options occur 0.5; neither 0; else for a key sentence 3 if the
  answer is option 0, 0.1 if not; for a fake or untagged sentence 3 if option 1,
  2 if option 0. Options are case-sensitive substrings.

"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lctui.core.text import plural, shorten
from lctui.core.types import Example, RubricPoint
from lctui.suites.lifbench.scoring.original_reading import (
    CORRECTED,
    decode_escapes_retrying,
    json_value,
    rules_of,
)
from lctui.suites.lifbench.scoring.output_text import edit_distance, in_spec_order, rubric_point
from lctui.suites.lifbench.scoring.point_specs import PointSpec
from lctui.suites.lifbench.tasks.onedoc_context import ABSENT_TYPE, ALL_TYPES, KEY_TYPES


@dataclass(frozen=True)
class Labelled:
    """A tagged sentence as the original's label holds it."""

    text: str
    type: str
    key: bool


def tagged_sentences(meta: Mapping[str, Any]) -> list[Labelled]:
    """The tagged sentences in the original label's order: by type, then by id."""
    entries = sorted([*meta["keys"], *meta["fakes"]], key=lambda t: int(t["id"]))
    return [
        Labelled(str(t["text"]), kind, t["tail"] == t["type"])
        for kind in KEY_TYPES
        for t in entries
        if t["type"] == kind
    ]


def extract_format(where: int, is_list: bool, strings: bool) -> float:
    """format earned of 4: `where` 2 the whole output is JSON, 1 its bracketed part, 0
    neither; whether that JSON is a list, and a list of strings (or the empty list asked
    for)."""
    if not where:
        return 0.0
    return 1.0 + where + strings if is_list else 1.0


def extract_correct(hits: int, found: int, listed: int, trues: int, fake_shown: bool) -> float:
    """correct earned of 4: 3.5 * hits / max(found, listed, trues), + 0.5 without the fake."""
    over = max(found, listed, trues)
    return (3.5 * hits / over if over else 0.0) + (0.0 if fake_shown else 0.5)


def extract_order(found: int, in_order: int) -> float:
    """order earned of 4: 4 * the share of the tagged sentences found that are in order
    (under the original rules every one is)."""
    return 4.0 * in_order / found if found else 0.0


def _extract_json(out: str, target: str) -> tuple[int, bool, bool, int, str]:
    """(where JSON was found: 2 whole, 1 bracketed, 0 none; is a list; list of strings;
    list length; why)."""
    for kind, text in ((2, out), (1, out[out.find("[") : out.rfind("]") + 1])):
        ok, value = json_value(text)
        if not ok:
            continue
        where = "the whole output" if kind == 2 else "its part from the first [ to the last ]"
        if not isinstance(value, list):
            return kind, False, False, 0, f"{where} is JSON but not a list"
        empty_asked = target == ABSENT_TYPE and value == []
        strings = all(isinstance(v, str) for v in value) or empty_asked
        what = "a list of strings" if strings else "a list, not all strings"
        return kind, True, strings, len(value), f"{where} is {what}"
    return 0, False, False, 0, "no JSON list"


def extract_points(
    example: Example, output: str, specs: Mapping[str, PointSpec]
) -> tuple[tuple[str, ...], list[RubricPoint]]:
    """(the tagged sentences found, the four points) of an extract output."""
    meta = example.metadata
    target = str(meta["type"])
    corrected = rules_of(example) == CORRECTED
    out = output.strip()
    if not out:
        return (), [rubric_point(specs[name], 0.0, "empty output") for name in specs]
    kind, is_list, strings, length, format_why = _extract_json(out, target)
    format_earned = extract_format(kind, is_list, strings)
    empty = kind == 2 and is_list and not length
    if target == ABSENT_TYPE and (out == "[]" or (corrected and empty)):
        why = f"{target} has no key sentence, and the answer is the empty list"
        return ("[]",), [rubric_point(specs[name], 1.0, why) for name in specs]
    decoded, crashed = decode_escapes_retrying(out)
    tagged = tagged_sentences(meta)
    furthest = in_order = found = 0
    quoted: list[str] = []
    for sentence in tagged:
        at = decoded.find(sentence.text)
        if at < 0:
            continue
        found += 1
        quoted.append(sentence.text)
        in_order += at >= furthest
        furthest = max(at, furthest) if corrected else min(at, furthest)
    trues = [s.text for s in tagged if s.type == target and s.key]
    fakes = [s.text for s in tagged if s.type == target and not s.key]
    hits = sum(text in decoded for text in trues)
    fake_shown = bool(fakes) and fakes[0] in decoded
    correct = extract_correct(hits, found, length, len(trues), fake_shown)
    read = " (an escape the original cannot decode was dropped)" if crashed else ""
    correct_why = (
        f"{hits} of {len(trues)} {target} key sentences given, out of max({found} tagged "
        f"sentences found, {length} listed, {len(trues)}){read}; "
        + ("its fake is there (+0)" if fake_shown else "no fake of it (+0.5)")
    )
    if corrected:
        order_why = f"{in_order} of {found} tagged sentences found after the ones before them"
    else:
        order_why = f"{plural(found, 'tagged sentence')} found (the order is not checked)"
    points = {
        "format": rubric_point(specs["format"], format_earned / 4, format_why),
        "correct": rubric_point(specs["correct"], correct / 4, correct_why),
        "order": rubric_point(specs["order"], extract_order(found, in_order) / 4, order_why),
        "ori": rubric_point(
            specs["ori"], float(found > 0), f"{plural(found, 'tagged sentence')} quoted"
        ),
    }
    return tuple(shorten(q, 80) for q in quoted), in_spec_order(specs, points)


def qa_format(length_fits: int, options: int) -> float:
    """format earned of 2: `length_fits` 2 as long as an option, 1 much longer, 0 other;
    `options`: how many of the two options occur."""
    return {2: 1.0, 1: 0.5, 0: 0.0}[length_fits] + {2: 0.5, 1: 1.0, 0: 0.0}[options]


def qa_correct(options: int, answer_yes: bool, kind: str) -> float:
    """correct earned of 3 for the options found, the answer given and the sentence kind."""
    if options != 1:
        return 0.5 if options == 2 else 0.0
    if kind == "key":
        return 3.0 if answer_yes else 0.1
    return 2.0 if answer_yes else 3.0


def _kind(meta: Mapping[str, Any], tagged: Sequence[Labelled]) -> str:
    """ "key", "fake" or "plain": what the original's label says the asked sentence is."""
    evidence = str(meta["evidence"]).strip()
    for sentence in tagged:
        if sentence.text.strip() == evidence:
            return "key" if sentence.key else "fake"
    return "plain"


def qa_points(
    example: Example, output: str, specs: Mapping[str, PointSpec]
) -> tuple[tuple[str, ...], list[RubricPoint]]:
    """(the options found, the two points) of a qa output."""
    meta = example.metadata
    yes, no = (str(o) for o in meta["options"])
    out = output.strip()
    kind = _kind(meta, tagged_sentences(meta))
    longest = max(len(yes), len(no))
    if len(out) in (len(yes), len(no)):
        fits, size = 2, f"as long as an option ({len(out)} characters)"
    elif len(out) > longest + 3:
        fits, size = 1, f"{len(out)} characters, more than {longest + 3}"
    else:
        fits, size = 0, f"{len(out)} characters, the length of neither option"
    present = [o for o in (yes, no) if o in out]
    answer_yes = yes in out
    what = {"key": "a key sentence", "fake": "a fake key sentence", "plain": "untagged"}[kind]
    expected = yes if kind == "key" else no
    if len(present) == 2:
        correct_why = f"both {yes!r} and {no!r} occur"
    elif not present:
        correct_why = f"neither {yes!r} nor {no!r} occurs (case matters)"
    else:
        correct_why = f"the sentence is {what}, so {expected!r}; the answer is {present[0]!r}"
    format_why = f"{size}; {plural(len(present), 'option')} in it"
    points = {
        "correct": rubric_point(
            specs["correct"], qa_correct(len(present), answer_yes, kind) / 3, correct_why
        ),
        "format": rubric_point(specs["format"], qa_format(fits, len(present)) / 2, format_why),
    }
    return tuple(present), in_spec_order(specs, points)


def repeat_hit(hits: int, fakes: int, num: int) -> float:
    """hit earned of 2: quotes (a fake counting -0.5) per sentence asked, at most 1."""
    return min(1.0, (hits - 0.5 * fakes) / num) * 2


def repeat_format(lines_ok: bool, sep_found: bool, shaped: int, lines: int, num: int) -> float:
    """format earned of 3: several lines (or one asked), the separator found, and
    2 * min(1, lines holding it once / max(lines, num)) (0 lines without it)."""
    return 0.5 * lines_ok + 0.5 * sep_found + min(1.0, shaped / max(lines, num)) * 2


def repeat_ori(quoted: bool, named: bool, corrected: bool) -> float:
    """ori earned of 2: 1 for quoting a tagged sentence (always, under the original rules),
    1 for naming a type."""
    return float(quoted or not corrected) + float(named)


def repeat_num(seps: int, lines: int, hits: int, num: int) -> float:
    """num earned of 4: each count equal to `num` (1 each), and a third per pair of equal
    counts."""
    equal = (seps == lines) + (seps == hits) + (hits == lines)
    return (seps == num) + (lines == num) + (hits == num) + equal / 3


def _close(sentence: str, candidate: str) -> bool:
    """Within the original's edit distance: len(candidate) // 6 + 3."""
    limit = len(candidate) // 6 + 3
    return abs(len(sentence) - len(candidate)) <= limit and (
        edit_distance(sentence, candidate, limit) <= limit
    )


def repeat_points(
    example: Example, output: str, specs: Mapping[str, PointSpec]
) -> tuple[tuple[str, ...], list[RubricPoint]]:
    """(the output's lines, the five points) of a repeat output."""
    meta = example.metadata
    sep, num = str(meta["sep"]), int(meta["num"])
    corrected = rules_of(example) == CORRECTED
    out = output.strip()
    if not out:
        return (), [rubric_point(specs[name], 0.0, "empty output") for name in specs]
    tagged = tagged_sentences(meta)
    quoted = [s for s in tagged if s.text in out]
    hits, fakes = len(quoted), sum(not s.key for s in quoted)
    named = any(kind in out for kind in ALL_TYPES)
    ori = repeat_ori(hits > 0, named, corrected)
    ori_why = (
        (f"quotes {plural(hits, 'tagged sentence')}" if corrected else "always (the original")
        + ("" if corrected else "'s check of a quote cannot fail)")
        + f" (+{int(hits > 0 or not corrected)}); "
        + ("names a type (+1)" if named else "names no type (+0)")
    )
    hit = repeat_hit(hits, fakes, num)

    lines = [line for line in out.split("\n") if line]
    seps = out.count(sep)
    shaped = sum(line.count(sep) == 1 for line in lines) if sep in out else 0
    over = len(lines) if sep in out else 0
    lines_ok = num == 1 or "\n" in out
    format_earned = repeat_format(lines_ok, sep in out, shaped, over, num)
    format_why = (
        f"{'several lines or one asked' if lines_ok else 'one line'}, separator {sep!r} "
        f"{'found' if sep in out else 'missing'}; {shaped} of max({over} lines, {num} "
        "asked) hold it once"
    )

    right = typed = 0
    for line in lines:
        sentence, found, kinds_text = line.partition(sep)
        if not found:
            sentence = kinds_text = line.strip()
        kinds = [kind for kind in ALL_TYPES if kind in kinds_text]
        typed += bool(kinds)
        if any(_close(sentence, s.text) for s in tagged if s.type in kinds):
            right += 1
    counted = typed if corrected else len(lines)
    correct = 3.0 * right / counted if counted else 0.0
    correct_why = (
        f"{right} of {plural(counted, 'line')}{' naming a type' if corrected else ''} give a "
        "sentence close to one of the type named after the separator"
    )
    points = {
        "format": rubric_point(specs["format"], format_earned / 3, format_why),
        "ori": rubric_point(specs["ori"], ori / 2, ori_why),
        "hit": rubric_point(
            specs["hit"],
            hit / 2,
            f"{plural(hits, 'tagged sentence')} quoted ({plural(fakes, 'fake')}, -0.5 each) "
            f"for {num} asked",
        ),
        "num": rubric_point(
            specs["num"],
            repeat_num(seps, len(lines), hits, num) / 4,
            f"{plural(seps, 'separator')}, {plural(len(lines), 'line')}, "
            f"{plural(hits, 'quote')}; {num} asked",
        ),
        "correct": rubric_point(specs["correct"], correct / 3, correct_why),
    }
    return tuple(shorten(line, 80) for line in lines), in_spec_order(specs, points)


def onedoc_points(
    example: Example, output: str, specs: Mapping[str, PointSpec]
) -> tuple[tuple[str, ...], list[RubricPoint]]:
    """(extracted answers, rubric points) of one output of a OneDoc task."""
    task = example.metadata["lifeval_task"]
    if task == "qa":
        return qa_points(example, output, specs)
    if task == "extract":
        return extract_points(example, output, specs)
    return repeat_points(example, output, specs)
