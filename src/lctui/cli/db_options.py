"""The `--db` and `--config` options every command takes, and the one place that turns
them into the database path and lctui.toml's settings (`resolve_db`).

The CLI's subcommands, `lctui tui` and `lctui serve` all call `resolve_db`; this module
imports nothing of the CLI, so the TUI can use it without loading the commands.
"""

from __future__ import annotations

import argparse
import os
import shlex
from dataclasses import dataclass
from pathlib import Path

from lctui.core.config import Config, load_config
from lctui.core.errors import UserInputError
from lctui.core.paths import data_dir, default_db_path
from lctui.store.db import MEMORY


def common_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--db",
        metavar="PATH",
        help="DuckDB file (default: lctui.toml's db, else "
        "~/.local/share/lctui/lctui.duckdb; env LCTUI_DB)",
    )
    parser.add_argument("--config", metavar="PATH", help="lctui.toml to read models from")


@dataclass(frozen=True)
class ResolvedDb:
    """The database a command opens and the lctui.toml that was read to choose it."""

    path: Path
    config: Config


def resolve_db(args: argparse.Namespace) -> ResolvedDb:
    """Read lctui.toml (`--config`, else the usual places) and choose the database path:
    --db, else $LCTUI_DB, else `db` in lctui.toml, else the data folder's default.
    A given path must be in a folder that exists (UserInputError)."""
    config = load_config(args.config)
    return ResolvedDb(_db_path(args, config), config)


def _db_path(args: argparse.Namespace, config: Config) -> Path:
    if args.db:
        path = Path(args.db).expanduser()
        given_as = f"--db {args.db}"
    elif os.environ.get("LCTUI_DB"):
        path = Path(os.environ["LCTUI_DB"]).expanduser()
        given_as = f"LCTUI_DB={os.environ['LCTUI_DB']}"
    elif config.db is not None:
        path = config.db
        given_as = f"db = {str(path)!r} in {config.path or 'lctui.toml'}"
    else:
        return default_db_path()
    if str(path) != MEMORY:
        check_db_folder(path, given_as)
    return path


def check_db_folder(file: Path, given_as: str) -> None:
    """Refuse a database path whose folder is missing: lctui creates its own data folder,
    never a folder a typo made up. `given_as` says where the path came from."""
    folder = file.parent
    if folder.is_dir() or folder == data_dir():
        return
    if folder.exists():
        raise UserInputError(f"{given_as}: {folder} is not a folder; give a path in a folder")
    raise UserInputError(
        f"{given_as}: the folder {folder} does not exist; create it first "
        f"(mkdir -p {shlex.quote(str(folder))}) or give a path in an existing folder"
    )
