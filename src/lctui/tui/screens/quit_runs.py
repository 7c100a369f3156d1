"""The question quitting asks while runs go: cancel them, wait for them, leave them
running detached, or stay.

Dismissed with CANCEL, WAIT, LEAVE or None (stay: escape, or the quit key again). The
app acts on the answer (tui/run_host.py).
"""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from lctui.tui.state.run_manager import ManagedRun

CANCEL, WAIT, LEAVE = "cancel", "wait", "leave"
LISTED = 6  # runs named in the question; more are counted


class QuitRunsScreen(ModalScreen[str | None]):
    DEFAULT_CSS = """
    QuitRunsScreen { align: center middle; }
    QuitRunsScreen > #quit-box { width: 76; height: auto; max-height: 22;
                                 border: round $warning; background: $surface; padding: 0 1; }
    QuitRunsScreen #quit-runs { height: auto; margin-bottom: 1; }
    QuitRunsScreen #quit-choices { height: auto; border: none; padding: 0; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "choose('cancel')", "Cancel them and quit", id="quit-cancel"),
        Binding("w", "choose('wait')", "Quit when they finish", id="quit-wait"),
        Binding("l", "choose('leave')", "Leave them running", id="quit-leave"),
        Binding("escape", "stay", "Stay", id="quit-stay"),
        # The quit key again is no "yes": it stays too, as escape does.
        Binding("ctrl+q", "stay", "Stay", show=False, priority=True),
    ]

    def __init__(self, going: list[ManagedRun], *, waiting: bool = False) -> None:
        super().__init__()
        self.going = going
        self.waiting = waiting  # quitting when they finish was chosen already

    def compose(self) -> ComposeResult:
        with Vertical(id="quit-box") as box:
            box.border_title = "Quit lctui?"
            yield Static(self._question(), id="quit-runs")
            yield OptionList(
                Option(
                    "c  cancel them, then quit (finished examples are kept; the same "
                    "run started again does only the rest)",
                    id=CANCEL,
                ),
                Option("w  quit when they have finished (browse meanwhile)", id=WAIT),
                Option(
                    "l  leave them running detached, then quit (each starts again in its "
                    "own process and resumes; `lctui runs` lists them, `lctui attach ID` "
                    "watches one)",
                    id=LEAVE,
                ),
                Option("escape  stay", id="stay"),
                id="quit-choices",
            )

    def _question(self) -> str:
        count = len(self.going)
        lines = [f"{count} runs going:" if count != 1 else "A run is going:"]
        for run in self.going[:LISTED]:
            state = run.state
            # Before it has planned, its status says what it does (loading, cancelling).
            done = f"  {state.done + state.errors}/{state.to_do}" if state.planned else ""
            lines.append(f"  {run.name}  {run.status}{done}")
        if count > LISTED:
            lines.append(f"  and {count - LISTED} more")
        if self.waiting:
            lines.append("lctui already quits when they have finished.")
        return "\n".join(lines)

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        choice = event.option.id
        self.dismiss(choice if choice in (CANCEL, WAIT, LEAVE) else None)

    def action_choose(self, choice: str) -> None:
        self.dismiss(choice)

    def action_stay(self) -> None:
        self.dismiss(None)
