"""`import_helmet_results`: HELMET's own result files (tests/fixtures/helmet/results, written
by HELMET's eval.py and judge scripts) into a real DuckDB file, beside lctui's own runs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from helpers.store_factories import write_tiny_run
from lctui.core.errors import UserInputError
from lctui.store import open_store
from lctui.store.read.runs import list_runs
from lctui.suites.helmet.datasets import HELMET_DATASETS, helmet_dataset
from lctui.suites.helmet.importer import (
    JUDGE_SUFFIX,
    import_helmet_results,
    result_files,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures/helmet/results"
LLAMA = "helmet:Llama-3.1-8B-Instruct"
QWEN = "helmet:Qwen2.5-7B-Instruct"
TABLES = ("models", "runs", "examples", "generations", "scores", "rubric_points")


def _files() -> list[Path]:
    return result_files(FIXTURES)[0]


def _content(path: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return loaded


def _stored(db: Path) -> dict[tuple[str, str, int], dict[str, Any]]:
    """(model, file, index in the file) -> the rule score, judge score and generation."""
    with open_store(db, read_only=True) as store:
        rows = (
            store.cursor()
            .execute(
                """
            SELECT r.model, g.config->>'helmet_file', (e.metadata->>'helmet_index')::INT,
                   r.score, r.metric, r.output, r.prompt_tokens, r.output_tokens,
                   j.score, j.metric, r.task, r.category, r.length, r.generation_id, r.status
            FROM results AS r JOIN examples AS e USING (example_id)
            JOIN generations AS g USING (generation_id)
            LEFT JOIN judge_scores AS j USING (generation_id)
            """
            )
            .fetchall()
        )
    names = (
        "score", "metric", "output", "input_len", "output_len", "judge", "judge_metric",
        "task", "category", "length", "generation_id", "status",
    )  # fmt: skip
    return {(r[0], r[1], r[2]): dict(zip(names, r[3:], strict=True)) for r in rows}


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("helmet") / "runs.duckdb"
    with open_store(db) as store:
        write_tiny_run(store)  # a run of lctui's own, already in the file
        store.flush(force=True)
        import_helmet_results(store, FIXTURES)
    return db


def test_every_fixture_dataset_maps_to_a_task_of_the_plan() -> None:
    names = {_content(p)["args"]["datasets"] for p in _files()}
    assert names == {
        "kilt_nq", "json_kv", "msmarco_rerank_psg", "narrativeqa_8000",
        "multi_lexsum_8000", "alce_asqa_30",
    }  # fmt: skip
    assert helmet_dataset("kilt_popqa_3").task == "kilt_popqa"  # type: ignore[union-attr]
    assert helmet_dataset("icl_clinic150_7050shot_balance").task == "icl_clinc150"  # type: ignore[union-attr]
    assert helmet_dataset("infbench_choice_eng_130862").category == "longqa"  # type: ignore[union-attr]
    assert helmet_dataset("ruler_niah_mv").task == "niah_multivalue"  # type: ignore[union-attr]
    assert helmet_dataset("longproc_html_to_tsv") is None
    assert len({row.task for row in HELMET_DATASETS}) == 21


def test_judged_file_replaces_the_file_it_judged() -> None:
    names = [p.name for p in _files()]
    judged = [n for n in names if n.endswith(JUDGE_SUFFIX)]
    assert len(judged) == 2
    for name in judged:
        assert name.replace(JUDGE_SUFFIX, ".json") not in names


def test_scores_equal_the_files_per_example_numbers(imported: Path) -> None:
    stored = _stored(imported)
    checked = 0
    alce: list[float] = []
    for path in _files():
        content = _content(path)
        row = helmet_dataset(content["args"]["datasets"])
        assert row is not None
        model = "helmet:" + content["args"]["model_name_or_path"].rsplit("/", 1)[-1]
        for index, item in enumerate(content["data"]):
            got = stored[model, path.name, index]
            assert got["task"] == row.task and got["category"] == row.category
            assert got["length"] == content["args"]["input_max_length"]
            assert got["output"] == item["output"]
            assert (got["input_len"], got["output_len"]) == (item["input_len"], item["output_len"])
            if row.helmet_metric is None:  # ALCE: HELMET keeps no per-example number
                assert got["metric"] == row.metric and got["status"] == "ok"
                alce.append(got["score"])
                continue
            assert got["metric"] == row.metric
            assert got["score"] == float(item[row.helmet_metric])  # 0-1 in HELMET's files too
            # HELMET's mean (x100) is the mean of what was imported.
            checked += 1
        if row.helmet_metric is not None:
            values = [float(i[row.helmet_metric]) for i in content["data"]]
            mean = content["averaged_metrics"][row.helmet_metric]
            assert 100 * sum(values) / len(values) == pytest.approx(mean, abs=1e-9)
    assert checked == 17 - 1  # every example but ALCE's one
    # ALCE's file keeps only means (.json.score, x100): lctui's ALCE scorer (equal to
    # ALCE's on the parity fixtures) scores its outputs, and they average to ALCE's mean.
    assert alce == [0.5]
    alce_file = next(p for p in _files() if p.name.startswith("alce_asqa"))
    score_file = alce_file.with_name(alce_file.name + ".score")
    assert 100 * sum(alce) / len(alce) == _content(score_file)["str_em"]


def test_judge_verdicts_become_judge_scores(imported: Path) -> None:
    stored = _stored(imported)
    for path in _files():
        if not path.name.endswith(JUDGE_SUFFIX):
            continue
        content = _content(path)
        for index, item in enumerate(content["data"]):
            got = stored[LLAMA, path.name, index]
            verdict = item["gpt-4-scores"]
            if "correctness" in verdict:  # NarrativeQA: fluency x correctness on 0-3
                assert got["judge_metric"] == "judge_qa"
                assert got["judge"] == verdict["fluency"] * verdict["correctness"] / 3
            else:
                assert got["judge_metric"] == "judge_summ"
                assert got["judge"] == verdict["f1"]
    judged = [v["judge"] for k, v in stored.items() if (k[1] or "").startswith("narrativeqa")]
    nqa = next(p for p in _files() if p.name.startswith("narrativeqa"))
    # HELMET's gpt-4-score is on 0-3; collect_results.py reports it x 100/3.
    assert sum(judged) / len(judged) == _content(nqa)["averaged_metrics"]["gpt-4-score"] / 3


def test_one_run_per_model_beside_lctuis_own(imported: Path) -> None:
    with open_store(imported, read_only=True) as store:
        runs = {r.models: r for r in list_runs(store)}
    assert set(runs) == {("tiny",), (LLAMA,), (QWEN,)}
    llama = runs[(LLAMA,)]
    assert llama.status == "finished" and llama.run_id.startswith("helmet-")
    assert llama.lengths == (8192, 16384)
    assert llama.tasks == (
        "alce_asqa", "json_kv", "kilt_nq", "msmarco_rerank", "multi_lexsum", "narrativeqa",
    )  # fmt: skip
    assert (llama.generations, llama.unscored) == (14, 0)
    assert runs[(QWEN,)].tasks == ("kilt_nq",)
    assert runs[(QWEN,)].mean_score == pytest.approx(2 / 3)
    assert runs[("tiny",)].generations == 5  # lctui's own run is untouched


def test_alce_means_are_kept_on_the_run(imported: Path) -> None:
    with open_store(imported, read_only=True) as store:
        llama = next(r for r in list_runs(store) if r.models == (LLAMA,))
    means = llama.command["helmet_averaged_metrics"]
    alce = next(v for k, v in means.items() if k.startswith("alce_asqa"))
    assert alce["str_em"] == 50.0  # eval_alce.py's .json.score, x100 as ALCE writes it


def test_missing_prompt_is_missing_not_the_question(imported: Path) -> None:
    stored = _stored(imported)
    gid = next(v["generation_id"] for k, v in stored.items() if k[0] == QWEN)
    with open_store(imported, read_only=True) as store:
        record = store.get_generation(gid)
    assert record is not None
    assert record.prompt is None
    assert record.prompt_missing is not None and "not stored by HELMET" in record.prompt_missing
    assert record.question  # HELMET's question is kept, but never shown as the prompt
    assert record.metadata is not None and record.metadata["prompt_stored"] is False


def test_reimport_adds_nothing(tmp_path: Path) -> None:
    db = tmp_path / "runs.duckdb"
    with open_store(db) as store:
        first = import_helmet_results(store, FIXTURES)
    with open_store(db) as store:
        counts = {t: store.cursor().execute(f"SELECT count(*) FROM {t}").fetchone() for t in TABLES}
        again = import_helmet_results(store, FIXTURES)
        # One model's folder alone (another run): its answers are stored already (this
        # once failed on a duplicate generation id).
        alone = import_helmet_results(store, FIXTURES / "Qwen2.5-7B-Instruct")
        store.flush(force=True)
        after = {t: store.cursor().execute(f"SELECT count(*) FROM {t}").fetchone() for t in TABLES}
    assert (first.added, again.added, alone.added) == (17, 0, 0)
    assert after == counts and alone.runs == ()


def test_bad_files_are_named_and_the_others_imported(tmp_path: Path) -> None:
    folder = tmp_path / "output"
    shutil.copytree(FIXTURES, folder)
    qwen = folder / "Qwen2.5-7B-Instruct"
    (qwen / "broken.json").write_text('{"args": {', encoding="utf-8")
    source = _content(next(qwen.glob("kilt_nq*.json")))
    unknown = {**source, "args": {**source["args"], "datasets": "longproc_html_to_tsv"}}
    (qwen / "unknown.json").write_text(json.dumps(unknown), encoding="utf-8")
    (qwen / "config.json").write_text('{"datasets": "kilt_nq"}', encoding="utf-8")
    no_length = {**source, "args": {**source["args"], "input_max_length": "8192,16384"}}
    (qwen / "no_length.json").write_text(json.dumps(no_length), encoding="utf-8")
    seen: list[tuple[int, int]] = []
    with open_store(tmp_path / "runs.duckdb") as store:
        summary = import_helmet_results(
            store, folder, progress=lambda done, total, path: seen.append((done, total))
        )
    problems = {Path(p.split(": ", 1)[0]).name: p.split(": ", 1)[1] for p in summary.problems}
    assert set(problems) == {"broken.json", "unknown.json", "config.json", "no_length.json"}
    assert problems["broken.json"].startswith("line 1: not valid JSON")
    assert "'longproc_html_to_tsv' has no lctui task" in problems["unknown.json"]
    assert "no `args` object" in problems["config.json"]
    assert "input_max_length" in problems["no_length.json"]
    assert (summary.files, summary.imported, summary.added) == (12, 8, 17)
    assert seen == [(i, 12) for i in range(1, 13)]


def test_a_mean_that_disagrees_is_reported(tmp_path: Path) -> None:
    folder = tmp_path / "output"
    folder.mkdir()
    source = next(p for p in _files() if p.name.startswith("json_kv"))
    content = _content(source)
    content["averaged_metrics"]["substring_exact_match"] = 90.0
    (folder / source.name).write_text(json.dumps(content), encoding="utf-8")
    with open_store(tmp_path / "runs.duckdb") as store:
        summary = import_helmet_results(store, folder)
    assert summary.added == 2
    assert len(summary.problems) == 1
    assert "average 50.0000, the file's averaged_metrics say 90.0000" in summary.problems[0]


def test_a_folder_without_result_files_is_a_user_error(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("no results here", encoding="utf-8")
    with open_store(tmp_path / "runs.duckdb") as store, pytest.raises(UserInputError) as err:
        import_helmet_results(store, tmp_path)
    assert "holds no HELMET result file" in str(err.value)
    with open_store(tmp_path / "runs.duckdb") as store, pytest.raises(UserInputError):
        import_helmet_results(store, tmp_path / "nowhere")


def test_model_name_can_be_given(tmp_path: Path) -> None:
    with open_store(tmp_path / "runs.duckdb") as store:
        summary = import_helmet_results(store, FIXTURES / "Qwen2.5-7B-Instruct", model="qwen-h")
    assert summary.models == ("qwen-h",)


def test_two_models_on_the_same_rows_share_their_examples(imported: Path) -> None:
    with open_store(imported, read_only=True) as store:
        rows = (
            store.cursor()
            .execute(
                "SELECT model, list(example_id ORDER BY example_id) FROM results "
                "WHERE task = 'kilt_nq' AND length = 8192 GROUP BY model ORDER BY model"
            )
            .fetchall()
        )
    assert [r[0] for r in rows] == [LLAMA, QWEN]
    assert rows[0][1] == rows[1][1] and len(rows[0][1]) == 3


def test_an_alce_mean_that_disagrees_is_reported(tmp_path: Path) -> None:
    folder = tmp_path / "output"
    folder.mkdir()
    source = next(p for p in _files() if p.name.startswith("alce_asqa"))
    shutil.copy(source, folder / source.name)
    (folder / (source.name + ".score")).write_text('{"str_em": 80.0}', encoding="utf-8")
    with open_store(tmp_path / "runs.duckdb") as store:
        summary = import_helmet_results(store, folder)
    assert summary.added == 1
    assert len(summary.problems) == 1
    assert "str_em average 50.0000, the file's averaged_metrics say 80.0000" in summary.problems[0]
