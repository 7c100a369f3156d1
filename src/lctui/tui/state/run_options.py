"""What the launch screen knows before anything loads: windows and URL checks (its
estimate: tui/state/estimate.py).

Windows come from a model's settings or its checkpoint's config.json, never from
loading weights.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, replace
from urllib.parse import urlsplit

from lctui.backends.resilience import served_models
from lctui.core.errors import BackendError, UserInputError
from lctui.core.lengths import PRESETS, format_length
from lctui.core.types import ModelSpec
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
