"""Themes from `*.toml` files (Textual Theme fields), and the remembered choice.

Theme files are looked up in the ones lctui ships (`lctui/resources/themes`),
~/.config/lctui/themes and $LCTUI_THEMES_DIR; a later file with the same name wins.
"""

from __future__ import annotations

import os
import sys
from dataclasses import fields
from pathlib import Path

from textual.theme import Theme

from lctui.resources import themes_dir
from lctui.tui.state.ui_state import recall, remember

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

DEFAULT_THEME = "lctui-dark"
SAFE_THEME = "lctui-256"
_FIELDS = {f.name for f in fields(Theme)}


def theme_dirs() -> list[Path]:
    dirs = [themes_dir()]
    config = os.environ.get("XDG_CONFIG_HOME")
    dirs.append((Path(config) if config else Path.home() / ".config") / "lctui" / "themes")
    if os.environ.get("LCTUI_THEMES_DIR"):
        dirs.append(Path(os.environ["LCTUI_THEMES_DIR"]))
    return dirs


def load_themes() -> dict[str, Theme]:
    """Every valid theme file; a broken file is skipped with its error kept for display."""
    themes: dict[str, Theme] = {}
    for folder in theme_dirs():
        for path in sorted(folder.glob("*.toml")) if folder.is_dir() else []:
            try:
                data = tomllib.loads(path.read_text(encoding="utf-8"))
                theme = Theme(**{k: v for k, v in data.items() if k in _FIELDS})
            except (OSError, tomllib.TOMLDecodeError, TypeError, ValueError) as exc:
                THEME_ERRORS.append(f"{path}: {exc}")
                continue
            themes[theme.name] = theme
    return themes


THEME_ERRORS: list[str] = []


def remembered_theme() -> str | None:
    value = recall("theme")
    return value if isinstance(value, str) else None


def remember_theme(name: str) -> None:
    remember("theme", name)


def initial_theme(available: dict[str, Theme]) -> str:
    """The remembered theme, else a 256-colour-safe one when the terminal lacks truecolor."""
    remembered = remembered_theme()
    if remembered in available:
        return str(remembered)
    truecolor = os.environ.get("COLORTERM", "").lower() in ("truecolor", "24bit")
    if not truecolor and "256" in os.environ.get("TERM", "") and SAFE_THEME in available:
        return SAFE_THEME
    return DEFAULT_THEME if DEFAULT_THEME in available else "textual-dark"
