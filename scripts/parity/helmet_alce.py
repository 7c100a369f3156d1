"""Regenerate tests/parity/helmet_alce.jsonl: the answer correctness HELMET's citation
tasks get from ALCE's evaluation (eval_alce.py: ASQA str_em and str_hit, QAMPARI
recall at 5 and precision) for outputs we wrote to reach each branch of its rules.

Run by hand from the repository root with lctui's python, never in CI:

    PYTHONPATH=src python scripts/parity/helmet_alce.py \
        --helmet PATH/TO/HELMET --python PATH/TO/originals-venv/bin/python

--python has rouge_score, nltk, numpy and tqdm (eval_alce.py's imports); HELMET's
eval_alce.main runs there on one-example files (helmet_driver.py, mode alce), with
--no_rouge and without --citations (citation recall and precision need its NLI model).
"""

from __future__ import annotations

from typing import Any

from helmet_common import parity_parser, run_driver, snapshot_commit, write_fixture

ASQA = [["Paris", "City of Light"], ["1889"], ["Gustave Eiffel", "Eiffel"]]
ASQA_OUTPUTS = [
    (
        "all_cited",
        "The tower is in Paris [1]. It opened in 1889 [2] and was built by Gustave Eiffel [3].",
    ),
    ("all_uncited", "Paris; 1889; Gustave Eiffel."),
    ("two_of_three", "It stands in Paris [1] and opened in 1889 [2]."),
    ("alias", "In the City of Light, by Eiffel [2][3], in 1889."),
    ("none", "It is a tall iron tower [1]."),
    ("empty", ""),
    ("whitespace", " \n\n "),
    ("citation_glued", "Paris[1], 1889[2], Eiffel[3]"),
    ("citation_inside_number", "Paris, 18[2]89, Eiffel"),
    ("citation_pipe", "Paris [1 | 2], 1889 | Eiffel"),
    ("newlines_inside_name", "Paris, 1889, Gustave\n\nEiffel"),
    ("end_token", "Paris<|im_end|>, 1889, Eif<|im_end|>fel"),
    ("case_punctuation", "PARIS!!! 1,889 -- GUSTAVE-EIFFEL"),
    ("articles", "the Paris of the 1889, an Eiffel"),
    ("inside_word", "Parisian 18890 Eiffeltower"),
    ("non_ascii", "Pari\u015b, 1889, Gustave \u00c9iffel"),
    ("unclosed_bracket", "Paris [1, 1889 [2 Eiffel"),
]
ASQA_PROBES = [([["The"], ["Rome"]], "nothing here"), ([["U.S.A."]], "usa [1]")]

QAMPARI = [
    ["Alice Munro"],
    ["Margaret Atwood", "Peggy Atwood"],
    ["Mavis Gallant"],
    ["Carol Shields"],
    ["Michael Ondaatje"],
    ["Yann Martel"],
    ["Rohinton Mistry"],
]
QAMPARI_OUTPUTS = [
    (
        "all_seven",
        ", ".join(group[0] for group in QAMPARI) + ".",
    ),
    (
        "five_cited",
        ", ".join(f"{QAMPARI[i][0]} [{i + 1}]" for i in (0, 1, 2, 3, 5)) + ".",
    ),
    ("three_and_wrong", "Alice Munro, Stephen King, Carol Shields, J. K. Rowling, Yann Martel"),
    ("alias", "Peggy Atwood, Alice Munro"),
    ("duplicates", "Alice Munro, Alice Munro, alice munro"),
    ("semicolons", "Alice Munro; Margaret Atwood; Mavis Gallant"),
    ("and_joined", "Alice Munro, Yann Martel and Rohinton Mistry"),
    ("trailing_comma_period", "Alice Munro, Carol Shields,."),
    ("trailing_period_comma", "Alice Munro, Carol Shields.,"),
    ("empty_items", "Alice Munro,, , Carol Shields"),
    ("prose_before", "The authors are Alice Munro, Carol Shields, Yann Martel"),
    ("newline_list", "Alice Munro\nMargaret Atwood\nCarol Shields"),
    ("partial_names", "Munro, Atwood, Shields"),
    ("case_articles", "ALICE MUNRO, the Carol Shields, a Yann Martel"),
    ("empty", ""),
    ("whitespace", "  "),
    ("only_commas", ",,,"),
    ("wrong_only", "Stephen King, Dan Brown"),
]
QAMPARI_PROBES = [
    ([["Oslo"], ["Bergen"]], "Oslo, Bergen, Trondheim"),
    ([["Oslo"], ["Bergen"]], "Oslo"),
]


def _rows() -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for case, output in ASQA_OUTPUTS:
        rows.append({"dataset": "asqa", "case": case, "groups": ASQA, "output": output})
    for groups, output in ASQA_PROBES:
        rows.append(
            {"dataset": "asqa", "case": f"probe {groups!r}", "groups": groups, "output": output}
        )
    for case, output in QAMPARI_OUTPUTS:
        rows.append({"dataset": "qampari", "case": case, "groups": QAMPARI, "output": output})
    for groups, output in QAMPARI_PROBES:
        rows.append(
            {"dataset": "qampari", "case": f"probe {output!r}", "groups": groups, "output": output}
        )
    return rows


KEPT = {"asqa": ("str_em", "str_hit"), "qampari": ("qampari_rec_top5", "qampari_prec", "num_preds")}


def main() -> int:
    parser = parity_parser(__doc__, "helmet_alce.jsonl")
    args = parser.parse_args()
    commit = snapshot_commit(args.helmet, args.commit)
    rows = _rows()
    request = [{k: row[k] for k in ("dataset", "output", "groups")} for row in rows]
    results = run_driver(args.python, args.helmet, "alce", {"rows": request})
    for row, result in zip(rows, results, strict=True):
        row["helmet"] = {key: result[key] for key in KEPT[row["dataset"]]}
    notes = (
        "ALCE's answer correctness as HELMET runs it: eval_alce.py's main with --no_rouge "
        "(no --citations) on a one-example results file per row; ASQA rows give the groups "
        "as qa_pairs' short_answers, QAMPARI rows as answers. Numbers are ALCE's, x 100. "
        "Outputs and answers are ours."
    )
    write_fixture(args.out, commit, notes, rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
