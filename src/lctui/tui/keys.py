"""Keys as people write them, one formatter for every place that names a key: the
footer (`compact`: `^n`, `⏎`), the help screen and messages (`ctrl+n`, `enter`, `?`,
`]`), never Textual's internal names (`question_mark`, `right_square_bracket`)."""

from __future__ import annotations

from textual.keys import format_key

# Spelled out outside the footer: the symbols read well in a row of keys, less in prose.
_WORDS = {"enter": "enter", "up": "up", "down": "down", "left": "left", "right": "right"}


def key_name(key: str, *, compact: bool = False) -> str:
    """One key: `ctrl+n` (`^n` compact), `?`, `]`, `esc`, `enter` (`⏎` compact), `f1`."""
    *modifiers, base = key.split("+") if key != "+" else ["+"]
    name = format_key(base) if compact or base not in _WORDS else _WORDS[base]
    if compact and modifiers == ["ctrl"]:
        return f"^{name}"
    return "+".join([*modifiers, name])


def keys_name(keys: str, *, compact: bool = False) -> str:
    """A binding's keys (`f1,question_mark`): each named, `f1 / ?`."""
    return " / ".join(key_name(key.strip(), compact=compact) for key in keys.split(","))
