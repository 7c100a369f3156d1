"""Regenerate tests/parity/helmet_inputs_prompts.jsonl: the prompts HELMET's own
load_data makes of the invented checkout's release files (tests/helpers/helmet_inputs.py),
per config entry and row, as SHA-256 and length, for the helmet inputs kind's test.

Run by hand from the repository root with lctui's python, never in CI:

    PYTHONPATH=src python scripts/parity/helmet_inputs.py \
        --helmet PATH/TO/HELMET --python PATH/TO/originals-venv/bin/python

HELMET's loaders run in its venv (helmet_inputs_driver.py); the prompts are filled with
the invented checkout's templates in place of HELMET's sentences (which never enter
this repository), so the items (rows drawn, demonstrations, documents, order) are
HELMET's code's and the sentences ours; lctui reads the same templates from the
invented data.py with `ast`.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from helmet_common import ROOT, parity_parser, run_driver, snapshot_commit, write_fixture

sys.path.insert(0, str(ROOT / "tests"))  # the invented checkout (tests/helpers)

from helpers.helmet_inputs import (
    CITE_SYSTEM,
    CITE_USER,
    PARITY_CONFIGS,
    write_checkout,
)
from lctui.tasks.inputs.helmet_configs import read_configs

DRIVER = Path(__file__).resolve().parent / "helmet_inputs_driver.py"
TEMPLATES = {"alce": (CITE_USER, CITE_SYSTEM)}


def main() -> None:
    parser = parity_parser(__doc__, "helmet_inputs_prompts.jsonl")
    args = parser.parse_args()
    commit = snapshot_commit(args.helmet, args.commit)
    with tempfile.TemporaryDirectory() as folder:
        root = write_checkout(Path(folder) / "HELMET", PARITY_CONFIGS)
        entries, problems = read_configs(root, [])
        if problems:
            raise SystemExit("\n".join(problems))
        cases = []
        for entry in entries:
            family = next(name for name in TEMPLATES if name in entry.dataset)
            user, system = TEMPLATES[family]
            cases.append(
                {
                    "dataset": entry.dataset,
                    "test": entry.test_file,
                    "demo": entry.demo_file,
                    "shots": entry.shots,
                    "seed": entry.seed,
                    "max_test_samples": entry.max_test_samples,
                    "user": user,
                    "system": system,
                }
            )
        found = run_driver(
            args.python, args.helmet, "", {"checkout": str(root), "cases": cases}, DRIVER
        )
    rows = []
    for entry, case in zip(entries, found, strict=True):
        for index, row in enumerate(case["rows"]):
            rows.append(
                {
                    "config": entry.config,
                    "dataset": entry.dataset,
                    "length": entry.input_max_length,
                    "index": index,
                    "joiner": case["joiner"],
                    "user": row["user"],
                    "prompt": row["prompt"],
                }
            )
    notes = (
        "HELMET's load_data (data.py) on the invented checkout of tests/helpers/helmet_inputs.py "
        "(PARITY_CONFIGS), random seeded just before as eval.py does; each item filled with "
        "the invented templates; per row the SHA-256 and length of the user text and of "
        "user + the loader's joiner + system"
    )
    write_fixture(args.out, commit, notes, rows)


if __name__ == "__main__":
    main()
