"""The SQL console's query history and saved queries, kept as JSON in the data
directory (lctui.core.paths) so they outlive the session."""

from __future__ import annotations

import json
from pathlib import Path

from lctui.core.paths import data_dir

HISTORY_SIZE = 200


def history_path() -> Path:
    return data_dir() / "sql_history.json"


def saved_path() -> Path:
    return data_dir() / "sql_saved.json"


def _read(path: Path) -> object:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return None  # a damaged file starts afresh rather than blocking the console


def _write(path: Path, value: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(value, indent=1), encoding="utf-8")
    tmp.replace(path)


def load_history() -> list[str]:
    """Queries run, oldest first, each once."""
    found = _read(history_path())
    return [q for q in found if isinstance(q, str)] if isinstance(found, list) else []


def add_to_history(history: list[str], sql: str) -> list[str]:
    """The history with `sql` moved (or added) to the end, trimmed and written."""
    updated = [q for q in history if q != sql] + [sql]
    updated = updated[-HISTORY_SIZE:]
    _write(history_path(), updated)
    return updated


def load_saved() -> dict[str, str]:
    found = _read(saved_path())
    if not isinstance(found, dict):
        return {}
    return {str(k): v for k, v in found.items() if isinstance(v, str)}


def save_query(saved: dict[str, str], name: str, sql: str) -> dict[str, str]:
    updated = {**saved, name: sql}
    _write(saved_path(), updated)
    return updated
