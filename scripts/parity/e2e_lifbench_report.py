"""What scripts/parity/e2e_lifbench.py prints: LIFBench's and lctui's prompts, predictions,
scores and wall times side by side, read from LIFBench's files and lctui's database.

LIFBench's output file (data/outputs/MODEL/SCENARIO-TASK.json) keeps each record of the
prompt file, in order, with the model's answer (`output`) and its judge's points
(`score_dict`, `total_score` the response's ARS); data/scores/SCENARIO-TASK.csv the same
points per response. lctui's database keeps each example's user text, where it came
from (file and record), the output and the score.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import statistics
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb

from lctui.scoring import score_example
from lctui.tasks.inputs import parse_inputs_arg, read_inputs
from lctui.tasks.inputs.lifbench import answer_budget, lifbench_files

WINDOW = 8192
_CLOSE = 1e-9


@dataclass(frozen=True)
class Pipelines:
    data: Path  # the LIFBench data folder: prompts/, outputs/MODEL/, scores/
    model: str
    dbs: dict[int, Path]  # lctui's concurrency -> its run's database
    server_log: Path
    # The log's size before LIFBench's inference, after it, after each lctui run.
    marks: list[int]


@dataclass
class TaskResult:
    task: str
    records: int = 0
    same_prompt: int = 0  # lctui's stored user text == the record's prompt
    same_pred: int = 0
    same_score: int = 0  # lctui's score of its output == LIFBench's of its own, per record
    rescored: int = 0  # lctui's scorer on LIFBench's output == LIFBench's judge
    lifbench_ars: float | None = None  # its Evaluator's get_total_score_df
    records_ars: float | None = None  # the mean of its output file's response totals
    lctui_ars: float | None = None
    differences: list[str] = field(default_factory=list)


def prompt_sizes(prompts: Path, checkpoint: Path) -> None:
    """Each task's largest prompt in SmolLM2's tokens under its chat template, and
    whether it leaves LIFBench's answer budget within the server's window."""
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(checkpoint))
    files = lifbench_files()
    print("prompt tokens (SmolLM2, chat template) and LIFBench's budget:")
    for path in sorted(prompts.glob("*.json")):
        scenario, task, _ = files[path.stem]
        budget = answer_budget(scenario, task)
        rendered = [
            tokenizer.apply_chat_template(
                [{"role": "user", "content": r["prompt"]}],
                tokenize=False,
                add_generation_prompt=True,
            )
            for r in json.loads(path.read_text(encoding="utf-8"))
        ]
        sizes = [len(tokenizer.encode(text, add_special_tokens=False)) for text in rendered]
        over = sum(s + budget > WINDOW for s in sizes)
        note = f"; {over} over the {WINDOW}-token window" if over else ""
        print(f"  {path.stem}: {len(sizes)} records, at most {max(sizes)} + {budget}{note}")


def _lctui_rows(db: Path) -> dict[tuple[str, int], tuple[str, str, float | None]]:
    """(file stem, record number) -> (user text, output, score) of lctui's generations."""
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute(
            "SELECT e.metadata, e.preamble || e.context || e.question, g.output, s.value "
            "FROM generations g JOIN examples e USING (example_id) "
            "LEFT JOIN scores s ON s.generation_id = g.generation_id AND s.latest "
            "WHERE g.latest"
        ).fetchall()
    found = {}
    for metadata, text, output, value in rows:
        source = json.loads(metadata)["inputs"]
        found[Path(source["file"]).stem, int(source["line"])] = (str(text), output or "", value)
    return found


_LOGGED = re.compile(r"Request \S+ details: prompt: (.*), prompt_token_ids: (\[[\d, ]*\]|None)")


def server_prompts(log: Path, start: int, end: int) -> Counter[tuple[str, str]]:
    """The prompts the server received between two places of its log: each as its chat
    template rendered it, with its token ids (vLLM's DEBUG request log)."""
    with log.open("rb") as handle:
        handle.seek(start)
        text = handle.read(end - start).decode("utf-8", "replace")
    found: Counter[tuple[str, str]] = Counter()
    for line in text.splitlines():
        match = _LOGGED.search(line)
        if match:
            found[ast.literal_eval(match.group(1)), match.group(2)] += 1
    return found


def _close(a: float | None, b: float | None) -> bool:
    return a is not None and b is not None and abs(a - b) <= _CLOSE


def compare(p: Pipelines) -> dict[int, list[TaskResult]]:
    examples = {
        (Path(str(e.metadata["inputs"]["file"])).stem, int(e.metadata["inputs"]["line"])): e  # type: ignore[index,call-overload]
        for e in read_inputs(parse_inputs_arg(f"lifbench:{p.data.parent}")).examples
    }
    table = json.loads((p.data / "results" / "total_score.json").read_text("utf-8"))
    results: dict[int, list[TaskResult]] = {}
    for concurrency, db in p.dbs.items():
        lctui = _lctui_rows(db)
        per_task = []
        for stem in lifbench_files():
            out_file = p.data / "outputs" / p.model / f"{stem}.json"
            if not out_file.exists():
                continue
            result = TaskResult(stem)
            theirs, ours = [], []
            for line, record in enumerate(json.loads(out_file.read_text("utf-8")), start=1):
                result.records += 1
                total = float(record["score_dict"]["total_score"])
                theirs.append(total)
                rescored = score_example(examples[stem, line], record["output"]).value
                result.rescored += _close(rescored, total)
                mine = lctui.get((stem, line))
                if mine is None:
                    result.differences.append(f"{stem}:{line}: no lctui generation")
                    continue
                text, output, value = mine
                if value is not None:
                    ours.append(value)
                result.same_prompt += text == record["prompt"]
                result.same_score += _close(value, total)
                if output == record["output"]:
                    result.same_pred += 1
                    continue
                result.differences.append(
                    f"{stem}:{line}\n      LIFBench: {record['output'][:200]!r}\n"
                    f"      lctui:    {output[:200]!r}"
                )
            result.lifbench_ars = table.get(stem)
            result.records_ars = statistics.mean(theirs) if theirs else None
            result.lctui_ars = statistics.mean(ours) if ours else None
            per_task.append(result)
        results[concurrency] = per_task
    return results


def print_report(
    results: dict[int, list[TaskResult]],
    p: Pipelines,
    times: dict[str, float],
    args: argparse.Namespace,
) -> None:
    lifbench_time = times["lifbench_infer"] + times["lifbench_eval"]
    original = server_prompts(p.server_log, p.marks[0], p.marks[1])
    for i, (concurrency, rows) in enumerate(results.items()):
        print(
            f"\nLIFBench {args.commit} (ApiInference, Evaluator) against lctui (max_concurrency "
            f"{concurrency}), one server ({args.served_name}: SmolLM2-135M, --max-num-seqs "
            f"{args.max_num_seqs}), length interval "
            f"{args.interval}, {args.records} records a task"
        )
        print(
            "| task | records | same prompt | same prediction | same score | lctui's scorer "
            "on LIFBench's output | LIFBench ARS | lctui ARS |"
        )
        print("|---|---|---|---|---|---|---|---|")
        for r in rows:
            print(
                f"| {r.task} | {r.records} | {r.same_prompt} | {r.same_pred} | {r.same_score} "
                f"| {r.rescored} | {_shown(r.lifbench_ars)} | {_shown(r.lctui_ars)} |"
            )
        table = json.loads((p.data / "results" / "total_score.json").read_text("utf-8"))
        ours_avg = [r.lctui_ars for r in rows if r.lctui_ars is not None]
        print(
            f"| mean of the tasks (LIFBench's avg; its wavg {_shown(table.get('wavg'))}) | "
            f"| | | | | {_shown(table.get('avg'))} "
            f"| {_shown(statistics.mean(ours_avg) if ours_avg else None)} |"
        )
        consistent = sum(_close(r.lifbench_ars, r.records_ars) for r in rows)
        n = sum(r.records for r in rows)
        same = sum(r.same_prompt for r in rows)
        preds = sum(r.same_pred for r in rows)
        equal = sum(
            r.lifbench_ars is not None
            and r.lctui_ars is not None
            and round(r.lifbench_ars, 9) == round(r.lctui_ars, 9)
            for r in rows
        )
        print(
            f"prompts identical: {same}/{n}; predictions identical: {preds}/{n} "
            f"({100 * preds / n:.1f} %); task ARS equal: {equal}/{len(rows)}; lctui's scorer "
            f"on LIFBench's outputs: {sum(r.rescored for r in rows)}/{n} equal; LIFBench's "
            f"table equal to its output files' totals on {consistent}/{len(rows)} tasks"
        )
        mine = server_prompts(p.server_log, p.marks[i + 1], p.marks[i + 2])
        print(
            f"at the server (rendered prompt and token ids): LIFBench sent {original.total()}, "
            f"lctui {mine.total()}, the same {(original & mine).total()}"
        )
        ours = times[f"lctui_c{concurrency}"]
        print(
            f"wall time: LIFBench ApiInference {times['lifbench_infer']:.1f} s + Evaluator "
            f"{times['lifbench_eval']:.1f} s = {lifbench_time:.1f} s; lctui run "
            f"{ours:.1f} s ({ours / lifbench_time:.2f}x)"
        )
        for r in rows:
            for difference in r.differences:
                print(f"  differs: {difference}")


def _shown(value: Any) -> str:
    return f"{value:.4f}" if isinstance(value, float) else "-"
