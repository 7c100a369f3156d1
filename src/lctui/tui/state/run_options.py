"""What the launch screen knows before anything loads: windows, estimates, URL checks.

Windows come from a model's settings or its checkpoint's config.json, never from
loading weights; the estimate uses the throughput measured on this machine (stored
generations), so it says "no run measured yet" rather than guess for a new model.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from urllib.parse import urlsplit

from lctui.backends.resilience import served_models
from lctui.core.errors import BackendError, UserInputError
from lctui.core.lengths import PRESETS, format_length
from lctui.core.text import plural
from lctui.core.types import ModelSpec
from lctui.store.read.runs import model_throughput
from lctui.store.read.source import Source
from lctui.tui.state.launch_choices import Problem

# Powers of two (RULER, HELMET) and LIFBench's six intervals, ascending.
LENGTH_CHOICES = tuple(
    sorted({1024 * 2**i for i in range(8)} | {k * 1024 for k in PRESETS["lifbench"]})
)
URL_TIMEOUT_S = 1.5


def is_url(text: str) -> bool:
    return "://" in text


def url_spec(text: str) -> ModelSpec:
    """An OpenAI-compatible endpoint as a model (`URL` or `URL#MODEL`, MODEL the name the
    server serves it under); raises for a malformed URL."""
    text, _, served = text.strip().partition("#")
    parts = urlsplit(text.strip())
    try:
        port = parts.port
    except ValueError:
        port = -1
    if parts.scheme not in ("http", "https") or not parts.hostname or port == -1:
        raise UserInputError(
            f"{text!r} is not a valid endpoint URL: write e.g. http://localhost:8000/v1"
        )
    return ModelSpec(
        name=f"{text.strip()}#{served}" if served else text.strip(),
        backend="openai",
        params={"base_url": text.strip(), **({"model": served} if served else {})},
        description="OpenAI-compatible endpoint",
    )


def url_address(spec: ModelSpec) -> tuple[str, int]:
    parts = urlsplit(str(spec.params.get("base_url", spec.name)))
    default = 443 if parts.scheme == "https" else 80
    return parts.hostname or "", parts.port or default


async def unreachable(spec: ModelSpec, timeout: float = URL_TIMEOUT_S) -> str | None:
    """Why the endpoint of a URL model cannot be reached, or None when it answers TCP."""
    host, port = url_address(spec)
    try:
        _, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout)
    except asyncio.TimeoutError:
        return f"unreachable: no answer from {host}:{port} within {timeout:g} s"
    except OSError as exc:
        return f"unreachable: {host}:{port}: {exc.strerror or exc}"
    writer.close()
    return None


def with_served_model(spec: ModelSpec, timeout: float = URL_TIMEOUT_S) -> ModelSpec:
    """A URL model with the name its server serves (asked once, GET /models) when the
    URL names none; raises BackendError when the server serves several or none. Blocking."""
    if spec.params.get("model") or not is_url(spec.name):  # configured: its own setting
        return spec
    url = str(spec.params["base_url"])
    ids = [str(e.get("id")) for e in served_models(url, "EMPTY", "", timeout=timeout)]
    if len(ids) != 1:
        listed = ", ".join(ids) or "no model"
        raise BackendError(f"{url} serves {listed}: add it as {url}#MODEL to choose one")
    return replace(spec, params={**spec.params, "model": ids[0]})


async def checked_endpoint(spec: ModelSpec) -> tuple[ModelSpec, Problem | None]:
    """An OpenAI-compatible endpoint's model (with the name its server serves, when a URL
    names none), or why it cannot be used now: it does not answer, or it serves several
    models and the URL names none."""
    reason = await unreachable(spec)
    if reason is not None:
        return spec, Problem(
            f"endpoint:{spec.name}", "Endpoint unreachable", f"{spec.name}: {reason}"
        )
    try:
        return await asyncio.to_thread(with_served_model, spec), None
    except BackendError as exc:
        return spec, Problem(f"endpoint:{spec.name}", "Model not chosen", str(exc))


def window_label(spec: ModelSpec, window: int | None) -> str:
    if spec.backend == "gold" and window is None:
        return "no limit"
    return format_length(window) if window else "window ?"


def model_prompt(spec: ModelSpec, window: int | None) -> str:
    """The model's line in the launch list."""
    if spec.backend == "openai":
        return f"{spec.name}  openai"  # its window is the server's, read when the run starts
    if spec.reference:
        return f"{spec.name}  reference"
    return f"{spec.name}  {spec.backend} {window_label(spec, window)}"


@dataclass(frozen=True)
class LengthOption:
    """A length of the launch screen's list: its line, and whether every chosen model's
    window holds it."""

    length: int
    prompt: str
    enabled: bool


def length_options(windows: Mapping[str, int | None]) -> tuple[list[LengthOption], list[str]]:
    """Every length choice for the chosen models' windows (a length above one is disabled,
    naming the smallest window it exceeds), and a note per window below the longest."""
    known = {name: w for name, w in windows.items() if w is not None}
    options = []
    for length in LENGTH_CHOICES:
        over = [w for w in known.values() if length > w]
        shown = format_length(length)
        if over:
            shown += f"  > {format_length(min(over))} window"
        options.append(LengthOption(length, shown, not over))
    notes = [
        f"over {format_length(w)}: above the window of {name}"
        for name, w in sorted(known.items(), key=lambda item: item[1])
        if w < LENGTH_CHOICES[-1]
    ]
    return options, notes


def too_long(lengths: Sequence[int], windows: Mapping[str, int | None]) -> list[str]:
    """A message per (model, length) above the model's window."""
    return [
        f"{format_length(n)} is above the {format_length(w)} window of {name}"
        for name, w in windows.items()
        if w is not None
        for n in lengths
        if n > w
    ]


def read_throughput(src: Source) -> dict[str, float]:
    """Prompt tokens per second of latency, per model, from stored generations."""
    return {m.model: m.prompt_tokens / m.seconds for m in model_throughput(src) if m.seconds}


@dataclass(frozen=True)
class Estimate:
    examples: int
    prompt_tokens: int
    seconds: float | None  # None when no chosen model has a measurement
    unmeasured: tuple[str, ...]


def estimate(
    models: Sequence[str],
    tasks: int,
    lengths: Sequence[int],
    n: int,
    throughput: Mapping[str, float],
) -> Estimate:
    per_model = sum(lengths) * n * tasks
    measured = [m for m in models if throughput.get(m)]
    seconds = sum(per_model / throughput[m] for m in measured) if measured else None
    unmeasured = tuple(m for m in models if m not in measured)
    return Estimate(
        len(models) * tasks * len(lengths) * n, per_model * len(models), seconds, unmeasured
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
    """`~4 min` and `36 examples (1 model x 12 tasks x 1 length x n 3), 74K prompt tokens`."""
    detail = (
        f"{plural(est.examples, 'example')} ({plural(models, 'model')} x "
        f"{plural(tasks, 'task')} x {plural(lengths, 'length')} x n {n}), "
        f"{format_tokens(est.prompt_tokens)} prompt tokens"
    )
    if est.seconds is None:
        return EstimateLine("duration unknown", detail + "; no run measured yet", "unknown")
    if est.unmeasured:
        detail += f" + no run measured yet for {', '.join(est.unmeasured)}"
    level = (
        "short" if est.seconds <= LONG_S else "long" if est.seconds <= 4 * LONG_S else "very long"
    )
    return EstimateLine(format_duration(est.seconds), detail, level)


def smaller_run(
    models: Sequence[str],
    tasks: int,
    lengths: Sequence[int],
    n: int,
    throughput: Mapping[str, float],
) -> str:
    """A run of the same models and tasks that takes about TARGET_S or less: a smaller
    n, else n 1 at the shorter lengths; '' when none does."""

    def seconds(at: Sequence[int], count: int) -> float:
        return estimate(models, tasks, at, count, throughput).seconds or 0.0

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
    models: Sequence[str],
    tasks: int,
    lengths: Sequence[int],
    n: int,
    throughput: Mapping[str, float],
) -> EstimateLine:
    """The estimate of the choices, with a smaller run when they would take long."""
    est = estimate(models, tasks, lengths, n, throughput)
    line = describe(est, len(models), tasks, len(lengths), n)
    if line.level in ("long", "very long"):
        return replace(line, advice=smaller_run(models, tasks, lengths, n, throughput))
    return line
