"""Invented HELMET-format data for the RAG and re-ranking tests: the committed fixtures
and large pools.

`tests/fixtures/helmet` holds small files in the layout of HELMET's data release
(written by its make_kilt.py and make_msmarco.py). `write_pool` and
`write_rerank_pool` write a test file with many passages per row (HELMET's k1000 files
hold 1,000), for lengths the small fixtures cannot fill.
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

HELMET_FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "helmet"
NQ_TEST = "kilt/nq-dev-multikilt_1000_k20_dep6.jsonl"
NQ_DEMOS = "kilt/nq-train-multikilt_1000_k3_dep6.jsonl"
RERANK_TEST = "msmarco/test_reranking_data_k14_dep3.jsonl"
RERANK_DEMOS = "msmarco/test_reranking_data_k10_dep3.jsonl"
_SYLLABLES = [
    "bra",
    "dun",
    "mor",
    "vel",
    "kio",
    "tas",
    "fen",
    "lor",
    "quin",
    "sab",
    "reth",
    "oma",
    "zil",
    "gav",
    "pim",
    "ulo",
]


def copy_fixtures(folder: Path) -> Path:
    """A writable copy of the fixture data release under `folder`."""
    for part in ("kilt", "msmarco"):
        shutil.copytree(HELMET_FIXTURES / part, folder / part)
    return folder


def write_pool(folder: Path, rows: int, passages: int, seed: int = 0) -> Path:
    """An NQ test file `kilt/nq-dev-multikilt_1000_k1000_dep6.jsonl` (named as the largest
    release file, whatever `passages` is) of `rows` rows, the fixture demo file beside it."""
    rng = random.Random(seed)
    words = ["".join(rng.choice(_SYLLABLES) for _ in range(3)) for _ in range(400)]
    (folder / "kilt").mkdir(parents=True, exist_ok=True)
    shutil.copy(HELMET_FIXTURES / NQ_DEMOS, folder / NQ_DEMOS)
    lines = []
    for row in range(rows):
        ctxs = [
            {
                "title": rng.choice(words).capitalize(),
                "text": " ".join(rng.choices(words, k=90)) + ".",
            }
            for _ in range(passages - 1)
        ]
        answer = f"Zorbel Quandt {row}"
        gold = {"title": "Zorbel", "text": f"The lighthouse keeper of the north cape was {answer}."}
        at = round(row / max(1, rows - 1) * (passages - 1))
        ctxs.insert(at, gold)
        question = f"who kept the lighthouse of the north cape in season {row}"
        lines.append(json.dumps({"question": question, "answers": [answer], "ctxs": ctxs}))
    path = folder / "kilt" / "nq-dev-multikilt_1000_k1000_dep6.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def write_rerank_pool(folder: Path, rows: int, passages: int, seed: int = 0) -> Path:
    """A re-ranking test file `msmarco/test_reranking_data_k1000_dep3.jsonl` (named as the
    largest release file, whatever `passages` is) of `rows` rows with about 150-token
    passages graded 0-3 (a tenth relevant), the fixture demo file beside it."""
    rng = random.Random(seed)
    words = ["".join(rng.choice(_SYLLABLES) for _ in range(3)) for _ in range(400)]
    (folder / "msmarco").mkdir(parents=True, exist_ok=True)
    shutil.copy(HELMET_FIXTURES / RERANK_DEMOS, folder / RERANK_DEMOS)
    lines = []
    for row in range(rows):
        ctxs = [
            {
                "id": str(5_000_000 + row * 10_000 + k),
                "text": " ".join(rng.choices(words, k=60)) + ".",
                "label": rng.choice((1, 2, 3)) if rng.random() < 0.1 else 0,
            }
            for k in range(passages)
        ]
        query = f"which almanac lists the tides of the north cape in season {row}"
        lines.append(json.dumps({"qid": str(900 + row), "query": query, "ctxs": ctxs}))
    path = folder / "msmarco" / "test_reranking_data_k1000_dep3.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path
