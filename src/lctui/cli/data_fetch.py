"""`lctui data fetch NAME`: download a dataset (or every dataset of a task or suite) where
the network allows, with progress; where it does not, one paragraph naming what failed,
the command to run on a machine with network and where to copy the files.

Hub files land in the standard hub cache, or in `DIR/hub/ORG/NAME` with `--data DIR`;
plain files and HELMET's release need a folder. HELMET's release (11.3 GB to download,
about 34 GB unpacked) is fetched only with `--yes`.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    DownloadColumn,
    Progress,
    TextColumn,
    TimeRemainingColumn,
    TransferSpeedColumn,
)

from lctui.cli.data_option import data_option, data_source, tasks_by_name
from lctui.cli.terminal import SafeConsole, data
from lctui.core.config import load_config
from lctui.core.errors import UserInputError
from lctui.tasks.catalog import (
    DIR,
    Archive,
    Dataset,
    Download,
    HubFiles,
    WebFile,
    downloads_of,
    select_datasets,
)
from lctui.tasks.data_status import PRESENT, dataset_status, hub_cache
from lctui.tasks.datasets import DataSource
from lctui.tasks.fetch import (
    OFFLINE,
    FetchFailed,
    allow_hub_access,
    check_room,
    download_url,
    fetch_hub,
    hub_offline,
    unpack,
)

EXIT_NOT_DONE = 2


def add_fetch_parser(actions: Any) -> None:
    fetch = actions.add_parser(
        "fetch",
        help="download a dataset (or a task's or suite's) where the network allows",
        description="Download NAME (a dataset from `lctui data list`, a task, or a suite): hub "
        "files into the hub cache, or into DIR/hub/ORG/NAME with --data DIR; plain files "
        "into DIR. HELMET's data release is 11.3 GB (about 34 GB unpacked) and is fetched "
        "only with --yes. Without network (or with HF_HUB_OFFLINE=1) it says what to run "
        "on a machine that has one and where to copy the files.",
    )
    fetch.add_argument("name", metavar="NAME", help="a dataset, a task or a suite")
    data_option(fetch)
    fetch.add_argument("--config", metavar="PATH", help="lctui.toml to read data_dir from")
    fetch.add_argument(
        "--yes", action="store_true", help="also fetch huge downloads (HELMET's release)"
    )
    fetch.set_defaults(handler=cmd_fetch)


def cmd_fetch(args: argparse.Namespace) -> int:
    allow_hub_access()
    datasets = select_datasets(args.name)
    source = data_source(args, load_config(args.config))
    if source is not None and source.folder is None:
        raise UserInputError(
            f"fetch writes into a folder, not into {source.label}: pass --data DIR "
            "(or nothing, for hub files into the hub cache)"
        )
    folder = source.folder if source is not None else None
    console = SafeConsole(stderr=True, highlight=False)
    for dataset in datasets:
        if dataset.builtin:
            console.print(f"{dataset.name}: nothing to fetch ({data(dataset.builtin)})")
    wanted = [d for d in datasets if not d.builtin]
    declined = False
    for download in downloads_of(wanted):
        users = [d for d in wanted if download in d.downloads]
        names = ", ".join(d.name for d in users)
        try:
            if isinstance(download, HubFiles):
                _fetch_hub(download, users, source, console)
            elif isinstance(download, WebFile):
                _fetch_web(download, folder, console)
            elif not _fetch_archive(download, users, names, source, args.yes, console):
                declined = True
        except FetchFailed as err:
            raise FetchFailed(_failure(err, download, names, folder), err.unreachable) from None
    return _report(wanted, source, console, declined)


def _complete(users: list[Dataset], source: DataSource | None) -> bool:
    """Whether the tasks of `users` find all they read (in `source`, or the hub cache)."""
    tasks = tasks_by_name(source)
    return all(dataset_status(d, tasks, source).state == PRESENT for d in users)


def _fetch_hub(
    download: HubFiles, users: list[Dataset], source: DataSource | None, console: Console
) -> None:
    names = ", ".join(d.name for d in users)
    offline = hub_offline()
    if offline and _complete(users, source):
        console.print(f"{names}: already there (HF_HUB_OFFLINE=1: not compared with the hub)")
        return
    folder = source.folder if source is not None else None
    local = folder / "hub" / download.repo if folder is not None else None
    where = local if local is not None else "the hub cache"
    console.print(f"{names}: fetching {data(download.describe())} into {data(str(where))}")
    got = fetch_hub(download, local)
    # Offline, huggingface_hub hands back a folder that exists without looking into it.
    if offline and not _complete(users, source):
        raise FetchFailed(OFFLINE, unreachable=True)
    console.print(f"{names}: done ({data(str(got))})")


def _need_folder(folder: Path | None, what: str) -> Path:
    if folder is None:
        raise UserInputError(
            f"{what} goes into a data folder: pass --data DIR (or set data_dir in lctui.toml)"
        )
    return folder


def _fetch_web(download: WebFile, folder: Path | None, console: Console) -> None:
    target = _need_folder(folder, download.path) / download.path
    if target.exists():
        console.print(f"{data(str(target))}: already there (delete it to fetch it again)")
        return
    with _bar(console, download.path) as progress:
        download_url(download.url, target, progress)
    console.print(f"{data(str(target))}: done")


def _fetch_archive(
    download: Archive,
    users: list[Dataset],
    names: str,
    source: DataSource | None,
    yes: bool,
    console: Console,
) -> bool:
    """Fetch and unpack `download` unless its datasets are complete; False when it was
    not fetched because it is huge and --yes was not given."""
    folder = _need_folder(source.folder if source is not None else None, download.title)
    if _complete(users, source):
        console.print(f"{names}: already in {data(str(folder))} (from {download.title})")
        return True
    archive = folder / download.file
    if not yes:
        console.print(
            f"{names} come from {data(download.describe())}. It is fetched only when "
            f"asked: `lctui data fetch {users[0].name} --data {data(str(folder))} --yes` "
            f"downloads it into {data(str(folder))}, unpacks it there and deletes the "
            f"tarball; or fetch it yourself: `{data(download.command(str(folder)))}`.",
            soft_wrap=True,
        )
        return False
    part = archive.with_name(archive.name + ".part")
    have = part.stat().st_size if part.exists() else 0
    check_room(folder, max(0, download.download_bytes - have) + download.unpacked_bytes)
    with _bar(console, download.file) as progress:
        download_url(download.url, archive, progress, resume=True)
    with _bar(console, f"unpacking {download.file}") as progress:
        unpack(archive, folder, progress)
    archive.unlink()
    console.print(f"{names}: {download.title} unpacked into {data(str(folder))}")
    return True


@contextmanager
def _bar(console: Console, label: str) -> Iterator[Any]:
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        DownloadColumn(),
        TransferSpeedColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console, transient=False) as progress:
        task = progress.add_task(data(label), total=None)

        def update(done: int, total: int | None) -> None:
            progress.update(task, completed=done, total=total)

        yield update


def _report(
    wanted: list[Dataset], source: DataSource | None, console: Console, declined: bool
) -> int:
    """What the tasks find now, per dataset; status 2 when something is still missing."""
    tasks = tasks_by_name(source)
    complete = True
    for dataset in wanted:
        status = dataset_status(dataset, tasks, source)
        complete = complete and status.state == PRESENT
        console.print(f"{dataset.name}: {status.state}")
        for task, why in status.missing:
            console.print(f"  {task}: {data(why)}", soft_wrap=True)
    return 0 if complete and not declined else EXIT_NOT_DONE


def _failure(err: FetchFailed, download: Download, names: str, folder: Path | None) -> str:
    """One paragraph: what failed and, when the network is why, the command to run on a
    machine that has one and where its files go here."""
    if not err.unreachable:
        return f"could not fetch {names}: {err.reason}"
    here = str(folder) if folder is not None else None
    if isinstance(download, HubFiles):
        if here is not None:
            command = download.command(DIR)
            copy = f"copy DIR/hub/{download.repo} to {here}/hub/{download.repo} here"
        else:
            org, name = download.repo.split("/")
            entry = f"datasets--{org}--{name}"
            command = download.command(None)
            copy = (
                f"copy its hub cache entry (~/.cache/huggingface/hub/{entry}) to "
                f"{hub_cache() or 'the hub cache'}/{entry} here (or add --local-dir "
                f"DIR/hub/{download.repo} there and pass --data DIR here)"
            )
    elif isinstance(download, WebFile):
        command = download.command(DIR)
        copy = f"copy DIR/{download.path} to {here or 'your data folder'}/{download.path} here"
    else:
        command = download.command(DIR)
        copy = f"copy DIR/data to {here or 'your data folder'}/data here"
    check = f"lctui data check {here or 'DIR'}"
    return (
        f"could not fetch {names}: {err.reason}. On a machine with network run `{command}`, "
        f"then {copy}; `{check}` says what runs then."
    )
