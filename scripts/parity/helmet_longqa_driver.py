"""Run princeton-nlp/HELMET's own long-document QA loaders (data.py load_data ->
load_narrativeqa, load_infbench) on NarrativeQA- and InfiniteBench-format files.

Glue for tests/parity/helmet_longqa_structure.jsonl, run by hand, never in CI, under the
python of a venv with the real `datasets` package (HELMET shuffles, filters and maps
with it). Two things of the loaders' world are replaced, and nothing of their code:
`load_dataset` of the hub names reads the given local files instead (the same
`datasets` readers, the same features), and Llama-2's tokenizer (gated, offline here)
is a stand-in that counts every whitespace word as SCALE tokens with offsets, so the
fixtures' short stories pass HELMET's length filters and its cut lands at a word.
torch, transformers, rouge_score and pytrec_eval are inert stand-ins
(helmet_rag_driver.py). It contains none of data.py's code.

    python helmet_longqa_driver.py HELMET_DIR < {"narrativeqa": {"test", "train"},
        "infbench": {"qa", "choice"}, "length": L, "shots": 2, "samples": 100}

Returns per dataset the loaded rows in HELMET's order with structure facts only
(the fixtures' own invented text, no prompt wording): question, golds, options,
demonstrations (question and answer), how many show a story placeholder, whether the
document was cut, whether it is the document's start, whether a note follows the cut,
the order of the prompt's fields, and the answer prefix.
"""

from __future__ import annotations

import json
import re
import sys
import types
from pathlib import Path
from typing import Any

from helmet_rag_driver import import_helmet_data

SCALE = 64
QA_DEMO = re.compile(r"Question: (.*)\nAnswer: (.*)")
MC_DEMO = re.compile(r"Question: (.*)\nOptions:\n((?:.*\n){4})Answer: (.*)")
# A demonstration's story stand-in: a bracketed line right before its question.
PLACEHOLDER_LINE = re.compile(r"(?m)^\[[^\]\n]*\]\nQuestion: ")


class WordTokenizer:
    """Every whitespace word is SCALE tokens (each with the word's offsets); one BOS."""

    def __call__(self, text: str, return_offsets_mapping: bool = False) -> dict[str, Any]:
        ids, offsets = [1], [(0, 0)]
        for match in re.finditer(r"\S+", text):
            ids += [2] * SCALE
            offsets += [(match.start(), match.end())] * SCALE
        out: dict[str, Any] = {"input_ids": ids}
        if return_offsets_mapping:
            out["offset_mapping"] = offsets
        return out


def main() -> None:
    helmet = Path(sys.argv[1])
    request = json.load(sys.stdin)
    helmet_data = import_helmet_data(helmet)
    import datasets

    nqa, ib = request["narrativeqa"], request["infbench"]
    real_load_dataset = datasets.load_dataset

    def local_load_dataset(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "narrativeqa":
            return real_load_dataset("parquet", data_files=nqa)
        if name.lower() == "xinrongzhang2022/infinitebench":
            files = {"longbook_qa_eng": ib["qa"], "longbook_choice_eng": ib["choice"]}
            return real_load_dataset("json", data_files=files, features=kwargs["features"])
        raise SystemExit(f"unexpected dataset {name}")

    # load_narrativeqa uses data.py's import, load_infbench imports it from datasets again.
    helmet_data.load_dataset = local_load_dataset
    datasets.load_dataset = local_load_dataset
    helmet_data.AutoTokenizer = types.SimpleNamespace(from_pretrained=lambda _: WordTokenizer())
    documents = _documents(nqa["test"], ib)
    args = types.SimpleNamespace(
        max_test_samples=request["samples"], shots=request["shots"], seed=42
    )
    length = request["length"]
    out: dict[str, list[dict[str, Any]]] = {}
    for dataset, kind in (
        (f"narrativeqa_{length}", "narrativeqa"),
        (f"infbench_qa_eng_{length}", "qa"),
        (f"infbench_choice_eng_{length}", "choice"),
    ):
        loaded = helmet_data.load_data(args, dataset)
        template = loaded["user_template"]
        fields = re.findall(r"\{(\w+)\}", template)
        rows = []
        for row in loaded["data"]:
            key = (kind, row["question"])
            whole = documents[key]
            context = row["context"]
            cut_at = len(whole)
            while cut_at > 0 and not context.startswith(whole[:cut_at]):
                cut_at -= 1
            demo = row["demo"]
            pattern = MC_DEMO if kind == "choice" else QA_DEMO
            demos = [list(m.groups()) for m in pattern.finditer(demo)]
            rows.append(
                {
                    "id": row.get("id"),
                    "question": row["question"],
                    "answer": list(row["answer"]),
                    "options": row.get("options") if kind == "choice" else None,
                    "demos": [[d[0], d[-1]] for d in demos],
                    "demo_options": [d[1] for d in demos] if kind == "choice" else None,
                    "placeholders": len(PLACEHOLDER_LINE.findall(demo)),
                    "truncated": context != whole,
                    "starts_document": cut_at > 0,
                    "note_after_cut": len(context) > cut_at and context != whole,
                    "fields": fields,
                    "answer_prefix": loaded["system_template"],
                }
            )
        out[kind] = rows
    json.dump(out, sys.stdout)


def _documents(nqa_test: str, ib: dict[str, str]) -> dict[tuple[str, str], str]:
    """The whole document of each question, read from the files as they are."""
    import pyarrow.parquet as pq

    found = {
        ("narrativeqa", r["question"]["text"]): r["document"]["text"]
        for r in pq.read_table(nqa_test).to_pylist()
    }
    for kind in ("qa", "choice"):
        for line in Path(ib[kind]).read_text().splitlines():
            row = json.loads(line)
            found[kind, row["input"]] = row["context"]
    return found


if __name__ == "__main__":
    main()
