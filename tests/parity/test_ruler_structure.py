"""lctui's RULER examples have the structure of RULER's own (tests/parity/ruler_structure.jsonl).

The fixture records examples RULER's own generators made (scripts/parity/ruler_structure.py):
counts, depths, demonstration sizes, word counts, answer prefix fields, budget use, cut
filler or needle units (none: RULER inserts them whole) and cwe's other words' counts.
lctui's examples of the same task and length (o200k_base, seed 0, as many as the
fixture has) are compared with them: counts exactly; sizes, shares and the spread of
depths within the stated tolerances (our wording and filler differ in length).
"""

from __future__ import annotations

import re
import statistics
from collections import Counter, defaultdict
from functools import cache
from typing import Any

import pytest
from scipy.stats import ks_2samp

from helpers.parity_fixtures import load_fixture
from helpers.whole_units import cwe_entries, other_counts, partial_text, unit_allowance
from lctui.core.types import Example
from lctui.suites.ruler.tasks.aggregation import NOISE_TOKEN, zipf_counts
from lctui.suites.ruler.tasks.niah import needle_sentence
from lctui.tasks import get_task
from lctui.tasks.budget import Budget
from lctui.tasks.tokenizers import reference_tokenizer

FIXTURE = load_fixture("ruler_structure")
CELLS: dict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
for _row in FIXTURE.rows:
    CELLS[_row["task"], _row["length"]].append(_row)
NIAH_CELLS = sorted(cell for cell in CELLS if cell[0].startswith("niah"))
SIZE_TOLERANCE = 0.10  # demonstration tokens, needle-haystack lines, list entries
NEEDLE_HAYSTACKS = ("niah_multikey_2", "niah_multikey_3")


@cache
def examples(task: str, length: int) -> tuple[Example, ...]:
    tokenizer = reference_tokenizer("o200k_base")
    count = len(CELLS[task, length])
    return tuple(get_task(task).generate(length, 0, i, tokenizer) for i in range(count))


def the(values: Any) -> Any:
    """The one value every original example has (a structural count)."""
    listed = list(values)
    found = {repr(v) for v in listed}
    assert len(found) == 1, f"the original's examples disagree: {found}"
    return listed[0]


def near(ours: float, theirs: float, tolerance: float = SIZE_TOLERANCE) -> bool:
    return abs(ours - theirs) <= tolerance * theirs


def test_the_fixture_covers_every_task_at_2k_4k_and_8k_and_whole_units_at_16k() -> None:
    assert FIXTURE.repository == "NVIDIA/RULER"
    tasks = {task for task, _ in CELLS}
    assert len(tasks) == 11
    assert {length for _, length in CELLS} == {2048, 4096, 8192, 16384}
    assert ("cwe", 2048) in CELLS
    at_16k = {task for task, length in CELLS if length == 16384}
    assert at_16k == {"niah_single_1", *NEEDLE_HAYSTACKS, "cwe"}


@pytest.mark.parametrize("cell", sorted(CELLS), ids=lambda c: f"{c[0]}@{c[1]}")
def test_budget_use_and_answer_tokens(cell: tuple[str, int]) -> None:
    task, length = cell
    rows = CELLS[cell]
    assert all(row["budget_tokens"] <= length for row in rows)  # RULER stays within too
    tokenizer = reference_tokenizer("o200k_base")
    for example in examples(task, length):
        assert example.max_new_tokens == the(row["max_new_tokens"] for row in rows)
        used = example.prompt_tokens + example.max_new_tokens
        # Whole units (sentences, cwe's words) land up to one unit further under.
        tolerance = Budget(length, 0).tolerance + unit_allowance(example, tokenizer)
        assert length - tolerance <= used <= length
        # Never less of the length than the original's fullest example leaves unused.
        assert used >= min(row["budget_tokens"] for row in rows) - tolerance


def _needles(example: Example) -> int:
    if example.params["haystack"] != "needles":
        return sum(1 for span in example.spans if span.kind in ("needle", "distractor"))
    opening = needle_sentence("KEY", "VALUE", str(example.params["value_kind"])).split('"')[0]
    return example.context.count(opening)


@pytest.mark.parametrize("cell", NIAH_CELLS, ids=lambda c: f"{c[0]}@{c[1]}")
def test_needle_counts_and_answer_prefix(cell: tuple[str, int]) -> None:
    rows = CELLS[cell]
    for example in examples(*cell):
        keys = example.metadata["keys"]
        assert len(example.gold) == the(row["asked_needles"] for row in rows)
        assert len(keys) == the(row["asked_keys"] for row in rows)
        # The prefix names every asked key and the kind of value, singular for one.
        assert sum(f'"{k}"' in example.answer_prefix for k in keys) == the(
            row["prefix_keys_named"] for row in rows
        )
        assert the(row["prefix_names_kind"] for row in rows)
        noun = "ID" if example.params["value_kind"] == "uuid" else "number"
        assert f"secret {noun}" in example.answer_prefix
        assert example.answer_prefix.endswith("is:") == (len(example.gold) == 1)
        # RULER inserts filler and needles whole (essays: None, cut at a word).
        if the(row["partial_units"] for row in rows) == 0:
            assert partial_text(example.context) == "", example.context[-120:]
        if cell[0] in NEEDLE_HAYSTACKS:
            theirs = statistics.mean(row["needles"] for row in rows)
            assert near(_needles(example), theirs), (_needles(example), theirs)
        else:
            assert _needles(example) == the(row["needles"] for row in rows)


@pytest.mark.parametrize("task", sorted({task for task, _ in NIAH_CELLS}))
def test_needle_depths_spread_as_rulers(task: str) -> None:
    """The asked needles' depths over the examples of both lengths follow the same
    distribution as RULER's (two-sample Kolmogorov-Smirnov, p > 0.001) and reach both
    ends of the context."""
    theirs: list[float] = []
    ours: list[float] = []
    for length in (4096, 8192):
        theirs += [d for row in CELLS[task, length] for d in row["gold_depths"]]
        ours += [d / 100 for e in examples(task, length) for d in e.metadata["needle_depths"]]
    assert len(ours) == len(theirs)
    assert ks_2samp(ours, theirs).pvalue > 0.001, (sorted(ours), sorted(theirs))
    assert min(ours) < 0.15 and max(ours) > 0.85


@pytest.mark.parametrize("length", [4096, 8192])
def test_vt_demonstration_and_prefix(length: int) -> None:
    rows = CELLS["vt", length]
    theirs = statistics.mean(row["demo_tokens"] for row in rows)
    ours = [e.metadata["demo_tokens"] for e in examples("vt", length)]
    assert near(statistics.mean(ours), theirs), (ours, theirs)
    for example in examples("vt", length):
        assert len(example.gold) == the(row["golds"] for row in rows)
        assert sorted({len(g) for g in example.gold}) == the(row["name_lengths"] for row in rows)
        solved = re.search(r"are ([A-Z, ]+)\.\n\nNow the real task", example.preamble)
        assert solved is not None
        names = solved.group(1).split(", ")
        assert len(names) == the(row["demo_names"] for row in rows)
        assert sorted({len(n) for n in names}) == the(row["demo_name_lengths"] for row in rows)
        assert the(row["prefix_names_value"] for row in rows)
        assert example.metadata["value"] in example.answer_prefix
        assert the(row["prefix_names_count"] for row in rows)
        assert f" {len(example.gold)} variables" in example.answer_prefix
        assert the(row["partial_units"] for row in rows) == 0
        assert partial_text(example.context) == "", example.context[-120:]


def _histogram(words: list[str]) -> dict[str, int]:
    return {str(k): v for k, v in sorted(Counter(Counter(words).values()).items())}


@pytest.mark.parametrize("length", [2048, 4096, 8192, 16384])
def test_cwe_regime_demonstration_and_counts(length: int) -> None:
    rows = CELLS["cwe", length]
    demo_tokens = statistics.mean(t for row in rows for t in row["demo_tokens"])
    ours = [e.metadata["demo_tokens"] for e in examples("cwe", length)]
    assert near(statistics.mean(ours), demo_tokens), (ours, demo_tokens)
    for example in examples("cwe", length):
        demo = cwe_entries(example.preamble.split("\n\n")[2])
        assert [len(demo)] == the(row["demo_entries"] for row in rows)
        assert [_histogram(demo)] == the(row["demo_histograms"] for row in rows)
        words = cwe_entries(example.context)
        counts = Counter(words)
        histogram = _histogram(words)
        theirs = rows[0]["histogram"]  # {others' count: words, commons' count: 10}
        common = next(k for k, v in theirs.items() if v == len(example.gold))
        other = next(k for k in theirs if k != common)
        assert {counts[g] for g in example.gold} == {int(common)}
        assert histogram[other] >= 0.9 * statistics.mean(r["histogram"][other] for r in rows)
        # Every other word as often as RULER's, none cut short to fill the length.
        assert sorted(set(other_counts(example).values())) == the(
            row["other_counts"] for row in rows
        )
        assert set(histogram) == set(theirs)
        assert near(len(words), statistics.mean(row["entries"] for row in rows))
        assert the(row["prefix_names_count"] for row in rows)
        assert f" {len(example.gold)} words" in example.answer_prefix


def _zipf_scale(counts: list[int], vocab: int) -> int | None:
    """The scale N whose Zipf floors (lctui's rule) give RULER's counts, if one does."""
    total = sum(counts)
    for scale in range(total, 2 * total):
        if [c for c in zipf_counts(scale, vocab, 2.0) if c] == counts:
            return scale
    return None


@pytest.mark.parametrize("length", [4096, 8192])
def test_fwe_filler_ranks_vocabulary_and_shares(length: int) -> None:
    rows = CELLS["fwe", length]
    vocab = (length - 50) // 50
    scales = [_zipf_scale(row["counts"], vocab) for row in rows]
    assert None not in scales  # RULER's counts are exactly our rule at some scale
    ours: dict[str, list[float]] = defaultdict(list)
    for example in examples("fwe", length):
        assert example.metadata["vocab_size"] == vocab
        words = example.context.split(" ")
        counts = Counter(words)
        ranked = [w for w, _ in counts.most_common()]
        assert ranked[0] == NOISE_TOKEN
        assert [ranked.index(g) + 1 for g in example.gold] == the(row["gold_ranks"] for row in rows)
        assert the(row["prefix_names_three"] for row in rows)
        assert " three " in example.answer_prefix
        used = example.prompt_tokens + example.max_new_tokens
        ours["present"].append(len(counts))
        ours["density"].append(len(words) / used)
        ours["scale"].append(example.metadata["zipf_scale"] / used)
        ours["noise_share"].append(counts[NOISE_TOKEN] / len(words))
        for i, gold in enumerate(example.gold):
            ours[f"gold_share_{i}"].append(counts[gold] / len(words))
    theirs = {
        "present": [row["present"] for row in rows],
        # Per token of the length used: RULER steps its scale back by length / 32 and
        # leaves up to 10 % of the length unused, lctui fills it to 0.5 %.
        "density": [row["words"] / row["budget_tokens"] for row in rows],
        "scale": [s / row["budget_tokens"] for s, row in zip(scales, rows, strict=True) if s],
        "noise_share": [row["noise_share"] for row in rows],
        **{f"gold_share_{i}": [row["gold_shares"][i] for row in rows] for i in range(3)},
    }
    # The words' token counts vary by example (three words make a quarter of the text):
    # means within 10 %, every example of ours within RULER's range widened by 10 %.
    for name in ("present", "density", "scale"):
        assert near(statistics.mean(ours[name]), statistics.mean(theirs[name])), name
        low, high = min(theirs[name]) * 0.9, max(theirs[name]) * 1.1
        assert all(low <= value <= high for value in ours[name]), (name, ours[name])
    # Shares are set by the Zipf rule: within 1.5 points (filler), 0.5 points (answers).
    for name, points in [("noise_share", 0.015)] + [(f"gold_share_{i}", 0.005) for i in range(3)]:
        gap = abs(statistics.mean(ours[name]) - statistics.mean(theirs[name]))
        assert gap < points, (name, ours[name], theirs[name])
