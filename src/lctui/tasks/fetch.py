"""Downloading a dataset's files where the network allows it (`lctui data fetch`).

Hub files go through huggingface_hub's `snapshot_download` (its own progress bars; the
standard hub cache, or a folder laid out as tasks/datasets.py reads it); a plain file
over HTTPS is streamed to `NAME.part` and renamed when complete, an archive resumes a
partial download and is unpacked with tarfile's "data" filter (no paths outside the
folder, no devices or links out). Every failure is a `FetchFailed` saying what failed;
`unreachable` tells the caller the network is the cause, so it can say how to fetch
the files elsewhere and copy them over.
"""

from __future__ import annotations

import shutil
import sys
import tarfile
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlsplit

from lctui import __version__
from lctui.core.errors import LctuiError
from lctui.core.runtime import lift_default
from lctui.tasks.catalog import HubFiles

# (bytes done, bytes in all or None when the server does not say)
Progress = Callable[[int, int | None], None]
CHUNK = 1 << 20
TIMEOUT_S = 30.0


class FetchFailed(LctuiError):
    """A download that did not complete; `unreachable`: the network is why."""

    def __init__(self, reason: str, unreachable: bool) -> None:
        super().__init__(reason)
        self.reason = reason
        self.unreachable = unreachable


def _innermost(err: BaseException) -> BaseException:
    seen = {id(err)}
    while (inner := err.__cause__ or err.__context__) is not None and id(inner) not in seen:
        seen.add(id(inner))
        err = inner
    return err


OFFLINE = "HF_HUB_OFFLINE=1 is set, so huggingface_hub does not contact the hub"


def allow_hub_access() -> None:
    """Lift lctui's own HF_HUB_OFFLINE=1 (core/runtime.py: a run must never wait on an
    unreachable hub) for `lctui data fetch`, the one command meant to reach the hub;
    an HF_HUB_OFFLINE=1 the user set stays. Called before huggingface_hub is imported,
    so its progress bars come back too; imported already, it is told directly."""
    lifted = lift_default("HF_HUB_OFFLINE")
    lift_default("HF_HUB_DISABLE_PROGRESS_BARS")
    if lifted and "huggingface_hub" in sys.modules:
        from huggingface_hub import constants

        constants.HF_HUB_OFFLINE = False


def hub_offline() -> bool:
    """Whether huggingface_hub is in offline mode (HF_HUB_OFFLINE, read at its import)."""
    try:
        from huggingface_hub import constants
    except ImportError:
        return False
    return bool(constants.HF_HUB_OFFLINE)


def fetch_hub(files: HubFiles, local_dir: Path | None) -> Path:
    """Download `files` into the hub cache, or into `local_dir`; the folder they are in."""
    try:
        from huggingface_hub import constants, snapshot_download
        from huggingface_hub.errors import (
            GatedRepoError,
            HfHubHTTPError,
            LocalEntryNotFoundError,
            RepositoryNotFoundError,
            RevisionNotFoundError,
        )
    except ImportError:
        raise FetchFailed(
            "fetching from the hub needs the huggingface_hub package: pip install 'lctui[hf]'",
            unreachable=False,
        ) from None
    try:
        folder = snapshot_download(
            files.repo,
            repo_type="dataset",
            revision=files.revision,
            allow_patterns=files.patterns(),
            local_dir=local_dir,
        )
    except LocalEntryNotFoundError as err:
        if constants.HF_HUB_OFFLINE:
            reason = OFFLINE
        else:
            inner = _innermost(err)
            reason = f"the Hugging Face hub could not be reached ({type(inner).__name__}: {inner})"
        raise FetchFailed(reason, unreachable=True) from None
    except GatedRepoError:
        raise FetchFailed(
            f"{files.url} is gated: accept its terms on that page, log in with "
            "`hf auth login`, and fetch again",
            unreachable=False,
        ) from None
    except (RepositoryNotFoundError, RevisionNotFoundError) as err:
        raise FetchFailed(
            f"the hub has no {files.url} ({type(err).__name__}); lctui's catalog may be "
            "out of date: please report it",
            unreachable=False,
        ) from None
    except HfHubHTTPError as err:
        raise FetchFailed(f"the hub answered: {str(err).splitlines()[0]}", True) from None
    except _network_errors() as err:  # the connection dropped during a download
        reason = f"the download from the hub broke off ({type(err).__name__}: {err})"
        raise FetchFailed(reason, unreachable=True) from None
    except OSError as err:
        raise FetchFailed(f"could not write the files: {err}", unreachable=False) from None
    return Path(folder)


def _network_errors() -> tuple[type[BaseException], ...]:
    """What the HTTP clients huggingface_hub uses (httpx now, requests before 1.0) raise
    when a connection fails, besides the built-in ConnectionError and TimeoutError."""
    found: list[type[BaseException]] = [ConnectionError, TimeoutError]
    try:
        import httpx

        found.append(httpx.TransportError)
    except ImportError:
        pass
    try:
        import requests

        found += [requests.ConnectionError, requests.Timeout]
    except ImportError:
        pass
    return tuple(found)


def download_url(url: str, dest: Path, progress: Progress, *, resume: bool = False) -> Path:
    """Stream `url` to `dest` (through `dest.part`, renamed when complete). `resume`:
    a `.part` left by an earlier try is continued (a Range request) and kept on failure."""
    part = dest.with_name(dest.name + ".part")
    start = part.stat().st_size if resume and part.exists() else 0
    headers = {"User-Agent": f"lctui/{__version__}"}
    if start:
        headers["Range"] = f"bytes={start}-"
    host = urlsplit(url).netloc or url
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        request = urllib.request.Request(url, headers=headers)
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:
            if start and response.status != 206:
                start = 0  # the server sends the whole file again
            length = response.headers.get("Content-Length")
            total = start + int(length) if length is not None else None
            done = _copy(response, part, start, total, progress)
    except urllib.error.HTTPError as err:
        if err.code == 416 and start:  # nothing after what we have: it was complete
            part.replace(dest)
            return dest
        _drop(part, resume)
        raise FetchFailed(f"{url} answered HTTP {err.code} {err.reason}", err.code >= 500) from None
    except (urllib.error.URLError, TimeoutError, ConnectionError) as err:
        _drop(part, resume)
        reason = getattr(err, "reason", err)
        raise FetchFailed(f"{host} could not be reached ({reason})", unreachable=True) from None
    except OSError as err:
        _drop(part, resume)
        raise FetchFailed(f"could not write {part}: {err.strerror or err}", False) from None
    if total is not None and done < total:
        _drop(part, resume)
        again = "; run the same command again to resume" if resume else ""
        raise FetchFailed(
            f"the download of {url} stopped at {done:,} of {total:,} bytes{again}", True
        )
    part.replace(dest)
    return dest


def _copy(
    response: IO[bytes], part: Path, start: int, total: int | None, progress: Progress
) -> int:
    done = start
    progress(done, total)
    with part.open("ab" if start else "wb") as out:
        while chunk := response.read(CHUNK):
            out.write(chunk)
            done += len(chunk)
            progress(done, total)
    return done


def _drop(part: Path, keep: bool) -> None:
    if not keep:
        part.unlink(missing_ok=True)


def check_room(folder: Path, needed: int) -> None:
    """Refuse before a download that `folder`'s disk has no room for."""
    folder.mkdir(parents=True, exist_ok=True)
    free = shutil.disk_usage(folder).free
    if free < needed:
        raise FetchFailed(
            f"{folder} has {free / 1e9:.1f} GB free and this needs about {needed / 1e9:.0f} GB; "
            "free some space or pass another --data folder",
            unreachable=False,
        )


class _Counting:
    """A binary file that reports how far it was read."""

    def __init__(self, handle: IO[bytes], total: int, progress: Progress) -> None:
        self._handle, self._total, self._progress = handle, total, progress

    def read(self, size: int = -1) -> bytes:
        data = self._handle.read(size)
        self._progress(self._handle.tell(), self._total)
        return data


def unpack(archive: Path, folder: Path, progress: Progress) -> None:
    """Unpack a gzipped tarball into `folder` in one pass, refusing members that would
    land outside it (tarfile's "data" filter)."""
    total = archive.stat().st_size
    try:
        with archive.open("rb") as handle:
            stream: Any = _Counting(handle, total, progress)
            with tarfile.open(fileobj=stream, mode="r|gz") as tar:
                _extract(tar, folder)
    except (tarfile.TarError, EOFError, OSError) as err:
        raise FetchFailed(
            f"{archive} could not be unpacked ({err}); delete it and fetch again", False
        ) from None


def _extract(tar: tarfile.TarFile, folder: Path) -> None:
    if hasattr(tarfile, "data_filter"):
        tar.extractall(folder, filter="data")
        return
    # Pythons before 3.10.12 and 3.11.4 have no filters: the refusals that matter here
    # (a path or link leaving the folder, a device) are made by hand.
    root = folder.resolve()
    for member in tar:
        target = (root / member.name).resolve()
        if not target.is_relative_to(root) or member.issym() or member.islnk() or member.isdev():
            raise tarfile.TarError(f"{member.name!r} would not stay a plain file in {folder}")
        tar.extract(member, folder)
