"""The SQL console's query history and saved queries, kept as JSON in the data
directory (lctui.core.paths) so they outlive the session (tui/state/ui_state.py reads
and writes them; a damaged file starts afresh rather than blocking the console)."""

from __future__ import annotations

from pathlib import Path

from lctui.core.paths import data_dir
from lctui.tui.state.ui_state import read_json, write_json

HISTORY_SIZE = 200


def history_path() -> Path:
    return data_dir() / "sql_history.json"


def saved_path() -> Path:
    return data_dir() / "sql_saved.json"


def load_history() -> list[str]:
    """Queries run, oldest first, each once."""
    found = read_json(history_path())
    return [q for q in found if isinstance(q, str)] if isinstance(found, list) else []


def add_to_history(history: list[str], sql: str) -> list[str]:
    """The history with `sql` moved (or added) to the end, trimmed and written."""
    updated = [q for q in history if q != sql] + [sql]
    updated = updated[-HISTORY_SIZE:]
    write_json(history_path(), updated)
    return updated


def load_saved() -> dict[str, str]:
    found = read_json(saved_path())
    if not isinstance(found, dict):
        return {}
    return {str(k): v for k, v in found.items() if isinstance(v, str)}


def save_query(saved: dict[str, str], name: str, sql: str) -> dict[str, str]:
    updated = {**saved, name: sql}
    write_json(saved_path(), updated)
    return updated
