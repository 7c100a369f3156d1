"""Which context lengths a task's data can fill, worked out without tokenising whole corpora.

`lctui data check` asks every task `data_reach(lengths)`. A task that generates its text
fills any length. A task on a dataset answers from what its files hold: how many
passages a row has (HELMET ships one file per length, so the largest file present
says the longest length), how many documents a question brings, how long its story is.
Story lengths are estimated from characters at a characters-per-token ratio measured on
a few samples with the reference tokenizer (o200k_base), so `estimated` is set and the
`how` sentence says so; a run counts with the model's own tokenizer, whose counts
differ by some percent.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from lctui.core.errors import LctuiError

# HELMET's lengths (scripts/generate_configs.py): it uses one release file per length
# (RAG, re-ranking) and shows a fixed number of documents per length (ALCE).
HELMET_LENGTHS = (4096, 8192, 16384, 32768, 65536, 131072)
SAMPLES = 8  # documents whose start is tokenised to measure characters per token
SAMPLE_CHARS = 20_000
FALLBACK_CHARS_PER_TOKEN = 4.0


@dataclass(frozen=True)
class Reach:
    """Per asked length, how many of the task's questions its data fills, and how that
    was decided. `total` None: the text is generated, every length is filled."""

    lengths: tuple[int, ...]
    rows: tuple[int, ...]  # per length, the questions whose data fills it
    total: int | None
    how: str
    estimated: bool = False

    def filled(self) -> tuple[int, ...]:
        """The lengths every question fills."""
        if self.total is None:
            return self.lengths
        return tuple(
            n for n, rows in zip(self.lengths, self.rows, strict=True) if rows >= self.total > 0
        )

    def partly(self) -> tuple[tuple[int, int], ...]:
        """(length, questions) where some but not all questions fill the length."""
        if self.total is None:
            return ()
        return tuple(
            (n, rows)
            for n, rows in zip(self.lengths, self.rows, strict=True)
            if 0 < rows < self.total
        )

    def unfilled(self) -> tuple[int, ...]:
        """The lengths no question fills (its prompts come out shorter)."""
        if self.total is None:
            return ()
        return tuple(n for n, rows in zip(self.lengths, self.rows, strict=True) if rows == 0)


def any_length(lengths: Sequence[int], how: str) -> Reach:
    return Reach(tuple(lengths), tuple(1 for _ in lengths), None, how)


def up_to(lengths: Sequence[int], limit: int, total: int, how: str) -> Reach:
    """Every question fills each length up to `limit`, none beyond."""
    rows = tuple(total if n <= limit else 0 for n in lengths)
    return Reach(tuple(lengths), rows, total, how, estimated=True)


def by_unit_count(
    lengths: Sequence[int], units: Sequence[int], needed: dict[int, int], how: str
) -> Reach:
    """Questions bringing `units[i]` passages or documents each, where length n needs
    `needed[n]` of them (a length between two known ones needs proportionally more)."""
    rows = []
    for n in lengths:
        need = needed.get(n) or _proportional(n, needed)
        rows.append(sum(1 for u in units if u >= need))
    return Reach(tuple(lengths), tuple(rows), len(units), how, estimated=True)


def _proportional(length: int, needed: dict[int, int]) -> int:
    largest = max(needed)
    return math.ceil(needed[largest] * length / largest)


def by_document(lengths: Sequence[int], tokens: Sequence[float], bound: int, how: str) -> Reach:
    """Questions over documents of `tokens[i]` (estimated) tokens: those under `bound`
    are never asked (the task leaves them out); a question fills a length when its
    document has at least that many tokens (the prompt's own parts are left aside)."""
    asked = [t for t in tokens if t >= bound]
    rows = tuple(sum(1 for t in asked if t >= n) for n in lengths)
    return Reach(tuple(lengths), rows, len(asked), how, estimated=True)


def chars_per_token(texts: Sequence[str]) -> tuple[float, str]:
    """The characters per o200k token of a few texts' starts (evenly spread over
    `texts`), and a phrase saying how it was measured."""
    if not texts:
        return FALLBACK_CHARS_PER_TOKEN, f"{FALLBACK_CHARS_PER_TOKEN:g} characters per token"
    step = max(1, len(texts) // SAMPLES)
    samples = [t[:SAMPLE_CHARS] for t in texts[::step][:SAMPLES] if t.strip()]
    from lctui.tasks.tokenizers import reference_tokenizer

    try:
        tokenizer = reference_tokenizer("o200k_base")
    except (LctuiError, OSError):  # no offline vocabulary: a usual English ratio, said so
        return FALLBACK_CHARS_PER_TOKEN, (
            f"{FALLBACK_CHARS_PER_TOKEN:g} characters per token (o200k_base unavailable)"
        )
    tokens = sum(tokenizer.count(s) for s in samples)
    chars = sum(len(s) for s in samples)
    ratio = chars / tokens if tokens else FALLBACK_CHARS_PER_TOKEN
    return ratio, f"{ratio:.2f} characters per o200k_base token, measured on {len(samples)} samples"


def estimate_tokens(texts: Sequence[str]) -> tuple[list[float], str]:
    """Each text's tokens estimated from its characters, and how (for the `how` line);
    `texts` are distinct documents (a question's document is looked up in them)."""
    ratio, measured = chars_per_token(texts)
    return [len(t) / ratio for t in texts], measured
