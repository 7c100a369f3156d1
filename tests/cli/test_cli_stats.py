"""`lctui stats` and `lctui judge` from the command line: tables, JSON, prices, clear errors."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from helpers.fake_openai_server import FakeOpenAIServer
from lctui.cli import main
from lctui.resources import sample_runs_dir
from lctui.store import open_store
from lctui.store.samples import sample_run_ids
from lctui.store.transfer import import_parquet


@pytest.fixture
def gold_db(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    db = tmp_path / "gold.duckdb"
    args = ["run", "--model", "gold", "--tasks", "niah_single_1", "--lengths", "1k", "--n", "2"]
    assert main([*args, "--db", str(db)]) == 0
    capsys.readouterr()
    return db


def test_stats_table_and_json_after_a_gold_run(
    gold_db: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["stats", "--db", str(gold_db), "--format", "table"]) == 0
    table = capsys.readouterr().out
    assert "gold (reference)" in table and "TTFT p50" in table
    assert main(["stats", "--db", str(gold_db), "--format", "json"]) == 0
    (account,) = json.loads(capsys.readouterr().out)
    (model,) = account["models"]
    assert (model["model"], model["generations"], model["errors"]) == ("gold", 2, 0)
    assert model["ttft_p50_s"] is not None and model["output_tok_s"] > 0
    assert model["cost_usd"] is None and account["cost_usd"] is None


def test_stats_cost_comes_from_the_config_price_table(
    gold_db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "lctui.toml"
    config.write_text("[prices.gold]\ninput = 3.0\noutput = 15.0\n", encoding="utf-8")
    assert main(["stats", "--db", str(gold_db), "--config", str(config), "--format", "json"]) == 0
    (account,) = json.loads(capsys.readouterr().out)
    con = duckdb.connect(str(gold_db), read_only=True)
    sums = con.execute("SELECT sum(prompt_tokens), sum(output_tokens) FROM generations").fetchone()
    con.close()
    assert sums is not None
    expected = (sums[0] * 3.0 + sums[1] * 15.0) / 1e6
    assert account["models"][0]["cost_usd"] == pytest.approx(expected)
    assert account["cost_usd"] == pytest.approx(expected)


def test_stats_of_an_unknown_run_says_how_to_list_runs(
    gold_db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["stats", "--db", str(gold_db), "--run", "nope"]) == 2
    err = capsys.readouterr().err
    assert "holds no generations of run nope" in err and "SELECT run_id" in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["judge", "--judge", "gold"], "nothing was judged"),
        (["judge", "--judge", "gold", "--judge-batch"], "the judge must be an openai model"),
        (["judge", "--judge", "no-such-judge"], "unknown model 'no-such-judge'"),
        (
            ["run", "--model", "gold", "--tasks", "niah_single_1", "--judge-batch"],
            "--judge-batch needs --judge MODEL",
        ),
    ],
)
def test_judge_options_fail_with_one_clear_line(
    gold_db: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert main([*argv, "--db", str(gold_db)]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_stats_shows_each_servers_share_of_a_run_spread_over_two(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two fake servers (one refuses its first request: a failure a real server does not
    give on demand) behind one `lctui run`; `lctui stats --run` reads their shares back."""
    db = tmp_path / "spread.duckdb"
    config = tmp_path / "lctui.toml"
    chunks = ["The special ", "number is ", "42", "."]
    with FakeOpenAIServer("m", chunks) as one, FakeOpenAIServer("m", chunks, fail=[1]) as two:
        config.write_text(
            f'[models.spread]\nbackend = "openai"\nmodel = "m"\nmax_retries = 0\n'
            f'base_url = ["{one.base_url}", "{two.base_url}"]\n',
            encoding="utf-8",
        )
        args = ["run", "--model", "spread", "--tasks", "niah_single_1", "--lengths", "1k"]
        assert main([*args, "--n", "4", "--db", str(db), "--config", str(config)]) == 1
    capsys.readouterr()
    con = duckdb.connect(str(db), read_only=True)
    (run_id,) = con.execute("SELECT run_id FROM runs").fetchone() or ("",)
    con.close()
    assert main(["stats", "--db", str(db), "--run", run_id, "--format", "json"]) == 0
    (account,) = json.loads(capsys.readouterr().out)
    rows = [(s["url"], s["requests"], s["share"], s["ok"], s["errors"]) for s in account["servers"]]
    assert rows == [(one.base_url, 2, 0.5, 2, 0), (two.base_url, 2, 0.5, 1, 1)]
    assert "(400): bad request" in account["servers"][1]["last_error"]
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["stats", "--db", str(db), "--run", run_id, "--format", "table"]) == 0
    table = capsys.readouterr().out
    assert f"Servers of run {run_id}" in table and two.base_url in table and "50%" in table
    # Runs merged from another machine keep their servers (the record travels with them).
    merged = tmp_path / "merged.duckdb"
    assert main(["export", str(tmp_path / "moved"), "--db", str(db)]) == 0
    assert main(["import", "runs", str(tmp_path / "moved"), "--db", str(merged)]) == 0
    capsys.readouterr()
    assert main(["stats", "--db", str(merged), "--run", run_id, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["servers"] == account["servers"]


def test_stats_name_a_shipped_sample_run_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "samples.duckdb"
    with open_store(db) as store:
        assert import_parquet(store, sample_runs_dir() / "smollm2-synthetic") > 0
    (run,) = sample_run_ids()
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["stats", "--db", str(db), "--format", "table"]) == 0
    assert f"Run {run} (sample run)" in capsys.readouterr().out
    assert main(["stats", "--db", str(db), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["run_id"] == run  # the id alone
