"""RULER's whole-unit fill of the needle tasks (`fill=ruler`): the count searched once on
a reference example of the seed, every example stepped back by RULER's step (500 words of
prose, 25 units of filler or distractor needles) while it overflows."""

from __future__ import annotations

import pytest

from helpers.whole_units import sentences
from lctui.core.types import Example
from lctui.suites.ruler.tasks.niah import NOISE_LINE
from lctui.tasks import get_task
from lctui.tasks.budget import TEMPLATE_ALLOWANCE
from lctui.tasks.haystack import WholeUnits, whole_unit_count
from lctui.tasks.tokenizers import TiktokenTokenizer

LENGTH = 4096
EXAMPLES = range(6)


def _filled(name: str, tokenizer: TiktokenTokenizer) -> list[Example]:
    task = get_task(name).with_params({"fill": "ruler"})
    return [task.generate(LENGTH, 0, i, tokenizer) for i in EXAMPLES]


def _haystack_words(example: Example) -> int:
    """Words of the context that are not needle sentences (RULER's essay units)."""
    text = example.context
    for needle in sentences(text):
        text = text.replace(needle, "", 1)
    return len(text.split())


def test_the_search_finds_the_largest_count_from_one_step_that_fits() -> None:
    def measure(count: int) -> int:
        return 100 + 3 * count  # a text of `count` units: 3 tokens each

    assert whole_unit_count(measure, 1000, 1000, WholeUnits(step=25)) == 300
    # Nothing fits: one step, as RULER falls back to its `incremental`.
    assert whole_unit_count(measure, 50, 1000, WholeUnits(step=25)) == 25


def test_an_example_steps_back_whole_steps_from_the_searched_count_only_when_it_overflows() -> None:
    def measure(count: int) -> int:
        return 120 + 3 * count

    assert whole_unit_count(measure, 1000, 1000, WholeUnits(500, start=293)) == 293
    assert whole_unit_count(measure, 1000, 1000, WholeUnits(25, start=300)) == 275
    assert whole_unit_count(measure, 1000, 1000, WholeUnits(25, start=350)) == 275
    # Past the units drawn for the example, it steps back too.
    assert whole_unit_count(lambda c: c, 1000, 40, WholeUnits(25, start=60)) == 35


@pytest.mark.parametrize("name", ["niah_single_2", "niah_multiquery"])
def test_prose_examples_hold_the_reference_count_of_words_or_whole_steps_fewer(
    name: str, o200k: TiktokenTokenizer
) -> None:
    examples = _filled(name, o200k)
    counts = [int(e.metadata["fill_units"]) for e in examples]
    start = max(counts)
    assert all((start - c) % 500 == 0 for c in counts)
    for example, count in zip(examples, counts, strict=True):
        assert _haystack_words(example) == count
        assert example.prompt_tokens + example.max_new_tokens <= LENGTH
    # Of six examples drawn at other places of the prose, some overflow the count that
    # fits the reference and step back a whole 500 words: the fill is not lctui's.
    assert min(counts) < start
    assert all(
        e.prompt_tokens < LENGTH - e.max_new_tokens - 300
        for e, c in zip(examples, counts, strict=True)
        if c < start
    )


def test_filler_and_needle_haystacks_count_whole_units(o200k: TiktokenTokenizer) -> None:
    for example in _filled("niah_single_1", o200k):
        filler = [s for s in sentences(example.context) if not s.startswith("The secret")]
        assert len(filler) == NOISE_LINE * int(example.metadata["fill_units"])
    for example in _filled("niah_multikey_2", o200k):
        needles = sentences(example.context)
        assert len(needles) == int(example.metadata["fill_units"]) + 1  # the asked one


def test_the_fill_names_the_example_and_exact_keeps_the_earlier_ids(
    o200k: TiktokenTokenizer,
) -> None:
    task = get_task("niah_single_2")
    # The id niah_single_2 gave at 4096 (seed 0, index 0) before `fill` existed.
    earlier = "ae4dcc8b55d06cfc"
    assert task.example_id(LENGTH, 0, 0, "o200k_base") == earlier
    assert task.with_params({"fill": "exact"}).example_id(LENGTH, 0, 0, "o200k_base") == earlier
    ruler = task.with_params({"fill": "ruler"}).generate(LENGTH, 0, 0, o200k)
    assert ruler.example_id != earlier
    assert ruler.params["fill"] == "ruler"
    assert ruler.template_overhead >= TEMPLATE_ALLOWANCE
