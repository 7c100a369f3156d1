"""`import_ruler_results`: RULER's own prediction folders (tests/fixtures/ruler/results,
written by its prepare.py, call_api.py and evaluate.py) into a real DuckDB file."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from helpers.harness_results import (
    RULER_LLAMA,
    RULER_QWEN,
    RULER_RESULTS,
    jsonl,
    ruler_pred_files,
    ruler_summary,
)
from helpers.store_factories import write_tiny_run
from lctui.core.errors import UserInputError
from lctui.store import Store, open_store
from lctui.store.read.generations import load_example
from lctui.store.read.runs import list_runs
from lctui.suites.ruler.files import RULER_TASKS
from lctui.suites.ruler.importer import import_ruler_results

LLAMA, QWEN = f"ruler:{RULER_LLAMA}", f"ruler:{RULER_QWEN}"
TABLES = ("models", "runs", "examples", "generations", "scores", "rubric_points")


def _rows(db: Path, sql: str, params: list[Any] | None = None) -> list[tuple[Any, ...]]:
    with open_store(db, read_only=True) as store:
        return store.cursor().execute(sql, params or []).fetchall()


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("ruler") / "runs.duckdb"
    with open_store(db) as store:
        write_tiny_run(store)  # a run of lctui's own, already in the file
        store.flush(force=True)
        summary = import_ruler_results(store, RULER_RESULTS)
    assert summary.problems == ()
    assert (summary.files, summary.imported, summary.examples) == (29, 29, 56)
    return db


def test_every_task_mean_is_the_score_of_rulers_evaluate(imported: Path) -> None:
    """Per folder and task, the imported scores average (x100, rounded as evaluate.py
    rounds) to what RULER's own evaluate.py wrote in summary.csv."""
    checked = 0
    for folder in sorted(RULER_RESULTS.glob("*/synthetic/*/pred")):
        model, length = "ruler:" + folder.parents[2].name, int(folder.parent.name)
        for task, stated in ruler_summary(folder).items():
            (values,) = _rows(
                imported,
                "SELECT list(score) FROM results WHERE model = ? AND task = ? AND length = ?",
                [model, task, length],
            )[0]
            assert round(sum(values) / len(values) * 100, 2) == stated, (model, task, length)
            checked += 1
    assert checked == 13 + 13 + 1  # both models at 1K, Llama's one task at 2K


def test_each_prediction_keeps_its_prompt_output_and_gold(imported: Path) -> None:
    with open_store(imported, read_only=True) as store:
        for path in ruler_pred_files():
            model = "ruler:" + path.parents[3].name
            task = path.stem.rsplit("-", 1)[0] if path.stem not in RULER_TASKS else path.stem
            for line, row in enumerate(jsonl(path), start=1):
                found = store.cursor().execute(
                    "SELECT generation_id FROM generations AS g JOIN models AS m USING "
                    "(model_id) WHERE m.name = ? AND g.config->>'ruler_file' = ? "
                    "AND (g.config->>'ruler_line')::INT = ?",
                    [model, str(path.relative_to(RULER_RESULTS)), line],
                )
                (gid,) = found.fetchone() or (None,)
                record = store.get_generation(gid)
                assert record is not None and record.task == task
                assert record.prompt == row["input"]  # the exact prompt sent
                assert record.output == row["pred"] and record.gold == tuple(row["outputs"])
                assert record.max_new_tokens == RULER_TASKS[task].answer_tokens
                assert record.suite == "ruler" and record.category == RULER_TASKS[task].category
                assert record.scores[0].scorer_version is not None  # lctui's recall scorer


def test_the_answer_prefix_is_split_off_with_the_data_file(imported: Path) -> None:
    data = RULER_RESULTS / RULER_LLAMA / "synthetic/1024/data/vt/validation.jsonl"
    prefixes = {row["answer_prefix"] for row in jsonl(data)}
    rows = _rows(
        imported,
        "SELECT DISTINCT e.answer_prefix, e.metadata->>'answer_prefix_separated' FROM examples "
        "AS e WHERE e.task = 'vt'",
    )
    assert {prefix for prefix, _ in rows} == prefixes
    assert {flag for _, flag in rows} == {"true"}
    # The chunked folder has no data folder: its prompts are whole, not split; its two
    # chunks (one prediction each) follow each other.
    rows = _rows(
        imported,
        "SELECT answer_prefix, metadata->>'answer_prefix_separated', idx FROM examples "
        "WHERE task = 'niah_single_2' AND length = 2048 ORDER BY idx",
    )
    assert rows == [("", "false", 0), ("", "false", 1)]


def test_needles_are_marked_and_their_depth_measured(imported: Path) -> None:
    ids = [
        r[0]
        for r in _rows(
            imported,
            "SELECT example_id FROM examples WHERE task LIKE 'niah_%' "
            "AND metadata->>'imported_from' = 'ruler'",
        )
    ]
    assert len(ids) == 8 * 2 + 2 + 2
    with open_store(imported, read_only=True) as store:
        for example_id in ids:
            example = load_example(store, example_id)
            assert example is not None and example.spans
            assert {s.label for s in example.spans} == set(example.gold)
            for span in example.spans:
                assert span.kind == "gold"
                assert example.context[span.start : span.end] == span.label
            first = example.spans[0].start
            assert example.depth == round(100 * first / len(example.context), 2)
            assert example.depth is not None and 0 < example.depth < 100


def test_one_run_per_model_beside_lctuis_own(imported: Path) -> None:
    with open_store(imported, read_only=True) as store:
        runs = {r.models: r for r in list_runs(store)}
    assert set(runs) == {("tiny",), (LLAMA,), (QWEN,)}
    llama = runs[(LLAMA,)]
    assert llama.status == "finished" and llama.run_id.startswith("ruler-")
    assert llama.lengths == (1024, 2048) and len(llama.tasks) == 13
    assert (llama.generations, llama.unscored) == (28, 0)
    summaries = llama.command["ruler_summaries"]
    assert set(summaries) == {
        f"{RULER_LLAMA}/synthetic/1024/pred",
        f"{RULER_LLAMA}/synthetic/2048/pred",
    }
    assert runs[("tiny",)].generations == 5


def test_two_models_asked_the_same_prompts_share_their_examples(imported: Path) -> None:
    rows = _rows(
        imported,
        "SELECT model, list(example_id ORDER BY example_id) FROM results WHERE length = 1024 "
        "GROUP BY model ORDER BY model",
    )
    assert [r[0] for r in rows] == [LLAMA, QWEN]
    assert rows[0][1] == rows[1][1] and len(rows[0][1]) == 26


def test_reimport_adds_nothing(tmp_path: Path) -> None:
    db = tmp_path / "runs.duckdb"
    with open_store(db) as store:
        first = import_ruler_results(store, RULER_RESULTS)
    with open_store(db) as store:
        counts = {t: store.cursor().execute(f"SELECT count(*) FROM {t}").fetchone() for t in TABLES}
        again = import_ruler_results(store, RULER_RESULTS)
        # One model's folder alone (another run id): its predictions are stored already.
        alone = import_ruler_results(store, RULER_RESULTS / RULER_QWEN)
        after = {t: store.cursor().execute(f"SELECT count(*) FROM {t}").fetchone() for t in TABLES}
    assert (first.added, again.added, alone.added) == (56, 0, 0)
    assert after == counts and again.runs == () and alone.runs == ()


def _copy_folder(tmp_path: Path) -> Path:
    folder = tmp_path / RULER_LLAMA / "synthetic" / "1024"
    shutil.copytree(RULER_RESULTS / RULER_LLAMA / "synthetic" / "1024", folder)
    return folder


def test_bad_lines_and_files_are_named_and_the_rest_imported(tmp_path: Path) -> None:
    folder = _copy_folder(tmp_path)
    pred = folder / "pred"
    lines = (pred / "cwe.jsonl").read_text(encoding="utf-8").splitlines()
    broken = json.loads(lines[1])
    broken["outputs"] = []
    (pred / "cwe.jsonl").write_text(lines[0] + "\n" + json.dumps(broken) + "\n", encoding="utf-8")
    (pred / "fwe.jsonl").write_text("{not json\n", encoding="utf-8")
    (pred / "my_task.jsonl").write_text("{}\n", encoding="utf-8")
    with open_store(tmp_path / "runs.duckdb") as store:
        summary = import_ruler_results(store, tmp_path)
    problems = "\n".join(summary.problems)
    assert f"{pred / 'cwe.jsonl'}:2: `outputs` is not a list of answers; line skipped" in problems
    assert f"{pred / 'fwe.jsonl'}:1: not valid JSON" in problems
    assert f"{pred / 'my_task.jsonl'}: not named after a RULER task" in problems
    # The summary.csv no longer fits those files: said so, imported as lctui scores them.
    assert "cwe: the summary counts 1/2 empty predictions, the files hold 0/1" in problems
    assert f"{pred / 'summary.csv'}: fwe: scored by evaluate.py, but no prediction" in problems
    assert (summary.files, summary.imported, summary.examples, summary.added) == (14, 12, 23, 23)


def test_a_mean_that_disagrees_with_the_summary_is_reported(tmp_path: Path) -> None:
    folder = _copy_folder(tmp_path)
    summary_csv = folder / "pred" / "summary.csv"
    text = summary_csv.read_text(encoding="utf-8").replace("Score,100.0,", "Score,90.0,", 1)
    summary_csv.write_text(text, encoding="utf-8")
    with open_store(tmp_path / "runs.duckdb") as store:
        summary = import_ruler_results(store, tmp_path)
    assert summary.problems == (
        f"{summary_csv}: niah_single_1: the 2 predictions score 100.00 by lctui's "
        "string_match_all, the summary says 90.00; imported as lctui scores them",
    )


def test_a_folder_outside_rulers_layout_needs_the_model(tmp_path: Path) -> None:
    folder = tmp_path / "preds"
    shutil.copytree(RULER_RESULTS / RULER_LLAMA / "synthetic" / "1024" / "pred", folder)
    with open_store(tmp_path / "runs.duckdb") as store:
        summary = import_ruler_results(store, folder)
        assert summary.added == 0 and len(summary.problems) == 13
        assert "cannot tell the model" in summary.problems[0]
        named = import_ruler_results(store, folder, model="llama-ruler")
        (length, where), *others = _rows_of(store)
    assert named.models == ("llama-ruler",) and named.added == 26
    # No length folder: the rows' longest length (1,024 or under) rounded up.
    assert (length, where) == (1024, "rows") and not others


def _rows_of(store: Store) -> list[tuple[Any, ...]]:
    query = "SELECT DISTINCT length, metadata->>'length_from' FROM examples"
    return store.cursor().execute(query).fetchall()


def test_the_length_can_be_given(tmp_path: Path) -> None:
    folder = tmp_path / "preds"
    shutil.copytree(RULER_RESULTS / RULER_LLAMA / "synthetic" / "2048" / "pred", folder)
    with open_store(tmp_path / "runs.duckdb") as store:
        import_ruler_results(store, folder, model="m", length=2000)
        assert _rows_of(store) == [(2000, "option")]


def test_a_prediction_without_input_takes_its_prompt_from_the_data(tmp_path: Path) -> None:
    folder = _copy_folder(tmp_path)
    pred = folder / "pred" / "qa_1.jsonl"
    rows = jsonl(pred)
    for row in rows:
        del row["input"]
    pred.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    shutil.rmtree(folder / "data" / "qa_2")
    pred2 = folder / "pred" / "qa_2.jsonl"
    pred2.write_text(
        "".join(
            json.dumps({k: v for k, v in r.items() if k != "input"}) + "\n" for r in jsonl(pred2)
        ),
        encoding="utf-8",
    )
    with open_store(tmp_path / "runs.duckdb") as store:
        import_ruler_results(store, tmp_path)
        ids = dict(store.cursor().execute("SELECT task, generation_id FROM results").fetchall())
        qa_1, qa_2 = store.get_generation(ids["qa_1"]), store.get_generation(ids["qa_2"])
    data = {r["outputs"][0]: r for r in jsonl(folder / "data" / "qa_1" / "validation.jsonl")}
    assert qa_1 is not None and qa_2 is not None
    row = data[qa_1.gold[0]]
    assert qa_1.prompt == row["input"] + row["answer_prefix"]
    # Neither file keeps qa_2's prompt: none is made up.
    assert qa_2.prompt is None and qa_2.prompt_missing is not None
    assert "prompt not stored" in qa_2.prompt_missing
    assert qa_2.score is not None  # the answer is still scored against its gold


def test_a_folder_without_predictions_is_a_user_error(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("nothing", encoding="utf-8")
    with open_store(tmp_path / "runs.duckdb") as store, pytest.raises(UserInputError) as err:
        import_ruler_results(store, tmp_path)
    assert "holds no RULER prediction file" in str(err.value)
    with open_store(tmp_path / "runs.duckdb") as store, pytest.raises(UserInputError):
        import_ruler_results(store, tmp_path / "nowhere")


def test_imported_answers_are_rescored_like_lctuis_own(imported: Path, tmp_path: Path) -> None:
    from lctui.store.rescoring import score_targets

    with open_store(imported, read_only=True) as store:
        targets = score_targets(store, "all", models=[LLAMA])
    assert len(targets) == 28  # backend "harness": outputs lctui scored, not published numbers


def test_data_rows_that_match_no_prediction_are_reported(tmp_path: Path) -> None:
    folder = _copy_folder(tmp_path)
    data = folder / "data" / "vt" / "validation.jsonl"
    rows = jsonl(data)
    rows[0]["input"] = rows[0]["input"].replace("Question", "Query")  # regenerated since
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    with open_store(tmp_path / "runs.duckdb") as store:
        summary = import_ruler_results(store, tmp_path)
        flags = (
            store.cursor()
            .execute(
                "SELECT metadata->>'answer_prefix_separated' FROM examples WHERE task = 'vt' "
                "ORDER BY idx"
            )
            .fetchall()
        )
    assert summary.problems == (
        f"{data}: 1 prediction(s) match none of its rows (by the prompt they sent); their "
        "answer prefix is not split off",
    )
    assert flags == [("false",), ("true",)]
