"""Reading the results screen of a running app: its heatmap cells, status line, notes."""

from __future__ import annotations

from textual.widgets import Static

from lctui.tui.app import LctuiApp
from lctui.tui.screens.results import ResultsScreen
from lctui.tui.state.heatmap_data import CellKey


def screen_of(app: LctuiApp) -> ResultsScreen:
    screen = app.screen
    assert isinstance(screen, ResultsScreen)
    return screen


def cell_text(app: LctuiApp, task: str, length: int) -> str:
    grid = screen_of(app).grid
    assert grid is not None
    found = grid.find(CellKey("gold", task, length))
    assert found is not None, f"no cell {task} {length}"
    return grid.grid.cells[found].text


def status_line(app: LctuiApp) -> str:
    return str(app.screen.query_one("#results-status", Static).content)


def notes(app: LctuiApp) -> str:
    return " ".join(str(n.message) for n in app._notifications)


def score_key_offered(app: LctuiApp) -> bool:
    """Whether the footer offers `s` (with nothing to score it is left out, and pressed
    anyway it says so)."""
    active = app.screen.active_bindings.get("s")
    return active is not None and active.binding.show
