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
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from helpers.cached_folder import cached_folder
from helpers.hub_cache import hub_repo
from lctui.core.types import Example, Generation, GenerationStatus, ModelSpec
from lctui.scoring import error_score, score_example
from lctui.store import Store
from lctui.tasks.corpora import sotu_speeches
from lctui.tasks.longbench.data import BUCKETS, DATA_FILE, DIFFICULTIES, DOMAINS, HUB_REPO

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
