"""A long document cut with the run's tokenizer so the whole prompt fits its length.

HELMET cuts a long document (NarrativeQA, InfiniteBench) at a token count with
Llama-2's tokenizer and appends a note that the rest is left out; the instruction,
the demonstrations and the question are never cut. Here the cut is made with the
run's tokenizer so that the whole prompt lands within the synthetic tasks' tolerance
under the length: each document is tokenised once per tokenizer (its token ids kept
for the few documents in use, its count for all), the cut is placed by the token
prefix, and `fit_to_budget` verifies the assembled prompt (one count, rarely two).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from lctui.core.protocols import Tokenizer
from lctui.tasks.budget import Budget, fit_to_budget

# Documents whose token ids stay in memory per tokenizer (a 128K-token story takes 0.5 MB);
# counts are kept for all. NarrativeQA asks about 30 questions per story.
_KEPT_IDS = 16


class DocumentTokens:
    """Token ids and counts of documents for one tokenizer, each document tokenised once
    while it stays among the recently used ones (counts are kept for all)."""

    def __init__(self, tokenizer: Tokenizer) -> None:
        self._tokenizer = tokenizer
        self._ids: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
        self._counts: dict[tuple[str, str], int] = {}
        self._lock = threading.Lock()

    def ids(self, key: tuple[str, str], text: str) -> np.ndarray:
        """The token ids of document `key` (text `text`)."""
        with self._lock:
            if key in self._ids:
                self._ids.move_to_end(key)
                return self._ids[key]
        ids = np.asarray(self._tokenizer.encode(text), dtype=np.int32)
        with self._lock:
            self._ids[key] = ids
            self._counts[key] = len(ids)
            while len(self._ids) > _KEPT_IDS:
                self._ids.popitem(last=False)
        return ids

    def count(self, key: tuple[str, str], text: str) -> int:
        """The token count of document `key` (tokenised once per tokenizer)."""
        with self._lock:
            if key in self._counts:
                return self._counts[key]
        return len(self.ids(key, text))


_BY_TOKENIZER: dict[str, DocumentTokens] = {}
_BY_TOKENIZER_LOCK = threading.Lock()


def document_tokens(tokenizer: Tokenizer) -> DocumentTokens:
    """The shared document-token cache of a tokenizer (keyed by its name)."""
    with _BY_TOKENIZER_LOCK:
        if tokenizer.name not in _BY_TOKENIZER:
            _BY_TOKENIZER[tokenizer.name] = DocumentTokens(tokenizer)
        return _BY_TOKENIZER[tokenizer.name]


@dataclass(frozen=True)
class CutDocument:
    """The document as the prompt shows it, and the prompt's count."""

    text: str  # the kept start of the document, with the cut note when cut
    kept_tokens: int
    whole_tokens: int
    prompt_tokens: int

    @property
    def truncated(self) -> bool:
        return self.kept_tokens < self.whole_tokens


def cut_document(
    key: tuple[str, str],
    document: str,
    build: Callable[[str], str],
    budget: Budget,
    tokenizer: Tokenizer,
    note: str,
) -> CutDocument:
    """The longest start of `document` (whole tokens, plus `note` when cut) for which
    `build(shown)`, the whole user text, fits `budget`."""
    ids = document_tokens(tokenizer).ids(key, document)
    whole = len(ids)
    shown: dict[int, str] = {}

    def start(n: int) -> str:
        if n not in shown:
            if n >= whole:
                shown[n] = document
            else:
                decoded = tokenizer.decode(ids[:n].tolist())
                # A cut inside a character decodes to a replacement mark: keep the
                # part that is the document's own text.
                shown[n] = document[: _shared_start(decoded, document)]
        return shown[n]

    def text(n: int) -> str:
        return start(n) if n >= whole else start(n) + note

    fixed = tokenizer.count(build(note))
    fitted = fit_to_budget(
        lambda n, _tail: build(text(n)), range(whole + 1), fixed, budget, tokenizer, what="document"
    )
    return CutDocument(text(fitted.units), min(fitted.units, whole), whole, fitted.tokens)


def _shared_start(decoded: str, document: str) -> int:
    """How many leading characters `decoded` shares with `document`."""
    if document.startswith(decoded):
        return len(decoded)
    end = min(len(decoded), len(document))
    mismatch = next((i for i in range(end) if decoded[i] != document[i]), end)
    return mismatch
