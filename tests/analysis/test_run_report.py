"""A run's report is that run's results: what it generated and the stored results its
plan covered (reused, counted and named), never other runs' results of its models.

Real gold runs into one file: A answers index 0 of two tasks at 1K; B asks for n 2 of
the same, so it reuses A's answers and generates index 1; C answers json_kv at 2K.
Gold stops being a reference (as a model's results would be) so that HELMET's table,
which leaves references out, has rows."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest

import lctui.engine.todo
from lctui.analysis.report_md import render
from lctui.analysis.report_run import run_blocks
from lctui.cli import main
from lctui.store import open_store
from lctui.store.read.run_results import reused_generations, run_cells
from lctui.store.transfer import export_parquet, import_parquet
from lctui.suites.lifbench.analysis.metrics import lifbench_reports

TASKS = "niah_single_1,json_kv,lifbench_single_query_id"


def _runs(db: Path) -> list[str]:
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute("SELECT run_id FROM runs ORDER BY started_at").fetchall()
    return [str(r[0]) for r in rows]


@pytest.fixture(scope="module")
def three_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    folder = tmp_path_factory.mktemp("run-report")
    db = folder / "r.duckdb"
    run = ["run", "--model", "gold", "--db", str(db)]
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LCTUI_DATA_DIR", str(folder / "data"))
        assert main([*run, "--tasks", TASKS, "--lengths", "1k", "--n", "1"]) == 0
        assert main([*run, "--tasks", TASKS, "--lengths", "1k", "--n", "2"]) == 0
        later = ["--tasks", "json_kv,lifbench_single_query_id", "--lengths", "2k", "--n", "1"]
        assert main([*run, *later]) == 0
    with duckdb.connect(str(db)) as con:
        con.execute("UPDATE models SET reference = false")
    runs = _runs(db)
    assert len(runs) == 3
    return db, runs


def test_the_report_counts_the_reused_results_and_names_their_run(
    three_runs: tuple[Path, list[str]],
) -> None:
    db, (run_a, run_b, _) = three_runs
    with open_store(db, read_only=True) as store:
        cells = {(c.task, c.length): c for c in run_cells(store, run_b)}
        reused = reused_generations(store, run_b)
        markdown = render(run_blocks(store, run_b), "md")
    assert set(cells) == {(t, 1024) for t in TASKS.split(",")}
    assert [(c.n_scored, c.n_reused) for c in cells.values()] == [(2, 1)] * 3
    assert [(s.run_id, s.generations) for s in reused.sources] == [(run_a, 3)]
    assert {(g.task, g.run_id) for g in reused.listed} == {(t, run_a) for t in TASKS.split(",")}
    # The report said n=1 here, without a word on the stored example.
    assert "| gold | json_kv | 1.00 n=2 reused=1 |" in markdown
    assert "| gold | niah_single_1 | 1.00 n=2 reused=1 |" in markdown
    assert f"3 example(s) already stored (3 from run {run_a})" in markdown
    assert "### Reused results" in markdown
    for g in reused.listed:
        assert f"| {g.example_id} | {g.generation_id} | {run_a} |" in markdown


def test_the_suite_tables_hold_the_runs_results_only(three_runs: tuple[Path, list[str]]) -> None:
    """C's json_kv at 2K is gold's too, but not B's: B's HELMET table has 1K alone, and
    its LIFEval numbers are of its two 1K responses."""
    db, (_, run_b, run_c) = three_runs
    with open_store(db, read_only=True) as store:
        b = render(run_blocks(store, run_b), "md")
        c = render(run_blocks(store, run_c), "md")
        page = render(run_blocks(store, run_b), "html")
        (lifeval_b,) = lifbench_reports(store, ["gold"], run_id=run_b)
        (lifeval_all,) = lifbench_reports(store, ["gold"])
    assert (lifeval_b.responses, set(lifeval_b.ars_by_length)) == (2, {1})
    assert (lifeval_all.responses, set(lifeval_all.ars_by_length)) == (3, {1, 2})
    assert "### LIFEval" in b
    helmet_b = b.split("### HELMET categories")[1].split("###")[0]
    assert "| gold | 1k |" in helmet_b and "| gold | 2k |" not in helmet_b
    helmet_c = c.split("### HELMET categories")[1].split("###")[0]
    assert "| gold | 2k |" in helmet_c and "| gold | 1k |" not in helmet_c
    assert "Reused results" not in c  # C reused nothing
    assert "n=2 reused=1" in page and ">2k<" not in page


def test_reused_results_travel_with_an_exported_run(
    three_runs: tuple[Path, list[str]], tmp_path: Path
) -> None:
    db, (run_a, run_b, _) = three_runs
    with open_store(db, read_only=True) as store:
        export_parquet(store, tmp_path / "a", [run_a])
        export_parquet(store, tmp_path / "b", [run_b])
    with open_store(tmp_path / "copy.duckdb") as store:
        import_parquet(store, tmp_path / "a")
        assert import_parquet(store, tmp_path / "b") == 3
        assert import_parquet(store, tmp_path / "b") == 0  # nothing twice
        reused = reused_generations(store, run_b)
        assert [(s.run_id, s.generations) for s in reused.sources] == [(run_a, 3)]
    # A folder written before the table existed (no run_reused.parquet) still imports.
    older = tmp_path / "older"
    shutil.copytree(tmp_path / "a", older)
    (older / "run_reused.parquet").unlink()
    with open_store(tmp_path / "older.duckdb") as store:
        assert import_parquet(store, older) == 3


def test_stored_items_found_while_the_run_goes_are_recorded_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With chunks of 2 items, the stored ones of later chunks are found after the run
    started (engine/todo.py): they are recorded as reused all the same."""
    db = tmp_path / "r.duckdb"
    monkeypatch.setenv("LCTUI_DATA_DIR", str(tmp_path / "data"))
    run = ["run", "--model", "gold", "--tasks", "niah_single_1,vt", "--db", str(db)]
    assert main([*run, "--lengths", "1k,2k", "--n", "1"]) == 0
    monkeypatch.setattr(lctui.engine.todo, "CHECK_CHUNK", 2)
    assert main([*run, "--lengths", "1k,2k", "--n", "2"]) == 0
    first, second = _runs(db)
    with open_store(db, read_only=True) as store:
        reused = reused_generations(store, second)
        cells = run_cells(store, second)
    assert [(s.run_id, s.generations) for s in reused.sources] == [(first, 4)]
    assert sorted((c.task, c.length, c.n_scored, c.n_reused) for c in cells) == [
        ("niah_single_1", 1024, 2, 1),
        ("niah_single_1", 2048, 2, 1),
        ("vt", 1024, 2, 1),
        ("vt", 2048, 2, 1),
    ]
