"""What fits a model's window: the check of a run's lengths, and the limit a prompt is
cut to when truncation was asked for (engine/plan.py plans both from the same `Fit`s).

An example reserves `allowance` tokens for the template; the model's own takes
`framing`, so at `length` its prompt and answer need `length - allowance + framing`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from lctui.core.errors import UserInputError
from lctui.core.lengths import format_length
from lctui.core.types import Example


@dataclass(frozen=True)
class Fit:
    """Something a model must fit: a task at a length, or a stored example, with the
    tokens its template takes on that model."""

    task: str
    length: int
    allowance: int  # tokens the example reserves for a template
    framing: int  # tokens the model's template takes (backend.template_overhead)
    answer_tokens: int
    framed: bool = False  # an example from an original's inputs (never cut)

    @property
    def need(self) -> int:
        return window_need(self.length, self.allowance, self.framing)


def stored_length(example: Example) -> int:
    """The budget a stored example fills: its prompt as counted plus its answer reserve
    (its length, or less once truncated, so a truncated one is not cut again)."""
    return example.prompt_tokens + example.max_new_tokens


def window_need(length: int, allowance: int, framing: int) -> int:
    """Tokens a model's prompt and answer reserve take for an example built at `length`
    with `allowance` tokens reserved for the template, when its template takes `framing`."""
    return length - allowance + framing


def truncation_limit(window: int, fit: Fit) -> int | None:
    """The limit on an example's prompt_tokens (user text + allowance) that makes the
    model's prompt (user text + framing) and answer fit `window`; None when it fits."""
    if fit.need <= window:
        return None
    return window - fit.answer_tokens - fit.framing + fit.allowance


def refuse_over_window(model: str, window: int, fits: Sequence[Fit]) -> None:
    """Refuse the lengths of `fits` that do not fit `window` (no truncation asked for)."""
    over: dict[int, int] = {}  # length -> the most it needs there
    largest_fit: int | None = None
    framing_over: Fit | None = None  # a task whose framing > its allowance
    framed = False  # an example from an original's inputs is over: it is never cut
    for fit in fits:
        if fit.need <= window:
            continue
        over[fit.length] = max(fit.need, over.get(fit.length, 0))
        framed = framed or fit.framed
        room = window + fit.allowance - fit.framing
        largest_fit = room if largest_fit is None else min(largest_fit, room)
        if fit.framing > fit.allowance and framing_over is None:
            framing_over = fit
    if not over:
        return
    shown = ", ".join(
        f"{format_length(n)} (prompt and answer: {need} tokens)" for n, need in sorted(over.items())
    )
    why = ""
    if framing_over is not None:
        why = (
            f" Its prompt template takes {framing_over.framing} tokens ({framing_over.task}), "
            f"more than the {framing_over.allowance} every example reserves for one, so a "
            "length needs that much more room."
        )
    head = (
        f"model {model} has a window of {window} tokens ({format_length(window)}); "
        f"the length(s) {shown} do not fit.{why}"
    )
    if framed:
        raise UserInputError(
            f"{head} Examples from an original's inputs run as they are (their prompt "
            "counted as the original counts it): choose a model with a larger window, or "
            f"inputs made for lengths up to {largest_fit} tokens."
        )
    raise UserInputError(
        f"{head} Choose lengths up to {largest_fit} tokens, "
        "or pass --truncate to cut the end of each context to fit (recorded per example)."
    )
