"""Two sides that share no scored example: `compare` says why (which of tokenizer,
lengths, seeds, tasks, template allowance differ), `lctui compare` and `lctui
export-report --compare` fail with that reason (exit 2) instead of an empty report."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest

from helpers.gold_runs import UNPAIRABLE, unpairable_runs
from lctui.analysis.compare import compare
from lctui.analysis.pairing import NoPairs
from lctui.cli import main
from lctui.store import open_store


@pytest.fixture(scope="module")
def unpairable(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    return unpairable_runs(tmp_path_factory.mktemp("unpairable"))


def reason(db: Path, a: str, b: str) -> str:
    with open_store(db, read_only=True) as store, pytest.raises(NoPairs) as refused:
        compare(store, a, b)
    return str(refused.value)


@pytest.mark.parametrize(
    ("other", "expected"),
    [
        ("tokenizer", "different tokenizers (run:{base}: o200k_base; run:{other}: cl100k_base)"),
        ("seed", "different seeds (run:{base}: 0; run:{other}: 1)"),
        ("length", "different lengths (run:{base}: 1k; run:{other}: 2k)"),
        (
            "allowance",
            "different template allowances (run:{base}: 64 tokens; run:{other}: 32 tokens)",
        ),
    ],
)
def test_compare_says_which_trait_differs(
    unpairable: tuple[Path, dict[str, str]], other: str, expected: str
) -> None:
    db, runs = unpairable
    base, second = runs["base"], runs[other]
    message = reason(db, f"run:{base}", f"run:{second}")
    assert "share no example" in message
    assert expected.format(base=base, other=second) in message
    assert "--tokenizer o200k_base" in message  # how to make them pair
    for trait in ("tokenizers", "seeds", "lengths", "template allowances"):
        if trait not in expected:
            assert f"different {trait}" not in message and f"; {trait} (" not in message


def test_shared_examples_that_failed_on_one_side_are_named(
    unpairable: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    source, runs = unpairable
    db = tmp_path / "failed.duckdb"
    shutil.copy(source, db)
    base = runs["base"]
    # The base command again at another temperature (new keys, the same examples)...
    args = ["run", "--model", "gold", "--tasks", "niah_single_1", "--n", "2"]
    args += [*UNPAIRABLE["base"], "--temperature", "0.7", "--db", str(db)]
    assert main(args) == 0
    with duckdb.connect(str(db)) as con:
        row = con.execute("SELECT run_id FROM runs ORDER BY started_at DESC LIMIT 1").fetchone()
        assert row is not None
        (again,) = row
        # ... where every request failed.
        con.execute(
            "UPDATE generations SET status = 'error', error = 'boom' WHERE run_id = ?", [again]
        )
        con.execute(
            "UPDATE scores SET status = 'error', value = NULL WHERE generation_id IN "
            "(SELECT generation_id FROM generations WHERE run_id = ?)",
            [again],
        )
    message = reason(db, f"run:{base}", f"run:{again}")
    assert "share 2 example(s), but none was scored on both sides" in message
    assert f"2 failed on run:{again}" in message


def test_cli_compare_and_export_report_fail_with_the_reason(
    unpairable: tuple[Path, dict[str, str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db, runs = unpairable
    a, b = f"run:{runs['base']}", f"run:{runs['tokenizer']}"
    capsys.readouterr()
    assert main(["compare", a, b, "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert "share no example" in err and "different tokenizers" in err
    report = tmp_path / "report.md"
    code = main(["export-report", "--compare", a, b, "--db", str(db), "--out", str(report)])
    assert code == 2
    err = capsys.readouterr().err
    assert "share no example" in err and "cl100k_base" in err
    assert not report.exists()
