"""Run princeton-nlp/HELMET's own summarization loaders (data.py load_data ->
load_infbench for infbench_sum_eng, load_multi_lexsum) on lctui's fixture files.

Glue for tests/parity/helmet_summ_structure.jsonl, run by hand, never in CI, under the
python of a venv with the real `datasets` package (HELMET samples and draws demos with
`datasets.Dataset.shuffle`); torch, rouge_score and pytrec_eval are inert stand-ins
(helmet_rag_driver.py). It imports data.py from the snapshot folder given as the first
argument and contains none of its code. Three things are substituted, as no hub and no
Llama-2 tokenizer are reachable here:
- `datasets.load_dataset` of the two hub ids returns the fixture files as those splits;
- the tokenizer HELMET loads counts a text as the request's `counts` say (lctui's
  o200k_base counts of the documents, plus one for the BOS token);
- `filter_length` runs with the request's `min_tokens` instead of 65,536 (the fixture
  documents are short); the dataset name asks for a length no document reaches, so
  nothing is cut.

    python helmet_summ_driver.py HELMET_DIR < {"infbench": PATH, "lexsum": {split: PATH},
        "counts": {sha256: n}, "min_tokens": {"infbench": n, "lexsum": n}, "shots": 2,
        "lexsum_samples": n}

Returns per dataset, per loaded row in HELMET's order: the id, the answer, the sha256 and
length of the document, the demonstration summaries in the order shown, and (Multi-
LexSum) the long summary the judge's precision call reads. Multi-LexSum runs twice:
with max_test_samples 100 (its pool, in file order: "lexsum_pool", the ids only) and
with `lexsum_samples` (fewer than the pool, so HELMET shuffles it as it does a real
pool of over 100).
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
import types
from pathlib import Path
from typing import Any

from helmet_rag_driver import import_helmet_data

DEMO_SUMMARY = re.compile(r"Summary: (.*)")
NO_CUT = 10_000_000


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def main() -> None:
    helmet = Path(sys.argv[1])
    request = json.load(sys.stdin)
    helmet_data = import_helmet_data(helmet)
    import datasets
    import numpy as np

    counts: dict[str, int] = request["counts"]

    class CountingTokenizer:
        """Counts a text as the request says (BOS + lctui's count), else by its words."""

        def __call__(self, text: str, return_offsets_mapping: bool = False) -> dict[str, Any]:
            n = counts.get(_sha(text), len(text.split()))
            out: dict[str, Any] = {"input_ids": [1] * (n + 1)}
            if return_offsets_mapping:
                out["offset_mapping"] = [(0, 0)] + [(0, len(text))] * n
            return out

    helmet_data.AutoTokenizer = types.SimpleNamespace(
        from_pretrained=lambda name: CountingTokenizer()
    )
    real_filter = helmet_data.filter_length
    limits = {"value": 0}

    def filter_length(data: Any, min_length: int, key: str) -> Any:
        return real_filter(data, limits["value"], key)

    helmet_data.filter_length = filter_length

    def load_dataset(repo: str, *args: Any, **kwargs: Any) -> Any:
        if repo == "xinrongzhang2022/infinitebench":
            split = datasets.Dataset.from_json(request["infbench"], features=kwargs["features"])
            return datasets.DatasetDict({"longbook_sum_eng": split})
        if repo == "allenai/multi_lexsum":
            return datasets.DatasetDict(
                {s: datasets.Dataset.from_parquet(p) for s, p in request["lexsum"].items()}
            )
        raise ValueError(repo)

    datasets.load_dataset = load_dataset
    helmet_data.load_dataset = load_dataset
    np.random.seed(42)  # Multi-LexSum's demo shuffle is unseeded: fix it for one record
    out: dict[str, Any] = {}
    runs = (
        ("infbench", "infbench_sum_eng", 100),
        ("lexsum_pool", "multi_lexsum", 100),
        ("lexsum", "multi_lexsum", request["lexsum_samples"]),
    )
    for case, dataset, samples in runs:
        args = types.SimpleNamespace(max_test_samples=samples, shots=request["shots"], seed=42)
        limits["value"] = request["min_tokens"][case.removesuffix("_pool")]
        loaded = helmet_data.load_data(args, f"{dataset}_{NO_CUT}")
        if case == "lexsum_pool":
            out[case] = [str(row["id"]) for row in loaded["data"]]
            continue
        rows = []
        for row in loaded["data"]:
            found = {
                "id": str(row["id"]),
                "answer": row["answer"],
                "document_sha256": _sha(row["context"]),
                "document_chars": len(row["context"]),
                "demos": DEMO_SUMMARY.findall(row["demo"]),
            }
            if case == "lexsum":
                found["summary_long"] = row["summary/long"]
            rows.append(found)
        out[case] = rows
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
