"""Hostile and unlucky result files (issue 25.1): every importer ends with a problem that
names the file and line, or an error a user can act on; never an internal error, half
an import, a run left `running`, an unbounded field or a quoted secret. Real files,
real DuckDB files, the real CLI."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from helpers.fuzz_files import SHADOW, SHADOW_MARK
from helpers.harness_results import LONGBENCH_RESULTS, RULER_LLAMA, RULER_RESULTS
from helpers.helmet_data import HELMET_FIXTURES
from helpers.lifbench_data import write_csv
from lctui.analysis.harness_import import ImportSummary
from lctui.cli import main
from lctui.store import Store, open_store
from lctui.suites.helmet import importer as helmet_import
from lctui.suites.helmet.importer import import_helmet_results
from lctui.suites.lifbench.importer import LifbenchImportError, import_lifbench_scores
from lctui.suites.longbench.importer import import_longbench_results
from lctui.suites.ruler.importer import import_ruler_results

DEEP = "[" * 100_000
HELMET_RESULTS = HELMET_FIXTURES / "results"
RULER_PRED = f"{RULER_LLAMA}/synthetic/1024/pred"
QA_HEADER = ("model", "ins_id", "param_id", "length", "correct", "format", "total_score")


def _counts(db: Path) -> tuple[int, int, int]:
    """(generations, runs, runs still `running`) of a results file."""
    with open_store(db, read_only=True) as store:
        row = (
            store.cursor()
            .execute(
                "SELECT (SELECT count(*) FROM generations), (SELECT count(*) FROM runs), "
                "(SELECT count(*) FROM runs WHERE status = 'running')"
            )
            .fetchone()
        )
    assert row is not None
    return int(row[0]), int(row[1]), int(row[2])


def _copy(source: Path, folder: Path) -> Path:
    shutil.copytree(source, folder)
    return folder


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_helmet_file_of_100000_brackets_is_a_named_problem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _copy(HELMET_RESULTS, tmp_path / "helmet")
    deep = folder / "Qwen2.5-7B-Instruct" / "deep.json"
    deep.write_text(DEEP, encoding="utf-8")
    code, out, err = _cli(
        capsys, "import", "helmet-results", str(folder), "--db", str(tmp_path / "db")
    )
    assert (code, err) == (0, "")
    assert f"skipped or doubtful: {deep}: line 1: nested deeper than 64 levels" in out
    assert "Imported 17 new response(s)" in out  # every other file


@pytest.mark.parametrize("kind", ["ruler", "longbench"])
def test_a_deep_line_is_skipped_with_its_number_and_the_rest_imported(
    tmp_path: Path, kind: str
) -> None:
    run: Callable[[Store, Path], ImportSummary]
    if kind == "ruler":
        folder = _copy(RULER_RESULTS, tmp_path / "ruler")
        broken, run = folder / RULER_PRED / "niah_single_1.jsonl", import_ruler_results
    else:
        folder = _copy(LONGBENCH_RESULTS, tmp_path / "longbench")
        broken, run = folder / "Qwen2.5-7B-Instruct.jsonl", import_longbench_results
    with open_store(tmp_path / "clean.duckdb") as store:
        clean = run(store, folder)
    lines = broken.read_text(encoding="utf-8").count("\n")
    with broken.open("a", encoding="utf-8") as handle:
        handle.write(DEEP + "\n")
    with open_store(tmp_path / "runs.duckdb") as store:
        summary = run(store, folder)
    assert f"{broken}:{lines + 1}: nested deeper than 64 levels; line skipped" in summary.problems
    assert summary.added == clean.added
    assert _counts(tmp_path / "runs.duckdb") == (clean.added, len(clean.runs), 0)


def _interrupt_at(call: int) -> Callable[[int, int, Path], None]:
    def progress(done: int, total: int, path: Path) -> None:
        if done == call:
            raise KeyboardInterrupt

    return progress


@pytest.mark.parametrize("kind", ["ruler", "longbench"])
def test_an_import_interrupted_midway_leaves_nothing(tmp_path: Path, kind: str) -> None:
    """Ctrl-C after some files were written (their rows buffered, their runs started):
    the file holds nothing of the import and no run stays `running`."""
    db = tmp_path / "runs.duckdb"
    with open_store(db) as store, pytest.raises(KeyboardInterrupt):
        if kind == "ruler":
            import_ruler_results(store, RULER_RESULTS, progress=_interrupt_at(3))
        else:
            import_longbench_results(store, LONGBENCH_RESULTS, progress=_interrupt_at(2))
    assert _counts(db) == (0, 0, 0)


def test_helmet_import_interrupted_while_writing_by_an_injected_fault_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """HELMET's files are all read before the first write, so the interrupt comes from a
    hand-made fault in the write phase (after the first file's rows and run)."""
    calls: list[int] = []
    check_means = helmet_import._check_means

    def interrupted(*args: Any) -> list[str]:
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return check_means(*args)

    monkeypatch.setattr(helmet_import, "_check_means", interrupted)
    db = tmp_path / "runs.duckdb"
    with open_store(db) as store, pytest.raises(KeyboardInterrupt):
        import_helmet_results(store, HELMET_RESULTS)
    assert _counts(db) == (0, 0, 0)


def test_lifbench_import_refused_in_its_second_file_leaves_nothing(tmp_path: Path) -> None:
    folder = tmp_path / "scores"
    folder.mkdir()
    write_csv(folder / "onedoc-qa.csv", QA_HEADER, [("m", 0, p, 3, 1, 1, 1) for p in range(50)])
    write_csv(folder / "onedoc-repeat.csv", ("model",), [("m",)])
    db = tmp_path / "runs.duckdb"
    with open_store(db) as store, pytest.raises(LifbenchImportError, match="onedoc-repeat"):
        import_lifbench_scores(store, folder)
    assert _counts(db) == (0, 0, 0)


def test_helmet_averaged_metrics_not_an_object_is_a_problem_of_its_file(tmp_path: Path) -> None:
    folder = _copy(HELMET_RESULTS, tmp_path / "helmet")
    path = next(folder.rglob("json_kv*.json"))
    content = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps({**content, "averaged_metrics": [1, 2]}), encoding="utf-8")
    with open_store(tmp_path / "runs.duckdb") as store:
        summary = import_helmet_results(store, folder)
    assert summary.problems == (
        f"{path}: `averaged_metrics` is a list of 2, not an object of means",
    )
    assert summary.added == 15  # the 17 of the fixtures less this file's 2


def test_lifbench_cells_not_utf8_or_too_long_name_file_and_row(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "scores"
    folder.mkdir()
    path = write_csv(folder / "onedoc-qa.csv", QA_HEADER, [("m", 0, 0, 3, 1, 1, 1)] * 2)
    lines = path.read_bytes().split(b"\r\n")
    path.write_bytes(b"\r\n".join([*lines[:2], lines[2].replace(b"m", b"m\xff"), b""]))
    code, _, err = _cli(
        capsys, "import", "lifbench-scores", str(folder), "--db", str(tmp_path / "a")
    )
    assert code == 2
    assert err.startswith(f"lctui: error: {path}, row 3: not UTF-8 (byte 2 of the line)")
    write_csv(path, QA_HEADER, [("m" * 200_000, 0, 0, 3, 1, 1, 1)])
    code, _, err = _cli(
        capsys, "import", "lifbench-scores", str(folder), "--db", str(tmp_path / "b")
    )
    assert code == 2
    assert err.startswith(f"lctui: error: {path}, row 2: ")
    assert len(err) < 500


def _link_outside(tmp_path: Path, link: Path) -> None:
    shadow = tmp_path / "elsewhere" / "shadow"
    shadow.parent.mkdir(exist_ok=True)
    shadow.write_text(SHADOW + "\n", encoding="utf-8")
    link.symlink_to(shadow)


def test_links_out_of_the_folder_are_refused_and_never_quoted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    helmet = _copy(HELMET_RESULTS, tmp_path / "helmet")
    ruler = _copy(RULER_RESULTS, tmp_path / "ruler")
    longbench = _copy(LONGBENCH_RESULTS, tmp_path / "longbench")
    lifbench = tmp_path / "scores"
    lifbench.mkdir()
    links = {
        "helmet-results": (helmet, helmet / "kilt_nq_v1_test_in8192_size3.json"),
        "ruler-results": (ruler, ruler / RULER_PRED / "vt-7.jsonl"),
        "longbench-results": (longbench, longbench / "Qwen2.5-7B-Instruct_x.jsonl"),
        "lifbench-scores": (lifbench, lifbench / "onedoc-qa.csv"),
    }
    for kind, (folder, link) in links.items():
        _link_outside(tmp_path, link)
        code, out, err = _cli(capsys, "import", kind, str(folder), "--db", str(tmp_path / kind))
        said = out + err
        assert f"{link}: a link to outside {folder}" in said, kind
        assert SHADOW_MARK not in said and "root:" not in said, kind
        assert code == (2 if kind == "lifbench-scores" else 0), kind


def test_numbers_out_of_range_name_file_row_and_column(tmp_path: Path) -> None:
    folder = tmp_path / "scores"
    folder.mkdir()
    for column, value in (("length", "99999999999999999999"), ("ins_id", "-1")):
        row = {"model": "m", "ins_id": 0, "param_id": 0, "length": 3}
        row[column] = value
        path = write_csv(folder / "onedoc-qa.csv", QA_HEADER, [(*row.values(), 1, 1, 1)])
        db = tmp_path / f"{column}.duckdb"
        with open_store(db) as store, pytest.raises(LifbenchImportError) as info:
            import_lifbench_scores(store, folder)
        assert str(info.value) == (
            f"{path}, row 2, column {column!r}: '{value}' is not a whole number from "
            f"{1 if column == 'length' else 0} to {65536 if column == 'length' else 999}"
        )
    helmet = _copy(HELMET_RESULTS, tmp_path / "helmet")
    path = next(helmet.rglob("json_kv*.json"))
    content = json.loads(path.read_text(encoding="utf-8"))
    expected = {
        "input_len": "example 2's `input_len` is -5, not a whole number from 0 to 100,000,000",
        "input_max_length": "`args.input_max_length` is 1099511627776, not a whole number from "
        "1 to 100,000,000",
        # Past 64 bits the JSON reader refuses the number itself.
        "too large": "line 1: not valid JSON (parse error: integer overflow)",
    }
    for change, why in expected.items():
        broken = json.loads(json.dumps(content))
        if change == "input_len":
            broken["data"][1]["input_len"] = -5
        else:
            broken["args"]["input_max_length"] = 2**40 if change != "too large" else 10**20
        path.write_text(json.dumps(broken), encoding="utf-8")
        with open_store(tmp_path / "helmet.duckdb") as store:
            assert import_helmet_results(store, helmet).problems == (f"{path}: {why}",)
    ruler = _copy(RULER_RESULTS, tmp_path / "ruler")
    pred = ruler / RULER_PRED / "vt.jsonl"
    rows = [json.loads(line) for line in pred.read_text(encoding="utf-8").splitlines()]
    rows[1]["length"] = 99999999999999999999
    pred.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    with open_store(tmp_path / "ruler.duckdb") as store:
        problems = import_ruler_results(store, ruler).problems
    assert (
        f"{pred}:2: `length` is 99999999999999999999, not a whole number from 0 to "
        "100,000,000; line skipped"
    ) in problems


def test_values_quoted_in_problems_are_escaped_and_short(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    helmet = _copy(HELMET_RESULTS, tmp_path / "helmet")
    path = next(helmet.rglob("json_kv*.json"))
    content = json.loads(path.read_text(encoding="utf-8"))
    content["args"]["datasets"] = "\x1b]0;owned\x07" + "x" * 100_000
    path.write_text(json.dumps(content), encoding="utf-8")
    ruler = _copy(RULER_RESULTS, tmp_path / "ruler")
    evil = ruler / RULER_PRED / "notes\x1b[2J.jsonl"
    evil.write_text("{}\n", encoding="utf-8")
    for kind, folder in (("helmet-results", helmet), ("ruler-results", ruler)):
        code, out, err = _cli(capsys, "import", kind, str(folder), "--db", str(tmp_path / kind))
        assert code == 0 and "error" not in err, kind
        problems = [line for line in out.splitlines() if line.startswith("skipped")]
        assert problems and all(len(line) < 400 for line in problems), kind
        assert "\x1b" not in out and "\x07" not in out, kind
        assert "\\x1b" in out, kind


def test_data_check_names_a_deep_line_or_document_and_reads_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from helpers.data_folder import write_data_folder

    folder = write_data_folder(tmp_path / "data")
    kilt = folder / "kilt" / "nq-dev-multikilt_1000_k20_dep6.jsonl"
    lines = kilt.read_text(encoding="utf-8").count("\n")
    with kilt.open("a", encoding="utf-8") as handle:
        handle.write(DEEP + "\n")
    longbench = folder / "longbench_v2" / "data.json"
    longbench.write_text(DEEP, encoding="utf-8")
    code, out, err = _cli(capsys, "data", "check", str(folder), "--format", "tsv")
    assert code == 1 and "internal error" not in err
    assert f"malformed: {kilt}:{lines + 1}: nested deeper than 64 levels" in out
    assert f"malformed: {longbench}:1: nested deeper than 64 levels" in out


KILLED = (
    "import os, signal, sys\n"
    "from pathlib import Path\n"
    "from lctui.suites.ruler.importer import import_ruler_results\n"
    "from lctui.store import open_store\n"
    "def progress(done, total, path):\n"
    "    if done == 20:\n"
    "        os.kill(os.getpid(), signal.SIGKILL)\n"
    "with open_store(sys.argv[1]) as store:\n"
    "    import_ruler_results(store, sys.argv[2], progress=progress)\n"
)


def test_an_import_killed_outright_is_marked_interrupted_and_completed_again(
    tmp_path: Path,
) -> None:
    """kill -9 leaves no chance to take anything back: what was written stays under a
    run the next open marks interrupted (never `running`), and importing the same
    files again completes it."""
    import subprocess
    import sys

    db = tmp_path / "runs.duckdb"
    killed = subprocess.run(
        [sys.executable, "-c", KILLED, str(db), str(RULER_RESULTS)], timeout=300
    )
    assert killed.returncode == -9
    with open_store(db) as store:  # read-write: marks what the dead process left
        statuses = store.cursor().execute("SELECT DISTINCT status FROM runs").fetchall()
    assert statuses == [("interrupted",)]
    left, _, _ = _counts(db)
    with open_store(db) as store:
        summary = import_ruler_results(store, RULER_RESULTS)
    with open_store(tmp_path / "clean.duckdb") as store:
        clean = import_ruler_results(store, RULER_RESULTS)
    assert left + summary.added == clean.added
    assert _counts(db) == (clean.added, len(clean.runs), 0)
