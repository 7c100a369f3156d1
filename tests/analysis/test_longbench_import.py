"""`import_longbench_results`: LongBench v2's own result files (tests/fixtures/longbench/
results, written by its pred.py; result.txt by its result.py) into a real DuckDB file."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from helpers.harness_results import LONGBENCH_RESULTS, jsonl, longbench_table
from lctui.core.errors import UserInputError
from lctui.store import open_store
from lctui.store.read.runs import list_runs
from lctui.suites.longbench.analysis import longbench_table as lctui_table
from lctui.suites.longbench.importer import MODE_TASKS, import_longbench_results

QWEN, LLAMA = "longbench:Qwen2.5-7B-Instruct", "longbench:Llama-3.1-8B-Instruct"
FILES = {
    "Qwen2.5-7B-Instruct": (QWEN, "direct"),
    "Qwen2.5-7B-Instruct_cot": (QWEN, "cot"),
    "Qwen2.5-7B-Instruct_no_context": (QWEN, "no_context"),
    "Llama-3.1-8B-Instruct": (LLAMA, "direct"),
}
COLUMNS = {"Overall": "overall", "Easy": "easy", "Hard": "hard", "Short": "short"}
COLUMNS |= {"Medium": "medium", "Long": "long"}


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("longbench") / "runs.duckdb"
    with open_store(db) as store:
        summary = import_longbench_results(store, LONGBENCH_RESULTS)
    assert summary.problems == ()  # lctui reads every response as pred.py did
    assert (summary.files, summary.imported, summary.examples, summary.added) == (4, 4, 30, 30)
    return db


def _generations(db: Path) -> dict[tuple[str, str, str], Any]:
    """(model, task, longbench_id) -> the stored generation."""
    with open_store(db, read_only=True) as store:
        rows = (
            store.cursor()
            .execute(
                "SELECT r.model, r.task, e.metadata->>'longbench_id', r.generation_id "
                "FROM results AS r JOIN examples AS e USING (example_id)"
            )
            .fetchall()
        )
        return {(m, t, i): store.get_generation(g) for m, t, i, g in rows}


def test_the_report_is_the_table_of_the_originals_result_script(imported: Path) -> None:
    with open_store(imported, read_only=True) as store:
        rows = {(r.model, r.task): r for r in lctui_table(store)}
    table = longbench_table()
    assert len(rows) == len(table) == 4
    for name, columns in table.items():
        model, mode = FILES[name]
        row = rows[model, MODE_TASKS[mode]]
        assert row.length == 120_000
        for column, group in COLUMNS.items():
            assert row.groups[group].accuracy == columns[column], (name, column)


def test_each_line_is_an_answer_scored_as_its_file_says(imported: Path) -> None:
    stored = _generations(imported)
    for name, (model, mode) in FILES.items():
        for item in jsonl(LONGBENCH_RESULTS / f"{name}.jsonl"):
            record = stored[model, MODE_TASKS[mode], item["_id"]]
            assert record.output == item["response"] and record.gold == (item["answer"],)
            score = record.scores[0]
            assert score.scorer == "longbench" and score.scorer_version is not None
            assert score.extras is not None
            assert score.extras["pred"] == score.extras["file_pred"] == item["pred"]
            assert score.value == float(item["judge"]) == float(item["pred"] == item["answer"])
            assert score.status == ("unparsed" if item["pred"] is None else "ok")
            meta = record.metadata
            for key, field in (("domain", "domain"), ("difficulty", "difficulty")):
                assert meta[key] == item[field]
            assert meta["length_bucket"] == item["length"] and meta["mode"] == mode
            assert meta["choices"] == {x: item[f"choice_{x}"] for x in "ABCD"}


def test_chain_of_thought_keeps_both_calls(imported: Path) -> None:
    stored = _generations(imported)
    for item in jsonl(LONGBENCH_RESULTS / "Qwen2.5-7B-Instruct_cot.jsonl"):
        record = stored[QWEN, "longbench_v2_cot", item["_id"]]
        assert [c.role for c in record.calls] == ["reasoning", "answer"]
        assert record.calls[0].output == item["response_cot"]
        assert record.calls[1].output == record.output == item["response"]


def test_the_prompt_is_missing_and_the_context_a_prefix(imported: Path) -> None:
    stored = _generations(imported)
    direct = jsonl(LONGBENCH_RESULTS / "Qwen2.5-7B-Instruct.jsonl")[0]
    record = stored[QWEN, "longbench_v2", direct["_id"]]
    assert record.prompt is None and record.prompt_missing is not None
    assert "not stored by LongBench v2's pred.py" in record.prompt_missing
    assert record.context == direct["context"] and len(direct["context"]) == 1000
    assert record.metadata["context_is_prefix"] is True
    assert record.question == direct["question"]
    # Without context the model read none of it: kept in the metadata only.
    blind = stored[QWEN, "longbench_v2_no_context", direct["_id"]]
    assert blind.context == "" and blind.metadata["document_prefix"] == direct["context"]


def test_one_run_per_model_and_shared_questions(imported: Path) -> None:
    with open_store(imported, read_only=True) as store:
        runs = {r.models: r for r in list_runs(store)}
        pairs = (
            store.cursor()
            .execute(
                "SELECT count(*) FROM results AS a JOIN results AS b USING (example_id) "
                "WHERE a.model = ? AND b.model = ?",
                [QWEN, LLAMA],
            )
            .fetchone()
        )
    assert set(runs) == {(QWEN,), (LLAMA,)}
    assert runs[(QWEN,)].tasks == tuple(sorted(MODE_TASKS.values()))
    assert runs[(QWEN,)].generations == 8 + 7 + 8
    assert pairs == (7,)  # the questions both answered directly (Llama's 7 of Qwen's 8)


def test_reimport_and_a_file_of_the_folder_add_nothing(tmp_path: Path) -> None:
    db = tmp_path / "runs.duckdb"
    with open_store(db) as store:
        first = import_longbench_results(store, LONGBENCH_RESULTS)
        again = import_longbench_results(store, LONGBENCH_RESULTS)
        alone = import_longbench_results(store, LONGBENCH_RESULTS / "Qwen2.5-7B-Instruct_cot.jsonl")
        count = store.cursor().execute("SELECT count(*) FROM generations").fetchone()
    assert (first.added, again.added, alone.added) == (30, 0, 0) and count == (30,)


def test_length_and_model_can_be_given(tmp_path: Path) -> None:
    with open_store(tmp_path / "runs.duckdb") as store:
        summary = import_longbench_results(
            store, LONGBENCH_RESULTS / "Llama-3.1-8B-Instruct.jsonl", model="llama", length=200_000
        )
        lengths = store.cursor().execute("SELECT DISTINCT length FROM results").fetchall()
    assert summary.models == ("llama",) and lengths == [(200_000,)]


def test_bad_files_lines_and_disagreements_are_reported(tmp_path: Path) -> None:
    folder = tmp_path / "results"
    folder.mkdir()
    lines = jsonl(LONGBENCH_RESULTS / "Qwen2.5-7B-Instruct.jsonl")
    lines[1]["pred"] = "D"  # the file says D (and judge False); its response names B
    lines[2]["judge"] = not lines[2]["judge"]
    del lines[3]["response"]
    text = "".join(json.dumps(line) + "\n" for line in lines) + "[1, 2]\n"
    (folder / "m.jsonl").write_text(text, encoding="utf-8")
    shutil.copy(LONGBENCH_RESULTS / "Llama-3.1-8B-Instruct.jsonl", folder / "m_rag_5.jsonl")
    cot = [{k: v for k, v in line.items() if k != "response_cot"} for line in lines[:2]]
    (folder / "m_cot.jsonl").write_text("".join(json.dumps(c) + "\n" for c in cot), "utf-8")
    with open_store(tmp_path / "runs.duckdb") as store:
        summary = import_longbench_results(store, folder)
    path = folder / "m.jsonl"
    assert sorted(summary.problems) == sorted(
        [
            f"{path}:4: no `response` text; line skipped",
            f"{path}:9: not a JSON object; line skipped",
            f"{path}: lctui reads another option than the file's `pred` on 1 line(s) (2); "
            "scored as lctui reads them",
            f"{path}: `judge` is not pred == answer on 1 line(s) (3)",
            f"{folder / 'm_cot.jsonl'}:1: no `response_cot` text (a chain-of-thought file "
            "keeps the reasoning there); line skipped",
            f"{folder / 'm_cot.jsonl'}:2: no `response_cot` text (a chain-of-thought file "
            "keeps the reasoning there); line skipped",
            f"{folder / 'm_rag_5.jsonl'}: RAG results (--rag 5) are not imported: lctui has "
            "no RAG mode of LongBench v2",
        ]
    )
    assert (summary.files, summary.imported, summary.added) == (3, 1, 7)


def test_no_result_file_is_a_user_error(tmp_path: Path) -> None:
    with open_store(tmp_path / "runs.duckdb") as store, pytest.raises(UserInputError) as err:
        import_longbench_results(store, tmp_path)
    assert "holds no LongBench v2 result file" in str(err.value)
    with open_store(tmp_path / "runs.duckdb") as store, pytest.raises(UserInputError):
        import_longbench_results(store, tmp_path / "nowhere.jsonl")
