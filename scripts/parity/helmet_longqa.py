"""Regenerate tests/parity/helmet_longqa_structure.jsonl: what HELMET's own long-document
QA loaders build from lctui's fixture files (tests/fixtures/helmet/longqa): the test
questions in HELMET's order, their golds and options, the demonstrations, whether and
how the story is cut, the order of the prompt's fields and the answer prefix.

Run by hand from the repository root with lctui's python, never in CI; `--python` is a
venv with the real `datasets` package (and pyarrow):

    PYTHONPATH=src python scripts/parity/helmet_longqa.py \
        --helmet PATH/TO/HELMET --commit 4526dfbdc512bd9ff721da336bff4e3e75ecfd27 \
        --python PATH/TO/venv-with-datasets/bin/python

Rows: {dataset, order, id, question, answer, options, demos, demo_options,
placeholders, truncated, starts_document, note_after_cut, fields, answer_prefix}, one
per test row HELMET loaded, `order` its position in HELMET's (shuffled) order.
"""

from __future__ import annotations

import json
import subprocess
import tempfile

from helmet_common import HERE, ROOT, parity_parser, snapshot_commit, write_fixture

FIXTURES = ROOT / "tests/fixtures/helmet/longqa/hub"
NARRATIVEQA = FIXTURES / "deepmind/narrativeqa/data"
INFBENCH = FIXTURES / "xinrongzhang2022/infinitebench"
LENGTH = 65536  # HELMET's truncation length in the dataset names (stand-in tokens)
SHOTS = 2
SAMPLES = 100


def main() -> int:
    parser = parity_parser(
        __doc__, "helmet_longqa_structure.jsonl", "python of a venv with datasets"
    )
    args = parser.parse_args()
    commit = snapshot_commit(args.helmet, args.commit)
    request = {
        "narrativeqa": {
            "test": str(NARRATIVEQA / "test-00000-of-00001.parquet"),
            "train": str(NARRATIVEQA / "train-00000-of-00001.parquet"),
        },
        "infbench": {
            "qa": str(INFBENCH / "longbook_qa_eng.jsonl"),
            "choice": str(INFBENCH / "longbook_choice_eng.jsonl"),
        },
        "length": LENGTH,
        "shots": SHOTS,
        "samples": SAMPLES,
    }
    with tempfile.TemporaryDirectory(prefix="lctui-longqa-parity-") as cache:
        done = subprocess.run(
            [args.python, str(HERE / "helmet_longqa_driver.py"), str(args.helmet)],
            input=json.dumps(request),
            capture_output=True,
            text=True,
            check=False,
            cwd=HERE,
            env={"HF_DATASETS_CACHE": cache, "HF_HUB_OFFLINE": "1", "PATH": "/usr/bin:/bin"},
        )
    if done.returncode != 0:
        raise SystemExit(f"helmet_longqa_driver.py failed:\n{done.stderr}")
    rows = []
    for dataset, loaded in json.loads(done.stdout).items():
        for order, row in enumerate(loaded):
            rows.append({"dataset": dataset, "order": order, **row})
    notes = (
        "HELMET's data.load_data (load_narrativeqa, load_infbench; datasets narrativeqa_65536, "
        "infbench_qa_eng_65536, infbench_choice_eng_65536; shots 2, max_test_samples 100, "
        "seed 42) on lctui's invented fixtures under the real datasets package; load_dataset "
        "of the hub names reads the fixture files, and Llama-2's tokenizer is a stand-in "
        "counting each word as 64 tokens (helmet_longqa_driver.py)."
    )
    write_fixture(args.out, commit, notes, rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
