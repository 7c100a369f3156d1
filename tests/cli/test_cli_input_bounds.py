"""Every bad input gets one line naming it and exit 2: never a traceback, a hang or a
run that eats the machine's memory (issue 17, item 7).

Cases that used to hang or allocate gigabytes run in a subprocess with a time and a
memory limit, so a regression fails the test instead of stalling or starving CI.
"""

from __future__ import annotations

import os
import resource
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import duckdb
import pytest

from lctui.main import main

SUBPROCESS_TIMEOUT_S = 120
MEMORY_LIMIT = 2 * 1024**3  # address space; a gold run needs under 1.5 GiB


def gold_run(db: Path, *extra: str, tasks: str = "vt") -> list[str]:
    return ["run", "--model", "gold", "--tasks", tasks, "--lengths", "1k", "--n", "1",
            "--db", str(db), *extra]  # fmt: skip


def run_in_process(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(args)
    captured = capsys.readouterr()
    return code, captured.err


def assert_one_line_error(code: int, err: str, message: str) -> None:
    assert code == 2, err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("lctui: error: ") and message in lines[0], err


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def run_subprocess(
    args: list[str], prefix: tuple[str, ...] = (), **kwargs: Any
) -> subprocess.CompletedProcess[str]:
    """`lctui ARGS` in a fresh process, bounded in time and memory."""
    return subprocess.run(
        [*prefix, sys.executable, "-m", "lctui", *args],
        capture_output=True,
        text=True,
        timeout=SUBPROCESS_TIMEOUT_S,
        preexec_fn=_limit_memory,
        env=dict(os.environ),
        **kwargs,
    )


# -- task parameters (--set) --------------------------------------------------------------


@pytest.mark.parametrize(
    ("tasks", "setting", "message"),
    [
        # The shell drops the quotes of num_keys="x"; both spellings are refused.
        ("niah_single_1", "niah_single_1.num_keys=x", "niah_single_1.num_keys must be an "
         "integer, got 'x'"),
        ("niah_single_1", 'niah_single_1.num_keys="x"', "niah_single_1.num_keys must be an "
         "integer, got 'x'"),
        ("niah_single_1", "niah_single_1.num_keys=true", "must be an integer, got True"),
        ("vt", "vt.value_digits=0", "vt.value_digits must be within 1..20, got 0"),
        ("niah_single_1", "niah_single_1.depths=[1000,-5]",
         "niah_single_1.depths must hold numbers within 0..100, got 1000, -5"),
        ("json_kv", "json_kv.depths=50", "json_kv.depths must be a list of numbers"),
        ("niah_single_1", "niah_single_1.haystack=hay",
         "niah_single_1.haystack must be one of noise, essay, needles, got 'hay'"),
        ("fwe", "fwe.alpha=nan", "fwe.alpha must be a finite number, got nan"),
        ("cwe", "cwe.rare_freq=40", "cwe.common_freq (30) must be larger than rare_freq (40)"),
    ],
)  # fmt: skip
def test_bad_task_parameter_is_one_line_naming_it(
    tasks: str,
    setting: str,
    message: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    extra = ["--set", setting]
    code, err = run_in_process(gold_run(tmp_path / "r.duckdb", *extra, tasks=tasks), capsys)
    assert_one_line_error(code, err, message)
    assert not (tmp_path / "r.duckdb").exists(), "refused before the database is opened"


def test_set_values_are_json_or_toml_literals(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A TOML literal string, an integer with an underscore and a bare word all parse.
    extra = ["--set", "niah_single_1.haystack='needles'", "--set", "niah_single_1.num_keys=1_0"]
    code = main(gold_run(tmp_path / "r.duckdb", *extra, tasks="niah_single_1"))
    assert code == 0, capsys.readouterr().err
    extra = ["--set", "niah_single_1.haystack=noise"]
    assert main(gold_run(tmp_path / "r.duckdb", *extra, tasks="niah_single_1")) == 0


@pytest.mark.parametrize(
    ("tasks", "settings", "message"),
    [
        # 26 one-letter names exist; 30 hops need 31: this looped for ever.
        ("vt", ["vt.name_length=1", "vt.num_hops=30"],
         "vt needs num_chains x (num_hops + 1) = 31 distinct variable names, but "
         "name_length=1 gives only 26"),
        # Drawing 100,001 distinct names against a list took quadratic time.
        ("vt", ["vt.num_hops=100000"], "vt.num_hops must be within 1..1000, got 100000"),
        # 9 one-digit numbers for 21 chains: looped for ever.
        ("vt", ["vt.num_chains=20", "vt.value_digits=1"],
         "vt needs num_chains + 1 = 21 distinct numbers, but value_digits=1 gives only 9"),
        # 26 one-letter words for a vocabulary of 400: looped for ever.
        ("fwe", ["fwe.word_letters=1", "fwe.vocab_size=400"],
         "fwe needs vocab_size = 400 distinct words, but word_letters=1 gives only 26"),
    ],
)  # fmt: skip
def test_parameters_that_hung_generation_are_refused(
    tasks: str, settings: list[str], message: str, tmp_path: Path
) -> None:
    extra = [a for s in settings for a in ("--set", s)]
    result = run_subprocess(gold_run(tmp_path / "r.duckdb", *extra, tasks=tasks))
    assert_one_line_error(result.returncode, result.stderr, message)


# -- run numbers: n, lengths, seed, temperature --------------------------------------------


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--seed", str(10**26)], "--seed must be an integer from 0 to 2**63 - 1"),
        (["--seed", "-1"], "--seed must be an integer from 0 to 2**63 - 1"),
        (["--temperature", "nan"], "--temperature must be a number from 0 to 2, got nan"),
        (["--temperature", "inf"], "--temperature must be a number from 0 to 2, got inf"),
        (["--temperature", "2.5"], "--temperature must be a number from 0 to 2, got 2.5"),
        (["--lengths", "9" * 400], "is too long: the largest supported is 2048k"),
        (["--lengths", "4k,2049k"], "length '2049k' is too long"),
    ],
)
def test_bad_run_numbers_are_one_line_naming_the_option(
    extra: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = run_in_process(gold_run(tmp_path / "r.duckdb", *extra), capsys)
    assert_one_line_error(code, err, message)
    assert not (tmp_path / "r.duckdb").exists()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        # Indices are stored as 32-bit integers.
        (["--n", "3000000000"], "--n must be at most 2,147,483,647 examples per task x length"),
        # Built a haystack of a trillion tokens.
        (["--lengths", "1000000000000", "--truncate"], "length '1000000000000' is too long"),
    ],
)
def test_sizes_beyond_what_can_be_stored_or_built_are_refused(
    extra: list[str], message: str, tmp_path: Path
) -> None:
    result = run_subprocess(gold_run(tmp_path / "r.duckdb", *extra))
    assert_one_line_error(result.returncode, result.stderr, message)


@pytest.mark.slow
def test_a_run_of_ten_million_examples_streams_in_bounded_memory(tmp_path: Path) -> None:
    """`--n 10000000` planned every work item up front (MemoryError at 3.2 GB after 89 s,
    with a traceback). Planned as the run goes, it starts storing results at once under
    the 2 GiB limit, and Ctrl-C stops it cleanly with what finished kept."""
    db = tmp_path / "r.duckdb"
    args = ["run", "--model", "gold", "--tasks", "vt,niah_single_1", "--lengths", "1k,2k",
            "--n", "10000000", "--db", str(db)]  # fmt: skip
    log = tmp_path / "stderr.log"  # a file, not a pipe nobody reads while the run goes
    with log.open("w") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "lctui", *args],
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            preexec_fn=_limit_memory,
            env=dict(os.environ),
        )
        try:
            deadline = time.monotonic() + SUBPROCESS_TIMEOUT_S
            while _stored_generations(db) < 50:
                assert process.poll() is None, log.read_text()
                assert time.monotonic() < deadline, "no results stored: the run did not stream"
                time.sleep(0.5)
            process.send_signal(signal.SIGINT)
            process.wait(timeout=SUBPROCESS_TIMEOUT_S)
        finally:
            if process.poll() is None:
                process.kill()
    err = log.read_text()
    assert process.returncode == 130, err
    assert "Traceback" not in err and "MemoryError" not in err
    assert _stored_generations(db) >= 50


def _stored_generations(db: Path) -> int:
    """Generations stored so far (0 while the file is not there or is being written)."""
    if not db.exists():
        return 0
    try:
        with duckdb.connect(str(db), read_only=True) as con:
            row = con.execute("SELECT count(*) FROM generations").fetchone()
    except duckdb.Error:
        return 0
    return int(row[0]) if row else 0


# -- files ----------------------------------------------------------------------------------


def test_config_with_invalid_utf8_names_the_byte(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)  # found as ./lctui.toml, as a user's would be
    (tmp_path / "lctui.toml").write_bytes(
        b'[models.mine]\nbackend = "gold"\ndescription = "caf\xe9"\n'
    )
    code, err = run_in_process(gold_run(tmp_path / "r.duckdb"), capsys)
    assert_one_line_error(code, err, "lctui.toml: not valid UTF-8 at byte 49 (line 3)")


def test_config_with_invalid_toml_names_the_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "lctui.toml"
    config.write_text('db = "x.duckdb"\n\n[models.mine\nbackend = "gold"\n')
    code, err = run_in_process(["models", "--config", str(config)], capsys)
    assert_one_line_error(code, err, f"{config}: not valid TOML")
    assert "line 3" in err


def _without_file_permission_override() -> tuple[str, ...]:
    """A prefix that makes root obey file permissions (as every other user does)."""
    if os.geteuid() != 0:
        return ()
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: folder permissions are not enforced")
    return (setpriv, "--bounding-set=-dac_override,-dac_read_search")


@pytest.mark.parametrize("existing", [False, True], ids=["new-file", "existing-file"])
def test_db_in_a_read_only_folder_is_a_clear_store_error(existing: bool, tmp_path: Path) -> None:
    folder = tmp_path / "readonly"
    folder.mkdir()
    db = folder / "r.duckdb"
    if existing:
        assert main(gold_run(db)) == 0
        for file in folder.iterdir():
            file.chmod(0o666)  # the files are writable, only the folder is not
    folder.chmod(0o555)
    try:
        result = run_subprocess(gold_run(db, "--n", "2"), _without_file_permission_override())
    finally:
        folder.chmod(0o755)
    assert_one_line_error(result.returncode, result.stderr, f"cannot write {folder}")
    assert "Permission denied" in result.stderr and "--db" in result.stderr


_TUI_PROBE = """
import asyncio, sys
from pathlib import Path
from lctui.core.config import Config
from lctui.tui.app import LctuiApp

async def main():
    app = LctuiApp(Path(sys.argv[1]), Config(), import_samples=False)
    async with app.run_test() as pilot:
        await pilot.pause()
        notes = [str(n.message) for n in app._notifications]
        print(app.read_only, app.store.read_only, any("opened read-only" in n for n in notes))

asyncio.run(main())
"""


def test_the_tui_opens_a_file_in_a_read_only_folder_read_only(tmp_path: Path) -> None:
    """The TUI writes (and claims) its file; where the folder cannot be written it browses
    the file read-only and says why, instead of failing at the first write."""
    folder = tmp_path / "readonly"
    folder.mkdir()
    db = folder / "r.duckdb"
    assert main(gold_run(db)) == 0
    folder.chmod(0o555)
    try:
        result = subprocess.run(
            [*_without_file_permission_override(), sys.executable, "-c", _TUI_PROBE, str(db)],
            capture_output=True,
            text=True,
            timeout=SUBPROCESS_TIMEOUT_S,
            env=dict(os.environ),
        )
    finally:
        folder.chmod(0o755)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["True", "True", "True"]


# -- the top-level guard --------------------------------------------------------------------


def test_unexpected_exception_with_a_fake_bug_prints_one_line_and_logs_the_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(args: object) -> int:
        raise ZeroDivisionError("a fake bug in a command")

    monkeypatch.setattr("lctui.cli.browse.cmd_tasks", broken)
    code = main(["tasks"])
    err = capsys.readouterr().err
    assert code == 1
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err
    assert lines[0].startswith("lctui: internal error (a bug): ZeroDivisionError: a fake bug")
    logs = list((tmp_path / "data" / "crashes").glob("lctui-*.log"))
    assert len(logs) == 1 and str(logs[0]) in lines[0]
    text = logs[0].read_text()
    assert "command: lctui tasks" in text and "Traceback" in text
    assert "raise ZeroDivisionError" in text


def test_a_crash_with_an_argument_that_is_not_utf8_is_still_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A byte that is not UTF-8 in argv (Python keeps it as a surrogate escape) made the
    crash log itself fail, with a traceback (found in review); the log is the user's own."""
    from lctui.cli.crash import report_crash

    argv = ["run", "--db", "x\udcff.duckdb"]
    code = report_crash(RuntimeError("bad \udcff name"), argv)
    err = capsys.readouterr().err
    assert code == 1 and "Traceback" not in err and len(err.strip().splitlines()) == 1
    (log,) = (tmp_path / "data" / "crashes").glob("lctui-*.log")
    assert log.stat().st_mode & 0o777 == 0o600
    assert "x\\udcff.duckdb" in log.read_text(encoding="utf-8")


def test_a_crash_with_a_long_message_prints_it_cut_with_the_one_ellipsis(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from lctui.cli.crash import report_crash

    report_crash(RuntimeError("line one\n  line two " + "x" * 1000), ["run"])
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    summary = err.split("RuntimeError: ", 1)[1].split("; the full traceback", 1)[0]
    assert summary.startswith("line one line two xxx") and summary.endswith("x…")
    assert len(summary) == 200
