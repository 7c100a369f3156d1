"""Pieces that carry generated text from transformers' worker thread to asyncio.

transformers is imported inside the factories only, so importing this module stays
light; the classes that subclass transformers' own are built on first use.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from typing import Any


@dataclass(frozen=True)
class TextPiece:
    """Decoded text and the number of generated tokens it took."""

    text: str
    tokens: int


@dataclass(frozen=True)
class Finished:
    """generate() returned; `tokens` were generated after the last text piece."""

    finish_reason: str
    tokens: int


@dataclass(frozen=True)
class Failed:
    error: BaseException


StreamItem = TextPiece | Finished | Failed


class GenerationAborted(Exception):
    """Raised inside the model's forward pass when the request was cancelled."""


_current = threading.local()


def install_abort_hooks(model: Any) -> int:
    """Let a cancelled request abort mid-forward; return the number of layers hooked.

    Stopping criteria run only between decoding steps, and on a CPU the prefill of a
    long prompt is one step of many seconds. A pre-hook on every decoder layer checks
    the stop event of the request its thread is running (thread-local, so requests
    in other threads are untouched) and raises to leave generate() at once.
    """
    decoder = model.get_decoder() if hasattr(model, "get_decoder") else None
    layers = getattr(decoder, "layers", None)
    modules = list(layers) if layers is not None else [model]
    for module in modules:
        module.register_forward_pre_hook(_abort_if_stopped)
    return len(modules)


def _abort_if_stopped(module: Any, args: Any) -> None:
    event: threading.Event | None = getattr(_current, "stop_event", None)
    if event is not None and event.is_set():
        raise GenerationAborted()


@contextmanager
def abortable(stop_event: threading.Event) -> Iterator[None]:
    """Context in which this thread's forward passes abort once `stop_event` is set."""
    _current.stop_event = stop_event
    try:
        yield
    finally:
        _current.stop_event = None


class StopTrimmer:
    """Cuts the output before the first stop string, as OpenAI-compatible servers do.

    transformers stops after the token that completes a stop string and keeps it in
    the text; other backends drop it, so we hold back just enough characters to
    see a stop string that spans two pieces before we release them.
    """

    def __init__(self, stops: Sequence[str]) -> None:
        self._stops = tuple(s for s in stops if s)
        self._hold = max((len(s) for s in self._stops), default=1) - 1
        self._buffer = ""
        self.matched = False

    def feed(self, text: str) -> str:
        """Return the text that is safe to emit now."""
        if self.matched:
            return ""
        if not self._stops:
            return text
        self._buffer += text
        hits = [i for i in (self._buffer.find(s) for s in self._stops) if i >= 0]
        if hits:
            self.matched = True
            out, self._buffer = self._buffer[: min(hits)], ""
            return out
        cut = max(len(self._buffer) - self._hold, 0)
        out, self._buffer = self._buffer[:cut], self._buffer[cut:]
        return out

    def finish(self) -> str:
        """Release what was held back once no more text will come."""
        out, self._buffer = ("" if self.matched else self._buffer), ""
        return out


def make_streamer(
    hf_tokenizer: Any, lock: threading.Lock, post: Callable[[StreamItem], None]
) -> Any:
    """A transformers streamer that posts word-complete text with its token count."""
    return _streamer_class()(hf_tokenizer, lock, post)


def make_stop_criteria(stop_event: threading.Event) -> Any:
    """A stopping criterion that ends generate() once `stop_event` is set (cancellation)."""
    return _event_criteria_class()(stop_event)


@cache
def _streamer_class() -> type:
    from transformers import TextStreamer

    class PostingStreamer(TextStreamer):
        """TextStreamer whose finished text goes to a callback instead of a blocking queue.

        Posting straight to the event loop spares a thread that would only pump
        TextIteratorStreamer's queue, and lets us count tokens per piece.
        """

        def __init__(
            self, tokenizer: Any, lock: threading.Lock, post: Callable[[StreamItem], None]
        ) -> None:
            super().__init__(tokenizer, skip_prompt=True, skip_special_tokens=True)
            self._lock = lock
            self._post = post
            self.pending_tokens = 0

        def put(self, value: Any) -> None:
            if not self.next_tokens_are_prompt:
                self.pending_tokens += int(value.numel())
            # Fast tokenizers raise "Already borrowed" when another thread encodes.
            with self._lock:
                super().put(value)

        def end(self) -> None:
            with self._lock:
                super().end()

        def on_finalized_text(self, text: str, stream_end: bool = False) -> None:
            if text:
                self._post(TextPiece(text, self.pending_tokens))
                self.pending_tokens = 0

    return PostingStreamer


@cache
def _event_criteria_class() -> type:
    import torch
    from transformers import StoppingCriteria

    class EventStoppingCriteria(StoppingCriteria):
        def __init__(self, event: threading.Event) -> None:
            self._event = event

        def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
            stop = self._event.is_set()
            return torch.full(
                (input_ids.shape[0],), stop, dtype=torch.bool, device=input_ids.device
            )

    return EventStoppingCriteria
