"""Budget fitting: lands within tolerance, never over, even when estimates are off."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from helpers.counting_tokenizer import CountingTokenizer
from lctui.core.errors import UserInputError
from lctui.core.lengths import format_length, parse_length, parse_lengths
from lctui.tasks.budget import Budget, CountedPrefix, fit_to_budget, prefix_sums
from lctui.tasks.tokenizers import reference_tokenizer


class SkewedTokenizerFake:
    """A fake whose whole-text count differs from the sum of its unit counts.

    Real tokenizers agree within 0.04 %; this fake is off by `skew` tokens per
    unit so the correction loop of the fitter has to work.
    """

    name = "skewed-fake"

    def __init__(self, skew: float) -> None:
        self.skew = skew

    def encode(self, text: str) -> list[int]:
        return list(range(self.count(text)))

    def decode(self, ids: Sequence[int]) -> str:
        return ""

    def count(self, text: str) -> int:
        words = text.split()
        return int(len(words) * (1 + self.skew))

    def count_batch(self, texts: Sequence[str]) -> list[int]:
        return [len(t.split()) for t in texts]


@pytest.mark.parametrize("skew", [-0.05, 0.0, 0.03, 0.2])
def test_fit_is_within_tolerance_and_never_over(skew: float) -> None:
    tokenizer = SkewedTokenizerFake(skew)
    units = [f"w{i}" for i in range(50_000)]
    budget = Budget(length=20_000, reserve=100)

    def build(n: int, tail: str) -> str:
        return " ".join(units[:n])

    fitted = fit_to_budget(build, prefix_sums([1] * len(units)), 0, budget, tokenizer)
    assert budget.target - budget.tolerance <= fitted.tokens <= budget.target
    assert tokenizer.count(fitted.text) == fitted.tokens
    assert fitted.verifications <= 4


def test_whole_units_without_a_tail_land_within_one_unit_and_the_tolerance() -> None:
    """Units of 30 tokens and no tail to fill the gap (RULER's whole distractor
    sentences): the closest whole count is taken, never refused for the gap."""
    tokenizer = SkewedTokenizerFake(0.0)
    unit = " ".join(["w"] * 30)
    budget = Budget(length=1_000, reserve=0)  # tolerance 8: under any 30-token unit

    def build(n: int, tail: str) -> str:
        return " ".join([unit] * n)

    fitted = fit_to_budget(build, prefix_sums([30] * 100), 5, budget, tokenizer)
    assert fitted.units == 33 and fitted.tokens == 990 and fitted.tail == ""
    # With a tail to fill the gap the tolerance stays the bound.
    with pytest.raises(UserInputError, match="could only build"):
        fit_to_budget(
            build, prefix_sums([30] * 100), 5, budget, tokenizer, tail=lambda n, r: ("", 0)
        )


def test_fixed_parts_larger_than_the_budget_are_refused() -> None:
    with pytest.raises(UserInputError, match="too short"):
        fit_to_budget(lambda n, t: "", [0, 1], 5_000, Budget(1_000, 10), SkewedTokenizerFake(0))


def test_tolerance_is_half_a_percent_or_eight_tokens() -> None:
    assert Budget(131072, 0).tolerance == 655
    assert Budget(1024, 0).tolerance == 8


@pytest.mark.parametrize(
    ("text", "tokens"),
    [("2k", 2048), ("128k", 131072), ("131072", 131072), ("32K", 32768), ("1.5k", 1536)],
)
def test_parse_length(text: str, tokens: int) -> None:
    assert parse_length(text) == tokens


@pytest.mark.parametrize("bad", ["", "abc", "4kb", "-1k", "100"])
def test_parse_length_rejects_bad_values(bad: str) -> None:
    with pytest.raises(UserInputError):
        parse_length(bad)


def test_parse_lengths_keeps_order_and_drops_repeats() -> None:
    assert parse_lengths("8k,2k,8192") == [8192, 2048]
    assert format_length(131072) == "128k"


def test_length_presets_expand_in_place_and_mix_with_lengths() -> None:
    assert parse_lengths("lifbench") == [k * 1024 for k in (3, 6, 13, 28, 60, 120)]
    assert parse_lengths("2k,LIFBench,6k") == [2048, *(k * 1024 for k in (3, 6, 13, 28, 60, 120))]
    with pytest.raises(UserInputError, match="preset: lifbench, ruler, helmet"):
        parse_lengths("lifbnch")


@pytest.mark.parametrize("length", [300, 2_000, 20_000])
def test_a_counted_prefix_fits_as_the_whole_prefix_does_counting_only_up_to_the_bound(
    length: int,
) -> None:
    """A row of 8,000 sentences of which the length holds a few hundred: the fit on
    sums counted as far as it reads them is the fit on all the sums, and the
    sentences past the bound are never tokenised."""
    tokenizer = CountingTokenizer()
    units = [f"Sentence {i} tells of the mill by the river number {i * 7}. " for i in range(8_000)]
    budget = Budget(length=length, reserve=0)

    def build(n: int, tail: str) -> str:
        return "".join(units[:n])

    whole = fit_to_budget(build, prefix_sums(tokenizer.count_batch(units)), 0, budget, tokenizer)
    tokenizer.batched.clear()
    prefix = CountedPrefix(len(units), lambda i, j: units[i:j], tokenizer.count_batch)
    fitted = fit_to_budget(build, prefix, 0, budget, tokenizer)
    assert fitted == whole
    assert whole.units < len(units) // 4
    # The sentences counted: the first ones, in order, up to a little past the fit.
    assert tokenizer.batched == units[: len(tokenizer.batched)]
    assert len(tokenizer.batched) <= max(64, 1.1 * (whole.units + 1) + 16)
    assert prefix[: whole.units + 2] == prefix_sums(tokenizer.count_batch(units))[: whole.units + 2]


def test_a_counted_prefix_reads_like_the_list_of_sums() -> None:
    units = [f"w{i} " * (i % 5 + 1) for i in range(300)]
    counts = reference_tokenizer("o200k_base").count_batch
    listed = prefix_sums(counts(units))
    counted = CountedPrefix(len(units), lambda i, j: units[i:j], counts)
    assert len(counted) == len(listed)
    assert [counted[i] for i in (0, 5, -1, 17, -300)] == [listed[i] for i in (0, 5, -1, 17, -300)]
    assert list(counted) == listed
    with pytest.raises(IndexError):
        counted[len(listed)]
