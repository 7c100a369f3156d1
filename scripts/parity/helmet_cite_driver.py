"""Run princeton-nlp/HELMET's own ALCE loader (data.py load_data -> load_alce) on
ALCE-format files.

Glue for tests/parity/helmet_cite_structure.jsonl, run by hand, never in CI, under the
python of a venv with the real `datasets` package; torch, transformers, rouge_score and
pytrec_eval, which the loader never calls, are inert stand-ins (helmet_rag_driver.py).
It imports data.py from the snapshot folder given as the first argument and contains
none of its code. As eval.py does, Python's `random` is seeded with --seed (42) just
before the loader runs.

    python helmet_cite_driver.py HELMET_DIR < {"cases": [{"dataset", "test", "demo"}], "shots": 2}

For each case it returns per loaded row, in HELMET's order: the question, the documents
of its context as [number, title, sha1 of the text] and the questions of its
demonstrations in the order shown. No prompt text is returned.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import sys
import types
from pathlib import Path

from helmet_rag_driver import import_helmet_data

DOC = re.compile(r"Document \[(\d+)\]\(Title: (.*?)\): (.*)")
DEMO_QUESTION = re.compile(r"Question: (.*)\n")


def _docs(context: str) -> list[list[object]]:
    out: list[list[object]] = []
    for block in context.split("\n\n"):
        found = DOC.fullmatch(block)
        if found is None:
            raise SystemExit(f"unexpected document block {block[:80]!r}")
        digest = hashlib.sha1(found[3].encode()).hexdigest()[:12]
        out.append([int(found[1]), found[2], digest])
    return out


def main() -> None:
    helmet = Path(sys.argv[1])
    request = json.load(sys.stdin)
    helmet_data = import_helmet_data(helmet)

    args = types.SimpleNamespace(max_test_samples=None, shots=request["shots"], seed=42)
    out = []
    for case in request["cases"]:
        random.seed(args.seed)  # eval.py's run_test, right before load_data
        loaded = helmet_data.load_data(args, case["dataset"], case["test"], case["demo"])
        rows = []
        for row in loaded["data"]:
            rows.append(
                {
                    "question": row["question"],
                    "docs": _docs(row["context"]),
                    "demo_questions": DEMO_QUESTION.findall(row["demo_text"]),
                }
            )
        out.append({"rows": rows})
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
