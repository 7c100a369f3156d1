"""Run princeton-nlp/HELMET's own re-ranking loader (data.py load_data ->
load_msmarco_rerank) on MS MARCO-format files.

Glue for tests/parity/helmet_rerank_structure.jsonl, run by hand, never in CI, under
the python of a venv with the real `datasets` package (HELMET draws demos with
`datasets.Dataset.shuffle`); torch, transformers, rouge_score and pytrec_eval, which
the loader never calls, are inert stand-ins (helmet_rag_driver.py). It imports
data.py from the snapshot folder given as the first argument and contains none of
its code.

    python helmet_rerank_driver.py HELMET_DIR < {"cases": [{"test", "demo"}], "shots": 2}

For each case it returns per loaded row, in HELMET's order: the qid, the passage ids
in the order the prompt shows them, the reference ranking, the relevance labels
(qrel), and per demonstration its query and its ranking, in the order shown. Ids and
queries are the fixtures' own invented text; no prompt text is returned.
"""

from __future__ import annotations

import json
import re
import sys
import types
from pathlib import Path

from helmet_rag_driver import import_helmet_data

PASSAGE_ID = re.compile(r"\[ID: (\d+)\] Document")
DEMO = re.compile(r"Query: (.*)\nRanking: (.*)\n")


def main() -> None:
    helmet = Path(sys.argv[1])
    request = json.load(sys.stdin)
    helmet_data = import_helmet_data(helmet)

    args = types.SimpleNamespace(max_test_samples=None, shots=request["shots"], seed=42)
    out = []
    for case in request["cases"]:
        loaded = helmet_data.load_data(args, "msmarco_rerank_psg", case["test"], case["demo"])
        rows = []
        for row in loaded["data"]:
            rows.append(
                {
                    "qid": row["qid"],
                    "ids": PASSAGE_ID.findall(row["context"]),
                    "answer": row["answer"],
                    "qrel": {doc: int(label) for doc, label in row["qrel"]},
                    "demos": [list(d) for d in DEMO.findall(row["demos"])],
                }
            )
        out.append({"rows": rows})
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
