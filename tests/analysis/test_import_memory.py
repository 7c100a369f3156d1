"""A 1 GB file without a newline (sparse: all zero bytes) named like a result or data
file is skipped with a problem that names it, by a real `lctui` process whose peak
resident memory stays far below the file (issue 25.1: it used to be read whole, 2.2 GB).
The bound is generous (500 MB: Python, DuckDB and lctui's imports take about 200);
what it catches is a reader that holds the file or one line of it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from helpers.data_folder import write_data_folder

SIZE = 1 << 30
PEAK_BOUND_KIB = 500 * 1024
# The command run by a process that reports its own peak resident memory at the end:
# VmHWM of its memory map (getrusage's maxrss would also count the parent's, pytest's,
# which the child shares until its exec).
PROBE = (
    "import re, sys\n"
    "from lctui.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "with open('/proc/self/status', encoding='ascii') as status:\n"
    "    peak = re.search(r'VmHWM:\\s+(\\d+) kB', status.read()).group(1)\n"
    "print(f'peak-rss-kib {peak}', file=sys.stderr)\n"
    "sys.exit(code)\n"
)


def _sparse(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as handle:
        handle.truncate(SIZE)
    return path


def _layout(kind: str, root: Path) -> tuple[list[str], Path, str]:
    """The command's arguments, the big file and what the command says of it."""
    if kind == "ruler-results":
        big = _sparse(root / "pred" / "niah_single_1.jsonl")
        args = ["import", kind, str(root), "--length", "4096", "--model", "m"]
        return args, big, "longer than 64 MiB"
    if kind == "longbench-results":
        big = _sparse(root / "Model.jsonl")
        return ["import", kind, str(root)], big, "longer than 64 MiB"
    if kind == "helmet-results":
        big = _sparse(root / "Model" / "kilt_nq_in8192.json")
        return ["import", kind, str(root)], big, "not valid JSON"
    folder = write_data_folder(root / "data")
    big = folder / "kilt" / "nq-dev-multikilt_1000_k20_dep6.jsonl"
    big.unlink()
    _sparse(big)
    return ["data", "check", str(folder), "--format", "tsv"], big, "longer than 64 MiB"


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["ruler-results", "longbench-results", "helmet-results", "data"])
def test_a_1gb_file_without_newlines_is_skipped_in_bounded_memory(
    tmp_path: Path, kind: str
) -> None:
    args, big, said = _layout(kind, tmp_path / "files")
    if args[0] == "import":
        args += ["--db", str(tmp_path / "runs.duckdb")]
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args], capture_output=True, text=True, timeout=600
    )
    assert "internal error" not in done.stderr, done.stderr
    peak = int(done.stderr.rsplit("peak-rss-kib ", 1)[1].split()[0])
    assert peak < PEAK_BOUND_KIB, f"peak resident memory {peak // 1024} MiB"
    assert f"{big}:1: {said}" in done.stdout or f"{big}: line 1: {said}" in done.stdout, (
        done.stdout[-2000:]
    )
