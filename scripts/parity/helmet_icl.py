"""Regenerate tests/parity/helmet_icl_structure.jsonl: what HELMET's own ICL loader builds
from lctui's ICL fixture files (tests/fixtures/helmet/icl): the asked rows in order, and
for some of lctui's examples the demonstrations HELMET draws for the same row with the
same number of shots, their integer labels, the asked text and the answer.

Run by hand from the repository root with lctui's python, never in CI; `--python` is a
venv with the real `datasets` package:

    PYTHONPATH=src python scripts/parity/helmet_icl.py \
        --helmet PATH/TO/HELMET --commit 4526dfbdc512bd9ff721da336bff4e3e75ecfd27 \
        --python PATH/TO/venv-with-datasets/bin/python

Rows: {kind: "asked", task, asked, questions} (HELMET's asked rows of the task, in
order) and {kind: "example", task, length, index, position, shots, draw, question,
answer, demos} (lctui's example `index` at `length` with o200k_base and seed 0 shows
`shots` demonstrations, the first of HELMET's `draw`-shot draw: the demos of HELMET's
`{task}_{draw}shot_balance` row at `position`).
"""

from __future__ import annotations

import json
import subprocess
from collections import defaultdict

from helmet_common import HERE, ROOT, parity_parser, snapshot_commit, write_fixture

from lctui.tasks import get_task
from lctui.tasks.datasets import DataSource
from lctui.tasks.tokenizers import reference_tokenizer

DATA = ROOT / "tests/fixtures/helmet/icl"
HUB = DATA / "hub"
TREC = {
    "train": "CogComp/trec/default/train/0000.parquet",
    "test": "CogComp/trec/default/test/0000.parquet",
}
FILES = {
    "CogComp/trec": TREC,
    "PolyAI/banking77": {
        "train": "PolyAI/banking77/default/train/0000.parquet",
        "test": "PolyAI/banking77/default/test/0000.parquet",
    },
    "clinc_oos": {
        "train": "clinc/clinc_oos/plus/train-00000-of-00001.parquet",
        "validation": "clinc/clinc_oos/plus/validation-00000-of-00001.parquet",
    },
    "xingkunliuxtracta/nlu_evaluation_data": {
        "train": "xingkunliuxtracta/nlu_evaluation_data/default/train/0000.parquet"
    },
}
# lctui task -> HELMET's dataset name before `_{N}shot_balance`
HELMET_NAMES = {
    "icl_trec_coarse": "icl_trec_coarse",
    "icl_trec_fine": "icl_trec_fine",
    "icl_banking77": "icl_banking77",
    "icl_clinc150": "icl_clinic150",
    "icl_nlu": "icl_nlu",
}
EXAMPLES = ((2048, 0), (2048, 1), (2048, 2), (4096, 3))


def main() -> int:
    parser = parity_parser(__doc__, "helmet_icl_structure.jsonl", "python of a venv with datasets")
    args = parser.parse_args()
    commit = snapshot_commit(args.helmet, args.commit)
    tokenizer = reference_tokenizer("o200k_base")
    source = DataSource(folder=DATA)
    wanted: dict[tuple[str, int], list[dict[str, int]]] = defaultdict(list)
    for task_name in HELMET_NAMES:
        task = get_task(task_name).with_data(source)
        for length, index in EXAMPLES:
            example = task.generate(length, 0, index, tokenizer)
            draw = int(example.metadata["draw_shots"])
            wanted[task_name, draw].append(
                {
                    "length": length,
                    "index": index,
                    "position": int(example.metadata["test_position"]),
                    "shots": int(example.metadata["shots"]),
                }
            )
    runs = [
        {
            "dataset": f"{HELMET_NAMES[t]}_{draw}shot_balance",
            "positions": [e["position"] for e in es],
        }
        for (t, draw), es in wanted.items()
    ]
    files = {
        repo: {split: str(HUB / path) for split, path in splits.items()}
        for repo, splits in FILES.items()
    }
    done = subprocess.run(
        [args.python, str(HERE / "helmet_icl_driver.py"), str(args.helmet)],
        input=json.dumps({"files": files, "runs": runs}),
        capture_output=True,
        text=True,
        check=False,
        cwd=HERE,
    )
    if done.returncode != 0:
        raise SystemExit(f"helmet_icl_driver.py failed:\n{done.stderr}")
    rows: list[dict[str, object]] = []
    asked_done: set[str] = set()
    for ((task_name, draw), examples), result in zip(
        wanted.items(), json.loads(done.stdout), strict=True
    ):
        if task_name not in asked_done:
            asked_done.add(task_name)
            rows.append(
                {
                    "kind": "asked",
                    "task": task_name,
                    "asked": result["asked"],
                    "questions": result["questions"],
                }
            )
        for example, row in zip(examples, result["rows"], strict=True):
            rows.append({"kind": "example", "task": task_name, "draw": draw, **example, **row})
    notes = (
        "HELMET's data.load_icl (datasets icl_*_{N}shot_balance, max_test_samples 500, "
        "seed 42, as configs/icl.yaml) on lctui's invented ICL fixtures, its load_dataset "
        "pointed at the fixture Parquet files, under the real datasets package; N = the "
        "draw_shots of lctui's example at the row's length (o200k_base, run seed 0)."
    )
    write_fixture(args.out, commit, notes, rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
