"""What the inspector's prompt panel shows of a generation, without Textual: the exact
prompt of the call on screen, the spans marked in it, and the panel's title.

The example's spans are offsets into its context; in the prompt they come after the
template's head and the task's preamble (`in_prompt`). Listed passages are not painted
(the whole prompt would be marked): the passage panel lists them and shows one on
demand. A LongBench v2 context cut in its middle gets a marker (a zero-width span) at
the cut. A two-call answer (chain of thought) shows either call's prompt: the first is
the example's own prompt with its spans, the second the answer call's, which holds no
context and marks nothing. Where the example marks nothing, the panel learns what it
holds instead and where its gold values occur (tui/state/prompt_marks.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from lctui.store.read.generations import GenerationRecord
from lctui.tui.state.example_view import calls_of, cut_marker
from lctui.tui.state.prompt_marks import (
    CUT,
    MarkedSpan,
    depth_title,
    found_gold,
    in_prompt,
    unmarked_note,
)


@dataclass(frozen=True)
class PromptShown:
    """The text of the prompt panel, its marked spans and its title; `found`: the gold
    values found in a context that marks none (marked when asked, `g`), `unmarked`:
    what the prompt holds when it marks nothing."""

    text: str
    spans: tuple[MarkedSpan, ...]
    title: str
    found: tuple[MarkedSpan, ...] = ()
    unmarked: str = "nothing marked"


def prompt_shown(record: GenerationRecord, call: int = 0) -> PromptShown:
    """The prompt of call `call` (0-based; a one-call answer has only 0) as the panel
    shows it."""
    calls = calls_of(record)
    shown = calls[call] if calls else None
    text = record.prompt if shown is None else shown.prompt
    if text is None:
        missing = f"({record.prompt_missing or 'not stored'})"
        return PromptShown(missing, (), "Prompt", unmarked="no prompt stored")
    which = f", {shown.title}" if shown is not None else ""
    if shown is not None and shown.number > 1:  # the answer call: no context, no spans
        title = f"Prompt{which} ({shown.prompt_tokens:,} tokens)"
        return PromptShown(text, (), title, unmarked="this call reads no context")
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
    found = found_gold(record)
    title = f"Prompt{which} ({tokens:,} tokens{depth_title(record)})"
    return PromptShown(text, tuple(spans), title, found, unmarked_note(record, len(found)))
