"""`lctui import ruler-results DIR`: RULER's own prediction folders through the real CLI,
then `lctui export-report`, `lctui show` and `lctui compare` on them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from helpers.harness_results import RULER_LLAMA, RULER_RESULTS, jsonl, ruler_summary
from lctui.cli import main

LLAMA, QWEN = "ruler:Llama-3.1-8B-Instruct", "ruler:Qwen2.5-7B-Instruct"


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(args)
    captured = capsys.readouterr()
    return code, captured.out + captured.err


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("ruler-cli") / "runs.duckdb"
    assert main(["import", "ruler-results", str(RULER_RESULTS), "--db", str(db)]) == 0
    return db


def test_import_beside_an_own_run_then_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "runs.duckdb")
    own = ["run", "--model", "gold", "--tasks", "niah_single_1", "--lengths", "1024", "--n", "1"]
    assert _cli([*own, "--db", db], capsys)[0] == 0
    code, out = _cli(["import", "ruler-results", str(RULER_RESULTS), "--db", db], capsys)
    assert code == 0
    assert "Imported 56 new response(s) of 2 model(s)" in out
    assert "from 29 of 29 RULER prediction file(s)" in out and "read 29/29 file(s)" in out
    assert "skipped or doubtful" not in out
    code, out = _cli(["import", "ruler-results", str(RULER_RESULTS), "--db", db], capsys)
    assert code == 0 and "Imported 0 new response(s)" in out
    query = (
        "SELECT model, round(avg(score) * 100, 2) AS score FROM results "
        "WHERE task = 'niah_single_1' AND length = 1024 GROUP BY model ORDER BY model"
    )
    code, out = _cli(["query", query, "--format", "csv", "--db", db], capsys)
    scores = ruler_summary(RULER_RESULTS / RULER_LLAMA / "synthetic/1024/pred")
    qwen = ruler_summary(RULER_RESULTS / "Qwen2.5-7B-Instruct/synthetic/1024/pred")
    assert out.splitlines()[1:] == [
        "gold,100.0",
        f"{LLAMA},{scores['niah_single_1']}",
        f"{QWEN},{qwen['niah_single_1']}",
    ]


def test_the_runs_report_shows_every_task_and_length(
    imported: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    query = "SELECT run_id FROM runs ORDER BY run_id"
    code, out = _cli(["query", query, "--format", "csv", "--db", str(imported)], capsys)
    runs = out.splitlines()[1:]
    assert code == 0 and len(runs) == 2
    reports = []
    for run in runs:
        code, out = _cli(
            ["export-report", "--run", run, "--db", str(imported), "--out", "-"], capsys
        )
        assert code == 0
        reports.append(out)
    llama = next(r for r in reports if f"models {LLAMA}" in r)
    assert "| model | task | 1k | 2k |" in llama
    scores = ruler_summary(RULER_RESULTS / RULER_LLAMA / "synthetic/1024/pred")
    assert f"| {LLAMA} | fwe | {scores['fwe'] / 100:.2f} n=2 |  |" in llama
    assert f"| {LLAMA} | niah_single_1 | 1.00 n=2 | 1.00 n=2 |" in llama


def test_show_prints_the_prompt_ruler_sent(
    imported: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    row = jsonl(RULER_RESULTS / RULER_LLAMA / "synthetic/1024/pred/qa_2.jsonl")[0]
    query = (
        "SELECT generation_id FROM generations WHERE config->>'ruler_file' = "
        f"'{RULER_LLAMA}/synthetic/1024/pred/qa_2.jsonl' AND config->>'ruler_line' = '1'"
    )
    code, out = _cli(["query", query, "--format", "csv", "--db", str(imported)], capsys)
    code, shown = _cli(["show", out.splitlines()[1], "--full", "--db", str(imported)], capsys)
    assert code == 0
    flat = " ".join(shown.split())
    assert " ".join(row["input"].split()) in flat  # the whole prompt, its answer prefix last
    assert f"Output (ok): {' '.join(row['pred'].split())}" in flat
    assert "Score string_match_part = 1.000 (ok)" in flat


def test_compare_pairs_the_prompts_both_models_read(
    imported: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = _cli(["compare", LLAMA, QWEN, "--format", "json", "--db", str(imported)], capsys)
    assert code == 0
    result = json.loads(out)
    cells = {(c["task"], c["length"]): c for c in result["cells"]}
    assert len(cells) == 13 and all(c["n"] == 2 for c in cells.values())
    assert result["unmatched"]["only_a"] == 2 and result["unmatched"]["only_b"] == 2  # 2K
    llama = ruler_summary(RULER_RESULTS / RULER_LLAMA / "synthetic/1024/pred")
    assert cells["cwe", 1024]["mean_a"] == pytest.approx(llama["cwe"] / 100)


def test_bad_files_get_one_line_each(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / RULER_LLAMA
    shutil.copytree(RULER_RESULTS / RULER_LLAMA, folder)
    pred = folder / "synthetic" / "2048" / "pred"
    (pred / "niah_single_1-3.jsonl").write_text('{"index": 0, "pred": 5}\n', encoding="utf-8")
    db = str(tmp_path / "runs.duckdb")
    code, out = _cli(["import", "ruler-results", str(tmp_path), "--db", db], capsys)
    assert code == 0
    lines = [line for line in out.splitlines() if line.startswith("skipped or doubtful")]
    assert lines == [
        f"skipped or doubtful: {pred / 'niah_single_1-3.jsonl'}:1: no `pred` text; line skipped"
    ]
    assert "Imported 28 new response(s) of 1 model(s)" in out


def test_a_folder_without_predictions_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "runs.duckdb")
    code, out = _cli(["import", "ruler-results", str(tmp_path), "--db", db], capsys)
    assert code == 2
    assert "lctui: error:" in out and "holds no RULER prediction file" in out
    assert "Traceback" not in out
    with pytest.raises(SystemExit) as stop:  # argparse refuses it
        main(["import", "ruler-results", str(tmp_path), "--length", "0", "--db", db])
    assert stop.value.code == 2
    assert "0 is not a positive number of tokens" in capsys.readouterr().err
