"""Regenerate tests/parity/helmet_real.jsonl: HELMET's own scores of its real-data
categories (re-ranking NDCG@10, ICL exact match, InfiniteBench QA ROUGE-L F1 and MC
exact match) for outputs we wrote to reach each branch of its rules.

Run by hand from the repository root with lctui's python, never in CI:

    PYTHONPATH=src python scripts/parity/helmet_real.py \
        --helmet PATH/TO/HELMET --python PATH/TO/originals-venv/bin/python

--helmet is a snapshot of princeton-nlp/HELMET (a git checkout, or a plain folder with
--commit); --python has rouge_score, nltk, pyyaml and pytrec-eval-terrier (HELMET's
pytrec_eval). HELMET's loaders and post-processing run there (helmet_driver.py, mode
real); this script writes the rows and the fixture. Every output is scored twice: as
written after the prompt's prefix (HELMET puts its system template in front, as for a
prompt without chat template) and as a chat model's answer (nothing in front).
"""

from __future__ import annotations

from typing import Any

from helmet_common import parity_parser, run_driver, snapshot_commit, write_fixture

# One MS MARCO-like query: 12 passages (HELMET computes NDCG@10 only with 10 or more),
# graded labels 0-3 with ties (two 2s, two 1s).
QRELS = {
    "7067032": 3,
    "1043": 2,
    "88": 2,
    "5120994": 1,
    "3": 1,
    "404": 0,
    "771": 0,
    "90210": 0,
    "12": 0,
    "8650": 0,
    "31337": 0,
    "2718": 0,
}
IDEAL = ["7067032", "1043", "88", "5120994", "3", "404", "771", "90210", "12", "8650", "31337"]
# A second query whose passages are all irrelevant: NDCG is 0 whatever the ranking.
NO_RELEVANT = {str(n): 0 for n in range(100, 112)}


def _chain(ids: list[str], joiner: str = " > ") -> str:
    return joiner.join(ids)


def _rerank_outputs() -> list[tuple[str, str]]:
    swapped = IDEAL[:]
    swapped[1], swapped[2] = swapped[2], swapped[1]  # equal labels: NDCG unchanged
    return [
        ("ideal", _chain(IDEAL)),
        ("ideal_all_12", _chain([*IDEAL, "2718"])),
        ("bracketed_ids", _chain([f"[{i}]" for i in IDEAL])),
        ("ID_prefixed", _chain([f"ID{i}" for i in IDEAL])),
        ("ID_colon_bracketed", _chain([f"[ID: {i}]" for i in IDEAL])),
        ("tie_swapped", _chain(swapped)),
        ("reversed", _chain(IDEAL[::-1])),
        ("top_3_only", _chain(IDEAL[:3])),
        ("best_only", IDEAL[0]),
        ("best_last", _chain([*IDEAL[1:], IDEAL[0]])),
        ("repeated_ids", _chain([IDEAL[4], IDEAL[4], IDEAL[0], IDEAL[4], IDEAL[1]])),
        ("unknown_ids_first", _chain(["999", "123456", *IDEAL[:5]])),
        ("leading_zeros", _chain(["0" + i for i in IDEAL[:5]])),
        ("empty", ""),
        ("whitespace", "  \n "),
        ("prose_only", "I cannot rank these documents."),
        ("prose_then_ranking", f"Here is my ranking: {_chain(IDEAL[:6])}\nThe first is best."),
        ("ranking_then_prose_numbers", f"{_chain(IDEAL[:4])}\nI read 10 documents."),
        ("two_runs_longer_second", f"{_chain(IDEAL[5:7])}\n{_chain(IDEAL[:5])}"),
        ("two_runs_equal_length", f"{_chain(['404', '771'])} then {_chain(['101', '3'])}"),
        ("comma_separated", _chain(IDEAL, ", ")),
        ("no_spaces", _chain(IDEAL, ">")),
        ("newlines_around_gt", _chain(IDEAL[:5], "\n> ")),
        ("arrow", _chain(IDEAL[:5], " -> ")),
        ("greater_than_with_prose", "7067032 is better than 88 > 3"),
        ("prefix_repeated", "Ranking: " + _chain(IDEAL[:5])),
        ("word_with_id", "valid1043 > 88 > 7067032"),
        ("uppercase_Id", _chain([f"Id {i}" for i in IDEAL[:5]])),
        ("fullwidth_digits", "\uff18\uff18 > \uff13"),
        ("ranking_in_code_fence", "```\n" + _chain(IDEAL[:5]) + "\n```"),
        ("overlong", _chain([IDEAL[1]] * 600 + IDEAL[:3])),
    ]


ICL_GOLD = "12"
ICL_OUTPUTS = [
    ("exact", "12"),
    ("space_first", " 12"),
    ("prefix_repeated", "label: 12"),
    ("prefix_repeated_upper", "Label: 12"),
    ("trailing_period", "12."),
    ("wrong_label", "3"),
    ("zero_padded", "012"),
    ("decimal", "12.0"),
    ("word", "twelve"),
    ("empty", ""),
    ("whitespace", " \n"),
    ("label_on_second_line", "\n12"),
    ("second_label_line", "3\nlabel: 12"),
    ("explained", "12 (the question asks for a number)"),
    ("prose_then_label", "The label is 12"),
    ("two_labels", "12, 13"),
    ("quoted", '"12"'),
    ("markdown_bold", "**12**"),
    ("next_example", "12\n\nWhat is the capital?\nlabel: 4"),
]
ICL_ZERO = [("gold_zero", "0"), ("gold_zero_wrong", "10")]

QA_GOLDS = ["Mary Ann Smith", "Mary"]
QA_OUTPUTS = [
    ("exact", "Mary Ann Smith"),
    ("second_gold", "mary"),
    ("case_punctuation", "MARY-ANN SMITH!!"),
    ("article", "the Mary Ann Smith"),
    ("stemming", "Smiths marys"),
    ("partial", "Ann Smith"),
    ("reordered", "Smith Ann Mary"),
    ("padded", "It was Mary Ann Smith who wrote the letter to her brother."),
    ("answer_line_then_prose", "Answer: Mary Ann Smith\nShe wrote the letter."),
    ("prose_line_first", "I think so.\nMary Ann Smith"),
    ("empty", ""),
    ("whitespace", "  \n"),
    ("non_ascii", "M\u00e4ry \u00c4nn Sm\u00eeth"),
    ("wrong", "John Doe"),
    ("digits", "Mary 2"),
]
QA_EXTRA = [
    (["The Old Man and the Sea"], "old man sea"),
    (["running quickly"], "ran quick"),
    (["42"], "42 years"),
    (["S\u00e3o Paulo"], "sao paulo"),
]

MC_OPTIONS = ["A", "A. The lighthouse"], ["B", "B. The harbour"], ["D", "D. A storm at sea"]
MC_OUTPUTS = [
    ("letter", "{L}"),
    ("letter_period", "{L}."),
    ("letter_parenthesised", "({L})"),
    ("lower_letter", "{l}"),
    ("option_text", "{T}"),
    ("option_text_lower_with_prose", "I pick {t} because of the ending."),
    ("prose_with_letter", "The answer is {L}"),
    ("prefix_repeated", "Answer: {L}"),
    ("wrong_letter", "C"),
    ("wrong_then_gold_line", "C\n{L}"),
    ("empty", ""),
    ("whitespace", " \n"),
    ("article_the", "The"),
    ("option_without_letter", "{bare}"),
    ("two_letters", "{L} or C"),
]


def _mc_rows() -> list[tuple[list[str], str, str]]:
    rows = []
    for letter, text in MC_OPTIONS:
        bare = text.split(". ", 1)[1]
        for case, pattern in MC_OUTPUTS:
            output = pattern.format(L=letter, l=letter.lower(), T=text, t=text.lower(), bare=bare)
            rows.append(([letter, text], case, output))
    return rows


def _rows() -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = []
    for case, output in _rerank_outputs():
        cases.append({"kind": "rerank", "case": case, "qrels": QRELS, "gold": [_chain(IDEAL)]})
        cases[-1]["output"] = output
    for case, output in (("ideal_of_other", _chain(list(NO_RELEVANT))), ("empty", "")):
        cases.append({"kind": "rerank", "case": f"no_relevant_{case}", "qrels": NO_RELEVANT})
        cases[-1].update(gold=[_chain(list(NO_RELEVANT))], output=output)
    for case, output in ICL_OUTPUTS:
        cases.append({"kind": "icl", "case": case, "gold": [ICL_GOLD], "output": output})
    for case, output in ICL_ZERO:
        cases.append({"kind": "icl", "case": case, "gold": ["0"], "output": output})
    for case, output in QA_OUTPUTS:
        cases.append({"kind": "qa", "case": case, "gold": QA_GOLDS, "output": output})
    for golds, output in QA_EXTRA:
        cases.append({"kind": "qa", "case": f"probe {golds!r}", "gold": golds, "output": output})
    for golds, case, output in _mc_rows():
        cases.append({"kind": "mc", "case": f"{golds[0]}_{case}", "gold": golds, "output": output})
    prefixes = {"rerank": "Ranking:", "icl": "label:", "qa": "Answer:", "mc": "Answer:"}
    rows = []
    for case in cases:
        for chat in (False, True):
            rows.append({**case, "prefix": prefixes[case["kind"]], "use_chat_template": chat})
    return rows


# What each category reports (HELMET's scripts/collect_results.py), kept per row.
KEPT = {
    "rerank": ("NDCG@10", "num_preds"),
    "icl": ("exact_match",),
    "qa": ("rougeL_f1",),
    "mc": ("exact_match", "substring_exact_match"),
}


def _request(row: dict[str, Any]) -> dict[str, Any]:
    request = {k: row[k] for k in ("kind", "output", "use_chat_template", "prefix")}
    if row["kind"] == "rerank":
        ctxs = [
            {"id": doc, "text": f"passage {doc}", "label": label}
            for doc, label in row["qrels"].items()
        ]
        request["ctxs"] = ctxs
    else:
        request["gold"] = row["gold"][0] if row["kind"] == "icl" else row["gold"]
    return request


def main() -> int:
    parser = parity_parser(__doc__, "helmet_real.jsonl")
    args = parser.parse_args()
    commit = snapshot_commit(args.helmet, args.commit)
    rows = _rows()
    results = run_driver(args.python, args.helmet, "real", {"rows": [_request(r) for r in rows]})
    for row, result in zip(rows, results, strict=True):
        metrics = result["metrics"]
        row["helmet"] = {key: metrics[key] for key in KEPT[row["kind"]]}
        row["helmet"]["parsed_output"] = result["parsed_output"]
    notes = (
        "HELMET's post-processing from its own loaders (data.py: load_msmarco_rerank, "
        "load_icl, load_infbench QA and choice) and metrics (utils.py: parse_rankings, "
        "calculate_retrieval_metrics through pytrec_eval, parse_output, calculate_metrics "
        "through rouge_score), after eval.py's step for prompts without chat template "
        "(use_chat_template false: the loader's system template, the row's prefix, in "
        "front of the output). Outputs and relevance labels are ours. parsed_output is "
        "HELMET's: for re-ranking the {id: score} run it evaluates."
    )
    write_fixture(args.out, commit, notes, rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
