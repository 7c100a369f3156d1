"""Regenerate tests/parity/helmet_rerank_structure.jsonl: what HELMET's own re-ranking
loader builds from lctui's MS MARCO fixture files (tests/fixtures/helmet/msmarco): the
passage ids of each prompt in order, the reference ranking, the labels, and the two
demonstrations it picks.

Run by hand from the repository root with lctui's python, never in CI; `--python` is a
venv with the real `datasets` package (HELMET draws demos with Dataset.shuffle):

    PYTHONPATH=src python scripts/parity/helmet_rerank.py \
        --helmet PATH/TO/HELMET --commit 4526dfbdc512bd9ff721da336bff4e3e75ecfd27 \
        --python PATH/TO/venv-with-datasets/bin/python

Rows: {case, file, line, qid, ids, answer, qrel, demos}: the fixture folder and file
and the line of the row HELMET loaded (rows in file order), the ids its prompt shows in
order, its reference ranking and labels, and [query, ranking] of its demonstrations in
order. Case "few" is a copy of the test file with its first five rows only, so the
demo file holds over twice as many rows and HELMET leaves every test query out of it.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path

from helmet_common import HERE, ROOT, parity_parser, snapshot_commit, write_fixture

FIXTURES = ROOT / "tests/fixtures/helmet"
TEST = "msmarco/test_reranking_data_k14_dep3.jsonl"
DEMO = "msmarco/test_reranking_data_k10_dep3.jsonl"
FEW_ROWS = 5
SHOTS = 2


def main() -> int:
    parser = parity_parser(
        __doc__, "helmet_rerank_structure.jsonl", "python of a venv with datasets"
    )
    args = parser.parse_args()
    commit = snapshot_commit(args.helmet, args.commit)
    with tempfile.TemporaryDirectory(prefix="lctui-rerank-parity-") as tmp:
        few = Path(tmp) / "few.jsonl"
        lines = (FIXTURES / TEST).read_text().splitlines()[:FEW_ROWS]
        few.write_text("\n".join(lines) + "\n")
        cases = {"all": FIXTURES / TEST, "few": few}
        request = {
            "shots": SHOTS,
            "cases": [{"test": str(path), "demo": str(FIXTURES / DEMO)} for path in cases.values()],
        }
        done = subprocess.run(
            [args.python, str(HERE / "helmet_rerank_driver.py"), str(args.helmet)],
            input=json.dumps(request),
            capture_output=True,
            text=True,
            check=False,
            cwd=HERE,
        )
    if done.returncode != 0:
        raise SystemExit(f"helmet_rerank_driver.py failed:\n{done.stderr}")
    rows = []
    for case, result in zip(cases, json.loads(done.stdout), strict=True):
        if len(result["rows"]) != (FEW_ROWS if case == "few" else len(lines_of(FIXTURES / TEST))):
            raise SystemExit(f"case {case}: HELMET kept {len(result['rows'])} rows")
        for line, row in enumerate(result["rows"], start=1):
            rows.append({"case": case, "file": TEST, "line": line, **row})
    notes = (
        "HELMET's data.load_data (load_msmarco_rerank, dataset msmarco_rerank_psg as "
        "configs/rerank.yaml) with shots 2 on lctui's invented MS MARCO fixtures, under the "
        "real datasets package; case few: the first five test rows only."
    )
    write_fixture(args.out, commit, notes, rows)
    return 0


def lines_of(path: Path) -> list[str]:
    return [line for line in path.read_text().splitlines() if line.strip()]


if __name__ == "__main__":
    raise SystemExit(main())
