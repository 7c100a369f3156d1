"""Run princeton-nlp/HELMET's own ICL loader (data.py load_icl) on hub-format Parquet files.

Glue for tests/parity/helmet_icl_structure.jsonl, run by hand, never in CI, under the
python of a venv with the real `datasets` package (HELMET shuffles, splits and maps
with it). HELMET reads the datasets with `load_dataset(hub id)`; here that one name in
data.py's namespace is pointed at the fixture's Parquet files (read by
`Dataset.from_parquet`, which restores the class labels from their schema), so the
rest of load_icl runs as written. torch, transformers, rouge_score and pytrec_eval,
which the loader never calls, are inert stand-ins (helmet_rag_driver.py). It imports
data.py from the snapshot folder given as the first argument and contains none of its
code.

    python helmet_icl_driver.py HELMET_DIR < {"files": {hub id: {split: path}},
                                              "runs": [{"dataset", "positions"}]}

For each run (HELMET's dataset name, e.g. icl_trec_coarse_98shot_balance) it returns
the number of asked rows, their questions in order, and for the rows at `positions`:
the question, the answer and the demonstrations as [text, label] in the order shown.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from helmet_rag_driver import import_helmet_data


def main() -> None:
    helmet = Path(sys.argv[1])
    request = json.load(sys.stdin)
    helmet_data = import_helmet_data(helmet)
    import datasets

    files: dict[str, dict[str, str]] = request["files"]

    def from_fixture(name: str, *config: str, **_: Any) -> datasets.DatasetDict:
        splits = files[name]
        return datasets.DatasetDict(
            {split: datasets.Dataset.from_parquet(path) for split, path in splits.items()}
        )

    helmet_data.load_dataset = from_fixture
    out = []
    for run in request["runs"]:
        loaded = helmet_data.load_icl(run["dataset"], max_test_sample=500, seed=42)
        rows = loaded["data"]
        picked = []
        for position in run["positions"]:
            row = rows[position]
            demos = [d.rsplit("\nlabel: ", 1) for d in row["context"].split("\n\n")]
            picked.append(
                {
                    "position": position,
                    "question": row["question"],
                    "answer": row["answer"],
                    "demos": demos,
                }
            )
        out.append({"asked": len(rows), "questions": [r["question"] for r in rows], "rows": picked})
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
