"""Score rows with LIFBench's own evaluation code (run under the snapshot's Python).

Our glue, not part of lctui and never run in CI. `lifeval_docs.py` runs it as

    PYTHON lifeval_docs_original.py SNAPSHOT IN.jsonl OUT.jsonl

where SNAPSHOT is a local copy of SheldonWu0327/LIFBench-2024 and each input row is
{"task": "multidoc-batch_label" | ..., "prompt", "param", "label", "output"}: the
`output_dict` the original's functions read. The scoring functions are imported from
SNAPSHOT/evaluation/EvaluateFunc.py and dispatched as its Evaluator.func_map does;
nothing of them is copied here. Each output row gets {"points": {point: fraction},
"total": total_score, "error": null | "Type: message"}.

Safety: find_dup_text passes pieces of the output to `eval()`. Here the module's
`eval` is `ast.literal_eval`, which gives the same value for every Python literal and
fails (as eval's errors do) on anything else, so no output is ever run as code.

Where the original raises (its Evaluator would stop), the row is scored again with
the points lctui gives such an output, as the original's code computes them once
these changes are made (`lenient`): escapes it cannot decode are dropped (the codec
with errors="ignore"), a JSON text nested too deep for the decoder is not JSON, an
answer line whose rows the original cannot map (not all lists) is not parseable, and
an output left empty once its escaped quotes are removed has no lines. "error" then
names what the original raised and "points" are those lenient values.
"""

from __future__ import annotations

import ast
import codecs
import encodings
import json
import sys
from pathlib import Path
from typing import Any


def _load(snapshot: Path) -> Any:
    sys.path.insert(0, str(snapshot / "evaluation"))
    import EvaluateFunc  # the original

    EvaluateFunc.eval = ast.literal_eval  # type: ignore[attr-defined]  # module-level name
    return EvaluateFunc


def _functions(module: Any) -> dict[str, Any]:
    return {
        "multidoc-batch_label": module.judge_multidoc_batch_label,
        "multidoc-find_dup_text": module.judge_multidoc_find_dup_text,
        "onedoc-repeat": module.judge_onedoc_repeat,
        "onedoc-extract": module.judge_onedoc_extract,
        "onedoc-qa": module.judge_onedoc_qa,
    }


def _row_maps(row: Any) -> bool:
    """Whether the original's op_answer2map can read `row` of an answer line."""
    if isinstance(row, list):
        return True
    if isinstance(row, dict):
        return all(d in row for d in range(len(row)))
    return isinstance(row, tuple | str | bytes | set) and not row


def _make_lenient(module: Any) -> None:
    real = codecs.lookup("unicode_escape")

    def decode(data: bytes, errors: str = "strict") -> tuple[str, int]:
        result: tuple[str, int] = real.decode(data, "ignore" if errors == "strict" else errors)
        return result

    info = codecs.CodecInfo(real.encode, decode, name="unicode_escape")
    codecs.unregister(encodings.search_function)  # also empties the codec cache
    codecs.register(lambda name: info if name == "unicode_escape" else None)
    codecs.register(encodings.search_function)

    valid_json, input_text = module.is_valid_json, module.get_input_text

    def is_valid_json(text: str) -> bool:
        try:
            return bool(valid_json(text))
        except RecursionError:
            return False

    def is_valid_eval(text: str) -> bool:
        try:
            value = ast.literal_eval(text)
        except Exception:
            return False
        return isinstance(value, list) and all(_row_maps(row) for row in value)

    def get_input_text(prompt: str, start: str = "\nInput text: ", end: str = "\nOutput:") -> str:
        try:
            return str(input_text(prompt, start=start, end=end))
        except AssertionError:
            return ""

    module.is_valid_json = is_valid_json
    module.is_valid_eval = is_valid_eval
    module.get_input_text = get_input_text


def _score(function: Any, row: dict[str, Any]) -> dict[str, Any]:
    fields = ("prompt", "param", "label", "output")
    result = function(json.loads(json.dumps({k: row[k] for k in fields})))  # a fresh copy
    points = {k: float(v) for k, v in result.items() if k != "total_score"}
    return {"points": points, "total": float(result["total_score"])}


def main() -> None:
    snapshot, source, target = (Path(a) for a in sys.argv[1:4])
    rows = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines()]
    module = _load(snapshot)
    functions = _functions(module)
    results: list[dict[str, Any]] = []
    failed: list[int] = []
    for i, row in enumerate(rows):
        try:
            results.append({**_score(functions[row["task"]], row), "error": None})
        except Exception as exc:  # the original raised: scored again below
            results.append({"points": None, "total": None, "error": f"{type(exc).__name__}: {exc}"})
            failed.append(i)
    if failed:
        _make_lenient(module)
        functions = _functions(module)
        for i in failed:
            results[i] = {
                **_score(functions[rows[i]["task"]], rows[i]),
                "error": results[i]["error"],
            }
    with target.open("w", encoding="utf-8") as out:
        for result in results:
            out.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main()
