"""What the inspector's prompt panel shows of a generation, without Textual: the exact
prompt of the call on screen, the spans marked in it, and the panel's title.

The example's spans are offsets into its context; in the prompt they come after the
template's head and the task's preamble (`in_prompt`). Listed passages are not painted
(the whole prompt would be marked): the passage panel lists them and shows one on
demand. A LongBench v2 context cut in its middle gets a marker (a zero-width span) at
the cut. A two-call answer (chain of thought) shows either call's prompt: the first is
the example's own prompt with its spans, the second the answer call's, which holds no
context and marks nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from lctui.store.read.generations import GenerationRecord
from lctui.tui.state.longbench import calls_of, cut_marker

CUT = "cut"  # the kind of the marker at a middle cut


@dataclass(frozen=True)
class MarkedSpan:
    """A span in prompt offsets (the context's spans shifted by the text before it);
    one with start == end is a marker between two characters, `label` its line's text."""

    start: int
    end: int
    kind: str
    label: str = ""


@dataclass(frozen=True)
class PromptShown:
    """The text of the prompt panel, its marked spans and its title."""

    text: str
    spans: tuple[MarkedSpan, ...]
    title: str


def in_prompt(record: GenerationRecord, start: int, end: int, kind: str, label: str) -> MarkedSpan:
    """A span of the example's context as offsets into the prompt."""
    shift = len(record.prompt_head or "") + len(record.preamble or "")
    return MarkedSpan(start + shift, end + shift, kind, label)


def prompt_shown(record: GenerationRecord, call: int = 0) -> PromptShown:
    """The prompt of call `call` (0-based; a one-call answer has only 0) as the panel
    shows it."""
    calls = calls_of(record)
    shown = calls[call] if calls else None
    text = record.prompt if shown is None else shown.prompt
    if text is None:
        return PromptShown(f"({record.prompt_missing or 'not stored'})", (), "Prompt")
    which = f", {shown.title}" if shown is not None else ""
    if shown is not None and shown.number > 1:  # the answer call: no context, no spans
        return PromptShown(text, (), f"Prompt{which} ({shown.prompt_tokens:,} tokens)")
    spans = [
        in_prompt(record, s.start, s.end, s.kind, s.label)
        for s in record.spans
        if s.kind != "passage"
    ]
    cut = cut_marker(record)
    if cut is not None:
        spans.append(in_prompt(record, cut.at, cut.at, CUT, cut.label))
    # A two-call generation's prompt_tokens are both calls' sums: the call says its own.
    tokens = record.prompt_tokens or record.example_prompt_tokens or 0
    tokens = shown.prompt_tokens if shown is not None else tokens
    needle = f", needle at {record.depth:.0f} %" if record.depth is not None else ""
    return PromptShown(text, tuple(spans), f"Prompt{which} ({tokens:,} tokens{needle})")
