"""The footer of every screen: the keys that matter there, in one row that never
overlaps or ends in stray characters.

Textual's footer docks the command palette key on the right, over the keys that do not
fit (`f1 He▏^p palette`, `^p palettep`). Here the palette is a key like the others
(the app binds ctrl+p with show=True) and the row is fitted to the width: when the
keys do not all fit, the least important are left out (the help screen lists every
key, and f1 always shows). Keys of one binding group show as one item (`f/u/x/a
Filter`). Key names come from tui/keys.py through the app's `get_key_display`.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import ComposeResult
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

from lctui.core.text import cell_width

# The app's keys in the order they are kept when the row is short of room: help first
# (it lists the rest), then what starts work, then the rest. Screens' own keys come
# right after help, in their order.
APP_KEY_PRIORITY = (
    "help",
    "new_run",
    "command_palette",
    "quit",
    "next_theme",
    "show_results",
)
# Where the app's keys show, after the screen's own: the same on every screen.
APP_KEY_ORDER = ("show_results", "new_run", "command_palette", "next_theme", "help", "quit")
_SCREEN_RANK = 10  # screens' keys rank after help and before the app's other keys
_APP_RANK = 1000


@dataclass(frozen=True)
class FooterItem:
    """One item of the row: its key(s) as shown, what it does, and how much it matters
    (`rank`: lower is kept first)."""

    key: str  # the key a click presses
    shown: str  # `^n`, `f/u/x/a`
    description: str
    action: str
    enabled: bool
    tooltip: str
    rank: int

    @property
    def width(self) -> int:
        # A compact footer key: key, a space, the description, one cell of margin.
        return cell_width(self.shown) + 1 + cell_width(self.description) + 1


def fit_items(items: list[FooterItem], width: int) -> list[FooterItem]:
    """The items that fit `width` cells, the lowest ranks kept, in their order."""
    kept = sorted(items, key=lambda item: item.rank)
    # The last item's margin may run past the edge: it is blank.
    while kept and sum(item.width for item in kept) - 1 > width:
        kept.pop()
    chosen = set(map(id, kept))
    return [item for item in items if id(item) in chosen]


class KeyFooter(Footer):
    """A compact footer whose keys fit its width (see the module's docstring)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, compact=True, show_command_palette=False)
        self._fitted_to = 0

    def items(self) -> list[FooterItem]:
        """Every key the footer would show with room enough, in display order."""
        items: list[FooterItem] = []
        seen: set[str] = set()
        grouped: dict[int, int] = {}  # id(group) -> index of its item
        for position, active in enumerate(self.screen.active_bindings.values()):
            namespace, binding, enabled, tooltip = active
            if not binding.show or binding.action in seen:
                continue
            seen.add(binding.action)
            if namespace is self.app:
                action = binding.action.removeprefix("app.")
                order = APP_KEY_PRIORITY.index(action) if action in APP_KEY_PRIORITY else None
                rank = _APP_RANK if order is None else (order if order == 0 else _APP_RANK + order)
            else:
                rank = _SCREEN_RANK + position
            shown = self.app.get_key_display(binding)
            group = binding.group
            if group is not None and id(group) in grouped:
                index = grouped[id(group)]
                first = items[index]
                items[index] = FooterItem(
                    first.key, f"{first.shown}/{shown}", first.description, first.action,
                    first.enabled or enabled, first.tooltip, first.rank,
                )  # fmt: skip
                continue
            description = binding.description if group is None else group.description
            if group is not None:
                grouped[id(group)] = len(items)
            item = FooterItem(
                binding.key, shown, description, binding.action, enabled,
                tooltip or binding.description, rank,
            )  # fmt: skip
            items.append(item)
        return sorted(items, key=_place)

    def compose(self) -> ComposeResult:
        if not self._bindings_ready:
            return
        width = self.size.width or self.app.size.width
        self._fitted_to = width
        for item in fit_items(self.items(), width):
            yield FooterKey(
                item.key,
                item.shown,
                item.description,
                item.action,
                disabled=not item.enabled,
                tooltip=item.tooltip,
            ).data_bind(compact=Footer.compact)

    def on_resize(self) -> None:
        if self.size.width != self._fitted_to and self._bindings_ready:
            self.call_after_refresh(self.recompose)


def _place(item: FooterItem) -> int:
    """Where an item shows: the screen's keys first, in their order (a stable sort), then
    the app's in APP_KEY_ORDER."""
    action = item.action.removeprefix("app.")
    return 1 + APP_KEY_ORDER.index(action) if action in APP_KEY_ORDER else 0
