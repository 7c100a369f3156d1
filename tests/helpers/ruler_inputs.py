"""Small data files in the format of RULER's prepare.py, laid out as its run.sh lays them
out (BENCHMARK_ROOT/MODEL/synthetic/LENGTH/data/TASK/validation.jsonl), with text of our
own: the shape of RULER's rows (index, input, outputs, length, answer_prefix), none of
its sentences. The inputs hold what a careless reader would change: tabs, runs of
spaces, a carriage return, non-ASCII letters, an emoji and a trailing newline.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

MODEL = "tiny-model"
FILLER = "Grey gulls wheel above the quay;\tfishers mend nets.  Tide turns at dusk.\n"


def ruler_row(task: str, index: int, length: int) -> dict[str, Any]:
    """One invented row of `task` in prepare.py's format."""
    value = str(4100 + 37 * index)
    body = FILLER * 3 + f"Ledger entry: the token for harbour-{index} reads {value}.\n"
    if task.startswith("qa_"):
        return {
            "index": index,
            "input": f"Passage 1:\nThe ferry to Ærø left at {value}.\r\n\nQuestion: when? 🚢",
            "outputs": [value, f"at {value}"],
            "length": 60,
            "length_w_model_temp": 60,
            "answer_prefix": " Answer:",
        }
    if task == "vt":
        names = ["QWXYZ", "PLMOK"]
        return {
            "index": index,
            "input": body + f"VAR {names[0]} = {value}\nVAR {names[1]} = VAR {names[0]}\n"
            f"Which names hold {value}?",
            "outputs": names,
            "length": 120,
            "length_w_model_temp": 120,
            "answer_prefix": f" Answer: names holding {value}: ",
        }
    return {
        "index": 200 + index,  # RULER's niah rows hold the answer's character offset here
        "input": body + FILLER + f"Which token does harbour-{index} read?",
        "outputs": [value],
        "length": 150 + index,
        "length_w_model_temp": 150 + index,
        "answer_prefix": f" The token for harbour-{index} is",
    }


def write_ruler_root(
    root: Path,
    tasks: tuple[str, ...] = ("niah_single_1", "vt", "qa_1"),
    lengths: tuple[int, ...] = (1024, 2048),
    rows: int = 2,
) -> Path:
    """BENCHMARK_ROOT with one model's data files for `tasks` at `lengths`; the root."""
    for length in lengths:
        for task in tasks:
            path = root / MODEL / "synthetic" / str(length) / "data" / task / "validation.jsonl"
            path.parent.mkdir(parents=True, exist_ok=True)
            lines = [json.dumps(ruler_row(task, i, length)) for i in range(rows)]
            path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def data_file(root: Path, task: str, length: int) -> Path:
    return root / MODEL / "synthetic" / str(length) / "data" / task / "validation.jsonl"


def sent_prompts(path: Path) -> list[str]:
    """What RULER's call_api.py sends for each row of a data file: input + answer_prefix."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    return [row["input"] + row.get("answer_prefix", "") for row in rows]
