"""A value from outside quoted in a message (an importer's problem line, a data check)
goes through `escape_unprintable`: it reads as it is and does nothing to the terminal."""

from __future__ import annotations

import pytest

from lctui.core.text import escape_unprintable


def test_printable_text_comes_back_unchanged() -> None:
    for text in ("plain", "résumé 中文 ✓", "", "a b"):
        assert escape_unprintable(text) is text


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("\x1b[2J", "\\x1b[2J"),  # clears the screen
        ("\x1b]0;title\x07", "\\x1b]0;title\\x07"),  # sets the window title, rings
        ("a\nb\tc\r", "a\\nb\\tc\\r"),
        ("\x00\x7f\x9b", "\\x00\\x7f\\x9b"),  # NUL, DEL, the C1 control sequence introducer
        ("evil\u202etxt.exe", "evil\\u202etxt.exe"),  # a right-to-left override
        ("\ud800", "\\ud800"),  # a lone surrogate
    ],
)
def test_controls_become_escapes(text: str, shown: str) -> None:
    assert escape_unprintable(text) == shown
    assert escape_unprintable(text).isprintable()
