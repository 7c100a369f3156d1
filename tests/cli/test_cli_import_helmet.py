"""`lctui import helmet-results DIR`: HELMET's own result files next to a run of lctui's own."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from lctui.cli import main

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures/helmet/results"


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(args)
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def test_import_beside_an_own_run_then_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "runs.duckdb")
    own = ["run", "--model", "gold", "--tasks", "json_kv", "--lengths", "8192", "--n", "1"]
    assert _cli([*own, "--db", db], capsys)[0] == 0
    code, out = _cli(["import", "helmet-results", str(FIXTURES), "--db", db], capsys)
    assert code == 0
    assert "Imported 17 new response(s) of 2 model(s)" in out
    assert "from 8 of 8 HELMET result file(s)" in out
    code, out = _cli(["import", "helmet-results", str(FIXTURES), "--db", db], capsys)
    assert code == 0 and "Imported 0 new response(s)" in out
    code, out = _cli(
        [
            "query",
            "SELECT model, task, length, round(avg(score), 4) AS mean FROM results "
            "WHERE task IN ('json_kv', 'kilt_nq') GROUP BY ALL ORDER BY ALL",
            "--format",
            "csv",
            "--db",
            db,
        ],
        capsys,
    )
    assert code == 0
    assert out.splitlines()[1:] == [
        "gold,json_kv,8192,1.0",
        "helmet:Llama-3.1-8B-Instruct,json_kv,8192,0.5",
        "helmet:Llama-3.1-8B-Instruct,kilt_nq,8192,0.6667",
        "helmet:Llama-3.1-8B-Instruct,kilt_nq,16384,0.3333",
        "helmet:Qwen2.5-7B-Instruct,kilt_nq,8192,0.6667",
    ]


def test_show_says_the_prompt_was_not_stored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "runs.duckdb")
    assert _cli(["import", "helmet-results", str(FIXTURES), "--db", db], capsys)[0] == 0
    query = "SELECT generation_id FROM results WHERE task = 'msmarco_rerank' ORDER BY idx LIMIT 1"
    code, out = _cli(["query", query, "--format", "csv", "--db", db], capsys)
    assert code == 0
    code, shown = _cli(["show", out.splitlines()[1], "--db", db], capsys)
    assert code == 0
    flat = " ".join(shown.split())
    assert "prompt not stored by HELMET" in flat
    assert "what is a kiwi" not in flat  # the question is not passed off as the prompt
    assert "Output (ok): Ranking: 100 > 101 > 102 > 103" in flat
    assert "Score ndcg@10 = 1.000 (ok)" in flat


def test_bad_files_get_one_line_each(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "output"
    shutil.copytree(FIXTURES / "Qwen2.5-7B-Instruct", folder)
    (folder / "broken.json").write_text("[1, 2", encoding="utf-8")
    db = str(tmp_path / "runs.duckdb")
    code, out = _cli(["import", "helmet-results", str(folder), "--db", db], capsys)
    assert code == 0
    lines = [line for line in out.splitlines() if line.startswith("skipped or doubtful")]
    assert len(lines) == 1 and "broken.json: not a HELMET result file" in lines[0]
    assert "Imported 3 new response(s) of 1 model(s)" in out


def test_a_folder_without_result_files_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "runs.duckdb")
    code, out = _cli(["import", "helmet-results", str(tmp_path), "--db", db], capsys)
    assert code == 2
    assert "lctui: error:" in out and "holds no HELMET result file" in out
    assert "Traceback" not in out


def test_a_large_folder_reports_progress(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "output"
    folder.mkdir()
    source = next((FIXTURES / "Qwen2.5-7B-Instruct").glob("kilt_nq*.json"))
    for i in range(25):  # the same answers under 25 names: 25 files to read
        shutil.copy(source, folder / f"{i:02d}_{source.name}")
    db = str(tmp_path / "runs.duckdb")
    code, out = _cli(["import", "helmet-results", str(folder), "--db", db], capsys)
    assert code == 0
    assert "read 20/25 file(s)" in out and "read 25/25 file(s)" in out
    assert "Imported 75 new response(s)" in out and "from 25 of 25 HELMET result file(s)" in out
    # 25 answers to each example with the same settings: attempts of one key, shown once.
    query = "SELECT count(*) AS n FROM results"
    code, out = _cli(["query", query, "--format", "csv", "--db", db], capsys)
    assert out.splitlines()[1] == "3"
