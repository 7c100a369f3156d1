"""The original harnesses' result files the importer tests read (tests/fixtures/*/results,
written by the originals' own code: see the README.md in each), and small readers of them.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
RULER_RESULTS = FIXTURES / "ruler" / "results"
LONGBENCH_RESULTS = FIXTURES / "longbench" / "results"
RULER_LLAMA = "Llama-3.1-8B-Instruct"
RULER_QWEN = "Qwen2.5-7B-Instruct"


def jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def ruler_pred_files() -> Iterator[Path]:
    """Every prediction file of the RULER fixtures, in path order."""
    return iter(sorted(RULER_RESULTS.glob("*/synthetic/*/pred/*.jsonl")))


def ruler_summary(folder: Path) -> dict[str, float]:
    """evaluate.py's scores (x100) of a pred folder's summary files, by task."""
    scores: dict[str, float] = {}
    for path in sorted(folder.glob("summary*.csv")):
        with path.open(encoding="utf-8", newline="") as handle:
            rows = {row[0]: row[1:] for row in csv.reader(handle) if row}
        scores.update(zip(rows["Tasks"], (float(s) for s in rows["Score"]), strict=True))
    return scores


def longbench_table() -> dict[str, dict[str, float]]:
    """result.py's table of the LongBench fixtures: file name without .jsonl -> column ->
    accuracy in percent."""
    lines = (LONGBENCH_RESULTS / "result.txt").read_text(encoding="utf-8").splitlines()
    header = lines[0].split("\t")
    return {
        cells[0]: {name: float(v) for name, v in zip(header[1:], cells[1:], strict=True)}
        for cells in (line.split("\t") for line in lines[1:])
    }
