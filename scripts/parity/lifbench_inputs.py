"""Regenerate tests/parity/lifbench_inputs.jsonl: LIFBench's own judges on records of its
released prompt format, read by lctui's `lifbench` input kind.

Our glue, run by hand (never in CI), from the repository root with lctui's Python:

    PYTHONPATH=src:tests python scripts/parity/lifbench_inputs.py \\
        --snapshot /path/to/LIFBench-2024 --python /path/to/venv/bin/python \\
        --commit adb554da3019f14ab0014f81b72f219260c0b42d [--out tests/parity]

The records are tests/helpers/lifbench_inputs.py's (our text in LIFBench's format: every
task, three records each). For each, outputs that reach the branches of the judges'
rules (the reference answer, empty, prose, the answer inside prose, one character off,
as a JSON list, twice, a piece of the context, upper case, and for the List tasks other
entries, several entries and the first line of an entry that runs over two) are scored
by LIFBench's judge for the file (lifbench_inputs_original.py, run by the snapshot's
Python) given the record as it is. Each fixture row names the record (file and place),
a digest of its prompt, the output, and the judge's point fractions and total. Outputs
the judge crashes on are left out (the lifeval_* fixtures cover lctui's reading of
those).
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from helpers.lifbench_inputs import write_lifbench
from lctui.core.types import Example
from lctui.suites.lifbench.tasks.list_context import parse_numbered_list
from lctui.tasks.inputs import parse_inputs_arg, read_inputs

REPOSITORY = "SheldonWu0327/LIFBench-2024"
HERE = Path(__file__).resolve().parent
RECORDS = 3
PROSE = "Having read everything above with care, here is what I found"


def one_off(text: str) -> str:
    if not text:
        return "x"
    middle = len(text) // 2
    return text[:middle] + ("q" if text[middle] != "q" else "z") + text[middle + 1 :]


def cases(example: Example) -> list[tuple[str, str]]:
    reference = str(example.metadata["reference"])
    found = [
        ("reference", reference),
        ("empty", ""),
        ("prose", "I am not sure which one is meant."),
        ("inside_prose", f"{PROSE}: {reference}"),
        ("one_off", one_off(reference)),
        ("json_list", json.dumps([reference])),
        ("twice", f"{reference}\n{reference}"),
        ("context_piece", example.context[:160]),
        ("upper", reference.upper()),
    ]
    if example.metadata.get("scenario") == "list":
        items = parse_numbered_list(example.context)
        two_lines = next((i for i in items if "\n" in i), items[0])
        found += [
            ("first_entry", items[0]),
            ("last_entry", items[-1]),
            ("three_entries", "\n".join(items[:3])),
            ("first_line_of_entry", two_lines.split("\n")[0]),
            ("entries_json", json.dumps(items[5:9])),
        ]
    return found


def prompt_digest(example: Example) -> str:
    return hashlib.sha256(example.user_text.encode("utf-8")).hexdigest()[:16]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--snapshot", type=Path, required=True)
    parser.add_argument("--python", required=True, help="a Python that can import it")
    parser.add_argument("--commit", required=True, help="the snapshot's full commit")
    parser.add_argument("--out", type=Path, default=Path("tests/parity"))
    args = parser.parse_args()
    code = (args.snapshot / "evaluation" / "EvaluateFunc.py").read_bytes()
    rows: list[dict[str, Any]] = []
    inputs: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        root = write_lifbench(Path(tmp), records=RECORDS)
        for example in read_inputs(parse_inputs_arg(f"lifbench:{root}")).examples:
            source = example.metadata["inputs"]
            assert isinstance(source, dict)
            path = Path(str(source["file"]))
            line = int(str(source["line"]))
            record = json.loads(path.read_text(encoding="utf-8"))[line - 1]
            for case, output in cases(example):
                rows.append(
                    {
                        "file": path.stem,
                        "line": line,
                        "prompt_sha256": prompt_digest(example),
                        "case": case,
                        "output": output,
                    }
                )
                inputs.append({"file": path.stem, "record": record, "output": output})
        source_file, target = Path(tmp) / "in.jsonl", Path(tmp) / "out.jsonl"
        source_file.write_text("".join(json.dumps(r) + "\n" for r in inputs), encoding="utf-8")
        runner = HERE / "lifbench_inputs_original.py"
        subprocess.run(
            [args.python, str(runner), str(args.snapshot), str(source_file), str(target)],
            check=True,
        )
        scored = [json.loads(line) for line in target.read_text(encoding="utf-8").splitlines()]
    header = {
        "repository": REPOSITORY,
        "commit": args.commit,
        "command": "PYTHONPATH=src:tests python " + shlex.join(sys.argv),
        "generated": datetime.date.today().isoformat(),
        "notes": (
            f"LIFBench's judges (evaluation/EvaluateFunc.py, sha256 "
            f"{hashlib.sha256(code).hexdigest()[:16]}, dispatched as Evaluator.func_map) on "
            "the records of tests/helpers/lifbench_inputs.py as the prompt files hold them; "
            "points are the judge's score_dict (fractions), total its total_score. eval() "
            "was ast.literal_eval. Outputs the judge crashed on are left out."
        ),
    }
    path = args.out / "lifbench_inputs.jsonl"
    kept = crashed = 0
    with path.open("w", encoding="utf-8") as out:
        out.write(json.dumps({"header": header}) + "\n")
        for row, result in zip(rows, scored, strict=True):
            if result["error"]:
                crashed += 1
                continue
            kept += 1
            row = {**row, "points": result["points"], "total": result["total"]}
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"{path}: {kept} rows, {crashed} left out (the judge crashed)", file=sys.stderr)


if __name__ == "__main__":
    main()
