"""Keys are visible: on every screen, at 80x24 and at 120x40, the footer's keys sit side
by side within the width (none under another, no stray characters), the keys that
matter there are among them, and help names keys as people write them (`?`, `]`); a
key with nothing to do there is not offered, and pressed anyway it says why."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path

import duckdb
import pytest
from textual import events
from textual.pilot import Pilot
from textual.widgets import DataTable
from textual.widgets._footer import FooterKey

from helpers.pilot import open_inspector, settle
from lctui.tui.app import LctuiApp
from lctui.tui.keys import key_name, keys_name
from lctui.tui.screens.help import HelpScreen
from lctui.tui.screens.inspector import InspectorCommands
from lctui.tui.widgets.heatmap import Heatmap
from lctui.tui.widgets.key_footer import FooterItem, KeyFooter, fit_items

MakeApp = Callable[..., LctuiApp]
APP_KEYS = {"^n New run", "^p Palette", "^t Theme", "f1 Help", "^q Quit"}
# What each screen's footer shows at 80 columns: its own keys and the app's that fit.
AT_80 = {
    "results": {"⏎ Examples", "d Depth", "f/u/x/a Filter"} | APP_KEYS,
    "launch": {"^s Start", "esc Back", "f2 Models", "f3 Tasks", "f4 Lengths", "^p Palette",
               "f1 Help", "^q Quit"},
    # Without LIFEval scores (this database): p and ] have nothing to show and are not
    # offered (test_tui_lifbench.py checks them where there are scores).
    "lifbench": {"esc Back", "f1 Help", "^q Quit"},
    "compare": {"x Swap A/B", "esc Back", "f1 Help", "^q Quit", "^n New run"},
    "correlation": {"t Task/category", "n Length", "esc Back", "f1 Help"},
    "curves": {"esc Back"} | APP_KEYS,
    "sql": {"f5 Run", "esc Back", "^s Save query", "f1 Help"},
    "inspector": {"n Next", "g Gold", "s Rescore", "r Rerun", "m Model", "y Copy",
                  "e Export", "esc Back", "f1 Help"},
    "runs": {"⏎ Live view", "p Pause/resume", "c Cancel", "esc Back", "f1 Help"},
}  # fmt: skip
OPEN = {"results": [], "launch": ["ctrl+n"], "lifbench": ["L"], "compare": ["C"],
        "correlation": ["S"], "curves": ["V"], "sql": ["Q"], "runs": ["G"]}  # fmt: skip


def _shown(pilot: Pilot[None]) -> list[FooterKey]:
    footer = pilot.app.screen.query_one(KeyFooter)
    return sorted(footer.query(FooterKey), key=lambda key: key.region.x)


def _check_row(pilot: Pilot[None], width: int) -> set[str]:
    """The footer's keys, after checking they sit side by side within `width`."""
    keys = _shown(pilot)
    assert keys
    for before, after in itertools.pairwise(keys):
        assert before.region.right <= after.region.x  # none drawn under another
    assert keys[-1].region.right <= width
    return {f"{key.key_display} {key.description}" for key in keys}


def _gid(db: Path) -> str:
    with duckdb.connect(str(db), read_only=True) as con:
        row = con.execute("SELECT generation_id FROM generations LIMIT 1").fetchone()
    assert row is not None
    return str(row[0])


@pytest.mark.parametrize("screen", [*OPEN, "inspector"])
async def test_the_footer_fits_and_shows_the_keys_that_matter(
    make_app: MakeApp, results_db: Path, screen: str
) -> None:
    async with make_app().run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        if screen == "inspector":
            await open_inspector(pilot, _gid(results_db))
        for key in OPEN.get(screen, []):
            await pilot.press(key)
        await settle(pilot)
        wide = _check_row(pilot, 120)
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        await pilot.pause(0.1)
        narrow = _check_row(pilot, 80)
        assert AT_80[screen] <= narrow
        assert narrow <= wide  # at 80 columns some keys give way, none appears
        if screen in ("results", "inspector"):
            assert wide >= APP_KEYS  # at 120 columns every app key has room


async def test_help_names_keys_as_people_write_them(make_app: MakeApp) -> None:
    async with make_app().run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("L")
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(pilot.app.screen, HelpScreen)
        table = pilot.app.screen.query_one(DataTable)
        keys = {str(table.get_row_at(i)[0]) for i in range(table.row_count)}
        assert {"]", "[", "f1 / ?", "ctrl+n", "esc", "Q / ctrl+e"} <= keys
        assert not any("_" in key for key in keys)  # question_mark, right_square_bracket


def test_one_formatter_names_keys_for_the_footer_and_for_help() -> None:
    assert [key_name(k) for k in ("question_mark", "right_square_bracket", "escape")] == [
        "?",
        "]",
        "esc",
    ]
    assert (key_name("ctrl+n"), key_name("ctrl+n", compact=True)) == ("ctrl+n", "^n")
    assert (key_name("enter"), key_name("enter", compact=True)) == ("enter", "⏎")
    assert keys_name("f1,question_mark") == "f1 / ?"


def test_the_least_important_keys_give_way_first() -> None:
    def item(name: str, rank: int) -> FooterItem:
        return FooterItem(name, name, "x" * 5, name, True, "", rank)

    items = [item("a", 10), item("b", 11), item("h", 0), item("t", 1004)]
    widths = sum(i.width for i in items)
    assert fit_items(items, widths) == items
    assert [i.key for i in fit_items(items, widths - 2)] == ["a", "b", "h"]
    assert [i.key for i in fit_items(items, 9)] == ["h"]  # help stays longest


def _notified(app: LctuiApp) -> list[str]:
    return [" ".join(str(n.message).split()) for n in app._notifications]


async def test_keys_that_have_nothing_to_do_are_left_out_and_say_why(
    make_app: MakeApp, results_db: Path
) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        # Home: every result has a score from its scorer's current version.
        assert not any(key.key == "s" for key in _shown(pilot))
        await pilot.press("s")
        await settle(pilot)
        assert any(m.startswith("Nothing to score: every result on screen") for m in _notified(app))

        # The inspector on an example answered in one call: no other call's prompt.
        screen = await open_inspector(pilot, _gid(results_db))
        assert screen.record is not None and len(screen.record.calls) < 2
        assert not any(key.key == "c" for key in _shown(pilot))
        palette = [str(hit.text) async for hit in InspectorCommands(screen).discover()]
        assert not any("other call" in title for title in palette)
        await pilot.press("c")
        await pilot.pause()
        assert any("answered in one call" in m for m in _notified(app)), _notified(app)
        assert screen.call == 0


async def test_losing_the_focus_keeps_the_focused_widgets_keys(make_app: MakeApp) -> None:
    """What textual-serve's page does at once (test_serve.py shows it through the page):
    the app is told it lost the focus. The heatmap keeps it, and its keys stay offered."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.post_message(events.AppBlur())
        await settle(pilot)
        await pilot.pause(0.1)
        assert isinstance(app.screen.focused, Heatmap)
        assert "⏎ Examples" in _check_row(pilot, 80)
        await pilot.press("enter")  # and works at once
        await settle(pilot)
        assert app.screen.query_one("#results-examples").display
