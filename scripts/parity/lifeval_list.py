"""Regenerate tests/parity/lifeval_<task>.jsonl for LIFBench's six List tasks.

Our glue, run by hand (never in CI) with lctui's Python, against a local snapshot of
SheldonWu0327/LIFBench-2024 and a Python that has its dependencies:

    PYTHONPATH=src python scripts/parity/lifeval_list.py SNAPSHOT SNAPSHOT_PYTHON \
        [--git-dir GIT_DIR | --commit HASH] [--out tests/parity]

It builds lctui's List examples (several lengths, seeds, wordings and variables),
writes outputs that reach every branch of the original's rules (right, near miss,
wrong case, another entry, embedded in prose, quoted, JSON, numbered, two entries,
empty, whitespace, 400 words, trailing backslash, Python literal, reversed, duplicates
...), scores them with the original's own functions (lifeval_list_original.py, in a
subprocess of SNAPSHOT_PYTHON) and writes one fixture per task: a header naming the
original, its commit and this command, then one row per output with the example's
name (task, length, seed, index, tokenizer, example id), the case, the output and the
original's point fractions and total. A row the original crashed on carries
`original_error` and the points of the original with the crash read as lctui reads
it (README: LIFBench deviations).

The commit is read from GIT_DIR (a clone or mirror of the original; the snapshot's
evaluation code must equal its HEAD's) or given with --commit.
"""

from __future__ import annotations

import argparse
import datetime
import json
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from lctui.backends.gold import reference_answer
from lctui.core.types import Example
from lctui.suites.lifbench.tasks.list_context import parse_list
from lctui.tasks import get_task
from lctui.tasks.tokenizers import reference_tokenizer

REPOSITORY = "SheldonWu0327/LIFBench-2024"
TOKENIZER = "o200k_base"
TASKS = (
    "single_query_id",
    "multi_query_id",
    "offset_query_id",
    "offset_query_element",
    "blur_offset_query_id",
    "blur_offset_query_element",
)
# (length, seed, how many covering indices): several lengths, seeds, wordings, variables.
PLAN = ((3072, 0, None), (6144, 1, None), (13312, 2, 3))
HERE = Path(__file__).resolve().parent
PROSE = (
    "the list above holds many entries and this reply talks about them at length without "
    "saying much of anything useful at all"
)


def covering(task: Any) -> list[int]:
    """Indices whose examples use every expression and every variable sample."""
    n_expr, n_var = len(task.spec.expressions), len(task.spec.variables)
    return [k * n_expr + (k % n_expr) for k in range(max(n_expr, n_var))]


def one_edit(text: str) -> str:
    """`text` with one character in its middle replaced."""
    middle = len(text) // 2
    swap = "0" if text[middle] != "0" else "1"
    if not text[middle].isdigit() and text[middle].isalpha():
        swap = "x" if text[middle] != "x" else "y"
    return text[:middle] + swap + text[middle + 1 :]


def long_reply(inner: str, words: int = 400) -> str:
    """About `words` words of prose with `inner` in the middle."""
    vocabulary = PROSE.split()
    filler = [vocabulary[i % len(vocabulary)] for i in range(words)]
    half = words // 2
    return " ".join(filler[:half]) + f" {inner} " + " ".join(filler[half:]) + "."


def _uuid(item: str) -> bool:
    return len(item) == 32 and all(c in "0123456789abcdef" for c in item)


def _others(items: list[str], avoid: set[int]) -> tuple[str, str]:
    """A uuid entry and a sentence entry at positions not in `avoid` (1-based)."""
    uuid = next(e for i, e in enumerate(items, 1) if i not in avoid and _uuid(e))
    sentence = next(e for i, e in enumerate(items, 1) if i not in avoid and not _uuid(e))
    return uuid, sentence


def single_cases(example: Example) -> Iterator[tuple[str, str]]:
    """Outputs for single_query_id, offset_query_id and offset_query_element."""
    meta = example.metadata
    items = parse_list(example.context)
    right = meta["expected"][0]
    position = meta["expected_positions"][0]
    pivot = meta.get("pivot", position)
    uuid, sentence = _others(items, {position, pivot})
    neighbour = items[position] if position < len(items) else items[position - 2]
    yield "right", right
    yield "right_padded", f"  \n{right} \n"
    yield "near_miss_one_edit", one_edit(right)
    yield "wrong_case", right.upper()
    yield "wrong_case_first", right[:1].swapcase() + right[1:]
    yield "neighbour", neighbour
    yield "other_uuid", uuid
    yield "other_sentence", sentence
    if pivot != position:
        yield "the_named_entry", items[pivot - 1]
    yield "embedded_in_prose", f"The entry you asked for is {right}."
    yield "answer_cue", f"Output: {right}"
    yield "quoted", f'"{right}"'
    yield "json_list", json.dumps([right])
    yield "python_list", f"['{right}']"
    yield "numbered", f"{position}. {right}"
    yield "fenced", f"```\n{right}\n```"
    yield "other_uuid_embedded", f"Answer: {uuid}"
    yield "other_uuid_with_period", f"{uuid}."
    yield "two_entries_lines", f"{right}\n{neighbour}"
    yield "two_other_entries", f"{sentence}\n{neighbour}\n{sentence}"
    yield "two_uuids_one_line", f"{uuid} {right}" if _uuid(right) else f"{uuid} {uuid}"
    yield "same_twice", f"{right} {right}"
    yield "wrong_and_near_miss", f"{uuid} {one_edit(right)}"
    yield "empty", ""
    yield "whitespace", " \n\t "
    yield "short_garbage", "no idea"
    yield "garbage_entry_length", "I could not find that entry in the list, sorry about that."
    yield "over_long_with_entry", long_reply(right)
    yield "over_long_without_entry", long_reply("nothing")
    yield "trailing_backslash", right + "\\"
    yield "reversed_text", right[::-1]
    yield "duplicated_wrong", f"{uuid}\n{uuid}"


def blur_cases(example: Example) -> Iterator[tuple[str, str]]:
    """Outputs for blur_offset_query_id and blur_offset_query_element."""
    meta = example.metadata
    items = parse_list(example.context)
    pivot = meta["pivot"]
    step = 1 if meta["direction"] == "after" else -1
    named = items[pivot - 1]
    near = items[pivot - 1 + step]
    far_index = len(items) - 1 if step > 0 else 0
    far = items[far_index]
    wrong_index = pivot - 1 - step
    wrong = items[wrong_index] if 0 <= wrong_index < len(items) else None
    yield "right", near  # the adjacent entry on the asked side: the reference
    yield "far_on_the_side", far
    yield "the_named_entry", named
    if wrong is not None:
        yield "wrong_side", wrong
        yield "right_and_wrong_side", f"{near}\n{wrong}"
    yield "two_on_the_side", f"{near}\n{far}" if far != near else f"{near}\n{near}"
    yield "right_and_named", f"{near}\n{named}"
    yield "named_embedded", f"Maybe {named}"
    yield "named_embedded_long", long_reply(named, 40)
    if wrong is not None:
        yield "wrong_side_embedded", f"Maybe {wrong}"
        yield "wrong_side_embedded_long", long_reply(wrong, 40)
    yield "near_miss_one_edit", one_edit(near)
    yield "wrong_case", near.upper()
    yield "embedded_in_prose", f"Here is one: {near}."
    yield "quoted", f'"{near}"'
    yield "json_list", json.dumps([near])
    yield "python_list", f"['{near}']"
    yield "numbered", f"{pivot + step}. {near}"
    yield "same_twice", f"{near} {near}"
    yield "empty", ""
    yield "whitespace", "   "
    yield "short_garbage", "none"
    yield "garbage_entry_length", "There is no entry that fits this request in the list."
    yield "over_long_with_entry", long_reply(near)
    yield "trailing_backslash", near + "\\"


def multi_cases(example: Example) -> Iterator[tuple[str, str]]:
    """Outputs for multi_query_id."""
    meta = example.metadata
    items = parse_list(example.context)
    expected: list[str] = list(meta["expected"])
    positions: list[int] = list(meta["expected_positions"])
    others = [e for i, e in enumerate(items, 1) if i not in positions][: len(expected)]
    reference = json.dumps(expected)
    yield "right", reference
    yield "compact", json.dumps(expected, separators=(",", ":"))
    yield "reversed", json.dumps(expected[::-1])
    yield "fenced", f"```json\n{reference}\n```"
    yield "prose_wrapped", f"Here are the entries: {reference} I hope this helps."
    yield "python_literal", "[" + ", ".join(f"'{e}'" for e in expected) + "]"
    yield "numbered_lines", "\n".join(f"{i}. {e}" for i, e in enumerate(expected, 1))
    yield "plain_lines", "\n".join(expected)
    yield "comma_separated", ", ".join(expected)
    yield "empty_list", "[]"
    yield "duplicated_all", json.dumps(expected * 2)
    yield "duplicated_first", json.dumps([expected[0], *expected])
    yield "one_missing", json.dumps(expected[:-1])
    yield "one_extra", json.dumps([*expected, others[0]])
    yield "wrong_entries", json.dumps(others)
    yield "half_wrong", json.dumps(expected[: len(expected) // 2] + others[len(expected) // 2 :])
    yield "positions_as_numbers", json.dumps(positions)
    yield "numbers_in_prose", f"Positions: {json.dumps(positions)}."
    yield "object_in_prose", "Answer: [" + json.dumps({"a": expected[0]}) + "]x"
    yield "one_right", json.dumps(expected[:1])
    yield "right_and_as_many_wrong", json.dumps(expected + others)
    yield "mixed_list", json.dumps([expected[0], 5, *expected[1:]])
    yield "json_object", json.dumps({str(p): e for p, e in zip(positions, expected, strict=True)})
    yield "json_string", json.dumps(expected[0])
    yield "nan_list", "[NaN, " + ", ".join(json.dumps(e) for e in expected) + "]"
    yield "upper_cased", json.dumps([e.upper() for e in expected])
    yield "near_miss_first", json.dumps([one_edit(expected[0]), *expected[1:]])
    yield "unicode_escaped", "[" + ", ".join(
        '"' + "".join(f"\\u{ord(c):04x}" if c.isalpha() else c for c in e) + '"'
        for e in expected
    ) + "]"  # fmt: skip
    yield "unclosed", "[" + ", ".join(json.dumps(e) for e in expected)
    yield "brackets_reversed", "] " + " ".join(expected) + " ["
    yield "nested_40_deep", "[" * 40 + json.dumps(expected) + "]" * 40
    yield "empty", ""
    yield "whitespace", "\n  \n"
    yield "garbage", "I cannot find those entries."
    yield "over_long", long_reply(reference)
    yield "trailing_backslash", reference + "\\"
    yield "bad_hex_escape", reference[:-1] + ', "\\x4g"]'
    yield "deep_brackets", "[" * 100_000


# Outputs too large to store once per example: stored for the first example of a task.
ONCE_PER_TASK = {"deep_brackets"}
CASES: dict[str, Callable[[Example], Iterator[tuple[str, str]]]] = {
    "single_query_id": single_cases,
    "offset_query_id": single_cases,
    "offset_query_element": single_cases,
    "blur_offset_query_id": blur_cases,
    "blur_offset_query_element": blur_cases,
    "multi_query_id": multi_cases,
}


def original_params(example: Example) -> dict[str, Any]:
    """The example's query in the original's `param` names."""
    meta = example.metadata
    items = parse_list(example.context)
    if meta["lifeval_task"] == "multi_query_id":
        return {"id_arr": meta["expected_positions"], "elements": meta["expected"]}
    pivot = int(meta["pivot"])
    bias = {"after": 1, "before": -1}.get(meta.get("direction", ""), 0)
    return {
        "id": pivot,
        "bias": bias,
        "element": items[pivot - 1],
        "pre_element": items[pivot - 2] if pivot >= 2 else None,
        "post_element": items[pivot] if pivot < len(items) else None,
    }


def examples(name: str) -> Iterator[tuple[dict[str, Any], Example]]:
    task = get_task(f"lifbench_{name}")
    tokenizer = reference_tokenizer(TOKENIZER)
    for length, seed, count in PLAN:
        for index in covering(task)[:count]:
            example = task.generate(length, seed, index, tokenizer)
            key = {"task": name, "length": length, "seed": seed, "index": index}
            yield {**key, "tokenizer": TOKENIZER, "example_id": example.example_id}, example


def commit_of(args: argparse.Namespace) -> str:
    if args.commit:
        return str(args.commit)
    git = ["git", f"--git-dir={args.git_dir}"]
    head = subprocess.run([*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True)
    commit = head.stdout.strip()
    path = "evaluation/EvaluateFunc.py"
    blob = subprocess.run([*git, "show", f"{commit}:{path}"], check=True, capture_output=True)
    if blob.stdout != (Path(args.snapshot) / path).read_bytes():
        sys.exit(f"{args.snapshot}/{path} differs from {path} at {commit} in {args.git_dir}")
    return commit


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("snapshot", help="folder of the original's files")
    parser.add_argument("python", help="a Python with the original's dependencies")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--git-dir", help="a clone or mirror of the original, at the snapshot")
    source.add_argument("--commit", help="the snapshot's commit, when no git dir is at hand")
    parser.add_argument("--out", default=str(HERE.parents[1] / "tests" / "parity"))
    args = parser.parse_args()
    commit = commit_of(args)
    rows: list[dict[str, Any]] = []
    done: set[tuple[str, str]] = set()
    for name in TASKS:
        for key, example in examples(name):
            assert reference_answer(example)  # the examples are lctui's, as the tests build them
            base = {
                **key,
                "context": example.context,
                "instruction": example.question.strip(),
                "param": original_params(example),
                "list_size": example.metadata["list_size"],
            }
            for case, output in CASES[name](example):
                if case in ONCE_PER_TASK and (case, name) in done:
                    continue
                done.add((case, name))
                rows.append({**base, "case": case, "output": output})
    with tempfile.TemporaryDirectory() as tmp:
        given, scored = Path(tmp) / "in.jsonl", Path(tmp) / "out.jsonl"
        given.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        runner = HERE / "lifeval_list_original.py"
        subprocess.run(
            [args.python, str(runner), args.snapshot, str(given), str(scored)], check=True
        )
        results = [json.loads(line) for line in scored.read_text(encoding="utf-8").splitlines()]
    command = "PYTHONPATH=src python scripts/parity/lifeval_list.py " + shlex.join(sys.argv[1:])
    for name in TASKS:
        header = {
            "repository": REPOSITORY,
            "commit": commit,
            "command": command,
            "generated": datetime.date.today().isoformat(),
            "notes": (
                f"LIFEval {name}: the original's evaluation/EvaluateFunc.py on lctui's examples "
                "(rebuilt from task, length, seed, index, tokenizer; example_id checks them) "
                "and on outputs written to reach every branch. points: the original's "
                "fractions; total: its total_score. original_error: the original crashed; "
                "points and total are then its rules with the crash read as lctui reads it."
            ),
        }
        path = Path(args.out) / f"lifeval_{name}.jsonl"
        with path.open("w", encoding="utf-8") as out:
            out.write(json.dumps({"header": header}) + "\n")
            for r in results:
                if r["task"] != name:
                    continue
                keep = ("task", "length", "seed", "index", "tokenizer", "example_id", "case")
                row = {k: r[k] for k in keep}
                row["output"] = r["output"]
                row["original"] = r["original"]
                if "original_error" in r:
                    row["original_error"] = r["original_error"]
                out.write(json.dumps(row, ensure_ascii=False) + "\n")
        print(f"{path}: {sum(r['task'] == name for r in results)} rows")


if __name__ == "__main__":
    main()
