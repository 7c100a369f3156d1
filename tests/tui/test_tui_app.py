"""The app shell: first launch imports the sample runs, themes switch and are remembered,
the help screen lists keys, and `lctui` without arguments means the TUI."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from pathlib import Path

import duckdb
import pytest
from textual.widgets import DataTable

from lctui.core.config import Config
from lctui.core.paths import data_dir
from lctui.main import main as lctui_main
from lctui.tui.app import SAMPLE_RUNS, LctuiApp
from lctui.tui.screens.help import HelpScreen

MakeApp = Callable[..., LctuiApp]


async def test_first_launch_on_an_empty_db_imports_the_sample_runs(tmp_path: Path) -> None:
    assert any(SAMPLE_RUNS.glob("*/generations.parquet")), (
        "lctui/resources/sample_runs/ must hold recorded runs"
    )
    db = tmp_path / "fresh.duckdb"
    app = LctuiApp(db, Config())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        with contextlib.closing(app.store.cursor()) as cur:  # it holds the file: closed
            row = cur.execute("SELECT count(*), count(DISTINCT model) FROM results")
            count, models = row.fetchone() or (0, 0)
        assert count > 0 and models == 1
    # A second launch finds the data and imports nothing more.
    app = LctuiApp(db, Config())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        with contextlib.closing(app.store.cursor()) as cur:
            again = cur.execute("SELECT count(*) FROM results").fetchone()
        assert again == (count,)


async def test_samples_are_not_imported_into_a_db_with_results(make_app: MakeApp) -> None:
    app = make_app(import_samples=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        row = app.store.cursor().execute("SELECT DISTINCT model FROM results").fetchall()
        assert row == [("gold",)]


async def test_theme_switches_and_is_remembered(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        first = app.theme
        assert first.startswith("lctui-")
        await pilot.press("ctrl+t")
        second = app.theme
        assert second != first and second.startswith("lctui-")
    state = json.loads((data_dir() / "tui-state.json").read_text())
    assert state["theme"] == second
    app = make_app()
    async with app.run_test(size=(80, 24)):
        assert app.theme == second


async def test_help_screen_lists_the_keys(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        table = app.screen.query_one(DataTable)
        actions = {str(table.get_row_at(i)[1]) for i in range(table.row_count)}
        assert {"Help", "Results", "New run", "Theme", "Quit"} <= actions
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)


async def test_read_only_app_refuses_to_start_runs(make_app: MakeApp, results_db: Path) -> None:
    app = make_app(read_only=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("ctrl+n")
        await pilot.pause()
        assert "read-only" in " ".join(str(n.message) for n in app._notifications)
    con = duckdb.connect(str(results_db), read_only=True)
    assert con.execute("SELECT count(*) FROM generations").fetchone() == (12,)


async def test_a_data_folder_open_to_others_is_a_notification(make_app: MakeApp) -> None:
    folder = data_dir()
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(0o755)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        told = [str(n.message) for n in app._notifications]
    assert sum("open to other users" in m for m in told) == 1, told
    # A path longer than the toast's line is broken after a slash (break_long_words).
    assert f"chmod -R go= {folder}" in " ".join(told).replace("/\n", "/")


def test_locked_db_gives_a_message_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.duckdb"
    bad.write_text("not a database\n" * 100)
    app = LctuiApp(bad, Config(), import_samples=False)
    app.run(headless=True, size=(80, 24))
    assert app.return_code == 2


def test_lctui_without_arguments_means_the_tui(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[list[str]] = []

    def tui_main(argv: list[str]) -> int:
        seen.append(list(argv))
        return 0

    monkeypatch.setattr("lctui.tui.start.main", tui_main)
    assert lctui_main([]) == 0 and seen == [[]]
    assert lctui_main(["--db", "x.duckdb"]) == 0 and seen[-1] == ["--db", "x.duckdb"]
    assert lctui_main(["serve", "--port", "9000"]) == 0 and seen[-1][0] == "serve"
    # The other commands go to the headless CLI.
    assert lctui_main(["tasks", "--format", "json"]) == 0


async def test_every_screen_key_is_also_a_palette_command(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        titles = {command.title for command in app.get_system_commands(app.screen)}
        described = {
            active.binding.description
            for active in app.screen.active_bindings.values()
            if active.binding.description and active.enabled
        }
        assert described <= titles | {"Theme", "Quit"}
        assert {"Results", "New run", "Help"} <= titles


def test_the_tui_refuses_a_db_in_a_missing_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from lctui.tui.start import main as launch_main

    def started(self: LctuiApp, *args: object, **kwargs: object) -> None:
        pytest.fail("the TUI started on a database whose folder does not exist")

    monkeypatch.setattr(LctuiApp, "run", started)
    missing = tmp_path / "typo" / "folder"
    for argv in (["--db", str(missing / "r.duckdb")], ["serve", "--db", str(missing / "r.duckdb")]):
        assert launch_main(argv) == 2
        err = capsys.readouterr().err
        assert f"the folder {missing} does not exist" in err and "mkdir -p" in err
    monkeypatch.setenv("LCTUI_DB", str(missing / "r.duckdb"))
    assert launch_main([]) == 2
    assert "LCTUI_DB=" in capsys.readouterr().err
    assert not (tmp_path / "typo").exists()
