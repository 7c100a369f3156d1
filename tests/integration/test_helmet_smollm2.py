"""The embedded SmolLM2 model on every HELMET real-data category at 2K (RAG, citations,
re-ranking, in-context learning, long-document QA, summarization), one example of each
of the 17 datasets from the invented fixtures, into a real DuckDB file: real
generations, each scored by its task's own scorer, and HELMET's table over them (this
replaces the RAG-only run of the same model that came before it).

The model's outputs are not asserted (no hard-coded model output): only that every
dataset produced a generation scored on its metric within [0, 1] and that the table
has a number for each category. The scores are printed for the notes."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from helpers.helmet_data import HELMET_FIXTURES
from lctui.cli import main
from lctui.tasks import select_tasks
from lctui.tasks.helmet.longqa import LongDocQA

CATEGORIES = "rag,cite,rerank,icl,longqa,summ"


def _one_release(folder: Path) -> Path:
    """One data folder laid out as a user's would be: HELMET's release (kilt/, msmarco/,
    alce/, prompts/, the summaries' key points) and the hub datasets under hub/ORG/NAME,
    linked from the fixtures of each family (the long stories conftest writes once)."""
    folder.mkdir()
    for part in ("kilt", "msmarco", "alce", "prompts"):
        (folder / part).symlink_to(HELMET_FIXTURES / part)
    for part in ("infbench", "multi_lexsum"):
        (folder / part).symlink_to(HELMET_FIXTURES / "summ" / part)
    assert LongDocQA.data is not None and LongDocQA.data.folder is not None
    hubs = [HELMET_FIXTURES / "icl" / "hub", HELMET_FIXTURES / "summ" / "hub"]
    hubs.append(LongDocQA.data.folder / "hub")
    for hub in hubs:  # file by file: InfiniteBench serves long QA and summaries alike
        for file in (f for f in hub.rglob("*") if f.is_file()):
            target = folder / "hub" / file.relative_to(hub)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to(file)
    return folder


@pytest.mark.slow
@pytest.mark.model
def test_smollm2_runs_every_helmet_category_at_2k_into_duckdb(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    release = _one_release(tmp_path / "release")
    db = tmp_path / "helmet.duckdb"
    tasks = {t.name: t for t in select_tasks(CATEGORIES)}
    assert len(tasks) == 17  # 4 RAG, 2 ALCE, 1 re-ranking, 5 ICL, 3 long QA, 2 summaries
    args = ["run", "--model", "smollm2-135m", "--tasks", CATEGORIES, "--lengths", "2k", "-n", "1"]
    assert main([*args, "--data", str(release), "--db", str(db)]) == 0
    assert "17 done, 0 error(s)" in capsys.readouterr().out
    con = duckdb.connect(str(db), read_only=True)
    rows = con.execute(
        "SELECT r.task, r.category, r.metric, r.status, r.score, "
        "e.prompt_tokens + e.max_new_tokens, e.max_new_tokens, r.depth "
        "FROM results AS r JOIN examples AS e USING (example_id) ORDER BY r.category, r.task"
    ).fetchall()
    con.close()
    assert sorted(r[0] for r in rows) == sorted(tasks)
    for task, category, metric, status, score, total, max_new, depth in rows:
        assert category == tasks[task].category and metric == tasks[task].metric, task
        assert depth is not None or category != "rag", task  # the gold passage's depth
        assert max_new == tasks[task].max_new_tokens
        assert total <= 2048, (task, total)
        assert status in ("ok", "unparsed") and 0.0 <= score <= 1.0, (task, status, score)
        print(f"{category:7} {task:16} {metric:16} {status:9} {score:.3f}")
    assert main(["report", "--suite", "helmet", "--db", str(db)]) == 0
    table = capsys.readouterr().out
    print(table)
    # Every real-data category has a number (recall is not run here; citations lack the
    # NLI scores, and long QA and summaries the judge's, so those read partial).
    assert "smollm2-135m" in table
