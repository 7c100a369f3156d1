"""Regenerate tests/parity/helmet_cite_structure.jsonl: what HELMET's own ALCE loader
builds from lctui's fixture files (tests/fixtures/helmet/alce, prompts): per row, in the
file's order, its documents (number, title, text hash) and its demonstrations.

Run by hand from the repository root with lctui's python, never in CI:

    PYTHONPATH=src python scripts/parity/helmet_cite_structure.py \
        --helmet PATH/TO/HELMET --python PATH/TO/originals-venv/bin/python

The fixture demo files hold only demonstrations; HELMET's loader also reads the
templates of its own prompts/{asqa,qampari}_revised.json, so the glue gives it a
temporary copy of each with the snapshot's templates and the fixture's demonstrations
(the templates are used there, never stored). HELMET runs with 40 documents (the
fixture rows' count) and 2 shots.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from helmet_common import ROOT, parity_parser, snapshot_commit, write_fixture

HERE = Path(__file__).resolve().parent
FIXTURES = ROOT / "tests" / "fixtures" / "helmet"
DOCS = 40


def main() -> int:
    parser = parity_parser(__doc__, "helmet_cite_structure.jsonl")
    args = parser.parse_args()
    commit = snapshot_commit(args.helmet, args.commit)
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as folder:
        cases = []
        for dataset in ("asqa", "qampari"):
            theirs = json.loads((args.helmet / f"prompts/{dataset}_revised.json").read_text())
            ours = json.loads((FIXTURES / f"prompts/{dataset}_revised.json").read_text())
            demo = Path(folder) / f"{dataset}_demos.json"
            demo.write_text(json.dumps({**theirs, "demos": ours["demos"]}))
            test = FIXTURES / f"alce/{dataset}_eval_gtr_top2000.json"
            cases.append(
                {"dataset": f"alce_{dataset}_{DOCS}", "test": str(test), "demo": str(demo)}
            )
        done = subprocess.run(
            [args.python, str(HERE / "helmet_cite_driver.py"), str(args.helmet)],
            input=json.dumps({"cases": cases, "shots": 2}),
            capture_output=True,
            text=True,
            check=False,
            cwd=HERE,
            env={"HF_DATASETS_CACHE": str(Path(folder) / "cache"), "PATH": "/usr/bin:/bin"},
        )
    if done.returncode != 0:
        sys.exit(f"helmet_cite_driver.py failed:\n{done.stderr}")
    for dataset, result in zip(("asqa", "qampari"), json.loads(done.stdout), strict=True):
        for position, row in enumerate(result["rows"]):
            rows.append({"dataset": dataset, "data_line": position + 1, **row})
    notes = (
        "HELMET's load_alce on the fixture files (alce_{asqa,qampari}_40, 2 shots, seed 42 "
        "set before loading as eval.py does), rows in the file's order (data_line = "
        "position in the JSON list, from 1); docs: [number, title, sha1(text)[:12]] of "
        "the context's documents; demo_questions: the demonstrations' questions in order."
    )
    write_fixture(args.out, commit, notes, rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
