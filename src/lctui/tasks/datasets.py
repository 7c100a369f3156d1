"""Where real datasets come from: a local copy of a data release, or a Hugging Face dataset.

A `DataSource` names one place that holds files laid out like a benchmark's data
release (HELMET's: `kilt/nq-dev-multikilt_1000_k1000_dep6.jsonl`, ...). It is either
a local folder (`--data DIR`, `data_dir` in lctui.toml) or a Hugging Face dataset
repository (`hf://ORG/NAME` or `hf://ORG/NAME@REVISION`), whose files are read through
`huggingface_hub` from the standard hub cache (HF_HOME / HF_HUB_CACHE; with
HF_HUB_OFFLINE=1 only from the cache). A file may sit at its release path or under a
`data/` folder (the release tarball unpacks to `data/`).

Files are JSON lines; a line that is not a JSON object is reported with its file and
line number and skipped, so one bad line never loses the other examples. Loaded files
are kept per path and modification time, so every example of a run reads them once.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lctui.core.errors import UserInputError

HUB_SCHEME = "hf://"
RELEASE_FOLDERS = ("", "data/")  # a file at its release path, or under the tarball's data/


@dataclass(frozen=True)
class DataProblem:
    """One line of a data file that could not be read, and why."""

    path: str
    line: int
    reason: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.reason}; line skipped"


@dataclass(frozen=True)
class JsonLines:
    """The rows of a JSON-lines file and the lines that could not be read."""

    path: str
    rows: tuple[Mapping[str, Any], ...]
    lines: tuple[int, ...]  # the line number of each row, for reports on its content
    problems: tuple[DataProblem, ...]


@dataclass(frozen=True)
class DataSource:
    """A local folder or a hub dataset (repo id, optional revision) holding release files."""

    folder: Path | None = None
    repo_id: str | None = None
    revision: str | None = None

    @property
    def label(self) -> str:
        if self.folder is not None:
            return str(self.folder)
        at = f"@{self.revision}" if self.revision else ""
        return f"{HUB_SCHEME}{self.repo_id}{at}"

    def locate(self, release_path: str) -> Path | None:
        """The readable file of `release_path`, or None when this source lacks it.

        A hub answer is kept for the process: online, each download call asks the hub
        whether the file changed, and a run locates its files once per example."""
        if self.repo_id is not None:
            key = (self, release_path)
            if key not in _HUB_FOUND:
                _HUB_FOUND[key] = self._search(release_path)
            return _HUB_FOUND[key]
        return self._search(release_path)

    def _search(self, release_path: str) -> Path | None:
        for folder in RELEASE_FOLDERS:
            found = (
                self._local(folder + release_path)
                if self.folder
                else self._hub(folder + release_path)
            )
            if found is not None:
                return found
        return None

    def _local(self, relative: str) -> Path | None:
        assert self.folder is not None
        path = self.folder / relative
        return path if path.is_file() else None

    def _hub(self, relative: str) -> Path | None:
        try:
            from huggingface_hub import hf_hub_download
            from huggingface_hub.errors import HfHubHTTPError, LocalEntryNotFoundError
        except ImportError:
            raise UserInputError(
                f"reading {self.label} needs the huggingface_hub package: "
                "pip install 'lctui[hf]' (or use --data with a local copy)"
            ) from None
        assert self.repo_id is not None
        try:
            path = hf_hub_download(
                self.repo_id, relative, repo_type="dataset", revision=self.revision
            )
        except (LocalEntryNotFoundError, HfHubHTTPError, OSError, ValueError):
            # Not in the cache (offline), not in the repository, or no such repository.
            return None
        return Path(path)


_HUB_FOUND: dict[tuple[DataSource, str], Path | None] = {}


def parse_source(text: str, where: str = "--data") -> DataSource:
    """`hf://ORG/NAME[@REV]` or a local folder (which must exist)."""
    if text.startswith(HUB_SCHEME):
        repo, _, revision = text[len(HUB_SCHEME) :].partition("@")
        if repo.count("/") != 1 or not all(repo.split("/")):
            raise UserInputError(
                f"{where} {text!r}: write a hub dataset as hf://ORG/NAME (or hf://ORG/NAME@REVISION)"
            )
        return DataSource(repo_id=repo, revision=revision or None)
    folder = Path(text).expanduser()
    if not folder.is_dir():
        raise UserInputError(
            f"{where} {text!r} is not a folder: point it at a copy of the data release "
            "(e.g. HELMET's data/ with kilt/, msmarco/, ...) or at hf://ORG/NAME"
        )
    return DataSource(folder=folder.resolve())


_LOADED: dict[tuple[str, int, int], JsonLines] = {}
_LOCK = threading.Lock()


def read_json_lines(path: Path) -> JsonLines:
    """The JSON objects of `path`, one per non-blank line; bad lines become problems."""
    stat = path.stat()
    key = (str(path), stat.st_mtime_ns, stat.st_size)
    with _LOCK:
        if key in _LOADED:
            return _LOADED[key]
    rows: list[Mapping[str, Any]] = []
    lines: list[int] = []
    problems: list[DataProblem] = []
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            try:
                row = json.loads(raw)
            except (ValueError, UnicodeDecodeError) as err:
                problems.append(DataProblem(str(path), number, f"not valid JSON ({err})"))
                continue
            if not isinstance(row, dict):
                problems.append(DataProblem(str(path), number, "not a JSON object"))
                continue
            rows.append(row)
            lines.append(number)
    loaded = JsonLines(str(path), tuple(rows), tuple(lines), tuple(problems))
    with _LOCK:
        _LOADED[key] = loaded
    return loaded
