"""Score prepared List rows with LIFBench's own evaluation functions (run by the snapshot's Python).

Our glue, run by scripts/parity/lifeval_list.py in a subprocess of the Python that has
the original's dependencies; never imported by lctui or its tests. It imports the
original's `evaluation/EvaluateFunc.py` from the snapshot folder, builds each row's
prompt with the original's List prompt template read at run time from the snapshot's
`data/meta/tasks.json` (so the List context lctui built sits between the markers the
original's scorer parses), and calls the original's function for the task.

Where the original raises (an escape its unicode_escape decoding cannot read; JSON
nested past Python's recursion limit), the error is recorded and the row is scored
again with those two failures read as lctui documents them: the undecodable escape
kept as written, the over-deep JSON as not JSON. The original's code is unchanged;
only the codec's error handling and the `json` module it calls are wrapped.

    python lifeval_list_original.py SNAPSHOT IN.jsonl OUT.jsonl
"""

from __future__ import annotations

import codecs
import encodings.unicode_escape
import json
import sys
from pathlib import Path
from typing import Any

LENIENT = False  # read the original's crashes as lctui does (second pass only)
_plain_decode = codecs.unicode_escape_decode


def _keep_literal(error: UnicodeError) -> tuple[str, int]:
    assert isinstance(error, UnicodeDecodeError)
    return error.object[error.start : error.end].decode("latin-1"), error.end


codecs.register_error("parity_keep_literal", _keep_literal)


def _decode(data: Any, errors: str = "strict") -> tuple[str, int]:
    if LENIENT and errors == "strict":
        errors = "parity_keep_literal"
    return _plain_decode(data, errors)


# Before the codec is first looked up, so bytes.decode("unicode_escape") uses it.
encodings.unicode_escape.Codec.decode = staticmethod(_decode)  # type: ignore[assignment,method-assign]


class _Json:
    """The json module, with RecursionError read as invalid JSON in the lenient pass."""

    def __getattr__(self, name: str) -> Any:
        return getattr(json, name)

    @staticmethod
    def loads(text: str, *args: Any, **kwargs: Any) -> Any:
        try:
            return json.loads(text, *args, **kwargs)
        except RecursionError as exc:
            if LENIENT:
                raise json.JSONDecodeError("nested too deep", text, 0) from exc
            raise


FUNCTIONS = {  # the original's evaluation/Evaluator.py func_map, for the List tasks
    "single_query_id": "judge_label_equal_output",
    "offset_query_id": "judge_label_equal_output",
    "offset_query_element": "judge_label_equal_output",
    "multi_query_id": "judge_labels_equal_outputs",
    "blur_offset_query_id": "judge_list_input_blur_offset_query",
    "blur_offset_query_element": "judge_list_input_blur_offset_query",
}


def _score(function: Any, prompt: str, row: dict[str, Any]) -> dict[str, Any]:
    result = function(
        {
            "prompt": prompt,
            "param": row["param"],
            "label": row["list_size"],
            "output": row["output"],
        }
    )
    points = {k: float(v) for k, v in result.items() if k != "total_score"}
    return {"points": points, "total": float(result["total_score"])}


def main() -> None:
    global LENIENT
    snapshot, source, target = (Path(a) for a in sys.argv[1:4])
    sys.path.insert(0, str(snapshot / "evaluation"))
    import EvaluateFunc  # the original

    EvaluateFunc.json = _Json()
    LENIENT = True
    assert b"x\\".decode("unicode_escape") == "x\\", "the codec wrap did not take"
    LENIENT = False
    meta = json.loads((snapshot / "data" / "meta" / "tasks.json").read_text(encoding="utf-8"))
    template = meta["list"]["sys_instruction"]
    with source.open(encoding="utf-8") as rows, target.open("w", encoding="utf-8") as out:
        for line in rows:
            row = json.loads(line)
            function = getattr(EvaluateFunc, FUNCTIONS[row["task"]])
            prompt = template.format(instruction=row["instruction"], input=row["context"])
            try:
                row["original"] = _score(function, prompt, row)
            except Exception as exc:  # the original crashes on this output
                row["original_error"] = f"{type(exc).__name__}: {str(exc)[:120]}"
                LENIENT = True
                try:
                    row["original"] = _score(function, prompt, row)
                finally:
                    LENIENT = False
            out.write(json.dumps(row, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
