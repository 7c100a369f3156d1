"""Regenerate tests/parity/helmet_alce_citations.jsonl: ALCE's citation recall and
precision (eval_alce.py compute_autoais, as HELMET runs it with --citations) on outputs
we wrote to reach each of its rules, with the NLI model replaced by a deterministic
oracle (helmet_alce_citations_driver.py; the parity test applies the same oracle).

Run by hand from the repository root with lctui's python, never in CI:

    PYTHONPATH=src python scripts/parity/helmet_alce_citations.py \
        --helmet PATH/TO/HELMET --python PATH/TO/originals-venv/bin/python

Each row is one results file with one example (its documents, question and output);
one more row per dataset holds every case in one file, so the means (which leave out
an output without sentences) are checked too. The documents, questions and outputs
are ours; the numbers and the sequence of entailment checks are ALCE's.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from helmet_common import parity_parser, snapshot_commit, write_fixture

HERE = Path(__file__).resolve().parent

DOCS = [
    {"title": "Brava", "text": "The river7 runs past the mill3."},
    {"title": "Dunmor", "text": "The mill3 was built in year1820."},
    {"title": "Velkio", "text": "A bridge5 crosses the river7."},
    {"title": "Tasfen", "text": "Nothing of note happened here."},
    {"title": "Lorquin", "text": "The tower9 stands on the hill2."},
]
QUESTION = "Which places lie on the river7?"
INPUTS = {"docs": DOCS, "question": QUESTION}

ASQA = [
    ("one_supported", "The river7 runs past the mill3 [1]."),
    ("one_unsupported", "The tower9 is by the river7 [1]."),
    ("no_citation", "The river7 runs past the mill3."),
    ("out_of_range", "The river7 runs past the mill3 [6]."),
    ("zero_is_last_doc", "The tower9 stands on the hill2 [0]."),
    ("joint_only", "The river7 mill3 dates from year1820 [1][2]."),
    ("one_unneeded", "The river7 runs past the mill3 [1][4]."),
    ("each_alone", "A bridge5 crosses the river7 [3][3]."),
    ("both_alone", "The river7 is mentioned [1][3]."),
    ("multi_unsupported", "The tower9 crosses the bridge5 [4][2]."),
    ("four_citations", "The river7 runs past the mill3 [1][4][5][2]."),
    ("fourth_out_of_range", "The river7 runs past the mill3 [1][2][3][9]."),
    ("comma_list", "The river7 runs past the mill3 [4, 1]."),
    ("pipe_and_space", "The river7 runs past the mill3 [4 | 1]."),
    ("two_sentences", "The river7 runs past the mill3 [1]. It was built in year1820 [3]."),
    ("fragment", "The river7 runs past the mill3 [1]. [2]. Ok."),
    ("newlines", "The river7 runs\n\npast the mill3 [1].\nA bridge5 is there [3]."),
    ("end_token", "The river7 runs past the mill3 [1].<|im_end|>"),
    ("no_space_citation", "The river7 runs past the mill3[1][2]."),
    ("empty", ""),
    ("short_only", "Yes. [1]"),
    ("no_facts", "It is nice [1][2]."),
    ("citation_first", "[3] A bridge5 crosses the river7."),
]
QAMPARI = [
    ("cited_list", "mill3 [1], bridge5 [3], tower9 [5]."),
    ("uncited_item", "mill3 [1], bridge5, tower9 [5]"),
    ("multi_cite_item", "mill3 [1][2], bridge5 [3][4]"),
    ("out_of_range_item", "mill3 [7], bridge5 [3]"),
    ("trailing_comma", "mill3 [1],"),
    ("empty", ""),
    ("only_commas", ",,,"),
    ("wrong_doc", "tower9 [1], hill2 [2]"),
    ("four_cites", "mill3 [4][4][4][1]"),
]


def _item(dataset: str, output: str) -> dict[str, Any]:
    item: dict[str, Any] = {"question": QUESTION, "output": output, "docs": DOCS}
    if dataset == "qampari":
        item["answers"] = [["mill3"]]
    return item


def main() -> int:
    parser = parity_parser(__doc__, "helmet_alce_citations.jsonl")
    args = parser.parse_args()
    commit = snapshot_commit(args.helmet, args.commit)
    rows: list[dict[str, Any]] = []
    files: list[dict[str, Any]] = []
    for dataset, cases in (("asqa", ASQA), ("qampari", QAMPARI)):
        for case, output in cases:
            rows.append({"dataset": dataset, "case": case, "outputs": [output], **INPUTS})
            files.append({"dataset": dataset, "items": [_item(dataset, output)]})
        outputs = [output for _, output in cases]
        rows.append(
            {"dataset": dataset, "case": "all_cases_in_one_file", "outputs": outputs, **INPUTS}
        )
        files.append({"dataset": dataset, "items": [_item(dataset, o) for o in outputs]})
    import json
    import subprocess

    done = subprocess.run(
        [args.python, str(HERE / "helmet_alce_citations_driver.py"), str(args.helmet)],
        input=json.dumps({"files": files}),
        capture_output=True,
        text=True,
        check=False,
        cwd=HERE,
    )
    if done.returncode != 0:
        sys.exit(f"helmet_alce_citations_driver.py failed:\n{done.stderr}")
    for row, result in zip(rows, json.loads(done.stdout), strict=True):
        row["helmet"] = result
    notes = (
        "ALCE's citation recall and precision as HELMET runs them (eval_alce.py main with "
        "--no_rouge --citations, at_most_citations 3) on one results file per row; the NLI "
        "call replaced by the oracle in helmet_alce_citations_driver.py (entailed when "
        "every word+digits token of the claim is in the premise), sentences split by an "
        "untrained nltk Punkt tokenizer. 'calls' lists the (premise, claim) pairs the NLI "
        "stand-in was asked, in order. Numbers are ALCE's, x 100."
    )
    write_fixture(args.out, commit, notes, rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
