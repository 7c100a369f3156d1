"""Scores made by an older scorer version, for the tests that check they are flagged and
re-scored: the current version of a scorer is bumped (as a rule change would), so the
scores real gold runs stored before are outdated."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from lctui.scoring.versions import SCORER_VERSIONS, current_versions


def bump(monkeypatch: pytest.MonkeyPatch, scorer: str = "recall") -> int:
    """Raise `scorer`'s current version by one for the test; returns the new version."""
    newer = current_versions()[scorer] + 1  # a suite's scorer declares its own
    monkeypatch.setitem(SCORER_VERSIONS, scorer, newer)
    return newer


def stored_versions(db: Path, table: str = "scores") -> dict[tuple[object, ...], int]:
    """(scorer, scorer_version, latest) -> rows of `table`, as stored."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.execute(
            f"SELECT scorer, scorer_version, latest, count(*) FROM {table} GROUP BY ALL"
        ).fetchall()
    finally:
        con.close()
    return {(scorer, version, latest): int(n) for scorer, version, latest, n in rows}


def run_ids(db: Path) -> list[str]:
    """The runs of `db`, oldest first."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.execute("SELECT run_id FROM runs ORDER BY started_at, run_id").fetchall()
    finally:
        con.close()
    return [str(r[0]) for r in rows]
