"""The launch screen's estimate of how long a run takes, from runs measured on this machine.

A model is timed on this machine only (runs that recorded this installation's machine
id, core.paths.machine_id: imported runs, the shipped sample runs among them, do not
count) and with its backend (`ModelCost`, one per model name and backend):

- an example's latency is fitted as `a + b x length` over the model's generations that
  succeeded (proportional to the length when all were at one length);
- how much its examples overlapped (the backend's concurrency) and how busy the machine
  was come in as `ratio`: each run's span (first start to last end) over the latencies
  the fit predicts for it, averaged over the runs;
- loading is the mean load time the runs recorded (and how much it varied).

A run's estimate is the sum over its models (they share this machine) of their load
plus `ratio x` their examples' predicted latencies, with an interval of two standard
deviations: the examples' own scatter around the fit and the spread of `ratio` and of
the load time between runs (unknown with one run measured, and said so). Issue 24 found
the older estimate (prompt tokens over summed latency of any run, the sample runs of
another machine included, no loading) at ~39 s for a run that took 3.5 minutes; three
runs measured against this one: docs/tui.md, "New run".
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from lctui.core.lengths import format_length
from lctui.core.paths import machine_id
from lctui.core.text import plural
from lctui.store.read.runs import RunTiming, run_timings
from lctui.store.read.source import Source

ModelKey = tuple[str, str]  # (model name, backend)


@dataclass(frozen=True)
class ModelCost:
    """What one model takes on this machine (see the module's docstring)."""

    intercept_s: float  # a: seconds an example takes whatever its length
    per_token_s: float  # b: seconds per token of length
    ratio: float  # wall time over summed latency, per run, averaged
    ratio_sd: float | None  # its standard deviation between runs; None with one run
    residual_sd: float  # an example's scatter around the fit, in seconds
    load_s: float  # mean load time (0 when no run recorded one)
    load_sd: float | None  # its standard deviation between runs; None below two
    runs: int
    examples: int

    def seconds(self, examples: Mapping[int, int]) -> tuple[float, float]:
        """The mean and the standard deviation of the time `examples` (length -> count)
        take, loading included."""
        latency = sum(count * self.latency_s(n) for n, count in examples.items())
        work = latency * self.ratio
        scatter = self.residual_sd**2 * sum(examples.values()) * self.ratio**2
        between = (latency * self.ratio_sd) ** 2 if self.ratio_sd is not None else 0.0
        loading = self.load_sd**2 if self.load_sd is not None else 0.0
        return self.load_s + work, math.sqrt(scatter + between + loading)

    def latency_s(self, length: int) -> float:
        return max(0.0, self.intercept_s + self.per_token_s * length)


def fit_costs(timings: Sequence[RunTiming]) -> dict[ModelKey, ModelCost]:
    """A ModelCost per model and backend of `timings` (store/read/runs.py)."""
    by_model: dict[ModelKey, list[RunTiming]] = {}
    for timing in timings:
        by_model.setdefault((timing.model, timing.backend), []).append(timing)
    return {key: _fit(runs) for key, runs in by_model.items()}


def _fit(runs: Sequence[RunTiming]) -> ModelCost:
    n = sum(r.n for r in runs)
    sx, sxx = sum(r.sum_x for r in runs), sum(r.sum_xx for r in runs)
    sy, syy = sum(r.sum_y for r in runs), sum(r.sum_yy for r in runs)
    sxy = sum(r.sum_xy for r in runs)
    spread = n * sxx - sx * sx
    a, b = 0.0, sy / sx
    if spread > 1e-9 * n * sxx:  # more than one length: a line
        b_line = (n * sxy - sx * sy) / spread
        a_line = (sy - b_line * sx) / n
        if b_line >= 0 and a_line >= 0:  # else noise: keep it proportional
            a, b = a_line, b_line
    free = n - (2 if a else 1)
    sse = syy - 2 * a * sy - 2 * b * sxy + a * a * n + 2 * a * b * sx + b * b * sxx
    residual_sd = math.sqrt(max(0.0, sse) / free) if free > 0 else 0.0
    ratios = [r.span_s / p for r in runs if (p := a * r.n + b * r.sum_x) > 0]
    predicted = sum(a * r.n + b * r.sum_x for r in runs)
    ratio = sum(r.span_s for r in runs) / predicted if predicted > 0 else 1.0
    ratio_sd = _sd(ratios) if len(ratios) > 1 else None
    loads = [r.load_s for r in runs if r.load_s is not None]
    load = sum(loads) / len(loads) if loads else 0.0
    load_sd = _sd(loads) if len(loads) > 1 else None
    return ModelCost(a, b, ratio, ratio_sd, residual_sd, load, load_sd, len(runs), n)


def _sd(values: Sequence[float]) -> float:
    mean = sum(values) / len(values)
    return math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))


def read_costs(src: Source) -> dict[ModelKey, ModelCost]:
    """The costs measured on this machine (none when it has no id: a read-only data
    folder)."""
    machine = machine_id()
    return fit_costs(run_timings(src, machine)) if machine else {}


@dataclass(frozen=True)
class Estimate:
    examples: int
    prompt_tokens: int
    seconds: float | None  # None when no chosen model has been measured here
    spread_s: float | None  # two standard deviations (None with seconds)
    unmeasured: tuple[str, ...]
    runs: int  # runs measured of the least measured chosen model
    between_runs: bool  # whether the spread counts how runs differ (two runs or more)


def estimate(
    models: Sequence[ModelKey],
    tasks: int,
    lengths: Sequence[int],
    n: int,
    costs: Mapping[ModelKey, ModelCost],
) -> Estimate:
    per_model = sum(lengths) * n * tasks
    examples = {length: tasks * n for length in lengths}
    measured = [costs[m] for m in models if m in costs]
    seconds = sd = 0.0
    for cost in measured:
        mean, model_sd = cost.seconds(examples)
        seconds, sd = seconds + mean, math.hypot(sd, model_sd)
    return Estimate(
        len(models) * tasks * len(lengths) * n,
        per_model * len(models),
        seconds if measured else None,
        2 * sd if measured else None,
        tuple(name for name, backend in models if (name, backend) not in costs),
        min((c.runs for c in measured), default=0),
        all(c.ratio_sd is not None for c in measured),
    )


def format_tokens(tokens: int) -> str:
    if tokens >= 1_000_000:
        return f"{tokens / 1_000_000:.1f}M"
    if tokens >= 1_000:
        return f"{tokens / 1_000:.0f}K"
    return str(tokens)


def format_duration(seconds: float) -> str:
    if seconds < 1:
        return "under 1 s"
    if seconds < 90:
        return f"~{math.ceil(seconds)} s"
    if seconds < 5400:
        return f"~{math.ceil(seconds / 60)} min"
    return f"~{seconds / 3600:.1f} h"


def format_range(low: float, high: float) -> str:
    """`40-75 s`, `1.2-2.5 min`, `12-20 min`, `1.2-2.0 h`: an interval in the unit of its
    upper end (minutes to a tenth below ten)."""
    if high < 90:
        return f"{math.floor(low)}-{math.ceil(high)} s"
    if high < 600:
        return f"{math.floor(low / 6) / 10:.1f}-{math.ceil(high / 6) / 10:.1f} min"
    if high < 5400:
        return f"{math.floor(low / 60)}-{math.ceil(high / 60)} min"
    return f"{low / 3600:.1f}-{high / 3600:.1f} h"


# Past LONG_S the estimate line warns and names a smaller run that takes about TARGET_S.
LONG_S = 15 * 60
TARGET_S = 5 * 60


@dataclass(frozen=True)
class EstimateLine:
    """The launch screen's estimate: the duration first (what decides whether to start),
    then what it counts, how long it is (`level`: unknown, short, long, very long) and,
    for a long run, a smaller one that finishes in minutes."""

    duration: str
    detail: str
    level: str
    advice: str = ""


def describe(est: Estimate, models: int, tasks: int, lengths: int, n: int) -> EstimateLine:
    """`~4 min (3-5 min)` and `36 examples (1 model x 12 tasks x 1 length x n 3), 74K
    prompt tokens; measured here over 3 runs`."""
    detail = (
        f"{plural(est.examples, 'example')} ({plural(models, 'model')} x "
        f"{plural(tasks, 'task')} x {plural(lengths, 'length')} x n {n}), "
        f"{format_tokens(est.prompt_tokens)} prompt tokens"
    )
    if est.seconds is None:
        return EstimateLine(
            "duration unknown", detail + "; no run measured on this machine yet", "unknown"
        )
    duration = format_duration(est.seconds)
    if est.spread_s:
        low, high = max(0.0, est.seconds - est.spread_s), est.seconds + est.spread_s
        duration += f" ({format_range(low, high)})"
    detail += f"; measured here over {plural(est.runs, 'run')}"
    if not est.between_runs:
        detail += " (how much runs differ: not known yet)"
    if est.unmeasured:
        detail += f" + no run measured here yet for {', '.join(est.unmeasured)}"
    level = (
        "short" if est.seconds <= LONG_S else "long" if est.seconds <= 4 * LONG_S else "very long"
    )
    return EstimateLine(duration, detail, level)


def smaller_run(
    models: Sequence[ModelKey],
    tasks: int,
    lengths: Sequence[int],
    n: int,
    costs: Mapping[ModelKey, ModelCost],
) -> str:
    """A run of the same models and tasks that takes about TARGET_S or less: a smaller
    n, else n 1 at the shorter lengths; '' when none does."""

    def seconds(at: Sequence[int], count: int) -> float:
        return estimate(models, tasks, at, count, costs).seconds or 0.0

    for count in range(n - 1, 0, -1):
        if seconds(lengths, count) <= TARGET_S:
            return f"n {count} would take {format_duration(seconds(lengths, count))}"
    shorter = sorted(lengths)
    while len(shorter) > 1 and seconds(shorter, 1) > TARGET_S:
        shorter.pop()
    if len(shorter) < len(lengths) and seconds(shorter, 1) <= TARGET_S:
        kept = ", ".join(format_length(x) for x in shorter)
        return f"n 1 at {kept} would take {format_duration(seconds(shorter, 1))}"
    return ""


def estimate_line(
    models: Sequence[ModelKey],
    tasks: int,
    lengths: Sequence[int],
    n: int,
    costs: Mapping[ModelKey, ModelCost],
) -> EstimateLine:
    """The estimate of the choices, with a smaller run when they would take long."""
    est = estimate(models, tasks, lengths, n, costs)
    line = describe(est, len(models), tasks, len(lengths), n)
    if line.level in ("long", "very long"):
        return replace(line, advice=smaller_run(models, tasks, lengths, n, costs))
    return line
