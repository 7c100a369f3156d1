"""`lctui import longbench-results`: LongBench v2's own result files through the real CLI,
then `lctui report --suite longbench`, `lctui show` and `lctui compare` on them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from helpers.harness_results import LONGBENCH_RESULTS, jsonl, longbench_table
from lctui.cli import main

QWEN, LLAMA = "longbench:Qwen2.5-7B-Instruct", "longbench:Llama-3.1-8B-Instruct"


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(args)
    captured = capsys.readouterr()
    return code, captured.out + captured.err


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("longbench-cli") / "runs.duckdb"
    assert main(["import", "longbench-results", str(LONGBENCH_RESULTS), "--db", str(db)]) == 0
    return db


def test_import_then_again_then_one_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "runs.duckdb")
    code, out = _cli(["import", "longbench-results", str(LONGBENCH_RESULTS), "--db", db], capsys)
    assert code == 0 and "skipped or doubtful" not in out
    assert "Imported 30 new response(s) of 2 model(s)" in out
    assert "from 4 of 4 LongBench v2 result file(s)" in out
    code, out = _cli(["import", "longbench-results", str(LONGBENCH_RESULTS), "--db", db], capsys)
    assert code == 0 and "Imported 0 new response(s)" in out
    one = str(LONGBENCH_RESULTS / "Llama-3.1-8B-Instruct.jsonl")
    code, out = _cli(["import", "longbench-results", one, "--length", "200000", "--db", db], capsys)
    assert code == 0 and "Imported 7 new response(s) of 1 model(s)" in out  # another length


def test_report_reproduces_the_originals_result_table(
    imported: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = _cli(
        ["report", "--suite", "longbench", "--format", "json", "--db", str(imported)], capsys
    )
    assert code == 0
    rows = {(r["model"], r["task"]): r for r in json.loads(out)}
    table = longbench_table()
    mine = rows[QWEN, "longbench_v2_cot"]["groups"]
    original = table["Qwen2.5-7B-Instruct_cot"]
    assert mine["overall"]["accuracy"] == original["Overall"]
    assert (mine["easy"]["accuracy"], mine["hard"]["accuracy"]) == (
        original["Easy"],
        original["Hard"],
    )
    assert (
        rows[LLAMA, "longbench_v2"]["groups"]["overall"]["accuracy"]
        == (table["Llama-3.1-8B-Instruct"]["Overall"])
    )
    code, out = _cli(["report", "--suite", "longbench", "--db", str(imported)], capsys)
    assert code == 0 and "LongBench v2, chain of thought: accuracy (%)" in out


def test_show_says_the_prompt_was_not_stored(
    imported: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    item = jsonl(LONGBENCH_RESULTS / "Qwen2.5-7B-Instruct_cot.jsonl")[2]
    query = (
        "SELECT r.generation_id FROM results AS r JOIN examples AS e USING (example_id) "
        f"WHERE r.task = 'longbench_v2_cot' AND e.metadata->>'longbench_id' = '{item['_id']}'"
    )
    code, out = _cli(["query", query, "--format", "csv", "--db", str(imported)], capsys)
    code, shown = _cli(["show", out.splitlines()[1], "--db", str(imported)], capsys)
    assert code == 0
    flat = " ".join(shown.split())
    assert "prompt not stored by LongBench v2's pred.py" in flat
    assert item["context"][:200] not in flat  # the kept start is no prompt
    assert f"Output (ok): {item['response']}" in flat
    assert f"Score accuracy = {float(item['judge']):.3f} (ok)" in flat


def test_compare_pairs_the_questions_both_answered(
    imported: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = _cli(["compare", QWEN, LLAMA, "--format", "json", "--db", str(imported)], capsys)
    assert code == 0
    result = json.loads(out)
    (cell,) = result["cells"]
    assert (cell["task"], cell["length"], cell["n"]) == ("longbench_v2", 120_000, 7)
    assert result["unmatched"]["only_a"] == 1 + 7 + 8  # Qwen's other direct answer, CoT, no context


def test_a_rag_file_and_a_broken_line_get_one_line_each(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "results"
    folder.mkdir()
    shutil.copy(LONGBENCH_RESULTS / "Llama-3.1-8B-Instruct.jsonl", folder / "Llama_rag_3.jsonl")
    text = (LONGBENCH_RESULTS / "Llama-3.1-8B-Instruct.jsonl").read_text(encoding="utf-8")
    (folder / "Llama.jsonl").write_text(text + "{oops\n", encoding="utf-8")
    db = str(tmp_path / "runs.duckdb")
    code, out = _cli(["import", "longbench-results", str(folder), "--db", db], capsys)
    assert code == 0
    lines = [line for line in out.splitlines() if line.startswith("skipped or doubtful")]
    assert len(lines) == 2
    assert f"{folder / 'Llama.jsonl'}:8: not valid JSON" in lines[0]
    assert "RAG results (--rag 3) are not imported" in lines[1]
    assert "Imported 7 new response(s) of 1 model(s) (longbench:Llama)" in out


def test_nothing_to_import_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "runs.duckdb")
    code, out = _cli(["import", "longbench-results", str(tmp_path), "--db", db], capsys)
    assert code == 2
    assert "lctui: error:" in out and "holds no LongBench v2 result file" in out
    assert "Traceback" not in out
