"""Invented KILT-format data for the RAG tests: the committed fixtures and large pools.

`tests/fixtures/helmet` holds small files in the layout of HELMET's data release
(written by its make_kilt.py). `write_pool` writes a test file with many passages per
row (HELMET's k1000 files hold 1,000), for lengths the small fixtures cannot fill.
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

HELMET_FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "helmet"
NQ_TEST = "kilt/nq-dev-multikilt_1000_k20_dep6.jsonl"
NQ_DEMOS = "kilt/nq-train-multikilt_1000_k3_dep6.jsonl"
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
    shutil.copytree(HELMET_FIXTURES / "kilt", folder / "kilt")
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
