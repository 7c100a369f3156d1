"""Where lctui keeps its files: the default database, caches (XDG directories), the
runs' records and exports; the data folder and lctui's folders in it are created 0700
(core/private.py writes the files in them 0600)."""

from __future__ import annotations

import os
import re
import secrets
import time
from collections.abc import Iterable
from pathlib import Path


def data_dir() -> Path:
    base = os.environ.get("LCTUI_DATA_DIR") or os.environ.get("XDG_DATA_HOME")
    root = Path(base) if base else Path.home() / ".local" / "share"
    return root if os.environ.get("LCTUI_DATA_DIR") else root / "lctui"


def cache_dir() -> Path:
    base = os.environ.get("LCTUI_CACHE_DIR") or os.environ.get("XDG_CACHE_HOME")
    root = Path(base) if base else Path.home() / ".cache"
    return root if os.environ.get("LCTUI_CACHE_DIR") else root / "lctui"


def default_db_path() -> Path:
    return data_dir() / "lctui.duckdb"


def runs_dir() -> Path:
    """`<data folder>/runs/`: the record, log and socket of each run that publishes its
    events (core/run_record.py). Not created here: `make_runs_dir` does, readable only
    by the user, since its sockets let whoever reaches them pause and cancel a run."""
    return data_dir() / "runs"


PRIVATE_FOLDER = 0o700
OTHERS = 0o077  # the group's and other users' permission bits


def make_private_folder(folder: Path, *, tighten: bool = True) -> Path:
    """`folder` created if missing, mode 0700 (its missing parents get the umask's);
    an existing one open to others is made 0700 when `tighten`."""
    existed = folder.is_dir()
    folder.mkdir(parents=True, exist_ok=True, mode=PRIVATE_FOLDER)
    if not existed or (tighten and folder.stat().st_mode & OTHERS):
        folder.chmod(PRIVATE_FOLDER)
    return folder


def make_data_dir() -> Path:
    """The data folder, created 0700 if missing; an existing one is left as it is."""
    return make_private_folder(data_dir(), tighten=False)


def make_data_subdir(name: str) -> Path:
    """A folder of lctui's own in the data folder (runs, exports, crashes, servers),
    0700, made so again if it was wider."""
    make_data_dir()
    return make_private_folder(data_dir() / name)


def make_runs_dir() -> Path:
    """`runs_dir()`, created if missing, mode 0700 (made so again if it was wider)."""
    return make_data_subdir(runs_dir().name)


MACHINE_FILE = "machine-id"


def machine_id() -> str | None:
    """This installation's id on this machine: a random one kept in the data folder
    (`machine-id`), made on first use. Runs record it, so that what was measured here
    (the launch screen's estimate) is told apart from runs imported from elsewhere,
    hostnames alike or not. None when the data folder cannot be written."""
    path = data_dir() / MACHINE_FILE
    try:
        found = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        found = ""
    if re.fullmatch(r"[0-9a-f]{32}", found):
        return found
    made = secrets.token_hex(16)
    try:
        make_data_dir()
        # Private like every file of the data folder (core/private.py, which builds on
        # this module, so the mode is given here directly).
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as out:
            os.fchmod(out.fileno(), 0o600)
            out.write(made + "\n")
    except OSError:
        return None
    return made


EXPORTS = "exports"  # the folder of the data folder every export goes to


def exports_dir() -> Path:
    """Where every export goes unless the user names a file (`--out`, the SQL console's
    prompt): `exports/` in the data folder. The TUI's notification and the CLI's stderr
    line say the path."""
    return data_dir() / EXPORTS


def export_file(parts: Iterable[object], suffix: str, *, stamped: bool = True) -> Path:
    """A file in `exports_dir()` whose name says what it holds: the parts joined by `-`
    (anything but letters, digits, `.` and `_` replaced: model names may be paths), then
    the time unless `stamped` is False (an example's export names one generation)."""
    names = [re.sub(r"[^\w.]+", "_", str(p)).strip("_") or "_" for p in parts]
    if stamped:
        names.append(time.strftime("%Y%m%d-%H%M%S"))
    return exports_dir() / f"{'-'.join(names)}.{suffix.lstrip('.')}"
