"""Input and TextArea that apply keys in the order they were typed.

Textual (8.2.8 and earlier) inserts a printable key in the focused Input or TextArea as
soon as the widget gets it, but runs a bound key (backspace, delete, the arrows, ctrl+k)
only once its Key event has bubbled up to the app and the app has looked up the
bindings. Keys that arrive in one read of the terminal (a paste without bracketed paste,
fast typing over SSH) are all queued first, so "b", "a", backspace, "c" gives "ba": the
"c" is inserted before the backspace deletes. This is Textualize/textual#6605; its open
fix, Textualize/textual#6631, runs the widget's own bindings in the widget's key
handler, and so does this module until a Textual release has it. Then: use Textual's
Input and TextArea again, delete this module and the guard in
tests/tui/test_typing_order.py (its other tests stay, on the plain widgets).
"""

from __future__ import annotations

from textual import events
from textual.widget import Widget
from textual.widgets import Input, TextArea


async def run_own_binding(widget: Widget, event: events.Key) -> bool:
    """Run the focused `widget`'s own non-priority binding of the key now, as the app
    would when the event reached it (the focused widget heads the app's binding chain,
    with the keymap applied, and priority bindings ran before the widget got the key).
    True when a binding ran; the event then stops here."""
    if widget.check_consume_key(event.key, event.character):
        return False
    chain = widget.screen._binding_chain
    if not chain or chain[0][0] is not widget:
        return False
    for binding in chain[0][1].key_to_bindings.get(event.key, ()):
        if not binding.priority and await widget.app.run_action(binding.action, widget):
            event.stop()
            return True
    return False


class OrderedInput(Input):
    """Textual's Input, its bound keys applied in order with typed characters."""

    async def _on_key(self, event: events.Key) -> None:
        # Textual calls each class's `_on_key` down the MRO: Input's runs after this one
        # and, with no printable character, only restarts the cursor's blink.
        await run_own_binding(self, event)


class OrderedTextArea(TextArea):
    """Textual's TextArea, its bound keys applied in order with typed characters."""

    async def _on_key(self, event: events.Key) -> None:
        # TextArea's own `_on_key` (run after this one) inserts enter, and takes escape
        # in indent mode: a binding of those keys never ran, and must not start now.
        if event.key == "enter" or (event.key == "escape" and self.tab_behavior == "indent"):
            return
        await run_own_binding(self, event)
