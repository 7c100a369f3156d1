"""`lctui data fetch`: the clear message where the hub cannot be reached (the real
huggingface_hub, offline or pointed at a port where nothing listens), HELMET's release
refused without --yes, and downloads that complete against a real HTTP server on
loopback standing in for GitHub and the hub's resolve URL (only the address differs).
"""

from __future__ import annotations

import io
import os
import socket
import subprocess
import sys
import tarfile
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from helpers.data_folder import write_data_folder
from helpers.file_server import serve_folder
from helpers.helmet_data import HELMET_FIXTURES, NQ_DEMOS, NQ_TEST
from helpers.hub_cache import hub_repo, lctui_offline
from lctui.cli import main
from lctui.core import runtime
from lctui.tasks import catalog, get_task
from lctui.tasks.catalog import Archive, WebFile
from lctui.tasks.datasets import DataSource
from lctui.tasks.fetch import FetchFailed, unpack

ASQA_DEMOS = "prompts/asqa_revised.json"


@pytest.fixture(autouse=True)
def _offline_hub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """In-process hub lookups read an empty cache; HF_HUB_OFFLINE=1 is the user's."""
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "empty-hub-cache"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(runtime, "_APPLIED", set())
    monkeypatch.setenv("COLUMNS", "250")
    yield


def _with_downloads(
    monkeypatch: pytest.MonkeyPatch, name: str, downloads: tuple[catalog.Download, ...]
) -> None:
    """The catalog with dataset `name` fetched from `downloads` (a loopback address)."""
    entries = tuple(
        replace(d, downloads=downloads) if d.name == name else d for d in catalog.CATALOG
    )
    monkeypatch.setattr(catalog, "CATALOG", entries)


def _one_paragraph(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.startswith("lctui: error:")]
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    return lines[0]


def test_fetch_offline_names_what_failed_the_command_and_where_to_copy(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    home = tmp_path / "hf"
    done = lctui_offline(["data", "fetch", "narrativeqa", "--data", str(folder)], home)
    assert done.returncode == 2
    message = _one_paragraph(done.stderr)
    assert "could not fetch narrativeqa: HF_HUB_OFFLINE=1 is set" in message
    assert (
        "run `hf download deepmind/narrativeqa --repo-type dataset --include 'data/*' "
        "--local-dir DIR/hub/deepmind/narrativeqa`"
    ) in message
    assert f"copy DIR/hub/deepmind/narrativeqa to {folder}/hub/deepmind/narrativeqa here" in message
    # Without --data the files belong in the hub cache: its entry is named.
    bare = lctui_offline(["data", "fetch", "icl_nlu"], home)
    message = _one_paragraph(bare.stderr)
    assert bare.returncode == 2
    assert f"{home / 'hub'}/datasets--xingkunliuxtracta--nlu_evaluation_data here" in message


def test_fetch_offline_with_the_files_in_the_hub_cache_says_they_are_there(tmp_path: Path) -> None:
    home = tmp_path / "hf"
    clinc = hub_repo(home, "clinc/clinc_oos")
    for path in (HELMET_FIXTURES / "icl/hub/clinc/clinc_oos").rglob("*.parquet"):
        target = clinc / path.relative_to(HELMET_FIXTURES / "icl/hub/clinc/clinc_oos")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(path.read_bytes())
    done = lctui_offline(["data", "fetch", "clinc150"], home)
    assert done.returncode == 0, done.stderr
    assert "clinc150: already there" in done.stderr and "clinc150: present" in done.stderr


def test_fetch_lifts_lctuis_offline_default_and_names_an_unreachable_hub(tmp_path: Path) -> None:
    """lctui sets HF_HUB_OFFLINE=1 for every command; fetch, meant to reach the hub, lifts
    it (the user did not set it). The real huggingface_hub then tries an endpoint where a
    bound socket refuses connections, standing in for a machine without network."""
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))  # bound, never listening: connections are refused
        env = {k: v for k, v in os.environ.items() if not k.startswith("HF_")}
        endpoint = f"http://127.0.0.1:{closed.getsockname()[1]}"
        env |= {"HF_HOME": str(tmp_path / "hf"), "HF_ENDPOINT": endpoint}
        done = subprocess.run(
            [sys.executable, "-m", "lctui", "data", "fetch", "banking77"],
            env=env, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
    assert done.returncode == 2
    message = _one_paragraph(done.stderr)
    assert "could not fetch banking77: the Hugging Face hub could not be reached" in message
    assert "HF_HUB_OFFLINE" not in message
    assert (
        "hf download PolyAI/banking77 --repo-type dataset --revision refs/convert/parquet"
        in message
    )


def test_fetch_refuses_helmets_release_without_yes_and_says_what_it_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    assert main(["data", "fetch", "kilt_nq", "--data", str(folder)]) == 2
    err = capsys.readouterr().err
    assert "HELMET's data release (data.tar.gz: 11.3 GB to download, about 34 GB unpacked" in err
    assert f"lctui data fetch kilt_nq --data {folder} --yes" in err
    assert "kilt_nq: missing" in err and list(folder.iterdir()) == []
    assert main(["data", "fetch", "kilt_nq"]) == 2  # an archive needs a folder
    assert "goes into a data folder: pass --data DIR" in capsys.readouterr().err
    assert main(["data", "fetch", "kilt_nq", "--data", "hf://org/name"]) == 2
    assert "fetch writes into a folder" in capsys.readouterr().err


def test_fetch_downloads_a_plain_file_from_a_loopback_server_standing_in_for_github(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "data"
    (folder / "alce").mkdir(parents=True)  # the release's ALCE file is there, its demos not
    alce = "alce/asqa_eval_gtr_top2000.json"
    (folder / alce).write_bytes((HELMET_FIXTURES / alce).read_bytes())
    assert get_task("alce_asqa").with_data(DataSource(folder=folder)).unavailable() is not None
    with serve_folder(HELMET_FIXTURES) as site:
        web = WebFile(site.url + ASQA_DEMOS, ASQA_DEMOS)
        _with_downloads(monkeypatch, "alce_asqa", (web, catalog.HELMET_RELEASE))
        assert main(["data", "fetch", "alce_asqa", "--data", str(folder)]) == 0
        err = capsys.readouterr().err
        # The release is not needed once the demonstrations are there: not asked for.
        assert "already in" in err and "alce_asqa: present" in err and "--yes" not in err
        assert (folder / ASQA_DEMOS).read_bytes() == (HELMET_FIXTURES / ASQA_DEMOS).read_bytes()
        assert not (folder / (ASQA_DEMOS + ".part")).exists()
        assert get_task("alce_asqa").with_data(DataSource(folder=folder)).unavailable() is None
        assert main(["data", "fetch", "alce_asqa", "--data", str(folder)]) == 0
        assert "already there" in capsys.readouterr().err and len(site.sent) == 1
        missing = WebFile(site.url + "prompts/nothing.json", ASQA_DEMOS + ".x")
        _with_downloads(monkeypatch, "alce_asqa", (missing,))
        assert main(["data", "fetch", "alce_asqa", "--data", str(folder)]) == 2
    message = _one_paragraph(capsys.readouterr().err)
    assert "prompts/nothing.json answered HTTP 404" in message and "On a machine" not in message


def _release_tarball(path: Path) -> bytes:
    """A tarball laid out as HELMET's (data/kilt/...) holding the NQ fixture files."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name in (NQ_TEST, NQ_DEMOS):
            tar.add(HELMET_FIXTURES / name, arcname=f"data/{name}")
    path.write_bytes(buffer.getvalue())
    return buffer.getvalue()


def test_fetch_with_yes_resumes_and_unpacks_the_release_from_a_loopback_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    site_files = tmp_path / "site"
    site_files.mkdir()
    tarball = _release_tarball(site_files / "data.tar.gz")
    folder = tmp_path / "data"
    folder.mkdir()
    half = len(tarball) // 2
    (folder / "data.tar.gz.part").write_bytes(tarball[:half])  # an earlier try stopped here
    with serve_folder(site_files, ranges=True) as site:
        release = Archive(
            "a stand-in for HELMET's release", site.url + "data.tar.gz",
            download_bytes=len(tarball), unpacked_bytes=10**6, holds="NQ",
        )  # fmt: skip
        _with_downloads(monkeypatch, "kilt_nq", (release,))
        assert main(["data", "fetch", "kilt_nq", "--data", str(folder), "--yes"]) == 0
        assert site.sent == [len(tarball) - half]  # the rest only
    err = capsys.readouterr().err
    assert "kilt_nq: present" in err
    assert (folder / "data" / NQ_TEST).read_bytes() == (HELMET_FIXTURES / NQ_TEST).read_bytes()
    assert sorted(p.name for p in folder.iterdir()) == ["data"]  # the tarball is deleted
    assert get_task("kilt_nq").with_data(DataSource(folder=folder)).unavailable() is None


def test_unpack_refuses_a_member_outside_the_folder(tmp_path: Path) -> None:
    evil = tmp_path / "evil.tar.gz"
    with tarfile.open(evil, "w:gz") as tar:
        info = tarfile.TarInfo("../escaped.txt")
        info.size = 3
        tar.addfile(info, io.BytesIO(b"bad"))
    folder = tmp_path / "inside"
    folder.mkdir()
    with pytest.raises(FetchFailed, match="could not be unpacked"):
        unpack(evil, folder, lambda done, total: None)
    assert not (tmp_path / "escaped.txt").exists()


def test_fetch_of_a_built_in_dataset_or_an_unknown_name(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["data", "fetch", "ruler_synthetic"]) == 0
    assert "nothing to fetch" in capsys.readouterr().err
    assert main(["data", "fetch", "no_such_thing"]) == 2
    err = capsys.readouterr().err
    assert "no dataset 'no_such_thing'" in err and "kilt_nq" in err


def test_the_shared_data_folder_holds_every_dataset(tmp_path: Path) -> None:
    """The helper the data tests share holds every dataset the catalog downloads."""
    folder = write_data_folder(tmp_path / "data")
    source = DataSource(folder=folder)
    for dataset in catalog.catalog():
        for name in dataset.tasks:
            assert get_task(name).with_data(source).unavailable() is None, name
