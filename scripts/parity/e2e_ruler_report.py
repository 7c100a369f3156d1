"""What scripts/parity/e2e_ruler.py prints: the two pipelines' prompts, predictions,
per-task scores and wall times side by side, read from RULER's files and lctui's database.

RULER's prediction file keeps, per data row in order, the row's prompt (its `input`: the
data row's input + answer_prefix) and the answer call_api.py filed under it (`pred`); its
summary.csv the task's score (x100, 2 places). Which prompts RULER actually sent the
server says: its request log (`times_sent`). lctui's database keeps each example's user
text (the prompt of its one user message), where it came from (file and line) and the
output and score.
"""

from __future__ import annotations

import argparse
import ast
import csv
import json
import re
import statistics
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from lctui.suites.ruler.tasks.rows import RULER_TASKS


@dataclass(frozen=True)
class Pipelines:
    data: Path  # LENGTH/data
    pred: Path  # LENGTH/pred
    db: Path
    tasks: list[str]
    server_log: Path
    # The log's size before RULER's first pipeline, after each, after lctui's.
    marks: list[int]
    variant: int  # which of RULER's pipelines (its place among the marks)
    threads: int  # call_api.py's --threads in it


@dataclass
class TaskResult:
    task: str
    threads: int
    rows: int = 0
    ruler_sent_row: int = 0  # the row's prompt reached the server once in RULER's pipeline
    same_prompt: int = 0  # lctui's prompt == RULER's
    same_pred: int = 0
    ruler_score: float | None = None  # evaluate.py's summary (x100, 2 places)
    lctui_score: float | None = None  # lctui's mean x 100, 2 places
    lctui_n: int = 0
    differences: list[str] = field(default_factory=list)


def _jsonl(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _summary(pred: Path) -> dict[str, float]:
    with (pred / "summary.csv").open(encoding="utf-8") as handle:
        rows = {row[0]: row[1:] for row in csv.reader(handle) if row}
    return {t: float(s) for t, s in zip(rows["Tasks"], rows["Score"], strict=True)}


def _lctui_rows(db: Path) -> dict[tuple[str, int], tuple[str, str, float | None]]:
    """(task, data line) -> (user text, output, score) of lctui's latest generations."""
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute(
            "SELECT g.task, e.metadata, e.preamble || e.context || e.question, g.output, "
            "s.value FROM generations g JOIN examples e USING (example_id) "
            "LEFT JOIN scores s ON s.generation_id = g.generation_id AND s.latest "
            "WHERE g.latest"
        ).fetchall()
    found = {}
    for task, metadata, text, output, value in rows:
        line = int(json.loads(metadata)["inputs"]["line"])
        found[str(task), line] = (str(text), str(output or ""), value)
    return found


_LOGGED = re.compile(r"Request \S+ details: prompt: (.*), prompt_token_ids: (\[[\d, ]*\]|None)")


@dataclass(frozen=True)
class Logged:
    prompts: Counter[tuple[str, str]]  # (rendered prompt, token ids) -> requests
    # Request lines that cannot be read: a line longer than the pipe writes atomically
    # can have the engine process's own log lines written into its middle.
    unreadable: int


def server_prompts(log: Path, start: int, end: int) -> Logged:
    """The prompts the server received between two places of its log: each as its chat
    template rendered it, with its token ids (vLLM's DEBUG request log)."""
    with log.open("rb") as handle:
        handle.seek(start)
        text = handle.read(end - start).decode("utf-8", "replace")
    found: Counter[tuple[str, str]] = Counter()
    unreadable = 0
    for line in text.splitlines():
        match = _LOGGED.search(line)
        if match:
            found[ast.literal_eval(match.group(1)), match.group(2)] += 1
        elif " details: prompt: " in line:
            unreadable += 1
    return Logged(found, unreadable)


def times_sent(prompt: str, logged: Counter[tuple[str, str]]) -> int:
    """How many requests carried `prompt` (a user message: the server logs it inside its
    chat template). Which rows a pipeline's requests carried, whatever it filed its
    answers under."""
    return sum(count for (rendered, _), count in logged.items() if prompt in rendered)


_THROUGHPUT = re.compile(r"Avg prompt throughput: ([\d.]+) tokens/s")


@dataclass(frozen=True)
class ServerCheck:
    ruler: int  # requests RULER's pipeline made, as the server logged them
    lctui: int
    same: int  # prompts (rendered text and token ids) both sent, counted with repeats
    unreadable: int  # request lines of the log that could not be read (both pipelines)
    prompt_tokens: int  # of lctui's requests, as the server counted them
    prefill_peak: float  # the server's best 10-second prompt throughput while lctui ran

    @property
    def floor_s(self) -> float:
        """The least time the server needs to read lctui's prompts at its best rate."""
        return self.prompt_tokens / self.prefill_peak if self.prefill_peak else 0.0


def check_server(p: Pipelines) -> ServerCheck:
    ruler = server_prompts(p.server_log, p.marks[p.variant], p.marks[p.variant + 1])
    lctui = server_prompts(p.server_log, p.marks[-2], p.marks[-1])
    with p.server_log.open("rb") as handle:
        handle.seek(p.marks[-2])
        text = handle.read(p.marks[-1] - p.marks[-2]).decode("utf-8", "replace")
    peak = max((float(m.group(1)) for m in _THROUGHPUT.finditer(text)), default=0.0)
    with duckdb.connect(str(p.db), read_only=True) as con:
        row = con.execute("SELECT sum(prompt_tokens) FROM generations WHERE latest").fetchone()
    tokens = int(row[0] or 0) if row else 0
    return ServerCheck(
        ruler.prompts.total(),
        lctui.prompts.total(),
        (ruler.prompts & lctui.prompts).total(),
        ruler.unreadable + lctui.unreadable,
        tokens,
        peak,
    )


def compare_pipelines(p: Pipelines) -> list[TaskResult]:
    """Row by row: RULER's prediction file is in its data file's order (call_api.py
    writes each window of threads in row order), lctui's generations carry their line."""
    summary = _summary(p.pred)
    lctui = _lctui_rows(p.db)
    logged = server_prompts(p.server_log, p.marks[p.variant], p.marks[p.variant + 1])
    results = []
    for task in p.tasks:
        result = TaskResult(task, p.threads, ruler_score=summary.get(task))
        data = _jsonl(p.data / task / "validation.jsonl")
        preds = _jsonl(p.pred / f"{task}.jsonl")
        values = []
        for line, (row, pred) in enumerate(zip(data, preds, strict=True), start=1):
            result.rows += 1
            if pred["index"] != row["index"]:
                sys.exit(f"{task}:{line}: RULER's prediction is of row {pred['index']}")
            sent = str(row["input"]) + str(row.get("answer_prefix", ""))
            count = times_sent(sent, logged.prompts)
            result.ruler_sent_row += count == 1
            mine = lctui.get((task, line))
            if mine is None:
                result.differences.append(f"{task}:{line}: no lctui generation")
                continue
            text, output, value = mine
            if value is not None:
                values.append(value)
            result.same_prompt += text == sent
            if output == pred["pred"]:
                result.same_pred += 1
                continue
            note = f" (RULER sent this row's prompt {count} times)" if count != 1 else ""
            result.differences.append(
                f"{task}:{line}{note}\n      RULER: {str(pred['pred'])[:160]!r}\n"
                f"      lctui: {output[:160]!r}"
            )
        result.lctui_n = len(values)
        result.lctui_score = round(statistics.mean(values) * 100, 2) if values else None
        results.append(result)
    return results


def print_budgets(budgets: dict[str, int]) -> None:
    """RULER's tokens_to_generate per task (read from the snapshot) against lctui's."""
    pairs = {t: (b, RULER_TASKS[t].answer_tokens) for t, b in budgets.items() if t in RULER_TASKS}
    wrong = {t: v for t, v in pairs.items() if v[0] != v[1]}
    print(f"answer budgets: RULER's constants equal lctui's for {len(pairs) - len(wrong)} tasks")
    for task, (theirs, ours) in wrong.items():
        print(f"  DIFFERENT {task}: RULER {theirs}, lctui {ours}")


def print_report(
    results: list[TaskResult],
    server: ServerCheck,
    times: dict[str, float],
    commit: str,
    args: argparse.Namespace,
) -> None:
    threads = results[0].threads if results else 0
    print(f"\nRULER {commit[:7]} (call_api --threads {threads}) against lctui, one server ", end="")
    print(f"({args.served_name}), {args.length} tokens, {args.n} examples a task")
    print("| task | rows | RULER sent the row | same prompt | same prediction | RULER | lctui |")
    print("|---|---|---|---|---|---|---|")
    for r in results:
        shown = f"{r.lctui_score:.2f}" if r.lctui_score is not None else "-"
        print(
            f"| {r.task} | {r.rows} | {r.ruler_sent_row} | {r.same_prompt} | {r.same_pred} | "
            f"{r.ruler_score:.2f} | {shown} |"
        )
    rows = sum(r.rows for r in results)
    same_prompt = sum(r.same_prompt for r in results)
    same_pred = sum(r.same_pred for r in results)
    equal = sum(r.ruler_score == r.lctui_score for r in results)
    print(
        f"prompts identical: {same_prompt}/{rows} ({100 * same_prompt / rows:.1f} %); "
        f"predictions identical: {same_pred}/{rows} ({100 * same_pred / rows:.1f} %); "
        f"task scores equal: {equal}/{len(results)}"
    )
    print(
        f"at the server (rendered prompt and token ids): RULER sent {server.ruler}, lctui "
        f"{server.lctui}, the same {server.same}; unreadable log lines {server.unreadable}"
    )
    call, evaluate = times[f"ruler-t{threads}"], times[f"eval-t{threads}"]
    ruler = call + evaluate
    print(
        f"wall time: RULER call_api {call:.1f} s + evaluate {evaluate:.1f} s = {ruler:.1f} s; "
        f"lctui run {times['lctui']:.1f} s ({times['lctui'] / ruler:.2f}x); "
        f"prepare (shared) {times['prepare']:.1f} s"
    )
    print(
        f"the server's floor: lctui's {server.prompt_tokens:,} prompt tokens at its best "
        f"{server.prefill_peak:.0f} prompt tokens/s take {server.floor_s:.1f} s"
    )
    for r in results:
        for difference in r.differences:
            print(f"  differs: {difference}")


def _task_means(db: Path, by_seed: bool) -> dict[tuple[str, int], list[float]]:
    """Each task's (and seed's) latest scores in `db`."""
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute(
            "SELECT g.task, e.seed, s.value FROM generations g JOIN examples e USING "
            "(example_id) JOIN scores s ON s.generation_id = g.generation_id AND s.latest "
            "WHERE g.latest AND s.value IS NOT NULL"
        ).fetchall()
    found: dict[tuple[str, int], list[float]] = {}
    for task, seed, value in rows:
        found.setdefault((str(task), int(seed) if by_seed else 0), []).append(float(value))
    return found


def print_own(inputs_db: Path, own_db: Path, tasks: list[str]) -> None:
    """lctui's own examples (one column a seed) beside RULER's inputs, run by lctui on
    the same server: what lctui's wording and filling change, and the noise between seeds."""
    theirs = _task_means(inputs_db, by_seed=False)
    ours = _task_means(own_db, by_seed=True)
    seeds = sorted({seed for _, seed in ours})
    print("\nlctui's own examples against RULER's inputs (lctui on both, same server):")
    print("| task | RULER's inputs | " + " | ".join(f"own, seed {s}" for s in seeds) + " |")
    print("|---|---|" + "---|" * len(seeds))
    columns: dict[str, list[float]] = {}
    for task in tasks:
        cells = [statistics.mean(theirs.get((task, 0), [0.0]))]
        cells += [statistics.mean(ours.get((task, s), [0.0])) for s in seeds]
        for name, value in zip(["inputs", *map(str, seeds)], cells, strict=True):
            columns.setdefault(name, []).append(value)
        print(f"| {task} | " + " | ".join(f"{v:.3f}" for v in cells) + " |")
    print("| mean | " + " | ".join(f"{statistics.mean(v):.3f}" for v in columns.values()) + " |")
