"""Bad input gets one clear message (exit 2), never a traceback, and loses nothing."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import duckdb
import pytest

from lctui.cli import main


def tiny_run(db: Path, model: str = "gold") -> list[str]:
    """One example of `model` into `db`: with gold, the cheapest real run."""
    return [
        "run",
        "--model",
        model,
        "--tasks",
        "vt",
        "--lengths",
        "1k",
        "--n",
        "1",
        "--db",
        str(db),
    ]


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(args)
    captured = capsys.readouterr()
    return code, captured.out + captured.err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--tasks", "no_such_task"], "unknown task 'no_such_task'"),
        (["--tasks", "vt", "--model", "nobody"], "unknown model 'nobody'"),
        (["--tasks", "vt", "--lengths", "4kb"], "unknown length '4kb'"),
        (["--tasks", "vt", "--n", "0"], "--n must be at least 1"),
        (["--tasks", "vt", "--tokenizer", "gpt2"], "unknown tokenizer 'gpt2'"),
        (["--tasks", "vt", "--set", "vt.hops=3"], "task vt has no parameter hops"),
        (["--tasks", "cwe", "--lengths", "300"], "too short"),
    ],
)
def test_bad_run_arguments(
    args: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["run", "--model", "gold", "--db", str(tmp_path / "r.duckdb")]
    # Later options win in argparse for single values; --model is append, so drop gold
    # when the case names its own model.
    if "--model" in args:
        base = ["run", "--db", str(tmp_path / "r.duckdb")]
    code, out = run_cli([*base, *args], capsys)
    assert code == 2
    assert message in out
    assert "Traceback" not in out


def test_db_locked_by_another_process(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "locked.duckdb"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"import duckdb,sys; c=duckdb.connect({str(db)!r}); "
            "print('ready', flush=True); sys.stdin.read()",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        code, out = run_cli(tiny_run(db), capsys)
    finally:
        holder.communicate("")
    assert code == 2
    assert "in use by another process" in out and str(db) in out


def test_db_that_is_not_a_database(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "notes.duckdb"
    db.write_text("these are my notes, not a database\n" * 200)
    code, out = run_cli(tiny_run(db), capsys)
    assert code == 2 and "not a DuckDB database" in out
    assert db.read_text().startswith("these are my notes")  # nothing overwritten


def test_query_on_missing_db(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run_cli(["query", "--db", str(tmp_path / "none.duckdb"), "SELECT 1"], capsys)
    assert code == 2 and "does not exist" in out


def test_query_is_read_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "r.duckdb"
    assert main(tiny_run(db)) == 0
    code, out = run_cli(["query", "--db", str(db), "DELETE FROM generations"], capsys)
    assert code == 2 and "read-only" in out.lower()
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT count(*) FROM generations").fetchone() == (1,)


def test_missing_optional_dependency_names_the_extra(tmp_path: Path) -> None:
    # Block torch the way a machine without the hf extra would fail to import it.
    blocker = tmp_path / "block"
    blocker.mkdir()
    (blocker / "sitecustomize.py").write_text("import sys\nsys.modules['torch'] = None\n")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "lctui",
            *tiny_run(tmp_path / "r.duckdb", "smollm2-135m"),
        ],
        capture_output=True,
        text=True,
        env=_env(PYTHONPATH=str(blocker)),
        timeout=120,
    )
    assert result.returncode == 2, result.stderr
    assert "lctui[hf]" in result.stderr and "Traceback" not in result.stderr


def test_bad_config_file_names_file_key_and_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "lctui.toml"
    config.write_text(
        textwrap.dedent("""
        [models.mine]
        backend = "hf"
        pth = "/models/x"
    """)
    )
    code, out = run_cli(["models", "--config", str(config)], capsys)
    assert code == 2
    assert str(config) in out and "models.mine" in out and "unknown key 'pth'" in out
    config.write_text('[models.mine]\nbackend = "hf"\npath = "/m"\nmax_context = "lots"\n')
    code, out = run_cli(["models", "--config", str(config)], capsys)
    assert code == 2 and "max_context must be an integer" in out


def _env(**extra: str) -> dict[str, str]:
    import os

    env = dict(os.environ)
    env.update(extra)
    return env


def test_a_db_in_a_missing_folder_is_refused_wherever_the_path_comes_from(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A typo in a folder name must not create that folder path: --db, LCTUI_DB and
    `db =` in lctui.toml are refused, naming the missing folder and how to create it."""
    missing = tmp_path / "evals" / "no-such-folder"
    db = missing / "r.duckdb"
    code, out = run_cli(tiny_run(db), capsys)
    assert code == 2
    assert f"--db {db}: the folder {missing} does not exist" in out
    assert f"mkdir -p {missing}" in out
    monkeypatch.setenv("LCTUI_DB", str(db))
    code, out = run_cli(tiny_run(db)[:-2], capsys)
    assert code == 2 and f"LCTUI_DB={db}: the folder {missing} does not exist" in out
    monkeypatch.delenv("LCTUI_DB")
    config = tmp_path / "lctui.toml"
    config.write_text(f"db = {str(db)!r}\n")
    code, out = run_cli([*tiny_run(db)[:-2], "--config", str(config)], capsys)
    assert code == 2 and f"in {config}: the folder {missing} does not exist" in out
    assert not (tmp_path / "evals").exists()


def test_the_default_data_folder_is_still_created(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tmp_path / "fresh" / "data"  # neither folder exists yet
    monkeypatch.setenv("LCTUI_DATA_DIR", str(data))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "no-config"))
    monkeypatch.chdir(tmp_path)
    assert main(tiny_run(tmp_path)[:-2]) == 0
    assert (data / "lctui.duckdb").is_file()
