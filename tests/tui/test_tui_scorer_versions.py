"""Scores made by an older scorer version in the TUI: the heatmap marks their cells
(`2old`), a notice names their runs and the fix, and `s` scores them again, after
which the marks are gone (the old rows kept, superseded)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from helpers.outdated_runs import bump, run_ids, stored_versions
from helpers.pilot import settle_each_worker as settle
from helpers.results_screen import (
    cell_text,
    notes,
    score_key_offered,
    screen_of,
    status_line,
)
from helpers.unscored_runs import delete_scores
from lctui.tui.app import LctuiApp
from lctui.tui.widgets.heatmap import Heatmap

MakeApp = Callable[..., LctuiApp]


async def test_outdated_cells_are_marked_and_a_notice_names_their_run(
    make_app: MakeApp, results_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (run_id,) = run_ids(results_db)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert cell_text(app, "vt", 1024) == "1.00"
        assert "Outdated" not in notes(app) and not score_key_offered(app)
    newer = bump(monkeypatch)  # the rules changed after these scores were made
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        # gold: json_kv, niah_single_1, vt at 1K and 2K, 2 examples each
        for task in ("json_kv", "niah_single_1", "vt"):
            for length in (1024, 2048):
                assert cell_text(app, task, length) == "1.00 2old"
        grid = screen_of(app).grid
        assert grid is not None and grid.n_outdated == 12
        assert "12 outdated (s)" in str(screen_of(app).query_one(Heatmap).border_subtitle)
        said = notes(app)
        assert "12 results of this grid were scored by an older version of the scorer" in said
        assert f"(recall v{newer - 1}, now v{newer}), in run {run_id}" in said
        assert f"s re-scores them (or `lctui rescore --run {run_id}`)" in said
        assert "2 by an older scorer (s re-scores them)" in status_line(app)
        assert "Re-score old" in app.screen.active_bindings["s"].binding.description
        await pilot.press("down", "d")  # niah_single_1: depth x length, marked too
        await settle(pilot)
        depth = screen_of(app).grid
        assert depth is not None and depth.is_depth
        assert {cell.text for cell in depth.grid.cells.values()} == {"1.00 1old"}


async def test_s_scores_the_outdated_again_then_the_marks_are_gone(
    make_app: MakeApp, results_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = bump(monkeypatch) - 1
    shown: list[str] = []
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = screen_of(app)
        set_status = screen._set_status

        def show(text: str) -> None:
            shown.append(text)
            set_status(text)

        monkeypatch.setattr(screen, "_set_status", show)
        await pilot.press("s")
        await settle(pilot)
        assert "Re-scoring the outdated scores: 12 of 12…" in shown
        assert "Scored 12 of 12 generation(s)." in notes(app)
        assert cell_text(app, "vt", 1024) == "1.00"
        grid = screen_of(app).grid
        assert grid is not None and grid.n_outdated == 0
        assert not score_key_offered(app)  # nothing left to score: key hidden
    assert stored_versions(results_db) == {
        ("recall", old, False): 12,  # kept, superseded
        ("recall", old + 1, True): 12,
    }


async def test_s_scores_missing_and_outdated_together(
    make_app: MakeApp, results_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    delete_scores(results_db, "task = 'vt'")
    bump(monkeypatch)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert cell_text(app, "vt", 1024) == "2miss"
        assert cell_text(app, "json_kv", 1024) == "1.00 2old"
        assert "Score missing" in app.screen.active_bindings["s"].binding.description
        await pilot.press("s")
        await settle(pilot)
        assert "Scored 12 of 12 generation(s)." in notes(app)
        grid = screen_of(app).grid
        assert grid is not None and (grid.n_unscored, grid.n_outdated) == (0, 0)
