"""Paired tests, intervals and Spearman against hand-checked cases and scipy itself."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from lctui.analysis import stats
from lctui.analysis.stats import _means_by_gather, _means_from_counts

RNG = np.random.default_rng(20260101)
GRADED_A = np.round(RNG.random(40) * 4) / 4
GRADED_B = np.clip(GRADED_A - np.round(RNG.normal(0.1, 0.3, 40) * 4) / 4, 0, 1)


def test_mcnemar_on_a_known_table() -> None:
    # 1 pair where only A passed, 9 where only B passed, 5 concordant: the exact
    # two-sided p is 2 * P(X <= 1 | n = 10, 1/2) = 2 * 11 / 1024.
    a = [1] * 1 + [0] * 9 + [1] * 3 + [0] * 2
    b = [0] * 1 + [1] * 9 + [1] * 3 + [0] * 2
    result = stats.mcnemar_exact(a, b)
    assert (result.n, result.a_only, result.b_only) == (15, 1, 9)
    assert result.p == pytest.approx(22 / 1024, abs=1e-15)
    assert result.p == pytest.approx(sps.binomtest(1, 10, 0.5).pvalue)


@pytest.mark.parametrize("discordant", [1, 2, 7, 30, 31, 200, 5001])
def test_mcnemar_from_counts_equals_scipy_binomtest(discordant: int) -> None:
    for a_only in sorted({0, 1, discordant // 3, discordant // 2, discordant - 1, discordant}):
        expected = sps.binomtest(a_only, discordant, 0.5).pvalue
        result = stats.mcnemar_from_counts(a_only, discordant - a_only, discordant + 5)
        assert result.p == pytest.approx(min(1.0, expected), rel=1e-9, abs=1e-300)


def test_mcnemar_without_discordant_pairs_is_one_and_refuses_graded_scores() -> None:
    assert stats.mcnemar_exact([1, 0, 1], [1, 0, 1]).p == 1.0
    with pytest.raises(ValueError, match="0/1"):
        stats.mcnemar_exact([0.5, 1], [1, 1])


def test_wilcoxon_equals_scipy_on_fixed_data() -> None:
    result = stats.wilcoxon_signed_rank(GRADED_A, GRADED_B)
    expected = sps.wilcoxon(GRADED_A, GRADED_B)
    assert result.p == pytest.approx(float(expected.pvalue), rel=1e-12)
    assert result.statistic == pytest.approx(float(expected.statistic))
    assert result.n == 40
    assert result.n_nonzero == int(np.count_nonzero(GRADED_A - GRADED_B))
    assert result.reason is None


def test_wilcoxon_with_too_few_pairs_gives_a_reason_not_a_p() -> None:
    result = stats.wilcoxon_signed_rank([0.5, 1.0, 0.25], [0.5, 0.0, 0.75])
    assert result.p is None and result.statistic is None
    assert result.reason is not None
    assert "n = 2 pairs with a non-zero difference" in result.reason
    assert "too few for a Wilcoxon test" in result.reason


def test_t_interval_equals_scipy_paired_t() -> None:
    interval = stats.t_interval(GRADED_A, GRADED_B, level=0.9)
    expected = sps.ttest_rel(GRADED_A, GRADED_B).confidence_interval(confidence_level=0.9)
    assert (interval.low, interval.high) == pytest.approx((expected.low, expected.high))
    assert stats.t_interval([1.0], [0.0]).low is None


def test_bootstrap_interval_contains_the_mean_and_repeats_with_its_seed() -> None:
    diff = float(np.mean(GRADED_A - GRADED_B))
    first = stats.bootstrap_interval(GRADED_A, GRADED_B, seed=7)
    again = stats.bootstrap_interval(GRADED_A, GRADED_B, seed=7)
    other = stats.bootstrap_interval(GRADED_A, GRADED_B, seed=8)
    assert first.method == "bootstrap"
    assert first.low is not None and first.high is not None
    assert first.low < diff < first.high
    assert first == again
    assert first != other
    # Near the t interval at n = 40 (both estimate the same sampling spread).
    t = stats.t_interval(GRADED_A, GRADED_B)
    assert t.low is not None and t.high is not None
    assert first.high - first.low == pytest.approx(t.high - t.low, rel=0.15)


def test_both_resampling_ways_draw_the_same_distribution() -> None:
    d = GRADED_A - GRADED_B
    values, counts = np.unique(d, return_counts=True)
    by_counts = _means_from_counts(np.random.default_rng(1), values, counts, len(d), 20_000)
    by_gather = _means_by_gather(np.random.default_rng(2), d, 20_000)
    assert by_counts.mean() == pytest.approx(d.mean(), abs=0.003)
    assert by_gather.mean() == pytest.approx(d.mean(), abs=0.003)
    assert by_counts.std() == pytest.approx(by_gather.std(), rel=0.05)
    assert by_counts.std() == pytest.approx(d.std() / math.sqrt(len(d)), rel=0.05)


def test_bootstrap_past_its_budget_says_it_used_the_t_interval() -> None:
    a = RNG.random(5000)
    b = RNG.random(5000)
    interval = stats.bootstrap_interval(a, b, budget=1000)
    assert interval.method == "t"
    assert interval.reason is not None and "t interval" in interval.reason
    assert (interval.low, interval.high) == pytest.approx(
        (stats.t_interval(a, b).low, stats.t_interval(a, b).high)
    )


def test_spearman_with_ties_by_hand_and_by_scipy() -> None:
    # Ranks of x with the tie averaged: 1, 2.5, 2.5, 4; y: 1, 3, 2, 4. Pearson of the
    # ranks: 4.5 / sqrt(4.5 * 5).
    x, y = [1, 2, 2, 3, 5], [1, 3, 2, 4, 6]
    result = stats.spearman(x, y, min_n=4)
    assert result.n == 5
    hand = stats.spearman(x[:4], y[:4], min_n=4)
    assert hand.rho == pytest.approx(4.5 / math.sqrt(4.5 * 5), abs=1e-12)
    expected = sps.spearmanr(x, y)
    assert result.rho == pytest.approx(float(expected.statistic))
    assert result.p == pytest.approx(float(expected.pvalue))


def test_spearman_drops_missing_pairs_and_explains_what_it_cannot_compute() -> None:
    x = [0.1, 0.4, np.nan, 0.3, 0.9, 0.7, 0.2]
    y = [0.2, 0.5, 0.3, np.nan, 0.8, 0.9, 0.1]
    result = stats.spearman(x, y)
    keep = [0, 1, 4, 5, 6]
    expected = sps.spearmanr([x[i] for i in keep], [y[i] for i in keep])
    assert result.n == 5
    assert result.rho == pytest.approx(float(expected.statistic))
    few = stats.spearman([1, 2, 3], [3, 2, 1])
    assert few.rho is None and few.reason is not None and "n = 3: too few" in few.reason
    flat = stats.spearman([1, 1, 1, 1, 1], [1, 2, 3, 4, 5])
    assert flat.rho is None and flat.reason == "x is the same for all 5: no ranking"


def test_newcombe_interval_equals_the_published_example() -> None:
    # Fagerland, Lydersen & Laake (2017), table 8.3 (Cavo et al. 2012): 59 pairs both
    # responded, 6 only before, 16 only after, 80 neither; Newcombe's square-and-add
    # interval of the difference is -0.0621 (-0.1186 to -0.0046).
    interval = stats.newcombe_interval(stats.PairTable(59, 6, 16, 80))
    assert interval.method == "newcombe"
    assert (interval.low, interval.high) == pytest.approx((-0.1186, -0.0046), abs=5e-5)


def test_the_issues_two_pairs_get_no_interval_but_too_few_pairs() -> None:
    # A passed both, B one of two: the t interval was [-5.853, +6.853].
    t = stats.t_interval([1.0, 1.0], [1.0, 0.0])
    assert (t.low, t.high) == pytest.approx((-5.853, 6.853), abs=5e-4)
    interval = stats.paired_interval([1.0, 1.0], [1.0, 0.0])
    assert interval.too_few and interval.low is None and interval.high is None
    assert interval.shown() == stats.TOO_FEW_PAIRS == "too few pairs"
    assert interval.reason == "n = 2 pairs: too few for an interval (needs 5)"
    five = stats.paired_interval([1.0] * 5, [1.0, 0.0, 1.0, 1.0, 1.0])
    assert five.method == "newcombe" and not five.too_few


def test_a_t_interval_past_the_bootstrap_budget_stays_within_the_range() -> None:
    # 3000 graded pairs where A is nearly always 1 above B: t alone reaches past +1.
    a = np.ones(3000)
    b = np.concatenate([np.zeros(2999), [0.999]])
    b[:1500] += np.linspace(0, 1e-3, 1500)
    t = stats.t_interval(a, b)
    assert t.high is not None and t.high > 1.0
    interval = stats.bootstrap_interval(a, b, budget=1000)
    assert interval.method == "t" and interval.high == 1.0
    assert interval.low == pytest.approx(t.low)


SCORES = st.one_of(
    st.sampled_from([0.0, 1.0]),
    st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]),
    st.floats(0.0, 1.0, allow_nan=False),
)


@settings(max_examples=300, deadline=None)
@given(
    pairs=st.one_of(
        st.lists(st.tuples(st.sampled_from([0.0, 1.0]), st.sampled_from([0.0, 1.0])), max_size=80),
        st.lists(st.tuples(SCORES, SCORES), max_size=80),
        # one pair repeated: every resample mean is the mean, up to rounding
        st.tuples(SCORES, SCORES).flatmap(lambda p: st.lists(st.just(p), max_size=40)),
    ),
    seed=st.integers(0, 2**32 - 1),
)
def test_every_interval_printed_is_possible_and_holds_the_difference(
    pairs: list[tuple[float, float]], seed: int
) -> None:
    """For any paired scores in [0, 1]: the interval lies within [-1, 1] and holds the
    observed mean difference, as computed and as printed; below the minimum n none is
    printed, only `too few pairs`."""
    a = np.array([p[0] for p in pairs], dtype=np.float64)
    b = np.array([p[1] for p in pairs], dtype=np.float64)
    interval = stats.paired_interval(a, b, resamples=1000, seed=seed)
    shown = interval.shown()
    if len(pairs) < stats.MIN_INTERVAL_PAIRS:
        assert interval.too_few and shown == stats.TOO_FEW_PAIRS
        return
    assert interval.low is not None and interval.high is not None
    diff = float(np.mean(a - b))
    assert -1.0 <= interval.low <= diff <= interval.high <= 1.0
    low, high = (float(end) for end in shown.strip("[]").split(", "))
    printed = float(f"{diff:+.3f}")
    assert -1.0 <= low <= printed <= high <= 1.0
    binary = set(a) <= {0.0, 1.0} and set(b) <= {0.0, 1.0}
    assert interval.method == ("newcombe" if binary else "bootstrap")
