"""Score LIFBench records with LIFBench's own judge functions (run by the snapshot's Python).

Our glue, run by scripts/parity/lifbench_inputs.py, never imported by lctui or its
tests: `PYTHON lifbench_inputs_original.py SNAPSHOT IN.jsonl OUT.jsonl`, each input row
`{"file": "list-single_query_id", "record": {prompt, label, param, ...}, "output"}`: the
record as the released prompt file holds it, given to the judge Evaluator.func_map names
for the file, with the output as its `output`. Each output row is {"points": {point:
fraction}, "total": total_score, "error": null | "Type: message"}. The module's `eval`
is ast.literal_eval (find_dup_text evaluates pieces of the output): no output runs as
code.
"""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path
from typing import Any

JUDGES = {  # evaluation/Evaluator.py's func_map
    "onedoc-repeat": "judge_onedoc_repeat",
    "onedoc-qa": "judge_onedoc_qa",
    "onedoc-extract": "judge_onedoc_extract",
    "list-single_query_id": "judge_label_equal_output",
    "list-multi_query_id": "judge_labels_equal_outputs",
    "list-offset_query_id": "judge_label_equal_output",
    "list-offset_query_element": "judge_label_equal_output",
    "list-blur_offset_query_id": "judge_list_input_blur_offset_query",
    "list-blur_offset_query_element": "judge_list_input_blur_offset_query",
    "multidoc-batch_label": "judge_multidoc_batch_label",
    "multidoc-find_dup_text": "judge_multidoc_find_dup_text",
}


def _score(module: Any, row: dict[str, Any]) -> dict[str, Any]:
    judge = getattr(module, JUDGES[row["file"]])
    # A fresh copy: the OneDoc judges change the label they are given.
    record = json.loads(json.dumps({**row["record"], "output": row["output"]}))
    try:
        result = judge(record)
    except Exception as exc:  # the original crashes on this output
        return {"points": None, "total": None, "error": f"{type(exc).__name__}: {exc}"[:200]}
    points = {k: float(v) for k, v in result.items() if k != "total_score"}
    return {"points": points, "total": float(result["total_score"]), "error": None}


def main() -> None:
    snapshot, source, target = (Path(a) for a in sys.argv[1:4])
    sys.path.insert(0, str(snapshot / "evaluation"))
    import EvaluateFunc  # the original

    EvaluateFunc.eval = ast.literal_eval  # type: ignore[attr-defined]
    rows = [json.loads(line) for line in source.read_text(encoding="utf-8").split("\n") if line]
    with target.open("w", encoding="utf-8") as out:
        for row in rows:
            out.write(json.dumps(_score(EvaluateFunc, row)) + "\n")


if __name__ == "__main__":
    main()
