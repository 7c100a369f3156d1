"""LIFEval metrics of lctui's own runs read the response total its scorer recorded, as
they do for the published scores: both must mean LIFBench's total_score.

LIFBench's list tasks give a response that names no list entry a total of 0 even when
its length earns the format point's 0.2 (the original stops there); lctui records
that total as the score and keeps the 0.2 on the point. An ARS recomputed from the
points would read 0.05 for such a response where the published files say 0.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from lctui.cli import main
from lctui.store import open_store
from lctui.suites.lifbench.analysis.metrics import lifbench_reports, lifbench_responses


def test_an_entry_less_reply_reads_the_recorded_total_not_its_points(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "own.duckdb"
    task = "lifbench_single_query_id"
    run = ["run", "-m", "gold", "-t", task, "-l", "3k", "-n", "1", "--db", str(db)]
    assert main(run) == 0
    with duckdb.connect(str(db)) as con:
        row = con.execute("SELECT generation_id, output FROM generations").fetchone()
        assert row is not None
        generation_id, gold = row
        # As long as the asked entry, but none of the list's entries.
        con.execute(
            "UPDATE generations SET output = ? WHERE generation_id = ?",
            ["z" * len(gold.strip()), generation_id],
        )
    assert main(["rescore", "--all", "--db", str(db)]) == 0
    capsys.readouterr()
    with open_store(db, read_only=True) as store:
        cur = store.cursor()
        value, status = cur.execute(
            "SELECT score, status FROM results WHERE generation_id = ?", [generation_id]
        ).fetchone() or (None, None)
        points = dict(
            cur.execute(
                "SELECT point, earned FROM rubric WHERE generation_id = ?", [generation_id]
            ).fetchall()
        )
        (view_ars,) = cur.execute(
            "SELECT ars FROM lifeval_responses WHERE generation_id = ?", [generation_id]
        ).fetchone() or (None,)
        (response,) = lifbench_responses(store, ["gold"])
        (report,) = lifbench_reports(store, ["gold"])
    assert (value, status) == (0.0, "unparsed")
    assert points["format"] == pytest.approx(0.2)  # the point keeps its partial credit
    assert view_ars == 0.0
    assert response.ars == 0.0
    assert report.ars == 0.0
