"""tasks/datasets.py: JSON, JSON-lines and Parquet files read alike (bad rows reported
by file and number, the rest kept), and `hub/ORG/NAME/PATH` release paths found in a
local mirror or, offline, in the standard hub cache."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from helpers.hub_cache import hub_repo
from lctui.tasks.datasets import HUB_CACHE_ONLY, DataSource, hub_path, read_records, split_hub_path


def test_parquet_rows_come_back_as_objects_numbered_by_row(tmp_path: Path) -> None:
    path = tmp_path / "test.parquet"
    pq.write_table(pa.table({"text": ["a", "b"], "label": [3, 1]}), path)
    loaded = read_records(path)
    assert loaded.rows == ({"text": "a", "label": 3}, {"text": "b", "label": 1})
    assert loaded.lines == (1, 2)
    assert loaded.problems == ()


def test_a_file_that_is_not_parquet_is_one_problem_not_a_crash(tmp_path: Path) -> None:
    path = tmp_path / "broken.parquet"
    path.write_bytes(b"not parquet at all")
    loaded = read_records(path)
    assert loaded.rows == ()
    assert [(p.line, "not Parquet" in p.reason) for p in loaded.problems] == [(1, True)]


def test_json_list_and_data_object_are_read_and_non_objects_reported(tmp_path: Path) -> None:
    listed = tmp_path / "list.json"
    listed.write_text(json.dumps([{"q": 1}, 7, {"q": 2}]))
    wrapped = tmp_path / "wrapped.json"
    wrapped.write_text(json.dumps({"data": [{"q": 3}]}))
    loaded = read_records(listed)
    assert loaded.rows == ({"q": 1}, {"q": 2})
    assert loaded.lines == (1, 3)
    assert [str(p) for p in loaded.problems] == [f"{listed}:2: item is not an object; line skipped"]
    assert read_records(wrapped).rows == ({"q": 3},)


def test_a_json_file_of_the_wrong_shape_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "scalar.json"
    path.write_text("42")
    assert "neither a list" in read_records(path).problems[0].reason
    path.write_text("{broken")
    assert "not valid JSON" in read_records(path).problems[0].reason


def test_jsonl_is_still_read_line_by_line(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text('{"a": 1}\nnope\n\n{"a": 2}\n')
    loaded = read_records(path)
    assert loaded.rows == ({"a": 1}, {"a": 2})
    assert loaded.lines == (1, 4)
    assert [p.line for p in loaded.problems] == [2]


def test_hub_path_is_found_in_a_local_mirror_of_the_repository(tmp_path: Path) -> None:
    mirror = tmp_path / "hub" / "CogComp" / "trec" / "default" / "test"
    mirror.mkdir(parents=True)
    (mirror / "0000.parquet").write_bytes(b"x")
    source = DataSource(folder=tmp_path)
    assert source.locate("hub/CogComp/trec/default/test/0000.parquet") == mirror / "0000.parquet"
    assert source.locate("hub/CogComp/trec/default/train/0000.parquet") is None


def test_source_without_folder_or_repo_finds_only_hub_paths() -> None:
    assert HUB_CACHE_ONLY.label == "the hub cache"
    assert HUB_CACHE_ONLY.locate("kilt/nq-dev-multikilt_1000_k20_dep6.jsonl") is None
    with pytest.raises(ValueError, match=r"hub/ORG/NAME\[@REVISION\]/PATH"):
        HUB_CACHE_ONLY.locate("hub/only-org")


def test_hub_path_is_read_offline_from_the_standard_cache(tmp_path: Path) -> None:
    snapshot = hub_repo(tmp_path / "hf", "lctui-test/trec")
    (snapshot / "test.jsonl").write_text('{"text": "what is a cape", "coarse_label": 2}\n')
    # A fresh process: huggingface_hub reads HF_HOME and HF_HUB_OFFLINE at import.
    code = (
        "from lctui.tasks.datasets import HUB_CACHE_ONLY, read_records\n"
        "path = HUB_CACHE_ONLY.locate('hub/lctui-test/trec/test.jsonl')\n"
        "print(read_records(path).rows)\n"
        "print(HUB_CACHE_ONLY.locate('hub/lctui-test/trec/train.jsonl'))\n"
    )
    env = {**os.environ, "HF_HOME": str(tmp_path / "hf"), "HF_HUB_OFFLINE": "1"}
    env.pop("HF_HUB_CACHE", None)
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "({'text': 'what is a cape', 'coarse_label': 2},)",
        "None",
    ]


def test_hub_path_names_a_revision_and_reads_it_back() -> None:
    written = hub_path("CogComp/trec", "default/test/0000.parquet", "refs/convert/parquet")
    assert written == "hub/CogComp/trec@refs%2Fconvert%2Fparquet/default/test/0000.parquet"
    assert split_hub_path(written) == (
        "CogComp/trec",
        "refs/convert/parquet",
        "default/test/0000.parquet",
    )
    assert split_hub_path(hub_path("org/name", "a/b.jsonl")) == ("org/name", None, "a/b.jsonl")


def test_a_revision_is_ignored_in_a_local_mirror(tmp_path: Path) -> None:
    mirror = tmp_path / "hub" / "CogComp" / "trec" / "default" / "test"
    mirror.mkdir(parents=True)
    (mirror / "0000.parquet").write_bytes(b"x")
    wanted = hub_path("CogComp/trec", "default/test/0000.parquet", "refs/convert/parquet")
    assert DataSource(folder=tmp_path).locate(wanted) == mirror / "0000.parquet"
