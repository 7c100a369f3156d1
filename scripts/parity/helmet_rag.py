"""Regenerate tests/parity/helmet_rag_structure.jsonl: what HELMET's own RAG loader builds
from lctui's KILT fixture files (tests/fixtures/helmet/kilt): which rows it keeps, the
passages of each prompt in order, and the two demonstrations it picks.

Run by hand from the repository root with lctui's python, never in CI; `--python` is a
venv with the real `datasets` package (HELMET draws demos with Dataset.shuffle):

    PYTHONPATH=src python scripts/parity/helmet_rag.py \
        --helmet PATH/TO/HELMET --commit 4526dfbdc512bd9ff721da336bff4e3e75ecfd27 \
        --python PATH/TO/venv-with-datasets/bin/python

Rows: {task, file, line, titles, demo_questions}: the lctui task, the fixture file and
line of the row HELMET loaded (rows in file order; HELMET's PopQA run, kilt_popqa_3,
drops rows with log10(s_pop) >= 3), the titles of the passages its prompt shows in
order, and the questions of its demonstrations in order. All text is the fixtures'
own invented text.
"""

from __future__ import annotations

import json
import math
import subprocess
from pathlib import Path

from helmet_common import HERE, ROOT, parity_parser, snapshot_commit, write_fixture

FIXTURES = ROOT / "tests/fixtures/helmet"
# lctui task -> (HELMET's dataset name in configs/rag.yaml, test file, demo file)
CASES = {
    "kilt_nq": (
        "kilt_nq",
        "kilt/nq-dev-multikilt_1000_k20_dep6.jsonl",
        "kilt/nq-train-multikilt_1000_k3_dep6.jsonl",
    ),
    "kilt_triviaqa": (
        "kilt_triviaqa",
        "kilt/triviaqa-dev-multikilt_1000_k20_dep6.jsonl",
        "kilt/triviaqa-train-multikilt_1000_k3_dep6.jsonl",
    ),
    "kilt_hotpotqa": (
        "kilt_hotpotqa",
        "kilt/hotpotqa-dev-multikilt_1000_k20_dep3.jsonl",
        "kilt/hotpotqa-train-multikilt_1000_k3_dep3.jsonl",
    ),
    "kilt_popqa": (
        "kilt_popqa_3",
        "kilt/popqa_test_1000_k20_dep6.jsonl",
        "kilt/popqa_test_1000_k3_dep6.jsonl",
    ),
}
SHOTS = 2


def kept_lines(path: Path, dataset: str) -> list[int]:
    """Line numbers of the rows HELMET's loader keeps, in file order (PopQA: s_pop < 10^3)."""
    lines = []
    for number, text in enumerate(path.read_text().splitlines(), start=1):
        row = json.loads(text)
        if dataset.startswith("kilt_popqa") and math.log10(row["s_pop"]) >= float(
            dataset.split("_")[-1]
        ):
            continue
        lines.append(number)
    return lines


def main() -> int:
    parser = parity_parser(__doc__, "helmet_rag_structure.jsonl", "python of a venv with datasets")
    args = parser.parse_args()
    commit = snapshot_commit(args.helmet, args.commit)
    request = {
        "shots": SHOTS,
        "cases": [
            {"dataset": dataset, "test": str(FIXTURES / test), "demo": str(FIXTURES / demo)}
            for dataset, test, demo in CASES.values()
        ],
    }
    done = subprocess.run(
        [args.python, str(HERE / "helmet_rag_driver.py"), str(args.helmet)],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"helmet_rag_driver.py failed:\n{done.stderr}")
    rows = []
    for (task, (dataset, test, _demo)), result in zip(
        CASES.items(), json.loads(done.stdout), strict=True
    ):
        lines = kept_lines(FIXTURES / test, dataset)
        if len(lines) != len(result["rows"]):
            raise SystemExit(f"{dataset}: HELMET kept {len(result['rows'])} rows, not {len(lines)}")
        for line, row in zip(lines, result["rows"], strict=True):
            rows.append(
                {
                    "task": task,
                    "file": test,
                    "line": line,
                    "titles": row["titles"],
                    "demo_questions": row["demo_questions"],
                }
            )
    notes = (
        "HELMET's data.load_data (load_qa) with shots 2 on lctui's invented KILT fixtures, "
        "under the real datasets package; dataset names as configs/rag.yaml (kilt_popqa_3)."
    )
    write_fixture(args.out, commit, notes, rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
