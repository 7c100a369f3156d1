"""The TUI's state between sessions, in one place: small JSON files in the data folder
(lctui.core.paths). `tui-state.json` holds one value per key (the theme, the launch
screen's last choices); the SQL console keeps its history and saved queries in files
of their own through the same reader and writer.

Reading never fails: a missing or damaged file reads as nothing remembered, and a
file that cannot be written is skipped. Remembering is a convenience, never a reason
for the app to stop.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

from lctui.core.paths import data_dir, make_data_dir
from lctui.core.private import write_private


def state_path() -> Path:
    return data_dir() / "tui-state.json"


def read_json(path: Path) -> object:
    """The JSON value in `path`; None when it is missing or damaged."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def write_json(path: Path, value: object) -> None:
    """Write `value` as JSON, replacing the file at once (never half-written), mode 0600
    (the SQL history holds queries, which may quote prompts)."""
    if path.parent == data_dir():
        make_data_dir()
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    write_private(tmp, json.dumps(value, indent=1))
    tmp.replace(path)


def recall(key: str) -> object:
    """The value remembered under `key`, None when there is none."""
    found = read_json(state_path())
    return found.get(key) if isinstance(found, dict) else None


def remember(key: str, value: object) -> None:
    """Keep `value` under `key` beside the other keys; skipped when the file cannot be
    written (a read-only data folder)."""
    path = state_path()
    found = read_json(path)
    state = found if isinstance(found, dict) else {}
    state[key] = value
    with contextlib.suppress(OSError):
        write_json(path, state)
