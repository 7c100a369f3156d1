"""Text is not cut where there is room, at 80x24 and 120x40: the inspector's header
names every fact whole (a second line before a cut), the compare screen's list of
changed examples has a title that fits, and a notification breaks a path after a `/`,
never inside a name. Real app and runs; SVG snapshots of each."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, Static
from textual.widgets._toast import Toast

from helpers.gold_runs import alter, two_gold_runs
from helpers.pilot import on_screen, open_inspector, settle
from lctui.core.config import Config
from lctui.core.paths import exports_dir
from lctui.engine import published_run
from lctui.tui.app import LctuiApp, toast_text_width
from lctui.tui.screens.compare import CompareScreen
from lctui.tui.state.inspector_header import pack

SIZES = [(80, 24), (120, 40)]
SIZE_IDS = ["80x24", "120x40"]
# The facts of niah_single_1 2k #0's header: 83 cells with wide separators.
FACTS = ("niah_single_1", "2k", "example 0", "seed 0", "gold (reference)", "plain prompt")


def _gid(db: Path, task: str = "niah_single_1", length: int = 2048) -> str:
    with duckdb.connect(str(db), read_only=True) as con:
        row = con.execute(
            "SELECT g.generation_id FROM generations AS g JOIN examples AS e USING (example_id) "
            "WHERE e.task = ? AND e.length = ? AND e.idx = 0",
            [task, length],
        ).fetchone()
    assert row is not None
    return str(row[0])


def _flat(lines: list[str]) -> str:
    return " ".join(" ".join(lines).split())


@pytest.fixture(scope="module")
def ab_db(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    """Two gold runs made to differ (helpers/gold_runs.py: alter), their run ids fixed so
    that the snapshots show the same pickers every time."""
    ids = iter(["20250301-101500-aaaaaa", "20250301-101600-bbbbbb"])
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(published_run, "new_run_id", lambda: next(ids))
        db, run_a, run_b = two_gold_runs(tmp_path_factory.mktemp("fits"), 8)
    alter(db, run_a, run_b)
    return db, f"run:{run_a}", f"run:{run_b}"


# -- the inspector's header --------------------------------------------------------------


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
async def test_the_inspector_header_names_every_fact_whole(
    make_app: Any, results_db: Path, size: tuple[int, int]
) -> None:
    gid = _gid(results_db)
    async with make_app().run_test(size=size) as pilot:
        screen = await open_inspector(pilot, gid)
        header = screen.query_one("#inspector-header", Static)
        shown = on_screen(pilot.app, header)
        assert all(len(line) <= size[0] for line in shown)
        flat = _flat(shown)
        for fact in FACTS:
            assert fact in flat, shown
        assert "…" not in flat


def test_a_header_too_long_for_one_line_breaks_between_facts() -> None:
    parts = ["niah_multikey_1", "128k", "example 12", "seed 0", "meta-llama/Llama-3.1-8B"]
    assert pack(parts, " · ", 40).split("\n") == [
        "niah_multikey_1 · 128k · example 12",
        "seed 0 · meta-llama/Llama-3.1-8B",
    ]
    assert pack(["a" * 50, "b"], " · ", 40).split("\n") == ["a" * 50, "b"]  # never cut


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_snapshot_inspector_header(
    snap_compare: Any,
    make_app: Any,
    results_db: Path,
    monkeypatch: pytest.MonkeyPatch,
    size: tuple[int, int],
) -> None:
    monkeypatch.setenv("COLORTERM", "truecolor")  # the starting theme follows the terminal
    gid = _gid(results_db)

    async def run_before(pilot: Pilot[Any]) -> None:
        await open_inspector(pilot, gid)
        await pilot.pause()

    assert snap_compare(make_app(), terminal_size=size, run_before=run_before)


# -- the compare screen's title ----------------------------------------------------------


async def _open_compare(pilot: Pilot[Any], a: str, b: str) -> CompareScreen:
    await settle(pilot)
    pilot.app.push_screen(CompareScreen(a, b))
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, CompareScreen) and screen.result is not None
    return screen


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
async def test_the_changed_examples_title_fits(
    ab_db: tuple[Path, str, str], size: tuple[int, int]
) -> None:
    db, a, b = ab_db
    async with LctuiApp(db, Config(), import_samples=False).run_test(size=size) as pilot:
        screen = await _open_compare(pilot, a, b)
        result = screen.result
        assert result is not None and result.a_better and result.b_better
        changed = screen.query_one("#compare-changed", DataTable)
        top = on_screen(pilot.app, changed)[0]
        title = str(changed.border_title)
        assert title in top, top  # drawn whole in the frame's top line
        assert title.endswith(f"{result.b_better} better in B")


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_snapshot_compare_title(
    snap_compare: Any, ab_db: tuple[Path, str, str], size: tuple[int, int]
) -> None:
    db, a, b = ab_db

    async def run_before(pilot: Pilot[Any]) -> None:
        pilot.app.theme = "lctui-dark"
        await _open_compare(pilot, a, b)
        await pilot.pause(0.3)

    app = LctuiApp(db, Config(), import_samples=False)
    assert snap_compare(app, terminal_size=size, run_before=run_before)


# -- notifications ---------------------------------------------------------------------------


def _toast_lines(app: LctuiApp) -> list[str]:
    toasts = list(app.screen.query(Toast))
    assert toasts, "no notification on screen"
    # Its text, less the frame: a cell of border and one of padding on each side (the
    # footer may cover its region's last line).
    lines = on_screen(app, toasts[-1])
    return [line[2:].rstrip() for line in lines if line.startswith("▌") and line[2:].strip()]


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
async def test_a_notification_breaks_a_path_after_a_slash_never_inside_a_name(
    make_app: Any, results_db: Path, size: tuple[int, int]
) -> None:
    gid = _gid(results_db)
    async with make_app().run_test(size=size, notifications=True) as pilot:
        await open_inspector(pilot, gid)
        await pilot.press("e")
        await settle(pilot)
        (path,) = exports_dir().glob("lctui-niah_single_1-*.json")
        lines = _toast_lines(pilot.app)
        assert lines[0] == "Export" and lines[1].startswith("Exported to")
        # The path, line by line: every line that ends inside it ends at a separator.
        pieces = [lines[1].removeprefix("Exported to").strip(), *lines[2:]]
        pieces = [piece.strip() for piece in pieces if piece.strip()]
        assert "".join(pieces) == str(path), lines
        assert all(piece[-1] in "/-_." for piece in pieces[:-1]), lines


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_snapshot_notification_of_a_long_path(
    snap_compare: Any, make_app: Any, monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]
) -> None:
    monkeypatch.setenv("COLORTERM", "truecolor")
    # A fixed path (the real exports folder is a temporary one, another at every run).
    path = "/home/researcher/.local/share/lctui/exports/lctui-niah_multikey_1-131072-0.json"

    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        pilot.app.notify(f"Exported to {path}", title="Export", timeout=60)
        await pilot.pause(0.3)

    assert snap_compare(make_app(), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("width", [40, 79, 80, 81, 120, 200])
async def test_notifications_are_wrapped_at_the_width_textual_gives_a_toast(
    make_app: Any, width: int
) -> None:
    async with make_app().run_test(size=(width, 24), notifications=True) as pilot:
        await settle(pilot)
        pilot.app.notify("word " * 60, title="Width")
        await pilot.pause()
        toast = list(pilot.app.screen.query(Toast))[-1]
        assert toast.content_region.width == toast_text_width(width)
