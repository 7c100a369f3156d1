"""What the inspector adds for an example of a suite (LongBench v2's), without
Textual: the example's facts for the header and the sentence its answer was read from
(both from its suite's `ExampleView`, found through the registry by the example's
scorer), where its context's middle was cut (a marker line in the prompt view), its calls (chain of
thought: the reasoning call, then the answer call with its own prompt).

Read from what the LongBench v2 tasks write (suites/longbench/tasks/task.py): metadata
`cut` ({cut, head_tokens, tail_tokens, at, whole_tokens}) and `context_chars`; the
generation's `calls`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from lctui.core.suites import ExampleView, suite_of_scorer
from lctui.store.read.generations import GenerationRecord


def example_view(record: GenerationRecord) -> ExampleView | None:
    """What the suite of the record's scorer adds to the inspector (None: nothing)."""
    suite = suite_of_scorer(record.metadata.get("scorer"))
    return None if suite is None else suite.example_view


def example_facts(record: GenerationRecord, short: bool = False) -> str:
    """The example's facts as its suite states them (LongBench v2: the question's
    domain, difficulty and length bucket; "" for an example of no such suite)."""
    view = example_view(record)
    return "" if view is None else view.facts(record.metadata, short)


@dataclass(frozen=True)
class CutMarker:
    """Where the context's middle was cut out, and what the marker line says."""

    at: int  # offset in the example's context
    label: str


def cut_marker(record: GenerationRecord) -> CutMarker | None:
    """The middle cut of the example's context, or None when it was not cut."""
    cut = record.metadata.get("cut")
    if not isinstance(cut, Mapping) or not cut.get("cut") or not isinstance(cut.get("at"), int):
        return None
    head, tail = _count(cut, "head_tokens"), _count(cut, "tail_tokens")
    whole = cut.get("whole_tokens")
    if isinstance(whole, int):
        left = f"{whole - head - tail:,} of {whole:,} tokens"
    else:  # a long context is never tokenised whole: say it in characters
        chars = _count(record.metadata, "context_chars") - len(record.context or "")
        left = f"about {chars:,} characters" if chars > 0 else "the middle"
    return CutMarker(int(cut["at"]), f"{left} cut out here ({head:,} + {tail:,} tokens kept)")


def _count(values: Mapping[str, Any], key: str) -> int:
    value = values.get(key)
    return value if isinstance(value, int) else 0


@dataclass(frozen=True)
class CallView:
    """One call of a two-call answer as the inspector shows it."""

    number: int  # 1-based
    total: int
    role: str  # reasoning | answer
    prompt: str | None  # the exact text the model read (None: not stored)
    output: str
    prompt_tokens: int
    output_tokens: int
    finish_reason: str | None

    @property
    def title(self) -> str:
        return f"call {self.number} of {self.total}: {self.role}"


def calls_of(record: GenerationRecord) -> list[CallView]:
    """The generation's calls ([] for a one-call answer); the first call's prompt is the
    generation's own (its record stores "" for it)."""
    total = len(record.calls)
    return [
        CallView(
            number,
            total,
            call.role,
            call.prompt or (record.prompt if number == 1 else None),
            call.output,
            call.prompt_tokens,
            call.output_tokens,
            call.finish_reason,
        )
        for number, call in enumerate(record.calls, 1)
    ]
