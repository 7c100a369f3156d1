"""What scripts/parity/e2e_helmet.py prints: HELMET's and lctui's prompts, predictions and
per-dataset scores side by side, read from eval.py's output JSON and lctui's database.

eval.py's output JSON keeps, per dataset and length, each test item in HELMET's order
with the chat messages it sent (`input_text`), the output (with the answer prefix put in
front when use_chat_template is false), its answer and metrics, and the dataset's
averaged metrics (x100). lctui's database keeps each example's user text, where it came
from (the row's place in HELMET's order), the output and the score. The two are paired
by task, length and place, and each pair is checked to hold the same gold answers, so
that no difference comes from comparing one example with another.
"""

from __future__ import annotations

import json
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb

from lctui.tasks.inputs.helmet_items import family_of

# HELMET's scripts/collect_results.py: the metric of each dataset's column.
METRICS = {"msmarco_rerank": "NDCG@10"}
DEFAULT_METRIC = "substring_exact_match"


@dataclass
class Row:
    """One dataset at one length, both pipelines."""

    dataset: str
    task: str
    length: int
    chat: bool
    helmet_n: int = 0
    lctui_n: int = 0
    paired: int = 0  # pairs whose gold answers agree
    same_prompt: int = 0
    same_pred: int = 0
    same_score: int = 0  # of the identical predictions, those both score alike
    helmet_score: float | None = None  # eval.py's averaged metric (x100)
    helmet_rows_score: float | None = None  # the mean of its rows' metric over the pairs
    lctui_score: float | None = None  # lctui's mean (x100)
    differences: list[str] = field(default_factory=list)


def _flat(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list):
        return tuple(a for v in value for a in _flat(v))
    return (str(value),)


def _lctui(db: Path) -> dict[tuple[str, int, int], dict[str, Any]]:
    """(task, length, place in HELMET's order) -> lctui's latest generation of it."""
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute(
            "SELECT g.task, g.length, e.metadata, e.preamble || e.context || e.question, "
            "g.output, e.gold, s.value "
            "FROM generations g JOIN examples e USING (example_id) "
            "LEFT JOIN scores s ON s.generation_id = g.generation_id AND s.latest "
            "WHERE g.latest"
        ).fetchall()
    found = {}
    for task, length, metadata, text, output, gold, value in rows:
        meta = json.loads(metadata)
        found[str(task), int(length), int(meta["inputs"]["row"])] = {
            "text": str(text),
            "output": str(output or ""),
            "gold": tuple(json.loads(gold)),
            "score": value,
            "output_prefix": meta["output_prefix"],
        }
    return found


def _helmet_files(out: Path) -> list[dict[str, Any]]:
    found = []
    for path in sorted(out.glob("*.json")):
        loaded = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(loaded, dict) and "averaged_metrics" in loaded:
            found.append(loaded)
    return found


def _short(text: str, at: int) -> str:
    return repr(text[max(0, at - 30) : at + 30])


def compare(out: Path, db: Path) -> list[Row]:
    ours = _lctui(db)
    rows: list[Row] = []
    for loaded in _helmet_files(out):
        args = loaded["args"]
        dataset, length = str(args["datasets"]), int(args["input_max_length"])
        family = family_of(dataset)
        if family is None:
            continue
        row = Row(dataset, family.task, length, bool(args["use_chat_template"]))
        metric = METRICS.get(family.task, DEFAULT_METRIC)
        row.helmet_score = float(loaded["averaged_metrics"][metric])
        row.helmet_n = len(loaded["data"])
        row.lctui_n = sum(1 for k in ours if k[:2] == (family.task, length))
        mine, theirs = [], []
        for place, item in enumerate(loaded["data"]):
            got = ours.get((family.task, length, place))
            if got is None:
                row.differences.append(f"#{place}: no lctui example")
                continue
            if set(got["gold"]) != set(_flat(item["answer"])):
                row.differences.append(f"#{place}: other gold answers (a pairing bug)")
                continue
            row.paired += 1
            # Both send one chat user message, which the server frames with the model's
            # chat template (lctui stores that framing as the prompt's head and tail).
            messages = item["input_text"]
            one = len(messages) == 1 and messages[0]["role"] == "user"
            sent = messages[0]["content"] if one else json.dumps(messages)
            if sent == got["text"]:
                row.same_prompt += 1
            else:
                at = next(
                    (i for i, (a, b) in enumerate(zip(sent, got["text"], strict=False)) if a != b),
                    min(len(sent), len(got["text"])),
                )
                row.differences.append(
                    f"#{place}: prompt differs at {at} (HELMET {len(sent)}, lctui "
                    f"{len(got['text'])} chars): {_short(sent, at)} vs {_short(got['text'], at)}"
                )
            prefix = "" if row.chat else got["output_prefix"]
            output = str(item["output"])
            raw = output[len(prefix) :] if output.startswith(prefix) else output
            theirs.append(float(item[metric]))
            mine.append(float(got["score"] or 0.0))
            if raw == got["output"]:
                row.same_pred += 1
                # HELMET rounds NDCG to 5 places.
                if abs(theirs[-1] - mine[-1]) < 1e-4:
                    row.same_score += 1
                else:
                    row.differences.append(
                        f"#{place}: one prediction, HELMET {theirs[-1]}, lctui {mine[-1]}"
                    )
            else:
                row.differences.append(
                    f"#{place}: prediction HELMET {raw[:80]!r} vs lctui {got['output'][:80]!r}"
                )
        if mine:
            row.helmet_rows_score = 100 * statistics.fmean(theirs)
            row.lctui_score = 100 * statistics.fmean(mine)
        rows.append(row)
    return sorted(rows, key=lambda r: (r.length, r.task))


def print_report(rows: list[Row], times: dict[str, float]) -> None:
    heads = (
        "dataset", "length", "chat", "HELMET n", "lctui n", "paired", "same prompt",
        "same pred", "same score", "HELMET", "HELMET rows", "lctui",
    )  # fmt: skip
    print("\t".join(heads))
    for r in rows:

        def num(value: float | None) -> str:
            return "-" if value is None else f"{value:.2f}"

        print(
            "\t".join(
                [
                    r.dataset,
                    str(r.length),
                    str(r.chat),
                    str(r.helmet_n),
                    str(r.lctui_n),
                    str(r.paired),
                    f"{r.same_prompt}/{r.paired}",
                    f"{r.same_pred}/{r.paired}",
                    f"{r.same_score}/{r.same_pred}",
                    num(r.helmet_score),
                    num(r.helmet_rows_score),
                    num(r.lctui_score),
                ]
            )
        )
    total = sum(r.paired for r in rows)
    prompts = sum(r.same_prompt for r in rows)
    preds = sum(r.same_pred for r in rows)
    scored = sum(r.same_score for r in rows)
    equal = sum(
        1
        for r in rows
        if r.helmet_score is not None
        and r.lctui_score is not None
        and round(r.helmet_score, 2) == round(r.lctui_score, 2)
    )
    print(f"identical prompts: {prompts}/{total}; identical predictions: {preds}/{total}")
    print(f"identical predictions scored alike by HELMET and lctui: {scored}/{preds}")
    print(f"per-dataset scores equal (2 places): {equal}/{len(rows)}")
    for name, seconds in times.items():
        print(f"wall time {name}: {seconds:.1f} s")
    if times.get("HELMET"):
        print(f"lctui / HELMET wall time: {times['lctui'] / times['HELMET']:.2f}")
    for r in rows:
        for line in r.differences:
            print(f"  {r.dataset} {r.length}: {line}")
