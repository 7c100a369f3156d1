"""Regenerate tests/parity/helmet_summ_structure.jsonl: what HELMET's own summarization
loaders build from lctui's fixture files (tests/fixtures/helmet/summ): which rows they
ask in which order (the length filter, Multi-LexSum's short-summary filter, the seeded
shuffle), each row's reference summary, document and demonstrations.

Run by hand from the repository root with lctui's python, never in CI; `--python` is a
venv with the real `datasets` package:

    PYTHONPATH=src python scripts/parity/helmet_summ.py \
        --helmet PATH/TO/HELMET --commit 4526dfbdc512bd9ff721da336bff4e3e75ecfd27 \
        --python PATH/TO/venv-with-datasets/bin/python

Rows: {case, position, id, answer, document_sha256, document_chars, demos, [summary_long],
min_tokens, pool}: case infbench_sum or multi_lexsum, the position in HELMET's order, what
helmet_summ_driver.py returns for it, and the ids of every row HELMET's filters keep.
Multi-LexSum is asked for LEXSUM_SAMPLES rows, fewer than its pool, so HELMET shuffles.
The length filter runs with lctui's o200k_base counts of the documents and `min_tokens`
(MIN_TOKENS below) in place of Llama-2's and 65,536, so it drops some fixture rows and
keeps others.
"""

from __future__ import annotations

import hashlib
import json
import subprocess

from helmet_common import HERE, ROOT, parity_parser, snapshot_commit, write_fixture

from lctui.tasks.datasets import read_records
from lctui.tasks.tokenizers import reference_tokenizer

SUMM = ROOT / "tests/fixtures/helmet/summ"
INFBENCH = SUMM / "hub/xinrongzhang2022/infinitebench/longbook_sum_eng.jsonl"
LEXSUM = SUMM / "hub/allenai/multi_lexsum/v20230518"
MIN_TOKENS = {"infbench": 1450, "lexsum": 3000}
CASES = {"infbench": "infbench_sum", "lexsum": "multi_lexsum"}
SHOTS = 2
# Fewer than the fixture's Multi-LexSum pool, so HELMET shuffles it (it leaves a pool of
# 100 or fewer in file order; lctui always shuffles).
LEXSUM_SAMPLES = 1


def _documents() -> list[str]:
    books = [str(r["context"]) for r in read_records(INFBENCH).rows]
    cases = [
        "\n\n".join(r["sources"])
        for split in ("validation", "train")
        for r in read_records(LEXSUM / split / "0000.parquet").rows
    ]
    return books + cases


def main() -> int:
    parser = parity_parser(__doc__, "helmet_summ_structure.jsonl", "python of a venv with datasets")
    args = parser.parse_args()
    commit = snapshot_commit(args.helmet, args.commit)
    tokenizer = reference_tokenizer("o200k_base")
    counts = {
        hashlib.sha256(d.encode("utf-8")).hexdigest(): tokenizer.count(d) for d in _documents()
    }
    request = {
        "infbench": str(INFBENCH),
        "lexsum": {s: str(LEXSUM / s / "0000.parquet") for s in ("validation", "train")},
        "counts": counts,
        "min_tokens": MIN_TOKENS,
        "shots": SHOTS,
        "lexsum_samples": LEXSUM_SAMPLES,
    }
    done = subprocess.run(
        [args.python, str(HERE / "helmet_summ_driver.py"), str(args.helmet)],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        check=False,
        cwd=HERE,
    )
    if done.returncode != 0:
        raise SystemExit(f"helmet_summ_driver.py failed:\n{done.stderr}")
    rows = []
    result = json.loads(done.stdout)
    pool = {"infbench": [r["id"] for r in result["infbench"]], "lexsum": result["lexsum_pool"]}
    for case in CASES:
        for position, row in enumerate(result[case]):
            rows.append(
                {
                    "case": CASES[case],
                    "position": position,
                    "min_tokens": MIN_TOKENS[case],
                    "pool": sorted(pool[case]),
                    **row,
                }
            )
    notes = (
        "HELMET's data.load_data (load_infbench for infbench_sum_eng, load_multi_lexsum) with "
        "shots 2, max_test_samples 100 and seed 42 as configs/summ.yaml, under the real "
        "datasets package, on lctui's invented fixtures; the hub loads, the Llama-2 "
        "tokenizer (lctui's o200k_base counts + BOS) and the 65,536-token length filter "
        "(min_tokens per row) substituted; a length no document reaches, so nothing is cut; "
        "Multi-LexSum with max_test_samples 1 (so that it shuffles), pool from a run with 100. "
        "Multi-LexSum's demos are unseeded in HELMET (numpy seeded 42 here)."
    )
    write_fixture(args.out, commit, notes, rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
