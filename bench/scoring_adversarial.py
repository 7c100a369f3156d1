"""Answer extraction and reply parsing on adversarial output: the former code against now.

Issue 17.6: extraction was quadratic on a repeated answer, the judge reply reader's
patterns on runs of spaces, LIFEval's line patterns likewise; all of them ran on the
event loop. The former code of each hot part is kept here (and only here) as a
naive reference, so one run prints, per input size, the time of the naive and the
current code and their ratio. The naive times grow with the square (or cube) of
the size; the current ones linearly.

    python bench/scoring_adversarial.py [--scale 1.0]

`--scale` multiplies every size (the naive code at scale 2 takes minutes).
"""

from __future__ import annotations

import argparse
import json
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from lctui.scoring.extract import _pattern_hits
from lctui.scoring.judge import _line_values, find_json_object
from lctui.scoring.substrings import occurring
from lctui.suites.lifbench.scoring.original_reading import braced_spans, double_bracket_spans

# -- the former code (naive references) ------------------------------------------------


def naive_pattern_hits(output: str, pattern: re.Pattern[str], golds: Sequence[str]) -> list[Any]:
    """extract._pattern_hits before: every match compared with every gold hit."""
    gold_hits = [
        (m.start(), m.end(), m.group())
        for gold in golds
        for m in re.finditer(re.escape(gold), output, re.IGNORECASE)
    ]
    hits = list(gold_hits)
    for m in pattern.finditer(output):
        start, end = m.span()
        if start == end or any(start < e and s < end for s, e, _ in gold_hits):
            continue
        hits.append((start, end, m.group()))
    return sorted(hits)


def naive_line_values(text: str) -> dict[str, str]:
    """judge._line_values before: one multiline pattern."""
    out: dict[str, str] = {}
    pattern = r"^[\s\-*#>]*\"?([a-z][a-z ]*?\s*\d*|\d+)\"?\s*[:=]\s*(.+?)\s*$"
    for m in re.finditer(pattern, text, re.I | re.M):
        out.setdefault(re.sub(r"\s+", " ", m.group(1).strip().lower()), m.group(2).strip(" ,\"'"))
    return out


def naive_find_json_object(text: str) -> dict[str, Any] | None:
    """judge.find_json_object before: a fence pattern, then a decode at every `{`."""
    stripped = re.sub(r"^```(?:json)?\s*|\s*```$", "", text.strip())
    try:
        whole = json.loads(stripped)
    except (ValueError, RecursionError):
        whole = None
    if isinstance(whole, dict):
        return whole
    decoder = json.JSONDecoder()
    for match in re.finditer(r"\{", text):
        try:
            found, _ = decoder.raw_decode(text, match.start())
        except (ValueError, RecursionError):
            continue
        if isinstance(found, dict):
            return found
    return None


# LIFBench's own patterns (batch_label, find_dup_text), as re.findall runs them.
_NAIVE_BRACED = re.compile(r"\{[^\]]+\}")
_NAIVE_DOUBLE_BRACKETS = re.compile(r"\[\[.*?\]\]")
# find_dup_text looks for every value of an answer in the prompt: a 120K-token prompt.
_PROMPT = "".join(f"field {i}: value {i * 7919 % 100_003}\n" for i in range(25_000))


def _values(text: str) -> list[str]:
    return text.split(",")


def naive_occurring(text: str) -> set[str]:
    """One scan of the prompt per value."""
    return {value for value in _values(text) if value in _PROMPT}


# -- the cases -------------------------------------------------------------------------

NUMBER7 = re.compile(r"\b\d{7}\b")
GOLDS = ["1234567", "7654321"]


@dataclass(frozen=True)
class Case:
    name: str
    make: Callable[[int], str]
    sizes: tuple[int, ...]  # characters
    naive: Callable[[str], object]
    now: Callable[[str], object]


CASES = [
    Case(
        "extraction, repeated answer",
        lambda n: "1234567 7654321 " * (n // 16),
        (16_000, 64_000, 128_000, 272_000),
        lambda out: naive_pattern_hits(out, NUMBER7, GOLDS),
        lambda out: _pattern_hits(out, NUMBER7, GOLDS),
    ),
    Case(
        'judge lines, "a" + spaces + "x"',
        lambda n: "a" + " " * (n - 2) + "x",
        (500, 1_000, 2_000),
        naive_line_values,
        _line_values,
    ),
    Case(
        'judge lines, "fluency: 1" + spaces + "x"',
        lambda n: "fluency: 1" + " " * (n - 11) + "x",
        (2_000, 8_000, 16_000),
        naive_line_values,
        _line_values,
    ),
    Case(
        "judge JSON, '{\"k\":1,' repeated",
        lambda n: '{"k":1,' * (n // 7),
        (35_000, 140_000, 280_000),
        naive_find_json_object,
        find_json_object,
    ),
    Case(
        "LIFEval braces, '{' repeated",
        lambda n: "{" * n,
        (4_000, 16_000, 32_000),
        _NAIVE_BRACED.findall,
        braced_spans,
    ),
    Case(
        "LIFEval double brackets, '[[' repeated",
        lambda n: "[[" * (n // 2),
        (2_000, 8_000, 16_000),
        _NAIVE_DOUBLE_BRACKETS.findall,
        double_bracket_spans,
    ),
    Case(
        "find_dup_text values in a 120K prompt",
        lambda n: ",".join(str(100_000 + i) for i in range(n // 7)),
        (7_000, 28_000, 56_000),
        naive_occurring,
        lambda text: occurring(_values(text), _PROMPT),
    ),
]


def best_time(work: Callable[[], object], budget_s: float = 0.2) -> float:
    """The best of several runs (as many as fit in `budget_s`, at least one)."""
    best = float("inf")
    spent = 0.0
    while spent < budget_s:
        started = time.perf_counter()
        work()
        took = time.perf_counter() - started
        best, spent = min(best, took), spent + took
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every size")
    args = parser.parse_args()
    print(f"{'case':<42} {'chars':>8} {'naive ms':>10} {'now ms':>9} {'naive/now':>10}")
    for case in CASES:
        for size in case.sizes:
            text = case.make(int(size * args.scale))
            naive = best_time(partial(case.naive, text))
            now = best_time(partial(case.now, text))
            print(
                f"{case.name:<42} {len(text):>8} {naive * 1e3:>10.1f} {now * 1e3:>9.3f} "
                f"{naive / now:>10.0f}"
            )


if __name__ == "__main__":
    main()
