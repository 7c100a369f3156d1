"""`lctui cite-score` end to end: a gold run of the citation tasks into a real DuckDB,
then citation recall and precision with a tiny T5 as the NLI model (meaningless
verdicts, real plumbing) or the gold pseudo-model as the LLM judge."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import duckdb
import pytest

from helpers.helmet_data import HELMET_FIXTURES
from helpers.tiny_nli import save_tiny_t5
from lctui.cli import main

FILES = (
    "alce/asqa_eval_gtr_top2000.json",
    "alce/qampari_eval_gtr_top2000.json",
    "prompts/asqa_revised.json",
    "prompts/qampari_revised.json",
)


@pytest.fixture()
def gold_run(tmp_path: Path) -> Path:
    release = tmp_path / "release"
    for name in FILES:
        (release / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(HELMET_FIXTURES / name, release / name)
    db = tmp_path / "cite.duckdb"
    args = ["run", "-m", "gold", "-t", "cite", "-l", "2k", "-n", "2", "--data", str(release)]
    assert main([*args, "--db", str(db)]) == 0
    return db


def _citation_rows(db: Path) -> list[tuple[object, ...]]:
    con = duckdb.connect(str(db), read_only=True)
    rows = con.execute(
        "SELECT s.generation_id, s.value, s.status, s.extras, "
        "(SELECT count(*) FROM rubric_points p WHERE p.generation_id = s.generation_id "
        "AND p.scorer = s.scorer AND p.latest) FROM latest_scores s "
        "WHERE s.scorer = 'alce_citations'"
    ).fetchall()
    # The citation score stands beside each generation's own score: one result row each.
    results = con.execute("SELECT count(*), min(score) FROM results").fetchone()
    con.close()
    assert results == (4, 1.0)
    return rows


@pytest.mark.slow
def test_cite_score_with_a_tiny_nli_model_stores_a_score_and_points_per_sentence(
    gold_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = save_tiny_t5(tmp_path / "t5")
    assert main(["cite-score", "--nli", str(model), "--device", "cpu", "--db", str(gold_run)]) == 0
    assert "4 output(s) scored" in capsys.readouterr().out
    rows = _citation_rows(gold_run)
    assert len(rows) == 4
    for _, value, status, extras, points in rows:
        found = json.loads(str(extras))
        assert status == "ok" and 0.0 <= float(str(value)) <= 1.0
        assert found["decider"] == f"NLI {model}"
        assert points == found["sentences"] >= 1 and found["citations"] >= 1


def test_cite_score_with_the_gold_model_as_judge_and_without_generations(
    gold_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["cite-score", "--judge", "gold", "--db", str(gold_run)]) == 0
    first = capsys.readouterr().out
    assert "from the cache" in first and " 0 from the cache" in first
    con = duckdb.connect(str(gold_run), read_only=True)
    calls = con.execute(
        "SELECT count(*), count(DISTINCT generation_id) FROM judge_calls"
    ).fetchone()
    con.close()
    assert calls is not None and calls[0] > 0 and calls[1] > 1
    # Again: every check is read from the judge_calls cache, none asked again.
    assert main(["cite-score", "--judge", "gold", "--db", str(gold_run)]) == 0
    assert "Judge: 0 call(s)" in capsys.readouterr().out
    rows = _citation_rows(gold_run)
    # The gold pseudo-model answers a judge prompt with nothing: no verdict, not entailed.
    assert len(rows) == 4 and all(value == 0.0 for _, value, *_ in rows)
    assert all(json.loads(str(r[3]))["decider"] == "judge gold" for r in rows)
    empty = tmp_path / "empty.duckdb"
    assert (
        main(
            ["run", "-m", "gold", "-t", "niah_single_1", "-l", "2k", "-n", "1", "--db", str(empty)]
        )
        == 0
    )
    capsys.readouterr()
    assert main(["cite-score", "--judge", "gold", "--db", str(empty)]) == 2
    assert "no successful generation of a citation task" in capsys.readouterr().err


def test_a_failing_decider_leaves_error_scores_not_a_crash_with_a_fake_decider(
    gold_run: Path,
) -> None:
    import asyncio

    from lctui.engine.citing import cite_stored
    from lctui.store import open_store

    def fake_failing_decider(premise: str, hypothesis: str) -> bool:
        raise RuntimeError("the NLI model ran out of memory")

    with open_store(gold_run, shared=True) as store:
        found, summary = asyncio.run(cite_stored(store, fake_failing_decider, "fake"))
    assert found == 4 and summary.errors == 4 and summary.scored == 0
    assert summary.messages == [
        "citation scoring failed: RuntimeError: the NLI model ran out of memory"
    ]
    rows = _citation_rows(gold_run)
    assert len(rows) == 4 and all(
        status == "error" and value is None for _, value, status, *_ in rows
    )
