"""Small LongBench v2 data files in the original's format (`data.json`: a JSON list of
objects with `_id, domain, sub_domain, difficulty, length, question, choice_A..D,
answer, context`), with our own questions over State of the Union prose.

`longbench_rows(n, words=...)` makes `n` rows cycling through the six domains, the two
difficulties and the three length buckets; each context is `words` words of prose
(a sequence: one per row, cycling), so a test chooses contexts that fit or must be cut.
`write_longbench(folder, rows)` writes them where lctui looks for a user's copy
(`longbench_v2/data.json`); `write_hub_longbench(home, rows)` into a temporary hub
cache as the hub dataset THUDM/LongBench-v2. `write_answered_run` stores a run of a
(non-reference) model that gave chosen answers to built examples.

For the parity fixtures (scripts/parity/longbench_*.py and tests/parity/): the contexts
whose middle cut is compared with the original's (`structure_rows`: prose of 300 to
140,000 words and texts whose cut is hard: special-token text, Chinese without spaces,
code, emoji, stray whitespace and a long run without spaces), `marker_row` (a question
whose every part is a marker, to find the parts' order in a prompt) and `expand_output`
(a stored output, or a recipe for a very long one).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from helpers.cached_folder import cached_folder
from helpers.hub_cache import hub_repo
from lctui.core.types import Example, Generation, GenerationStatus, ModelSpec
from lctui.scoring import error_score, score_example
from lctui.store import Store
from lctui.suites.longbench.tasks.data import BUCKETS, DATA_FILE, DIFFICULTIES, DOMAINS, HUB_REPO
from lctui.tasks.corpora import sotu_speeches

LETTERS = "ABCD"


@lru_cache(maxsize=1)
def _prose_words() -> tuple[str, ...]:
    words: list[str] = []
    for _, sentences in sotu_speeches()[-60:]:
        for sentence in sentences:
            words.extend(sentence.split())
    return tuple(words)


def prose(words: int, offset: int = 0) -> str:
    """`words` words of prose starting at word `offset` (the corpus repeats as needed)."""
    corpus = _prose_words()
    out = [corpus[(offset + i) % len(corpus)] for i in range(words)]
    return " ".join(out)


def longbench_rows(n: int, words: Sequence[int] = (400,)) -> list[dict[str, Any]]:
    """`n` rows of LongBench v2's format with contexts of `words[i % len(words)]` words."""
    domains = list(DOMAINS)
    rows = []
    for i in range(n):
        answer = LETTERS[(i * 3 + 1) % 4]
        rows.append(
            {
                "_id": f"66f{i:05d}bb02136c190cc8{i:04x}",
                "domain": domains[i % len(domains)],
                "sub_domain": f"sub {i % 4}",
                "difficulty": DIFFICULTIES[i % 2],
                "length": BUCKETS[i % 3],
                "question": f"Which statement about address number {i} is supported by the text?",
                "choice_A": f"Option A of question {i}",
                "choice_B": f"Option B of question {i}",
                "choice_C": f"Option C of question {i}",
                "choice_D": f"Option D of question {i}",
                "answer": answer,
                "context": prose(words[i % len(words)], offset=i * 997),
            }
        )
    return rows


def write_longbench(folder: Path, rows: Sequence[dict[str, Any]]) -> Path:
    """`rows` as `folder/longbench_v2/data.json` (a --data folder); returns the file."""
    path = folder / "longbench_v2" / DATA_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(list(rows), ensure_ascii=False), encoding="utf-8")
    return path


def write_hub_longbench(home: Path, rows: Sequence[dict[str, Any]]) -> Path:
    """`rows` as data.json of the hub dataset THUDM/LongBench-v2 in the cache under `home`."""
    path = hub_repo(home, HUB_REPO) / DATA_FILE
    path.write_text(json.dumps(list(rows), ensure_ascii=False), encoding="utf-8")
    return path


def write_answered_run(
    store: Store,
    examples: Sequence[Example],
    outputs: Sequence[str],
    model: str = "answerer",
    run_id: str = "run-lb",
    errors: Sequence[int] = (),
) -> None:
    """A run of model `model` (not a reference) that answered `examples` with `outputs`,
    each scored by lctui's scorer; the generations numbered in `errors` failed instead.
    The rows stay buffered (the caller flushes or reads through the store)."""
    spec = ModelSpec(name=model, backend="openai", path=model)
    store.add_model(spec, f"fp-{model}", "o200k_base", 131072)
    store.start_run(run_id, {"argv": ["run"]})
    for i, (example, output) in enumerate(zip(examples, outputs, strict=True)):
        failed = i in errors
        generation = Generation(
            generation_id=f"{run_id}-g{i}",
            gen_key=f"{run_id}-k{i}",
            run_id=run_id,
            model_id=f"fp-{model}",
            example_id=example.example_id,
            config_hash="cfg",
            status=GenerationStatus.ERROR if failed else GenerationStatus.OK,
            output="" if failed else output,
            prompt_tokens=example.prompt_tokens,
            output_tokens=0 if failed else 9,
            ttft_s=0.1,
            latency_s=0.5,
            finish_reason=None if failed else "stop",
            error="APIConnectionError: the server went away" if failed else None,
            started_at=1_700_000_000.0 + i,
        )
        store.add_example(example)
        store.add_generation(generation, {"max_new_tokens": example.max_new_tokens})
        score = error_score("request failed") if failed else score_example(example, output)
        store.add_score(generation.generation_id, score)
    store.finish_run(run_id, "finished")


# The words of each context of the shared fixture: one that fits every length, one cut
# at 4K-16K, one cut at every length the tests use.
FIXTURE_WORDS = (300, 3_000, 30_000)


def cached_longbench_release(cache: Path, n: int = 12) -> Path:
    """A --data folder with `n` questions (`longbench_rows(n, FIXTURE_WORDS)`), kept under
    `cache` between sessions (helpers.cached_folder)."""
    return cached_folder(
        cache,
        "longbench-release",
        lambda folder: write_longbench(folder, longbench_rows(n, words=FIXTURE_WORDS)),
        __file__,
        str(n),
    )


# The contexts of the structure fixture, by name: (kind, size). Kinds other than prose
# put at the middle cut what a window at a context's end or a joint decode could get
# wrong; each is cut at some of the fixture's lengths.
STRUCTURE_CONTEXTS: tuple[tuple[str, str, int], ...] = (
    ("prose_300", "prose", 300),
    ("prose_3k", "prose", 3_000),
    ("prose_30k", "prose", 30_000),
    ("prose_140k", "prose", 140_000),
    ("special_token_text", "special", 12_000),
    ("chinese_no_spaces", "chinese", 40_000),
    ("code", "code", 3_000),
    ("emoji", "emoji", 12_000),
    ("stray_whitespace", "whitespace", 12_000),
    ("long_run_without_spaces", "run", 12_000),
)
_CJK = (
    "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就"
    "分对成会可主发年动同工也能下过子说产种面而方后多定行学法所民得经"
)


def _special(words: int, offset: int) -> str:
    parts = prose(words, offset).split(" ")
    for i in range(0, len(parts), 97):  # text that reads as special tokens
        parts[i] += " <|endoftext|>" if i % 2 else "<|im_start|>user"
    return " ".join(parts)


def _chinese(chars: int, seed: int) -> str:
    rng = random.Random(seed)
    out = []
    for i in range(chars):
        out.append(rng.choice(_CJK))
        if i % 23 == 22:
            out.append("，" if i % 3 else "。")
    return "".join(out)


def _code(lines: int, seed: int) -> str:
    rng = random.Random(seed)
    words = prose(lines * 3, seed).split(" ")
    out = []
    for i in range(lines):
        indent = " " * (4 * rng.randrange(4)) + ("\t" if i % 17 == 0 else "")
        name = "".join(ch for ch in words[3 * i] if ch.isalnum()).lower() or "x"
        out.append(
            f"{indent}{name}_{i} = compute({name!r}, {rng.randrange(10**6)})  # {words[3 * i + 1]}"
        )
        if i % 11 == 0:
            out.append("")
    return "\n".join(out)


def _emoji(words: int, offset: int) -> str:
    marks = (
        "\U0001f600",
        "\u00e9t\u00e9",
        "\U0001f44d\U0001f3fd",
        "\u2014",
        "\u00a0",
        "\U00020000",
    )
    parts = prose(words, offset).split(" ")
    return " ".join(p + marks[i % len(marks)] if i % 3 == 0 else p for i, p in enumerate(parts))


def _whitespace(words: int, offset: int) -> str:
    parts = prose(words, offset).split(" ")
    gaps = ("  ", "\r\n", "\n\n\n", " \t ", "      ")
    text = "".join(p + (gaps[i % 5] if i % 7 == 0 else " ") for i, p in enumerate(parts))
    return "  \n\t" + text + " \r\n  "  # both sides strip these ends


def _run(words: int, offset: int) -> str:
    half = prose(words // 2, offset)
    blob = "".join(f"{(i * 2654435761) % 2**32:08x}" for i in range(words))  # no spaces
    return half + " " + blob + " " + prose(words // 2, offset + words)


_CONTEXT_MAKERS: dict[str, Callable[[int, int], str]] = {
    "prose": prose,
    "special": _special,
    "chinese": _chinese,
    "code": _code,
    "emoji": _emoji,
    "whitespace": _whitespace,
    "run": _run,
}


def structure_rows() -> list[dict[str, Any]]:
    """The questions of the structure fixture, one per STRUCTURE_CONTEXTS entry."""
    rows = longbench_rows(len(STRUCTURE_CONTEXTS))
    for i, (row, (name, kind, size)) in enumerate(zip(rows, STRUCTURE_CONTEXTS, strict=True)):
        offset = 7_919 * (i + 1)
        row["context"] = _CONTEXT_MAKERS[kind](size, offset)
        row["question"] = f"({name}) {row['question']}"
    return rows


MARKERS = {
    "document": "DOCUMENT-MARKER",
    "question": "QUESTION-MARKER",
    "choice_A": "CHOICE-A-MARKER",
    "choice_B": "CHOICE-B-MARKER",
    "choice_C": "CHOICE-C-MARKER",
    "choice_D": "CHOICE-D-MARKER",
    "reasoning": "REASONING-MARKER",
}


def marker_row() -> dict[str, Any]:
    """One question whose document, question and options are MARKERS (the reasoning
    marker is what a first call answers)."""
    row = longbench_rows(1)[0]
    row["context"], row["question"] = MARKERS["document"], MARKERS["question"]
    for letter in LETTERS:
        row[f"choice_{letter}"] = MARKERS[f"choice_{letter}"]
    return row


def expand_output(output: str | Mapping[str, Any]) -> str:
    """A stored output: the text, or {"repeat", "times", "then"} for a very long one."""
    if isinstance(output, str):
        return output
    return str(output["repeat"]) * int(output["times"]) + str(output["then"])
