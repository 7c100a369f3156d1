"""Regenerate tests/parity/longbench_structure.jsonl: what LongBench v2's own middle cut
keeps of lctui's uncut prompts, and the structure of the original's prompts and calls.

Run by hand from the repository root with lctui's python, never in CI:

    PYTHONPATH=src python scripts/parity/longbench_structure.py \
        --longbench PATH/TO/LongBench --python PATH/TO/venv/bin/python

--longbench is a checkout of THUDM/LongBench (its git HEAD is the commit named in the
header; a plain folder needs --commit); --python has tiktoken. The original's code runs
in that python (longbench_driver.py).

Cut rows: the questions of tests/helpers/longbench_data.structure_rows (prose of 300 to
140,000 words and contexts whose cut is hard), in the direct and chain-of-thought modes,
at 8K, 32K and 128K, counted with o200k_base and cl100k_base. For each, lctui's uncut user
text (its instruction, the whole context stripped, its question) goes through the
original's query_llm with max_len = the user-text budget lctui keeps at that length
(the length less the answer tokens, the template allowance and lctui's cut room), and the
row records what the original sent: whether it cut, the tokens it kept from the start and
from the end, and a hash of the text (sha256; the uncut text's hash names the input).

Template row: the original's get_pred in each mode on a question whose parts are
markers, with a stand-in model: per call, the order of document, question, options and
reasoning, how each option's line starts, the lines around the document, whether the
answer sentence is asked for, temperature and max new tokens; and the keys of the
result line it writes. No prompt text of the original is stored.
"""

from __future__ import annotations

import hashlib
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

# The fixture helpers (tests/helpers) build the questions both sides read.
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))

from longbench_common import check_checkout, original, parity_parser, write

from helpers.longbench_data import (
    MARKERS,
    STRUCTURE_CONTEXTS,
    marker_row,
    structure_rows,
    write_longbench,
)
from lctui.suites.longbench.tasks.task import CUT_ROOM
from lctui.tasks import get_task
from lctui.tasks.datasets import DataSource
from lctui.tasks.tokenizers import reference_tokenizer

MODES = ("longbench_v2", "longbench_v2_cot")
LENGTHS = (8192, 32768, 131072)
TOKENIZERS = ("o200k_base", "cl100k_base")


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def cut_cases(folder: Path) -> tuple[list[str], list[dict[str, Any]]]:
    """lctui's uncut user texts and one case per (mode, question, tokenizer, length)."""
    rows = structure_rows()
    write_longbench(folder, rows)
    texts: list[str] = []
    cases: list[dict[str, Any]] = []
    for mode in MODES:
        task = get_task(mode).with_data(DataSource(folder=folder))
        for index, row in enumerate(rows):
            first = None
            for tokenizer_name in TOKENIZERS:
                tokenizer = reference_tokenizer(tokenizer_name)
                for length in LENGTHS:
                    example = task.generate(length, 0, index, tokenizer)
                    uncut = example.preamble + row["context"].strip() + example.question
                    if first is None:
                        first = len(texts)
                        texts.append(uncut)
                    elif texts[first] != uncut:
                        raise SystemExit(f"{mode} {index}: the uncut text depends on the length")
                    cases.append(
                        {
                            "task": mode,
                            "index": index,
                            "context": STRUCTURE_CONTEXTS[index][0],
                            "tokenizer": tokenizer_name,
                            "length": length,
                            "text": first,
                            "max_len": length
                            - example.max_new_tokens
                            - example.template_overhead
                            - CUT_ROOM,
                        }
                    )
    return texts, cases


def main() -> None:
    parser = parity_parser(__doc__, "longbench_structure.jsonl")
    args = parser.parse_args()
    check_checkout(args.longbench)
    with tempfile.TemporaryDirectory() as tmp:
        texts, cases = cut_cases(Path(tmp))
    request = {
        "texts": texts,
        "cases": [
            {"text": c["text"], "encoding": c["tokenizer"], "max_len": c["max_len"]} for c in cases
        ],
    }
    kept = original(args, "truncate", request)
    rows: list[dict[str, Any]] = []
    for case, answer in zip(cases, kept, strict=True):
        if answer["sent_differs"] != answer["cut"]:
            raise SystemExit(f"{case}: the original sent a changed prompt without a cut")
        rows.append(
            {
                "kind": "cut",
                **{k: v for k, v in case.items() if k != "text"},
                "input_sha256": sha256(texts[case["text"]]),
                "input_tokens": answer["tokens"],
                "cut": answer["cut"],
                "head_tokens": answer["head_tokens"],
                "tail_tokens": answer["tail_tokens"],
                "kept_sha256": answer["sent_sha256"],
            }
        )
    shapes = original(args, "templates", {"item": marker_row(), "reasoning": MARKERS["reasoning"]})
    rows.append({"kind": "templates", "markers": MARKERS, "modes": shapes})
    cut = sum(1 for r in rows if r.get("cut"))
    notes = (
        "cut rows: lctui's uncut user text (instruction + whole context + question) of "
        "tests/helpers/longbench_data.structure_rows through pred.py's query_llm (the "
        "tiktoken branch, encode(disallowed_special=()) / decode) with max_len = lctui's "
        "user-text budget; templates: pred.py's get_pred in each mode on a question of "
        "markers with a stand-in chat client (structure only, no prompt text). "
        f"{len(rows) - 1} cut rows ({cut} cut)."
    )
    write(args, notes, rows)
    print(json.dumps({"cut_rows": len(rows) - 1, "cut": cut}))


if __name__ == "__main__":
    main()
