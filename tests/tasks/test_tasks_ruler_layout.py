"""RULER's layout rules in lctui's generators: needle depths, answer prefixes, solved
examples, cwe's regimes and fwe's filler (the comparison with RULER's own examples is
tests/parity/test_ruler_structure.py)."""

from __future__ import annotations

import random
import re
from collections import Counter

import pytest

from helpers.whole_units import cwe_entries, other_counts, partial_text, sentences
from lctui.suites.ruler.tasks.aggregation import NOISE_TOKEN, zipf_counts
from lctui.tasks import get_task
from lctui.tasks.budget import TEMPLATE_ALLOWANCE
from lctui.tasks.haystack import GRID_DEPTHS, depth_slot, grid_depths, uniform_depths
from lctui.tasks.tokenizers import TiktokenTokenizer

NIAH = [
    "niah_single_1",
    "niah_single_2",
    "niah_single_3",
    "niah_multikey_1",
    "niah_multikey_2",
    "niah_multikey_3",
    "niah_multivalue",
    "niah_multiquery",
]
PREFIXED = [*NIAH, "vt", "cwe", "fwe"]
# Tasks whose haystack RULER builds of whole sentences (filler, distractor needles).
SENTENCE_HAYSTACKS = ["niah_single_1", "niah_multikey_2", "niah_multikey_3", "vt"]
WHOLE_LENGTHS = (1024, 2048, 4096, 8192, 16384)


def test_the_depth_grid_is_rulers_forty_even_steps() -> None:
    assert len(GRID_DEPTHS) == 40 and GRID_DEPTHS[0] == 0 and GRID_DEPTHS[-1] == 100
    assert GRID_DEPTHS[:4] == (0, 3, 5, 8) and sorted(set(GRID_DEPTHS)) == list(GRID_DEPTHS)


def test_grid_depths_are_distinct_until_the_grid_runs_out() -> None:
    rng = random.Random(3)
    four = grid_depths(rng, 4)
    assert len(set(four)) == 4 and set(four) <= set(GRID_DEPTHS)
    many = grid_depths(rng, 90)
    assert Counter(many[:40]) == Counter(float(d) for d in GRID_DEPTHS)  # all 40, once
    assert len(many) == 90 and len(set(many[40:80])) == 40


def test_a_depth_lands_on_rulers_unit_boundary() -> None:
    # int(n * depth / 100): 100 % is after the last unit; a uniform depth below 100 %
    # is one of the n boundaries before a unit, each as likely.
    assert depth_slot(100.0, 7) == 7 and depth_slot(0.0, 7) == 0
    assert depth_slot(99.999, 7) == 6 and depth_slot(50.0, 7) == 3
    assert all(depth_slot(100.0 * k / 37, 37) == k for k in range(38))
    assert all(0 <= d < 100 for d in uniform_depths(random.Random(1), 1000))


@pytest.mark.parametrize("name", ["niah_single_2", "niah_single_1", "niah_multikey_2"])
def test_any_number_of_examples_spreads_over_the_depths(
    name: str, o200k: TiktokenTokenizer
) -> None:
    task = get_task(name)
    depths = [task.generate(2048, 0, i, o200k).depth for i in range(30)]
    assert all(d is not None for d in depths)
    spread = sorted(d for d in depths if d is not None)
    assert spread[0] < 15 and spread[-1] > 85
    # The former depths[i % 11] put the first three examples at 0, 10 and 20 %.
    assert max(d for d in depths[:3] if d is not None) > 25


def test_needles_of_an_example_get_distinct_grid_depths_in_prose(o200k: TiktokenTokenizer) -> None:
    for index in range(5):
        example = get_task("niah_multivalue").generate(4096, 0, index, o200k)
        depths = example.metadata["needle_depths"]
        assert example.metadata["depth_scheme"] == "grid40"
        assert len(depths) == 4 and len(set(depths)) == 4
        assert example.depth in depths
    noise = get_task("niah_single_1").generate(4096, 0, 0, o200k)
    assert noise.metadata["depth_scheme"] == "uniform"
    keys = get_task("niah_multikey_1").generate(4096, 0, 0, o200k)
    assert len(keys.metadata["needle_depths"]) == 1
    assert len(keys.metadata["other_needle_depths"]) == 3


def test_an_explicit_depth_list_still_sweeps_the_asked_needle(o200k: TiktokenTokenizer) -> None:
    task = get_task("niah_single_2").with_params({"depths": [0, 100]})
    first, second = (task.generate(4096, 0, i, o200k) for i in range(2))
    assert first.metadata["depth_scheme"] == "list"
    assert first.depth is not None and first.depth < 3
    assert second.depth is not None and second.depth > 97


@pytest.mark.parametrize("name", PREFIXED)
def test_the_answer_prefix_is_reserved_in_the_example_budget(
    name: str, o200k: TiktokenTokenizer
) -> None:
    example = get_task(name).generate(4096, 0, 0, o200k)
    assert example.answer_prefix
    prefix_tokens = o200k.count("\n\n" + example.answer_prefix)
    assert example.template_overhead == TEMPLATE_ALLOWANCE + prefix_tokens
    used = o200k.count(example.user_text) + example.template_overhead + example.max_new_tokens
    assert used <= 4096


def test_needle_prefixes_name_the_kind_and_every_asked_key(o200k: TiktokenTokenizer) -> None:
    single = get_task("niah_single_3").generate(4096, 0, 0, o200k)
    assert single.answer_prefix == f'The secret ID tied to "{single.metadata["keys"][0]}" is:'
    query = get_task("niah_multiquery").generate(4096, 0, 0, o200k)
    keys = query.metadata["keys"]
    assert len(keys) == 4 and all(f'"{k}"' in query.answer_prefix for k in keys)
    assert query.answer_prefix.startswith("The secret numbers ") and "are:" in query.answer_prefix
    values = get_task("niah_multivalue").generate(4096, 0, 0, o200k)
    assert values.answer_prefix.startswith("The secret numbers tied to ")


def test_vt_names_value_and_count_after_a_solved_example_of_500_tokens(
    o200k: TiktokenTokenizer,
) -> None:
    task = get_task("vt")
    for index in range(3):
        example = task.generate(4096, 0, index, o200k)
        value = example.metadata["value"]
        assert example.answer_prefix == f"Answer: the 5 variables that end up holding {value} are"
        assert 450 <= example.metadata["demo_tokens"] <= 500
        solved = re.search(r"holding (\d{5}) are ([A-Z, ]+)\.\n", example.preamble)
        assert solved is not None and solved.group(1) != value
        names = solved.group(2).split(", ")
        assert len(names) == 5 and all(len(n) == 3 for n in names)
    again = task.generate(4096, 0, 1, o200k)
    assert again.preamble != task.generate(4096, 0, 2, o200k).preamble  # drawn per example


@pytest.mark.parametrize(
    ("length", "common", "others", "demo"),
    [(2048, 6, 1, {3: 10, 1: 10}), (4095, 6, 1, {3: 10, 1: 10}), (4096, 30, 3, {10: 10, 3: 30})],
)
def test_cwe_switches_to_rulers_short_counts_below_4k(
    length: int,
    common: int,
    others: int,
    demo: dict[int, int],
    o200k: TiktokenTokenizer,
) -> None:
    example = get_task("cwe").generate(length, 0, 0, o200k)
    main = Counter(re.split(r"(?:^| )\d+\. ", example.context)[1:])
    assert {main[g] for g in example.gold} == {common}
    rest = Counter(c for w, c in main.items() if w not in example.gold)
    assert rest.most_common(1)[0][0] == others and max(rest) == others
    listing = example.preamble.split("\n\n")[2]
    solved = Counter(re.split(r"(?:^| )\d+\. ", listing)[1:])
    assert dict(Counter(solved.values())) == demo
    assert example.answer_prefix == "Answer: the 10 words that occur most often in the list are"


def test_fwe_counts_follow_rulers_zipf_floors_after_the_filler(o200k: TiktokenTokenizer) -> None:
    example = get_task("fwe").generate(4096, 0, 0, o200k)
    assert example.metadata["vocab_size"] == (4096 - 50) // 50 == 80
    counts = Counter(example.context.split(" "))
    expected = zipf_counts(example.metadata["zipf_scale"], 80, 2.0)
    real = sorted((c for w, c in counts.items() if w != NOISE_TOKEN), reverse=True)
    assert real == [c for c in expected[1:] if c]
    assert counts[NOISE_TOKEN] == expected[0] + example.metadata["filler_padding"]
    assert [counts[g] for g in example.gold] == expected[1:4]
    assert example.answer_prefix == "Answer: the three most frequent words of the text are"
    assert example.max_new_tokens == 50


@pytest.mark.parametrize("length", WHOLE_LENGTHS)
@pytest.mark.parametrize("name", SENTENCE_HAYSTACKS)
def test_filler_and_distractor_haystacks_hold_whole_sentences_only(
    name: str, length: int, o200k: TiktokenTokenizer
) -> None:
    """RULER inserts whole filler and distractor sentences; lctui cut the last one to fill
    the budget (`... The secret number tied to "rapid-cutover" is 266`)."""
    for index in range(8):
        example = get_task(name).generate(length, 0, index, o200k)
        assert partial_text(example.context) == "", (index, example.context[-120:])
        assert len(sentences(example.context)) >= 10  # the haystack is there, and whole


@pytest.mark.parametrize("length", [2048, *WHOLE_LENGTHS[2:]])
def test_each_other_cwe_word_occurs_exactly_rare_freq_times(
    length: int, o200k: TiktokenTokenizer
) -> None:
    """RULER repeats every other word exactly freq_ucw times; lctui's last one could
    occur once or twice, cut to fill the budget."""
    for index in range(8):
        example = get_task("cwe").generate(length, 0, index, o200k)
        rare, common = int(example.params["rare_freq"]), int(example.params["common_freq"])
        assert rare == (1 if length < 4096 else 3)
        counts = other_counts(example)
        assert set(counts.values()) == {rare}, (index, Counter(counts.values()))
        main = Counter(cwe_entries(example.context))
        assert {main[g] for g in example.gold} == {common}


def test_cwe_other_words_are_whole_at_any_rare_freq(o200k: TiktokenTokenizer) -> None:
    task = get_task("cwe").with_params({"rare_freq": 5})
    for index in range(4):
        example = task.generate(8192, 0, index, o200k)
        assert set(other_counts(example).values()) == {5}


# Ids given before the examples named their build version (seed 0, index 0, o200k_base).
_EARLIER_IDS = {
    ("niah_single_1", 4096): "229cfd3cd0f5e0fb",
    ("niah_multikey_2", 16384): "e96843ca824bd16a",
    ("niah_multikey_3", 4096): "a93844b4e6f0e540",
    ("vt", 4096): "b7708268a3f4df40",
    ("cwe", 4096): "ceacc1866828fe83",
    ("cwe", 2048): "09f8bb1f23bda069",
    ("niah_single_2", 4096): "ae4dcc8b55d06cfc",
    ("niah_multikey_1", 4096): "2da1775c32d0b0de",
    ("fwe", 4096): "9838bbcef979d9c5",
}
# Examples whose text changed when their units became whole (cwe's short list, x1,
# was whole already).
_REBUILT = {"niah_single_1", "niah_multikey_2", "niah_multikey_3", "vt", ("cwe", 4096)}


@pytest.mark.parametrize("cell", sorted(_EARLIER_IDS), ids=lambda c: f"{c[0]}@{c[1]}")
def test_rebuilt_examples_get_new_ids_and_the_others_keep_theirs(cell: tuple[str, int]) -> None:
    """Text built whole is never stored or paired under the id of the text cut before."""
    name, length = cell
    now = get_task(name).example_id(length, 0, 0, "o200k_base")
    rebuilt = name in _REBUILT or cell in _REBUILT
    assert (now != _EARLIER_IDS[cell]) == rebuilt
