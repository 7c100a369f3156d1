"""Run princeton-nlp/HELMET's own RAG loader (data.py load_data -> load_qa) on KILT files.

Glue for tests/parity/helmet_rag_structure.jsonl, run by hand, never in CI, under the
python of a venv with the real `datasets` package (HELMET's demo shuffle is
`datasets.Dataset.shuffle`, so it must be the real one); torch, transformers,
rouge_score and pytrec_eval, which the loader never calls, are inert stand-ins. It
imports data.py from the snapshot folder given as the first argument and contains none
of its code.

    python helmet_rag_driver.py HELMET_DIR < {"cases": [{"dataset", "test", "demo"}], "shots": 2}

For each case (HELMET's dataset name, e.g. kilt_popqa_3, and the two file paths) it
returns per loaded row, in HELMET's order: the question, the id if any, the titles of
the passages in the order the prompt shows them, and the questions of the
demonstrations in the order shown. Titles and questions are the fixture's own
invented text; no prompt text is returned.
"""

from __future__ import annotations

import json
import re
import sys
import types
from pathlib import Path

TITLE = re.compile(r"Document \(Title: (.*?)\): ")
DEMO_QUESTION = re.compile(r"Question: (.*)\n")


STAND_INS = (
    "torch",
    "torch.utils",
    "torch.utils.data",
    "transformers",
    "rouge_score",
    "pytrec_eval",
)


def _install_stand_ins() -> None:
    torch = types.ModuleType("torch")
    torch_utils = types.ModuleType("torch.utils")
    torch_data = types.ModuleType("torch.utils.data")
    torch_data.Dataset = type("Dataset", (), {})  # type: ignore[attr-defined]
    torch.utils = torch_utils  # type: ignore[attr-defined]
    torch_utils.data = torch_data  # type: ignore[attr-defined]
    transformers = types.ModuleType("transformers")
    transformers.AutoTokenizer = object  # type: ignore[attr-defined]
    rouge = types.ModuleType("rouge_score")
    rouge.rouge_scorer = types.ModuleType("rouge_score.rouge_scorer")  # type: ignore[attr-defined]
    for name, module in (
        ("torch", torch),
        ("torch.utils", torch_utils),
        ("torch.utils.data", torch_data),
        ("transformers", transformers),
        ("rouge_score", rouge),
        ("pytrec_eval", types.ModuleType("pytrec_eval")),
    ):
        sys.modules.setdefault(name, module)


def import_helmet_data(helmet: Path) -> types.ModuleType:
    """HELMET's data.py from the snapshot `helmet`, imported with stand-ins for the heavy
    modules it imports at the top and never calls in its loaders (torch, transformers,
    the metrics); the real `datasets` is imported first and the stand-ins are taken
    away again, since `datasets` looks for torch in sys.modules while hashing."""
    import datasets  # noqa: F401  # the real one, imported before the stand-ins exist

    _install_stand_ins()
    sys.path.insert(0, str(helmet))
    import data as helmet_data  # HELMET's data.py

    for name in STAND_INS:
        sys.modules.pop(name, None)
    return helmet_data


def main() -> None:
    helmet = Path(sys.argv[1])
    request = json.load(sys.stdin)
    helmet_data = import_helmet_data(helmet)

    args = types.SimpleNamespace(max_test_samples=None, shots=request["shots"], seed=42)
    out = []
    for case in request["cases"]:
        loaded = helmet_data.load_data(args, case["dataset"], case["test"], case["demo"])
        rows = []
        for row in loaded["data"]:
            rows.append(
                {
                    "question": row["question"],
                    "id": row.get("id"),
                    "titles": TITLE.findall(row["context"]),
                    "demo_questions": DEMO_QUESTION.findall(row["demos"]),
                }
            )
        out.append({"dataset": case["dataset"], "rows": rows})
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
