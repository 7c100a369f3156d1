"""Names and numbers are never cut: `lctui tasks`, `stats`, `compare` and `run`'s summary
at an 80-column terminal (a pseudo-terminal) and piped, through the real command in a
fresh process; and cli/tables.py's `fit_table`, which splits a table too wide for the
terminal into parts that repeat its key columns."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest
from rich.console import Console

from helpers.terminal import run_in_terminal, run_piped
from lctui.cli import main
from lctui.cli.tables import Column, fit_table
from lctui.core.text import ELLIPSIS, cell_width
from lctui.tasks import all_tasks

# Two tasks whose names differ only past the 24th character, the heatmap's old cut.
LONG_TASKS = ["lifbench_blur_offset_query_element", "lifbench_blur_offset_query_id"]


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    """Two gold runs (the second at another temperature) of the long-named tasks and
    niah_single_1 at 4K and 8K: the file and both run ids."""
    folder = tmp_path_factory.mktemp("whole")
    db = folder / "two.duckdb"
    tasks = ",".join([*LONG_TASKS, "niah_single_1"])
    run = ["run", "--model", "gold", "--tasks", tasks, "--lengths", "4k,8k", "--n", "2"]
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LCTUI_DATA_DIR", str(folder / "data"))
        assert main([*run, "--db", str(db)]) == 0
        assert main([*run, "--temperature", "0.5", "--db", str(db)]) == 0
    con = duckdb.connect(str(db), read_only=True)
    runs = [r[0] for r in con.execute("SELECT run_id FROM runs ORDER BY started_at").fetchall()]
    con.close()
    return db, f"run:{runs[0]}", f"run:{runs[1]}"


def _fits(output: str, columns: int) -> None:
    lines = output.splitlines()
    assert lines and max(cell_width(line) for line in lines) <= columns
    assert ELLIPSIS not in output  # nothing was cut


def test_tasks_piped_print_every_task_whole_one_a_line() -> None:
    lines = run_piped(["tasks"]).splitlines()
    header = lines[0].split("\t")
    assert header[:2] == ["task", "groups"] and header[-1] == "unavailable"
    rows = [line.split("\t") for line in lines[1:]]
    assert [r[0] for r in rows] == list(dict.fromkeys(t.name for t in all_tasks()))
    by_name = {r[0]: r for r in rows}
    assert by_name["niah_multikey_3"][1] == "synthetic (RULER), recall (HELMET)"
    # Every parameter whole, on the task's one line.
    assert "value_digits=7 (1..20)" in by_name["niah_single_1"][6]


def test_tasks_at_an_80_column_terminal_keep_every_name_whole() -> None:
    shown = run_in_terminal(["tasks"], columns=80)
    _fits(shown, 80)
    names = {line.split("│")[1].strip() for line in shown.splitlines() if line.startswith("│ ")}
    assert {t.name for t in all_tasks()} <= names
    assert "lifbench (LIFBENCH)" in names  # the groups head their sections


def test_stats_piped_print_whole_numbers_and_at_80_columns_split_the_table(
    two_runs: tuple[Path, str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(two_runs[0])
    assert main(["stats", "--db", db, "--format", "json"]) == 0
    accounts = json.loads(capsys.readouterr().out)
    lines = run_piped(["stats", "--db", db]).splitlines()
    assert lines[0].split("\t")[:3] == ["run", "model", "gens"]
    rows = {(r[0], r[1]): r for r in (line.split("\t") for line in lines[1:])}
    for account in accounts:
        (model,) = account["models"]
        row = rows[(account["run_id"], "gold (reference)")]
        assert row[4] == f"{model['prompt_tokens']:,}" and row[2] == str(model["generations"])
    shown = run_in_terminal(["stats", "--db", db], columns=80)
    _fits(shown, 80)
    # Too wide for 80 columns: each run's table in two parts, the model in both.
    assert shown.count("(1 of 2)") == shown.count("(2 of 2)") == len(accounts)
    assert shown.count("│ gold (reference) │") == 2 * len(accounts)
    for account in accounts:
        assert f"{account['models'][0]['prompt_tokens']:,}" in shown


def test_compare_keeps_task_names_whole_at_80_columns_and_piped(
    two_runs: tuple[Path, str, str],
) -> None:
    db, a, b = two_runs
    shown = run_in_terminal(["compare", a, b, "--db", str(db)], columns=80)
    _fits(shown, 80)
    for task in LONG_TASKS:
        assert f"│ {task} " in shown
    piped = run_piped(["compare", a, b, "--db", str(db)])
    assert ELLIPSIS not in piped and "(1 of" not in piped  # one table, as wide as it needs
    rows = [line for line in piped.splitlines() if line.startswith("│ lifbench")]
    # Two pairs a cell: under the interval's minimum, said in words (issue 24).
    assert len(rows) == 4 and all("too few pairs" in row and "mcnemar" in row for row in rows)


def test_run_summary_piped_is_one_whole_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LCTUI_DATA_DIR", str(tmp_path / "data"))
    args = ["run", "--model", "gold", "--tasks", LONG_TASKS[0], "--n", "1"]
    assert main([*args, "--lengths", "4k,8k,12k,16k,20k,24k", "--db", str(tmp_path / "r.db")]) == 0
    out = capsys.readouterr().out
    row = next(
        line
        for line in out.splitlines()
        if line.startswith(f"│ gold (reference) │ {LONG_TASKS[0]}")
    )
    table = [line for line in out.splitlines() if line.startswith(("│", "┃"))]
    assert row.count("1.00 n=1") == 6 and not any(ELLIPSIS in line for line in table)


def test_fit_table_splits_into_parts_that_repeat_the_key_columns() -> None:
    columns = [Column("model", key=True), *(Column(f"metric {i}", "right") for i in range(8))]
    rows = [["a-model-with-a-long-name-v2", *(f"{i:,}" for i in range(1000, 9000, 1000))]]
    parts = fit_table("t", columns, rows, 60)
    assert len(parts) > 1
    seen: list[str] = []
    for part in parts:
        assert part.columns[0].header == "model"
        seen += [str(c.header) for c in part.columns[1:]]
        console = Console(width=60, record=True, file=open("/dev/null", "w"))  # noqa: SIM115
        console.print(part)
        text = console.export_text()
        assert max(cell_width(line) for line in text.splitlines()) <= 60
        assert "a-model-with-a-long-name-v2" in text and ELLIPSIS not in text
    assert seen == [f"metric {i}" for i in range(8)]  # each column once, in order
    assert len(fit_table("t", columns, rows, None)) == 1  # no limit: one table
