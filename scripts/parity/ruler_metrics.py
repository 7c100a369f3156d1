"""Regenerate tests/parity/ruler_metrics.jsonl: RULER's own metric code on lctui's examples.

Builds lctui's examples of every RULER task (o200k_base, seed 0, two per cell), writes
outputs that reach every branch of RULER's scoring (casing, Unicode forms, control
characters, near misses, embedded answers, empty and 100K-character outputs), adds a
few inline rows on Unicode casing and RULER's QA metric, and scores them all with the
snapshot's own `postprocess_pred` (scripts/eval/evaluate.py) and `string_match_all` /
`string_match_part` (scripts/eval/synthetic/constants.py), run in the snapshot's Python.

    PYTHONPATH=src python scripts/parity/ruler_metrics.py --ruler PATH/TO/RULER \
        --python PATH/TO/venv/bin/python [--commit HASH]

Rows: `case`, `gold`, `output` (or `output_recipe` for a long one: `{"first": text,
"repeat": text, "times": n, "then": text}`, first and then optional), `family` (RULER's
base task, which picks its metric), and for lctui examples `task`, `length`, `seed`,
`index`, `tokenizer`; `ruler` holds what the original computed: `metric`, `score_x100`
(its row value, x100 rounded to 2) and `null` (its post-processed prediction is
empty). Rows with `summary` hold the original's task score over all rows of a task
(what its summary.csv reports).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import unicodedata
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ruler_common import (
    RULER_TASKS,
    check_snapshot,
    run_in_snapshot_python,
    snapshot_commit,
    write_fixture,
)

from lctui.core.types import Example
from lctui.tasks import get_task
from lctui.tasks.tokenizers import reference_tokenizer

TOKENIZER = "o200k_base"
SEED = 0
INDICES = (0, 1)
# Every task at 4K; cwe's short regime at 2K; fwe's larger vocabulary and vt at 8K.
CELLS = [(task, 4096) for task in RULER_TASKS] + [("cwe", 2048), ("fwe", 8192), ("vt", 8192)]
LONG = 2000  # outputs longer than this are stored as a recipe
FILLER_TIMES = 15_000  # "filler " x 15,000: a 105,000-character output


def family(task: str) -> str:
    """RULER's base task of an lctui task: the key of its metric in RULER's TASKS map."""
    if task.startswith("niah"):
        return "niah"
    return {
        "vt": "variable_tracking",
        "cwe": "common_words_extraction",
        "fwe": "freq_words_extraction",
    }.get(task, "qa")


Variant = tuple[str, str | dict[str, Any]]


def _halves(word: str, mark: str) -> str:
    middle = len(word) // 2
    return word[:middle] + mark + word[middle:] if len(word) > 1 else word


def variants(gold: list[str]) -> list[Variant]:
    """Outputs for one gold list, each named after the branch of RULER's rule it reaches."""
    joined = ", ".join(gold)
    fullwidth = {ord(c): 0xFF10 + int(c) for c in "0123456789"}
    return [
        ("exact_joined", joined),
        ("exact_newlines", "\n".join(gold)),
        ("with_prose", f"The answer is: {joined}."),
        ("upper", joined.upper()),
        ("lower", joined.lower()),
        ("title", joined.title()),
        ("first_only", gold[0]),
        ("all_but_last", ", ".join(gold[:-1])),
        ("reversed", ", ".join(reversed(gold))),
        ("repeated_3x", " ".join(gold * 3)),
        ("empty", ""),
        ("whitespace_only", "   \n\t "),
        ("controls_only", "\x00\x07\x1b\x1f"),
        ("nul_between", "\x00".join(gold)),
        ("tab_between", "\t".join(gold)),
        ("unit_separator_between", "\x1f".join(gold)),
        ("crlf_between", "\r\n".join(gold)),
        ("del_between", "\x7f".join(gold)),
        ("next_line_between", "\x85".join(gold)),
        ("controls_around", f"\x00\x01 {joined} \x1f\x0b"),
        ("bell_inside_first", _halves(gold[0], "\x07")),
        ("tab_inside_first", _halves(gold[0], "\t")),
        ("zero_width_inside_first", _halves(gold[0], "\u200b")),
        ("zero_width_between", "\u200b".join(gold)),
        ("nbsp_between", "\u00a0".join(gold)),
        ("hyphen_to_en_dash", joined.replace("-", "\u2013")),
        ("hyphen_to_minus_sign", joined.replace("-", "\u2212")),
        ("hyphen_removed", joined.replace("-", "")),
        ("hyphen_to_space", joined.replace("-", " ")),
        ("curly_quoted", f"\u201c{joined}\u201d"),
        ("ascii_quoted", f'"{joined}"'),
        ("nfd", unicodedata.normalize("NFD", joined)),
        ("fullwidth_digits", joined.translate(fullwidth)),
        ("nfkc_of_fullwidth", unicodedata.normalize("NFKC", joined.translate(fullwidth))),
        ("digit_grouping", ", ".join(f"{int(g):,}" if g.isdigit() else g for g in gold)),
        ("spaces_inside", ", ".join(" ".join(g) for g in gold)),
        ("markdown_bold", ", ".join(f"**{g}**" for g in gold)),
        ("trailing_period", ", ".join(f"{g}." for g in gold)),
        ("article_prefixed", ", ".join(f"the {g}" for g in gold)),
        ("near_miss_last_char", ", ".join(g[:-1] + ("0" if g[-1] != "0" else "1") for g in gold)),
        ("embedded_in_word", ", ".join(f"x{g}y" for g in gold)),
        ("dotted_capital_i", joined.upper().replace("I", "\u0130")),
        ("dotless_small_i", joined.replace("i", "\u0131")),
        ("kelvin_sign", joined.upper().replace("K", "\u212a")),
        ("overlong_100k", {"repeat": "filler ", "times": FILLER_TIMES, "then": joined}),
        ("overlong_100k_controls", {"repeat": "\x00", "times": 100_000, "then": joined}),
        ("overlong_100k_first", {"first": joined, "repeat": " filler", "times": FILLER_TIMES}),
    ]


def expand(output: str | dict[str, Any]) -> str:
    """A stored output: the text itself, or its recipe (first + repeat x times + then)."""
    if isinstance(output, str):
        return output
    return output.get("first", "") + output["repeat"] * output["times"] + output.get("then", "")


def _is_accented(word: str) -> bool:
    return any(ord(c) > 127 for c in word)


def accented_cwe(tokenizer_name: str) -> Example:
    """The first cwe example at 2K (seed 0) whose gold words hold a non-ASCII letter."""
    tokenizer = reference_tokenizer(tokenizer_name)
    task = get_task("cwe")
    for index in range(2000):
        example = task.generate(2048, SEED, index, tokenizer)
        if any(_is_accented(g) for g in example.gold):
            return example
    raise SystemExit("no cwe example with an accented gold word in 2,000 indices")


def accented_variants(gold: list[str]) -> list[Variant]:
    joined = ", ".join(gold)
    stripped = "".join(
        c for c in unicodedata.normalize("NFD", joined) if not unicodedata.combining(c)
    )
    return [
        ("accented_exact", joined),
        ("accented_nfd", unicodedata.normalize("NFD", joined)),
        ("accented_nfc_of_nfd", unicodedata.normalize("NFC", unicodedata.normalize("NFD", joined))),
        ("accented_upper", joined.upper()),
        ("accented_upper_nfd", unicodedata.normalize("NFD", joined.upper())),
        ("accented_stripped", stripped),
        ("accented_casefold", joined.casefold()),
    ]


# Rows on Unicode casing and RULER's QA metric, with golds we wrote (no example).
INLINE: list[tuple[str, list[str], str, str]] = [
    ("niah", ["straße"], "STRASSE", "sharp_s_spelled_ss"),
    ("niah", ["straße"], "STRA\u1e9eE", "capital_sharp_s"),
    ("niah", ["kite"], "\u212aITE", "kelvin_sign_k"),
    ("niah", ["istanbul"], "\u0130STANBUL", "dotted_capital_i"),
    ("niah", ["istanbul"], "ISTANBUL", "plain_capital_i"),
    ("niah", ["i"], "\u0130", "dotted_capital_i_alone"),
    ("niah", ["οδος"], "ΟΔΟΣ", "greek_final_sigma"),
    ("niah", ["οδοσ"], "ΟΔΟΣ", "greek_medial_sigma_at_end"),
    ("niah", ["ﬁle"], "FILE", "ligature_gold"),
    ("niah", ["file"], "ﬁle", "ligature_output"),
    ("niah", ["ǆemal"], "ǄEMAL", "digraph_dz"),
    # RULER cleans the output, never the gold: a gold with a tab or a leading space
    # cannot match (lctui's generators never make one; the rule is RULER's).
    ("niah", ["tab\tinside"], "tab\tinside", "gold_with_tab"),
    ("niah", [" padded"], " padded", "gold_with_leading_space"),
    ("niah", ["line\nbreak"], "line\tbreak", "gold_with_newline_output_tab"),
    ("qa", ["Paris", "Québec"], "Paris", "qa_one_alternative"),
    ("qa", ["Paris", "Québec"], "the city of Paris, France", "qa_in_prose"),
    ("qa", ["Paris", "Québec"], "London", "qa_none"),
    ("qa", ["Paris", "Québec"], "PARIS", "qa_upper"),
    ("qa", ["Paris", "Québec"], unicodedata.normalize("NFD", "Québec"), "qa_nfd"),
    ("qa", ["Paris", "Québec"], "Québec", "qa_nfc"),
    ("qa", ["Paris", "Québec"], "", "qa_empty"),
    ("qa", ["Paris", "Québec"], "Paris\x00Québec", "qa_control_between"),
]


def example_rows() -> Iterator[dict[str, Any]]:
    tokenizer = reference_tokenizer(TOKENIZER)
    built: list[tuple[Example, Callable[[list[str]], list[Variant]]]] = []
    for task, length in CELLS:
        for index in INDICES:
            built.append((get_task(task).generate(length, SEED, index, tokenizer), variants))
    accented = accented_cwe(TOKENIZER)
    built.append((accented, variants))
    built.append((accented, accented_variants))
    for example, make in built:
        for case, output in make(list(example.gold)):
            yield {
                "task": example.task,
                "length": example.length,
                "seed": example.seed,
                "index": example.index,
                "tokenizer": example.tokenizer,
                "family": family(example.task),
                "case": case,
                "gold": list(example.gold),
                **_stored(output),
            }


def _stored(output: str | dict[str, Any]) -> dict[str, Any]:
    if isinstance(output, str) and len(output) <= LONG:
        return {"output": output}
    if isinstance(output, str):
        raise ValueError("a long output must be written as a recipe")
    return {"output_recipe": output}


def inline_rows() -> Iterator[dict[str, Any]]:
    for fam, gold, output, case in INLINE:
        yield {"task": f"inline_{fam}", "family": fam, "case": case, "gold": gold, "output": output}


# Our glue, run in the snapshot's Python: it imports RULER's metric functions and takes
# the definition of postprocess_pred out of evaluate.py (that file imports NeMo and
# parses argv at import time), then scores every row as evaluate.py does.
GLUE = r"""
import ast, importlib.util, json, re, sys
from pathlib import Path

scripts = Path(sys.argv[1]) / "scripts"
spec = importlib.util.spec_from_file_location(
    "ruler_eval_constants", scripts / "eval" / "synthetic" / "constants.py")
constants = importlib.util.module_from_spec(spec)
spec.loader.exec_module(constants)
source = scripts / "eval" / "evaluate.py"
tree = ast.parse(source.read_text())
node = next(n for n in tree.body
            if isinstance(n, ast.FunctionDef) and n.name == "postprocess_pred")
namespace = {"re": re}
exec(compile(ast.Module(body=[node], type_ignores=[]), str(source), "exec"), namespace)
postprocess_pred = namespace["postprocess_pred"]

rows = [json.loads(line) for line in open(sys.argv[2], encoding="utf-8")]
scored, groups = [], {}
for row in rows:
    metric = constants.TASKS[row["family"]]["metric_fn"]
    pred = postprocess_pred(row["output"], {})
    scored.append({"metric": metric.__name__, "score_x100": metric([pred], [row["gold"]]),
                   "null": len(pred) == 0})
    preds, refs, _ = groups.setdefault(row["task"], ([], [], metric))
    preds.append(pred)
    refs.append(row["gold"])
summary = {task: {"metric": m.__name__, "score_x100": m(p, r), "rows": len(p)}
           for task, (p, r, m) in groups.items()}
json.dump({"rows": scored, "summary": summary}, open(sys.argv[3], "w", encoding="utf-8"))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ruler", type=Path, required=True, help="the RULER snapshot folder")
    parser.add_argument("--python", required=True, help="a Python with RULER's dependencies")
    parser.add_argument("--commit", help="the snapshot's commit (default: its git HEAD)")
    parser.add_argument("--out", type=Path, help="default: tests/parity/ruler_metrics.jsonl")
    args = parser.parse_args()
    check_snapshot(args.ruler)
    commit = snapshot_commit(args.ruler, args.commit)
    rows = [*example_rows(), *inline_rows()]
    with tempfile.TemporaryDirectory() as tmp:
        inputs, outputs = Path(tmp) / "in.jsonl", Path(tmp) / "out.json"
        with inputs.open("w", encoding="utf-8") as f:
            for row in rows:
                full = {**row, "output": expand(row.get("output", row.get("output_recipe", "")))}
                f.write(json.dumps(full, ensure_ascii=False) + "\n")
        run_in_snapshot_python(args.python, GLUE, str(args.ruler), str(inputs), str(outputs))
        result = json.loads(outputs.read_text(encoding="utf-8"))
    for row, ruler in zip(rows, result["rows"], strict=True):
        row["ruler"] = ruler
    summaries = [{"summary": task, "ruler": s} for task, s in sorted(result["summary"].items())]
    notes = (
        "RULER's postprocess_pred + string_match_all/part on outputs we wrote for lctui's "
        f"examples ({TOKENIZER}, seed {SEED}) of every RULER task and on inline Unicode and "
        "QA rows; score_x100 is RULER's row value (x100, rounded to 2), summary rows its "
        "task score over the task's rows."
    )
    path = write_fixture("ruler_metrics", commit, notes, [*rows, *summaries], args.out)
    print(f"{path}: {len(rows)} rows, {len(summaries)} task scores")


if __name__ == "__main__":
    main()
