"""Where real datasets come from: a local copy of a data release, or a Hugging Face dataset.

A `DataSource` names one place that holds files laid out like a benchmark's data
release (HELMET's: `kilt/nq-dev-multikilt_1000_k1000_dep6.jsonl`, ...). It is either
a local folder (`--data DIR`, `data_dir` in lctui.toml) or a Hugging Face dataset
repository (`hf://ORG/NAME` or `hf://ORG/NAME@REVISION`), whose files are read through
`huggingface_hub` from the standard hub cache (HF_HOME / HF_HUB_CACHE; with
HF_HUB_OFFLINE=1 only from the cache). A file may sit at its release path or under a
`data/` folder (the release tarball unpacks to `data/`).

Some of HELMET's datasets are not in its release but on the hub under their own
repositories (TREC, BANKING77, NarrativeQA, ...). Their release path is written
`hub/ORG/NAME/PATH`, or `hub/ORG/NAME@REVISION/PATH` for files on another branch (the
hub's Parquet conversion of a script dataset lives on `refs/convert/parquet`; `hub_path`
writes either): in a local folder the file is looked for at `DIR/hub/ORG/NAME/PATH`,
where `hf download ORG/NAME --repo-type dataset [--revision REVISION]
--local-dir DIR/hub/ORG/NAME` puts it; otherwise, and from a source with no folder, it
is read from the hub at that revision (the standard cache offline).
`HUB_CACHE_ONLY` is that source: the tasks with hub-origin data use it when the run
names no `--data`.

Files are JSON lines, JSON (a list of objects, or an object holding one under `data`)
or Parquet (`read_records` picks by suffix), read through tasks/bounded_read.py (bounded
line lengths, values and nesting; a JSON document streamed item by item). A line or row
that is not an object is reported with its file and line (Parquet: row) number and
skipped, so one bad line never loses the other examples. Loaded files are kept per path
and modification time, so every example of a run reads them once.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lctui.core.errors import UserInputError
from lctui.tasks.bounded_read import FileProblem, JsonDocument, error_text, json_lines

HUB_SCHEME = "hf://"
HUB_PREFIX = "hub/"  # release paths of files that live in their own hub repository
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
        if self.repo_id is None:
            return "the hub cache"
        at = f"@{self.revision}" if self.revision else ""
        return f"{HUB_SCHEME}{self.repo_id}{at}"

    def locate(self, release_path: str) -> Path | None:
        """The readable file of `release_path`, or None when this source lacks it.

        `hub/ORG/NAME/PATH` is looked for under a local folder first, then in ORG/NAME on
        the hub. A hub answer is kept for the process: online, each download call asks
        the hub whether the file changed, and a run locates its files once per example."""
        if release_path.startswith(HUB_PREFIX):
            repo, revision, relative = split_hub_path(release_path)
            mirrored = f"{HUB_PREFIX}{repo}/{relative}"
            found = self._local(mirrored) if self.folder is not None else None
            if found is not None:
                return found
            return _cached_hub(DataSource(repo_id=repo, revision=revision), relative, release=False)
        if self.repo_id is not None:
            return _cached_hub(self, release_path)
        if self.folder is None:
            return None
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

# The source of a run without --data: hub-origin files from the hub (cache), nothing else.
HUB_CACHE_ONLY = DataSource()


def _cached_hub(source: DataSource, release_path: str, *, release: bool = True) -> Path | None:
    """`release_path` in the hub repository of `source`, looked up once per process;
    `release`: also under `data/`, as HELMET's release tarball unpacks (a repository
    of its own, named by a `hub/` path, holds its files where the hub has them)."""
    key = (source, release_path)
    if key not in _HUB_FOUND:
        _HUB_FOUND[key] = source._search(release_path) if release else source._hub(release_path)
    return _HUB_FOUND[key]


def hub_path(repo_id: str, path: str, revision: str | None = None) -> str:
    """The release path of `path` in hub dataset `repo_id` (at `revision`, else main);
    a revision's slashes are written `%2F` (`refs%2Fconvert%2Fparquet`)."""
    at = "@" + revision.replace("/", "%2F") if revision else ""
    return f"{HUB_PREFIX}{repo_id}{at}/{path}"


def split_hub_path(release_path: str) -> tuple[str, str | None, str]:
    """`hub/ORG/NAME[@REVISION]/PATH` as (ORG/NAME, REVISION or None, PATH), the
    revision's `%2F` read back as slashes."""
    parts = release_path[len(HUB_PREFIX) :].split("/", 2)
    if len(parts) != 3 or not all(parts):
        raise ValueError(f"{release_path!r}: a hub path is hub/ORG/NAME[@REVISION]/PATH")
    name, _, revision = parts[1].partition("@")
    if not name:
        raise ValueError(f"{release_path!r}: a hub path is hub/ORG/NAME[@REVISION]/PATH")
    return f"{parts[0]}/{name}", revision.replace("%2F", "/") or None, parts[2]


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


def read_records(path: Path) -> JsonLines:
    """The objects of a `.jsonl`, `.json` or `.parquet` file (by suffix; JSON lines
    otherwise), read once per path and modification time; bad rows become problems."""
    stat = path.stat()
    key = (str(path), stat.st_mtime_ns, stat.st_size)
    with _LOCK:
        if key in _LOADED:
            return _LOADED[key]
    suffix = path.suffix.lower()
    if suffix == ".parquet":
        loaded = _read_parquet(path)
    elif suffix == ".json":
        loaded = _read_json(path)
    else:
        loaded = _read_lines(path)
    with _LOCK:
        _LOADED[key] = loaded
    return loaded


def _objects(path: Path, items: list[Any], numbers: list[int], what: str) -> JsonLines:
    rows: list[Mapping[str, Any]] = []
    lines: list[int] = []
    problems: list[DataProblem] = []
    for number, item in zip(numbers, items, strict=True):
        if isinstance(item, dict):
            rows.append(item)
            lines.append(number)
        else:
            problems.append(DataProblem(str(path), number, f"{what} is not an object"))
    return JsonLines(str(path), tuple(rows), tuple(lines), tuple(problems))


def _read_json(path: Path) -> JsonLines:
    document = JsonDocument(path, "data")
    items: list[Any] = []
    numbers: list[int] = []
    problems: list[DataProblem] = []
    try:
        # The number of an item is its position in the list (1-based): a JSON file's
        # lines say little (it may be one line).
        for key, value in document:
            if isinstance(key, int):
                items.append(value)
                numbers.append(key)
    except FileProblem as err:
        problems.append(DataProblem(str(path), err.line, err.why))
    except OSError as err:
        problems.append(DataProblem(str(path), 1, f"not readable ({err.strerror or err})"))
    if not document.listed and not problems:
        reason = "neither a list of objects nor an object with a 'data' list"
        problems.append(DataProblem(str(path), 1, reason))
    loaded = _objects(path, items, numbers, "item")
    return JsonLines(loaded.path, loaded.rows, loaded.lines, (*loaded.problems, *problems))


def _read_parquet(path: Path) -> JsonLines:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        items = pq.read_table(path).to_pylist()
    except (OSError, ValueError, pa.ArrowException) as err:
        why = f"not Parquet ({error_text(err)})"
        return JsonLines(str(path), (), (), (DataProblem(str(path), 1, why),))
    return _objects(path, items, list(range(1, len(items) + 1)), "row")


def _read_lines(path: Path) -> JsonLines:
    rows: list[Mapping[str, Any]] = []
    lines: list[int] = []
    problems: list[DataProblem] = []
    try:
        for number, _, row in json_lines(path):
            if isinstance(row, str):
                problems.append(DataProblem(str(path), number, row))
            else:
                rows.append(row)
                lines.append(number)
    except OSError as err:
        why = f"not readable ({err.strerror or err})"
        problems.append(DataProblem(str(path), len(lines) + len(problems) + 1, why))
    return JsonLines(str(path), tuple(rows), tuple(lines), tuple(problems))
