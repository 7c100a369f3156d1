"""Paired tests, confidence intervals and rank correlation as pure functions on arrays.

Each returns a small frozen dataclass; when a value cannot be computed it is None and
`reason` says why in words a user can act on ("n = 2 pairs: too few for a Wilcoxon
test"). scipy computes the tests; numpy resamples.

The interval of a mean paired difference A - B (`difference_interval`) respects what is
possible: scores lie in [0, 1], so a difference lies in [-1, 1], and every interval
given lies there and holds the observed difference. Pass/fail pairs get Newcombe's
square-and-add interval (Newcombe 1998, "Improved confidence intervals for the
difference between binomial proportions based on paired data", Stat Med 17:2635-50,
method 10), graded ones a paired bootstrap percentile interval (a quantile of means of
resampled differences, so inside their range by construction). Below
MIN_INTERVAL_PAIRS pairs there is none: tables print TOO_FEW_PAIRS instead.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy import stats as sps

from lctui.core.formatting import interval

ArrayLike = npt.ArrayLike
Seed = int | tuple[int, ...] | np.random.Generator

# Below this many non-zero differences the exact Wilcoxon p-value cannot fall under 0.05
# (its smallest two-sided value is 2 / 2**n = 0.0625 at n = 4), so none is reported.
MIN_WILCOXON_PAIRS = 5
# Fewer than 5 models cannot give an exact two-sided Spearman p below 0.05 (2 / n! at
# n = 4 is 0.083), and a coefficient over 3 or 4 points is mostly noise.
MIN_SPEARMAN_N = 5
# Below this many pairs no interval is given (tables print TOO_FEW_PAIRS): a bootstrap
# over 4 pairs has 35 distinct resamples, too few for its 2.5 % tails, and at n = 4 no
# paired test here can reach p < 0.05 either, so an interval would only look precise.
MIN_INTERVAL_PAIRS = 5
TOO_FEW_PAIRS = "too few pairs"
# A score lies in [0, 1], so a paired difference A - B lies in [-1, 1].
DIFFERENCE_RANGE = (-1.0, 1.0)
BOOTSTRAP_RESAMPLES = 10_000
# Work allowed for one bootstrap interval, in gathered elements (about 0.2 s here);
# past it the t interval is used (cut to DIFFERENCE_RANGE), which the bootstrap
# approaches at such sizes anyway.
BOOTSTRAP_BUDGET = 10_000_000
_BINOMIAL_COST = 10  # one binomial draw costs about ten gathered elements


@dataclass(frozen=True)
class McNemarResult:
    """Exact McNemar test: a two-sided binomial test on the discordant pairs."""

    n: int  # pairs
    a_only: int  # pairs where A passed and B failed
    b_only: int  # pairs where B passed and A failed
    p: float  # 1.0 when there is no discordant pair (nothing contradicts H0)

    test = "mcnemar"


@dataclass(frozen=True)
class WilcoxonResult:
    """Wilcoxon signed-rank test of paired differences (scipy's zero_method='wilcox':
    zero differences are dropped before ranking; `n_nonzero` pairs are tested)."""

    n: int
    n_nonzero: int
    statistic: float | None
    p: float | None
    reason: str | None = None

    test = "wilcoxon"


@dataclass(frozen=True)
class Interval:
    """A confidence interval of the mean difference A - B (`method`: newcombe,
    bootstrap or t); `too_few` when there were fewer pairs than an interval needs."""

    low: float | None
    high: float | None
    level: float
    method: str
    reason: str | None = None
    too_few: bool = False

    def pair(self) -> list[float | None]:
        return [self.low, self.high]

    def shown(self) -> str:
        """As every table prints it: [-0.120, +0.340], TOO_FEW_PAIRS, or "-"."""
        if self.too_few:
            return TOO_FEW_PAIRS
        return interval(self.low, self.high)


@dataclass(frozen=True)
class PairTable:
    """Paired pass/fail outcomes: pairs where both passed, only A, only B, neither."""

    both: int
    a_only: int
    b_only: int
    neither: int

    @property
    def n(self) -> int:
        return self.both + self.a_only + self.b_only + self.neither


@dataclass(frozen=True)
class SpearmanResult:
    """Spearman's rho with its two-sided p (scipy's t approximation) over `n` pairs."""

    rho: float | None
    p: float | None
    n: int
    reason: str | None = None


def _paired(a: ArrayLike, b: ArrayLike) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    x = np.asarray(a, dtype=np.float64)
    y = np.asarray(b, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(
            f"paired samples must be 1-D and of equal length, not {x.shape}, {y.shape}"
        )
    return x, y


def is_binary(values: ArrayLike) -> bool:
    """True when every value is exactly 0 or 1 (pass/fail scores)."""
    v = np.asarray(values, dtype=np.float64)
    return bool(np.all((v == 0.0) | (v == 1.0)))


def mcnemar_exact(a: ArrayLike, b: ArrayLike) -> McNemarResult:
    """Exact McNemar on paired 0/1 scores (1 = pass)."""
    x, y = _paired(a, b)
    if not (is_binary(x) and is_binary(y)):
        raise ValueError("McNemar's test needs 0/1 scores on both sides")
    a_only = int(np.count_nonzero((x == 1.0) & (y == 0.0)))
    b_only = int(np.count_nonzero((x == 0.0) & (y == 1.0)))
    return mcnemar_from_counts(a_only, b_only, len(x))


def mcnemar_from_counts(a_only: int, b_only: int, n: int) -> McNemarResult:
    """Exact McNemar from the discordant counts: binomtest(a_only, a_only + b_only, 0.5).

    Binomial(k, 1/2) is symmetric, so binomtest's two-sided p (the outcomes no likelier
    than the one seen) is 2 * P(X <= min(a_only, b_only)), capped at 1: one cdf call
    instead of binomtest's search (~2 ms a cell, most of a 50-cell comparison's stats).
    """
    discordant = a_only + b_only
    p = 1.0
    if discordant:
        p = 2.0 * float(sps.binom.cdf(min(a_only, b_only), discordant, 0.5))
    return McNemarResult(n=n, a_only=a_only, b_only=b_only, p=min(1.0, p))


def wilcoxon_signed_rank(
    a: ArrayLike, b: ArrayLike, *, min_pairs: int = MIN_WILCOXON_PAIRS
) -> WilcoxonResult:
    """scipy.stats.wilcoxon(a, b) with its defaults (two-sided, zero_method='wilcox',
    method='auto': exact for small samples without ties, else the normal approximation).

    With fewer than `min_pairs` non-zero differences there is no p-value, only a reason.
    """
    x, y = _paired(a, b)
    d = x - y
    nonzero = int(np.count_nonzero(d))
    if nonzero < min_pairs:
        return WilcoxonResult(
            n=len(d),
            n_nonzero=nonzero,
            statistic=None,
            p=None,
            reason=f"n = {nonzero} pairs with a non-zero difference (of {len(d)}): too few "
            f"for a Wilcoxon test (needs {min_pairs})",
        )
    result = sps.wilcoxon(x, y)
    return WilcoxonResult(
        n=len(d), n_nonzero=nonzero, statistic=float(result.statistic), p=float(result.pvalue)
    )


def pair_table(a: ArrayLike, b: ArrayLike) -> PairTable:
    """The 2 x 2 table of paired 0/1 scores (1 = pass)."""
    x, y = _paired(a, b)
    if not (is_binary(x) and is_binary(y)):
        raise ValueError("a table of paired outcomes needs 0/1 scores on both sides")
    return PairTable(
        both=int(np.count_nonzero((x == 1.0) & (y == 1.0))),
        a_only=int(np.count_nonzero((x == 1.0) & (y == 0.0))),
        b_only=int(np.count_nonzero((x == 0.0) & (y == 1.0))),
        neither=int(np.count_nonzero((x == 0.0) & (y == 0.0))),
    )


def paired_interval(
    a: ArrayLike,
    b: ArrayLike,
    *,
    resamples: int = BOOTSTRAP_RESAMPLES,
    level: float = 0.95,
    seed: Seed = 0,
    min_pairs: int = MIN_INTERVAL_PAIRS,
) -> Interval:
    """The interval of the mean difference A - B of paired scores in [0, 1]: Newcombe's
    for 0/1 scores on both sides, the paired bootstrap's otherwise (difference_interval)."""
    x, y = _paired(a, b)
    table = pair_table(x, y) if is_binary(x) and is_binary(y) else None
    return difference_interval(
        x - y, table, resamples=resamples, level=level, seed=seed, min_pairs=min_pairs
    )


def difference_interval(
    d: ArrayLike,
    table: PairTable | None,
    *,
    resamples: int = BOOTSTRAP_RESAMPLES,
    level: float = 0.95,
    seed: Seed = 0,
    min_pairs: int = MIN_INTERVAL_PAIRS,
) -> Interval:
    """The interval of the mean of paired differences `d` = A - B, each in [-1, 1].

    With the pass/fail `table` of the same pairs: Newcombe's interval (newcombe_interval);
    without, the paired bootstrap percentile interval (bootstrap_interval). Fewer than
    `min_pairs` pairs get none (`too_few`, printed TOO_FEW_PAIRS).
    """
    diffs = np.asarray(d, dtype=np.float64)
    n = len(diffs)
    if n < min_pairs:
        method = "newcombe" if table is not None else "bootstrap"
        why = f"n = {n} pairs: too few for an interval (needs {min_pairs})"
        return Interval(None, None, level, method, why, too_few=True)
    if table is not None:
        if table.n != n:
            raise ValueError(f"the table counts {table.n} pairs, the differences {n}")
        return newcombe_interval(table, level=level)
    return bootstrap_interval(diffs, np.zeros_like(diffs), resamples=resamples, level=level,
                              seed=seed)  # fmt: skip


def wilson_interval(successes: int, n: int, *, level: float = 0.95) -> tuple[float, float]:
    """Wilson's score interval of a proportion (without continuity correction)."""
    if n <= 0 or not 0 <= successes <= n:
        raise ValueError(f"{successes} successes of {n}: not a proportion")
    z = float(sps.norm.ppf(0.5 + level / 2))
    p = successes / n
    centre = 2 * n * p + z * z
    half = z * math.sqrt(z * z + 4 * n * p * (1 - p))
    low, high = (centre - half) / (2 * (n + z * z)), (centre + half) / (2 * (n + z * z))
    # Mathematically in [0, 1] with p inside; rounding can leave 1e-17 outside.
    return max(0.0, min(low, p)), min(1.0, max(high, p))


def newcombe_interval(table: PairTable, *, level: float = 0.95) -> Interval:
    """Newcombe's square-and-add interval of p_A - p_B from paired 0/1 outcomes.

    Newcombe (1998), Stat Med 17:2635-2650, method 10, as written out in Altman et al.,
    Statistics with Confidence (2nd ed., ch. 6) and Fagerland, Lydersen & Laake,
    Statistical Analysis of Contingency Tables (2017, section 8.5): the Wilson intervals
    (l1, u1) of p_A and (l2, u2) of p_B combine as
        L = D - sqrt((p_A - l1)^2 - 2 phi (p_A - l1)(u2 - p_B) + (u2 - p_B)^2)
        U = D + sqrt((p_B - l2)^2 - 2 phi (p_B - l2)(u1 - p_A) + (u1 - p_A)^2)
    with D = p_A - p_B and phi the correlation of the two outcomes, its numerator
    (both * neither - a_only * b_only) lowered by n / 2 when positive (0 when that goes
    below 0) and 0 when a margin is empty. As |phi| <= 1, each root is at most the sum
    of its two terms, so L >= D - p_A - (1 - p_B) = -1 and likewise U <= 1: the
    interval lies in [-1, 1] and holds D by construction.
    """
    n = table.n
    if n == 0:
        return Interval(None, None, level, "newcombe", "no pairs", too_few=True)
    a_pass, b_pass = table.both + table.a_only, table.both + table.b_only
    p_a, p_b = a_pass / n, b_pass / n
    l1, u1 = wilson_interval(a_pass, n, level=level)
    l2, u2 = wilson_interval(b_pass, n, level=level)
    margins = a_pass * (n - a_pass) * b_pass * (n - b_pass)
    phi = 0.0
    if margins:
        agreement = float(table.both * table.neither - table.a_only * table.b_only)
        if agreement > n / 2:
            agreement -= n / 2
        elif agreement > 0:
            agreement = 0.0
        phi = agreement / math.sqrt(margins)
    d = p_a - p_b
    below = math.sqrt(
        max(0.0, (p_a - l1) ** 2 - 2 * phi * (p_a - l1) * (u2 - p_b) + (u2 - p_b) ** 2)
    )
    above = math.sqrt(
        max(0.0, (p_b - l2) ** 2 - 2 * phi * (p_b - l2) * (u1 - p_a) + (u1 - p_a) ** 2)
    )
    low, high = DIFFERENCE_RANGE
    # The bounds hold exactly; max/min only absorb a last bit of rounding.
    return Interval(max(low, d - below), min(high, d + above), level, "newcombe")


def t_interval(a: ArrayLike, b: ArrayLike, *, level: float = 0.95) -> Interval:
    """Student-t interval of the mean paired difference A - B (n - 1 degrees of freedom)."""
    x, y = _paired(a, b)
    d = x - y
    n = len(d)
    if n < 2:
        return Interval(None, None, level, "t", f"n = {n} pairs: too few for an interval")
    mean = float(d.mean())
    half = float(sps.t.ppf(0.5 + level / 2, n - 1)) * float(d.std(ddof=1)) / math.sqrt(n)
    return Interval(mean - half, mean + half, level, "t")


def bootstrap_interval(
    a: ArrayLike,
    b: ArrayLike,
    *,
    resamples: int = BOOTSTRAP_RESAMPLES,
    level: float = 0.95,
    seed: Seed = 0,
    budget: int = BOOTSTRAP_BUDGET,
) -> Interval:
    """Paired bootstrap percentile interval of the mean difference A - B.

    Pairs are resampled with replacement (the same seed gives the same interval). Each
    bound is a quantile of resampled means, so it lies between the smallest and the
    largest difference: with scores in [0, 1], within [-1, 1]. With few distinct
    differences the resample means are drawn from the equivalent multinomial counts,
    which costs O(distinct) per resample instead of O(n). When even the cheaper way
    exceeds `budget` (thousands of pairs), the t interval cut to DIFFERENCE_RANGE is
    returned and `reason` says so.
    """
    x, y = _paired(a, b)
    d = x - y
    n = len(d)
    if n < 2:
        return Interval(None, None, level, "bootstrap", f"n = {n} pairs: too few for an interval")
    values, counts = np.unique(d, return_counts=True)
    by_counts = resamples * len(values) * _BINOMIAL_COST
    by_gather = resamples * n
    if min(by_counts, by_gather) > budget:
        t = t_interval(x, y, level=level)
        assert t.low is not None and t.high is not None  # n >= 2
        why = (
            f"{n} pairs with {len(values)} distinct differences: t interval (bootstrap too costly)"
        )
        # Cut to the range a difference of scores can take: the true difference lies
        # there, so the cut loses no coverage, and a mean near 1 never reads above 1.
        low, high = max(t.low, DIFFERENCE_RANGE[0]), min(t.high, DIFFERENCE_RANGE[1])
        return Interval(low, high, level, "t", why)
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    if by_counts <= by_gather:
        means = _means_from_counts(rng, values, counts, n, resamples)
    else:
        means = _means_by_gather(rng, d, resamples)
    low, high = np.quantile(means, [(1 - level) / 2, (1 + level) / 2])
    # With equal differences every resample mean is the mean, but summed another way it
    # can be a last bit off it, so the ends take in the mean itself.
    mean = float(d.mean())
    return Interval(min(float(low), mean), max(float(high), mean), level, "bootstrap")


def _means_from_counts(
    rng: np.random.Generator,
    values: npt.NDArray[np.float64],
    counts: npt.NDArray[np.int64],
    n: int,
    resamples: int,
) -> npt.NDArray[np.float64]:
    # A resample's counts of each distinct value are Multinomial(n, counts / n); draw
    # them value by value as conditional binomials, vectorised over the resamples.
    remaining = np.full(resamples, n, dtype=np.int64)
    total = np.zeros(resamples)
    left = n
    for value, count in zip(values[:-1], counts[:-1], strict=True):
        drawn = rng.binomial(remaining, count / left)
        total += drawn * value
        remaining -= drawn
        left -= int(count)
    total += remaining * values[-1]
    return total / n


def _means_by_gather(
    rng: np.random.Generator, d: npt.NDArray[np.float64], resamples: int
) -> npt.NDArray[np.float64]:
    n = len(d)
    means = np.empty(resamples)
    chunk = max(1, 2_000_000 // n)  # bounded memory: chunk x n indexes at a time
    for start in range(0, resamples, chunk):
        rows = min(chunk, resamples - start)
        idx = rng.integers(0, n, size=(rows, n), dtype=np.int32 if n < 2**31 else np.int64)
        means[start : start + rows] = d[idx].mean(axis=1)
    return means


def spearman(x: ArrayLike, y: ArrayLike, *, min_n: int = MIN_SPEARMAN_N) -> SpearmanResult:
    """scipy.stats.spearmanr over the pairs where both values are present (not NaN).

    Ties get average ranks (scipy's default). No coefficient with fewer than `min_n`
    pairs or when one side is constant.
    """
    u, v = _paired(x, y)
    keep = ~(np.isnan(u) | np.isnan(v))
    u, v = u[keep], v[keep]
    n = len(u)
    if n < min_n:
        return SpearmanResult(
            None, None, n, f"n = {n}: too few for a rank correlation (needs {min_n})"
        )
    for side, values in (("x", u), ("y", v)):
        if np.all(values == values[0]):
            return SpearmanResult(None, None, n, f"{side} is the same for all {n}: no ranking")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        result = sps.spearmanr(u, v)
    rho, p = float(result.statistic), float(result.pvalue)
    return SpearmanResult(rho=None if math.isnan(rho) else rho, p=None if math.isnan(p) else p, n=n)
