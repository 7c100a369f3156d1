"""Results files filled by real `lctui run`s of the gold model, for tests that compare runs."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from lctui.cli import main
from lctui.store.derived import refresh_derived


def two_gold_runs(folder: Path, n: int) -> tuple[Path, str, str]:
    """Two runs of gold on the same `n` examples into `folder`/ab.duckdb (the second at
    another temperature, so a new generation key): the file and both run ids, oldest first."""
    run = ["run", "--model", "gold", "--tasks", "niah_single_1", "--lengths", "1k", "--n", str(n)]
    db = folder / "ab.duckdb"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LCTUI_DATA_DIR", str(folder / "data"))
        assert main([*run, "--db", str(db)]) == 0
        assert main([*run, "--temperature", "0.5", "--db", str(db)]) == 0
    con = duckdb.connect(str(db))
    runs = [r[0] for r in con.execute("SELECT run_id FROM runs ORDER BY started_at").fetchall()]
    con.close()
    assert len(runs) == 2
    return db, runs[0], runs[1]


# Runs of gold on niah_single_1 that share no example with the first ("base"), each for
# one reason; "allowance" stands for an older lctui that reserved another template size.
UNPAIRABLE = {
    "base": ["--lengths", "1k", "--tokenizer", "o200k_base"],
    "tokenizer": ["--lengths", "1k", "--tokenizer", "cl100k_base"],
    "seed": ["--lengths", "1k", "--tokenizer", "o200k_base", "--seed", "1"],
    "length": ["--lengths", "2k", "--tokenizer", "o200k_base"],
    "allowance": ["--lengths", "1k", "--tokenizer", "o200k_base", "--temperature", "0.5"],
}


def unpairable_runs(folder: Path) -> tuple[Path, dict[str, str]]:
    """Gold runs into `folder`/unpairable.duckdb, one per UNPAIRABLE entry: the file and
    the run id of each entry."""
    import lctui.tasks.base

    db = folder / "unpairable.duckdb"
    runs: dict[str, str] = {}
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LCTUI_DATA_DIR", str(folder / "data"))
        for name, args in UNPAIRABLE.items():
            if name == "allowance":
                mp.setattr(lctui.tasks.base, "TEMPLATE_ALLOWANCE", 32)
            run = ["run", "--model", "gold", "--tasks", "niah_single_1", "--n", "2", *args]
            assert main([*run, "--db", str(db)]) == 0
            con = duckdb.connect(str(db), read_only=True)
            row = con.execute("SELECT run_id FROM runs ORDER BY started_at DESC LIMIT 1").fetchone()
            con.close()
            assert row is not None
            runs[name] = str(row[0])
    return db, runs


def alter(db: Path, run_a: str, run_b: str) -> list[str]:
    """Examples e0..e7 (by id): B lacks e0 and e1, B failed on e2, B is wrong on e3-e5,
    A is wrong on e6, both are right on e7. Returns the example ids in that order."""
    con = duckdb.connect(str(db))
    examples = [r[0] for r in con.execute("SELECT example_id FROM examples ORDER BY 1").fetchall()]

    def gen(run: str, example: str) -> str:
        row = con.execute(
            "SELECT generation_id FROM generations WHERE run_id = ? AND example_id = ?",
            [run, example],
        ).fetchone()
        assert row is not None
        return str(row[0])

    for example in examples[:2]:
        con.execute("DELETE FROM generations WHERE generation_id = ?", [gen(run_b, example)])
    failed = gen(run_b, examples[2])
    con.execute(
        "UPDATE generations SET status = 'error', error = 'boom' WHERE generation_id = ?", [failed]
    )
    con.execute(
        "UPDATE scores SET status = 'error', value = NULL WHERE generation_id = ?", [failed]
    )
    for example in examples[3:6]:
        con.execute("UPDATE scores SET value = 0 WHERE generation_id = ?", [gen(run_b, example)])
    con.execute("UPDATE scores SET value = 0 WHERE generation_id = ?", [gen(run_a, examples[6])])
    con.execute(
        "UPDATE generations SET output = 'no idea at all' WHERE generation_id = ?",
        [gen(run_b, examples[3])],
    )
    # rows changed by hand: what the writer keeps on write (store/result_cells.py)
    refresh_derived(con)
    con.close()
    return examples
