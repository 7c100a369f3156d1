"""Regenerate tests/parity/lifeval_{batch_label,find_dup_text,repeat,extract,qa}.jsonl.

Our glue, run by hand (never in CI), from the repository root with lctui's Python:

    PYTHONPATH=src python scripts/parity/lifeval_docs.py \\
        --snapshot /path/to/LIFBench-2024 --python /path/to/venv/bin/python \\
        [--commit HASH] [--out tests/parity]

It builds lctui's examples of the five MultiDoc and OneDoc tasks (3k, 6k and 13k,
every wording and variable sample), writes outputs that reach every branch of the
original's point rules, and has LIFBench's own evaluation code score them
(lifeval_docs_original.py, run by the snapshot's Python). Each fixture row names its
example (task, length, seed, index, tokenizer, example id, a digest of its prompt),
the output, and the original's point fractions and total. The original reads the
example through its own fields, made here from what lctui rendered: the prompt with
the original's markers around the context (only here, for its scorer to find the
documents), the label (which of title and source each document has; the tagged
sentences per type, each key or fake, read back from the document) and the
parameters (label set, asked fields, count and separator, type, sentence, options).
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
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from lifeval_docs_cases import CASES

from lctui.core.types import Example
from lctui.suites.lifbench.tasks.multidoc_context import parse_docs
from lctui.suites.lifbench.tasks.onedoc_context import KEY_TYPES, parse_tagged
from lctui.tasks import get_task
from lctui.tasks.tokenizers import reference_tokenizer

REPOSITORY = "SheldonWu0327/LIFBench-2024"
TOKENIZER = "o200k_base"
TASKS = ("batch_label", "find_dup_text", "repeat", "extract", "qa")
SCENARIO = {
    "batch_label": "multidoc",
    "find_dup_text": "multidoc",
    "repeat": "onedoc",
    "extract": "onedoc",
    "qa": "onedoc",
}
# (length, seed) pairs, and at which of them every variable sample is used.
LENGTHS = ((3072, 0), (6144, 1), (13312, 2))
# The original's markers around the documents (its find_dup_text scorer cuts the
# prompt at them); lctui's prompt has none, so they are added here only.
DOCS_START, DOCS_END = "\n\n Documents:\n", "\n\n Instructions:"


def indices(task: str, length: int) -> list[int]:
    """Example indices using every wording and (at 3k, or for small spaces) every variable."""
    spec = get_task(f"lifbench_{task}").spec  # type: ignore[attr-defined]
    n_expr, n_var = len(spec.expressions), len(spec.variables)
    count = n_var if (length == 3072 or n_var <= 10) else 10
    return [k * n_expr + (k % n_expr) for k in range(max(count, n_expr))]


def prompt_digest(example: Example) -> str:
    """The start of the SHA-256 of what the model reads: a changed generator changes it."""
    return hashlib.sha256(example.user_text.encode("utf-8")).hexdigest()[:16]


def original_fields(task: str, example: Example) -> dict[str, Any]:
    """The original's prompt, param and label for `example`."""
    meta = example.metadata
    prompt = example.preamble + DOCS_START + example.context + DOCS_END + example.question
    if task in ("batch_label", "find_dup_text"):
        docs = parse_docs(example.context)
        if task == "batch_label":
            labels = [str(x) for x in meta["labels"]]
            param = {
                "candidates": labels,
                "rule_key": "".join(label[0] for label in labels),
                "doc_keys": [list(doc) for doc in docs],
            }
        else:
            fields = [str(f) for f in meta["fields"]]
            where: dict[str, list[int]] = {}
            for number, doc in enumerate(docs):
                where.setdefault(doc["text"], []).append(number)
            groups = [g for g in where.values() if len(g) > 1]
            dup_infos = [[{f: docs[i].get(f) for f in fields} for i in g] for g in groups]
            param = {"info_keys": " ".join(fields), "dup_infos": dup_infos}
        return {"prompt": prompt, "param": param, "label": len(docs)}
    tagged = parse_tagged(example.context)
    label = {
        kind: [[t.text, t.id, t.id, t.tail == t.type] for t in tagged if t.type == kind]
        for kind in KEY_TYPES
    }
    if task == "repeat":
        param: dict[str, Any] = {"num": meta["num"], "sep": meta["sep"]}
    elif task == "extract":
        param = {"type": f"<{meta['type']}>"}
    else:
        param = {"evidence": meta["evidence"], "options": list(meta["options"])}
    return {"prompt": prompt, "param": param, "label": label}


def rows_of(task: str) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """(fixture row without the original's numbers, the original's input row)."""
    tokenizer = reference_tokenizer(TOKENIZER)
    lctui_task = get_task(f"lifbench_{task}")
    cases: Callable[[Example], list[tuple[str, str]]] = CASES[task]
    for length, seed in LENGTHS:
        for index in indices(task, length):
            example = lctui_task.generate(length, seed, index, tokenizer)
            fields = original_fields(task, example)
            for case, output in cases(example):
                row = {
                    "task": task, "length": length, "seed": seed, "index": index,
                    "tokenizer": TOKENIZER, "example_id": example.example_id,
                    "prompt_sha256": prompt_digest(example), "case": case, "output": output,
                }  # fmt: skip
                yield row, {"task": f"{SCENARIO[task]}-{task}", **fields, "output": output}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--snapshot", type=Path, required=True)
    parser.add_argument("--python", required=True, help="a Python that can import it")
    parser.add_argument("--commit", help="the snapshot's commit (read with git if a checkout)")
    parser.add_argument("--out", type=Path, default=Path("tests/parity"))
    parser.add_argument("--tasks", default=",".join(TASKS))
    args = parser.parse_args()
    commit = args.commit or subprocess.run(
        ["git", "-C", str(args.snapshot), "rev-parse", "HEAD"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip
    code = (args.snapshot / "evaluation" / "EvaluateFunc.py").read_bytes()
    command = "PYTHONPATH=src python " + shlex.join(sys.argv)
    runner = Path(__file__).with_name("lifeval_docs_original.py")
    for task in args.tasks.split(","):
        fixture, original = zip(*rows_of(task), strict=True)
        with tempfile.TemporaryDirectory() as tmp:
            source, target = Path(tmp) / "in.jsonl", Path(tmp) / "out.jsonl"
            source.write_text("".join(json.dumps(r) + "\n" for r in original), encoding="utf-8")
            subprocess.run(
                [args.python, str(runner), str(args.snapshot), str(source), str(target)],
                check=True,
            )
            scored = [json.loads(line) for line in target.read_text(encoding="utf-8").splitlines()]
        header = {
            "repository": REPOSITORY,
            "commit": commit,
            "command": command,
            "generated": datetime.date.today().isoformat(),
            "notes": (
                f"LIFBench's judge functions (evaluation/EvaluateFunc.py, sha256 "
                f"{hashlib.sha256(code).hexdigest()[:16]}) on lctui's {task} examples; "
                "points are the original's fractions (point / weight), total its "
                "total_score. The prompt it read had its markers around lctui's context. "
                "eval() was ast.literal_eval. Rows with original_error: the original "
                "raised; their numbers are the original's with the lenient readings of "
                "scripts/parity/lifeval_docs_original.py (lctui's values)."
            ),
        }
        path = args.out / f"lifeval_{task}.jsonl"
        with path.open("w", encoding="utf-8") as out:
            out.write(json.dumps({"header": header}) + "\n")
            for row, result in zip(fixture, scored, strict=True):
                row = {**row, "points": result["points"], "total": result["total"]}
                if result["error"]:
                    row["original_error"] = result["error"]
                out.write(json.dumps(row, ensure_ascii=False) + "\n")
        errors = sum(1 for r in scored if r["error"])
        print(f"{path}: {len(scored)} rows, {errors} where the original raised", file=sys.stderr)


if __name__ == "__main__":
    main()
