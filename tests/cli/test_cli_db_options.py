"""Every command that opens a database chooses it through `resolve_db`: the same
precedence (--db, $LCTUI_DB, lctui.toml's db, the default) and the same refusal of a
path whose folder does not exist, before any model is loaded or any file is read."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from lctui.cli import main
from lctui.cli.db_options import resolve_db
from lctui.core.paths import default_db_path

COMMANDS = [
    ["run", "--model", "gold", "--tasks", "vt", "--lengths", "1k", "--n", "1"],
    ["demo"],
    ["query", "SELECT 1"],
    ["show", "abc"],
    ["export", "out"],
    ["import", "runs", "in"],
    ["import", "lifbench-scores", "in"],
    ["import", "helmet-results", "in"],
    ["import", "ruler-results", "in"],
    ["import", "longbench-results", "in"],
    ["report"],
    ["judge", "--judge", "gold"],
    ["rescore"],
    ["stats"],
    ["compare", "a", "b"],
    ["correlate"],
    ["export-report"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda argv: " ".join(argv[:2]))
def test_every_command_refuses_a_db_in_a_missing_folder(
    command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "no-such-folder"
    db = missing / "r.duckdb"
    assert main([*command, "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert f"--db {db}: the folder {missing} does not exist" in err
    assert not missing.exists()


def _args(db: str | None = None, config: str | None = None) -> argparse.Namespace:
    return argparse.Namespace(db=db, config=config)


def test_the_path_comes_from_db_then_the_environment_then_the_config_then_the_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # no lctui.toml in the working folder
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "no-config"))
    config = tmp_path / "lctui.toml"
    config.write_text(f"db = {str(tmp_path / 'toml.duckdb')!r}\n")
    monkeypatch.setenv("LCTUI_DB", str(tmp_path / "env.duckdb"))
    resolved = resolve_db(_args(str(tmp_path / "flag.duckdb"), str(config)))
    assert resolved.path == tmp_path / "flag.duckdb"
    assert resolved.config.path == config  # the config that was read comes with it
    assert resolve_db(_args(None, str(config))).path == tmp_path / "env.duckdb"
    monkeypatch.delenv("LCTUI_DB")
    assert resolve_db(_args(None, str(config))).path == tmp_path / "toml.duckdb"
    config.unlink()
    assert resolve_db(_args()).path == default_db_path()
