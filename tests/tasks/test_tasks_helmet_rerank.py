"""HELMET's MS MARCO re-ranking task on invented files: structure, fitting, demos, data.

The data is read from a folder laid out like HELMET's data release (`--data DIR`,
`data_dir`) or from a hub dataset in the standard Hugging Face cache (`hf://ORG/NAME`,
offline).
"""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from helpers.helmet_data import (
    HELMET_FIXTURES,
    RERANK_DEMOS,
    RERANK_TEST,
    copy_fixtures,
    write_rerank_pool,
)
from helpers.hub_cache import hub_repo, lctui_offline
from lctui.cli import main
from lctui.core.errors import UserInputError
from lctui.core.protocols import Tokenizer
from lctui.core.types import Example
from lctui.scoring import score_example
from lctui.tasks import get_task, select_tasks
from lctui.tasks.budget import Budget
from lctui.tasks.datasets import DataSource, read_records
from lctui.tasks.helmet.kilt import choose_demos
from lctui.tasks.helmet.msmarco import RerankRow, format_ranked_passage, read_rerank_rows
from lctui.tasks.helmet.rerank import ANSWER_PREFIX, MAX_NEW_TOKENS, unit_order

FIXTURES = DataSource(folder=HELMET_FIXTURES)


def _within(example: Example, tokenizer: Tokenizer) -> bool:
    total = tokenizer.count(example.user_text) + example.template_overhead + example.max_new_tokens
    return (
        example.length - Budget(example.length, example.max_new_tokens).tolerance
        <= total
        <= example.length
    )


def _rows(release: Path, name: str) -> tuple[RerankRow, ...]:
    rows, _ = read_rerank_rows(read_records(release / name))
    return rows


def test_rerank_is_helmets_category_with_its_metric_scorer_and_answer_budget() -> None:
    (task,) = select_tasks("rerank")
    assert task.name == "msmarco_rerank"
    assert (task.suite, task.metric, task.max_new_tokens) == ("helmet", "ndcg@10", 200)
    assert MAX_NEW_TOKENS == 200 and task.params == {"shots": 2}
    assert task in select_tasks("helmet")


def test_prompt_holds_demos_then_the_files_passages_in_order_with_their_labels(
    o200k: Tokenizer,
) -> None:
    task = get_task("msmarco_rerank").with_data(FIXTURES)
    asked = set()
    for index in range(6):
        example = task.generate(2048, seed=0, index=index, tokenizer=o200k)
        assert _within(example, o200k)
        assert example.answer_prefix == ANSWER_PREFIX == "Ranking:"
        assert example.metadata["scorer"] == "helmet_rerank"
        # Two solved queries in the preamble, each with its ten passages and its ranking.
        assert example.preamble.count("\n\nQuery: ") == 2
        assert example.preamble.count("\nRanking: 7") == 2  # the instruction's sample is not
        assert example.preamble.count("[ID: ") == 20
        assert example.question.startswith("\n\nQuery: ")
        row = next(
            r
            for r in _rows(HELMET_FIXTURES, RERANK_TEST)
            if r.line == example.metadata["data_line"]
        )
        asked.add(row.key)
        shown = example.context.split("\n\n")
        assert len(shown) == example.metadata["num_passages"] == 6
        by_id = {p.id: p for p in row.passages}
        ids = [text.split("]")[0].removeprefix("[ID: ") for text in shown]
        # The file's order, every grade of the row present, the last unit cut.
        positions = [next(i for i, p in enumerate(row.passages) if p.id == d) for d in ids]
        assert positions == sorted(positions)
        assert {by_id[d].label for d in ids} == {0, 1, 2, 3}
        whole = [t for t in shown if t in {format_ranked_passage(p) for p in row.passages}]
        assert len(whole) == 5 and example.metadata["cut_passage"]
        assert example.metadata["qrels"] == {d: by_id[d].label for d in ids}
        ideal = sorted(ids, key=lambda d: by_id[d].label, reverse=True)
        assert example.gold == (" > ".join(ideal),)
        needles = [s for s in example.spans if s.kind == "needle"]
        marked = {example.context[s.start : s.end].split("]")[0] for s in needles}
        assert marked == {f"[ID: {d}" for d in ids if by_id[d].label > 0}
        # One passage span per listed passage, labelled with its id, for the inspector.
        listed = [s for s in example.spans if s.kind == "passage"]
        assert [example.context[s.start : s.end] for s in listed] == shown
        assert [s.label for s in listed] == ids
    assert len(asked) == 3


def test_unit_order_keeps_every_grades_share_at_every_count() -> None:
    rows = _rows(HELMET_FIXTURES, RERANK_TEST)
    passages = rows[0].passages
    order = unit_order(passages)
    assert sorted(order) == list(range(len(passages)))
    labels = [passages[i].label for i in order]
    assert sorted(labels[:4]) == [0, 1, 2, 3]
    # Each grade's count stays within the number of grades of its share of the row.
    for n in range(1, len(order) + 1):
        for grade in (0, 1, 2, 3):
            share = n * [p.label for p in passages].count(grade) / len(passages)
            assert abs(labels[:n].count(grade) - share) < 4
    assert labels[:10].count(0) == 6  # ten unlabelled of fourteen, the sixth at 5/10


def test_a_gold_ranking_scores_one_and_a_reversed_one_less(o200k: Tokenizer) -> None:
    example = get_task("msmarco_rerank").with_data(FIXTURES).generate(2048, 0, 1, o200k)
    assert score_example(example, " " + example.gold[0]).value == 1.0
    reversed_ranking = " > ".join(reversed(example.gold[0].split(" > ")))
    worse = score_example(example, " " + reversed_ranking).value
    assert worse is not None and worse < 0.6


def test_demos_are_drawn_as_helmet_draws_them_never_the_asked_query() -> None:
    rows = _rows(HELMET_FIXTURES, RERANK_TEST)
    pool = _rows(HELMET_FIXTURES, RERANK_DEMOS)
    assert {d.key for d in pool} > {r.key for r in rows}
    for row in rows:
        chosen = choose_demos(row, pool, 2, exclude_same_key=True)
        assert len({d.key for d in chosen}) == 2 and row.key not in {d.key for d in chosen}


def test_a_demo_file_over_twice_the_test_rows_leaves_every_test_query_out(
    tmp_path: Path, o200k: Tokenizer
) -> None:
    copy_fixtures(tmp_path)
    path = tmp_path / RERANK_TEST
    kept = path.read_text().splitlines()[:5]  # queries 1100000 and 1100001: 12 demos > 2 x 5
    path.write_text("\n".join(kept) + "\n")
    task = get_task("msmarco_rerank").with_data(DataSource(folder=tmp_path))
    demo_keys = {
        key for i in range(5) for key in task.generate(2048, 0, i, o200k).metadata["demo_keys"]
    }
    assert demo_keys == {"1100002", "1100003"}
    full = get_task("msmarco_rerank").with_data(FIXTURES)
    demo_keys = {
        key for i in range(9) for key in full.generate(2048, 0, i, o200k).metadata["demo_keys"]
    }
    assert "1100000" in demo_keys  # 12 demos <= 2 x 9 rows: only the asked query is left out


@pytest.mark.parametrize(
    "length", [2048, 4096, 32768, pytest.param(131072, marks=pytest.mark.slow)]
)
def test_passages_fill_every_length_within_the_tolerance(
    length: int, tmp_path: Path, o200k: Tokenizer
) -> None:
    write_rerank_pool(tmp_path, rows=3, passages=1000)
    task = get_task("msmarco_rerank").with_data(DataSource(folder=tmp_path))
    for index in range(3):
        example = task.generate(length, seed=0, index=index, tokenizer=o200k)
        assert _within(example, o200k), example.prompt_tokens
        assert not example.metadata["passages_exhausted"]
        assert example.metadata["relevant_passages"] > 0
        assert len(example.metadata["qrels"]) == example.metadata["num_passages"]


def test_titled_rows_show_the_title_as_helmet_does(tmp_path: Path, o200k: Tokenizer) -> None:
    copy_fixtures(tmp_path)
    path = tmp_path / RERANK_TEST
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    for row in rows:
        row["ctxs"][0]["title"] = "Kilns"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    example = (
        get_task("msmarco_rerank")
        .with_data(DataSource(folder=tmp_path))
        .generate(2048, 0, 0, o200k)
    )
    assert example.context.count("Document (Title: ") == example.metadata["num_passages"]
    assert "Document (Title: Kilns): " in example.context


def test_missing_data_makes_the_task_unavailable_with_where_to_get_it(
    tmp_path: Path, o200k: Tokenizer
) -> None:
    unbound = get_task("msmarco_rerank").with_data(None)
    assert "--data" in (unbound.unavailable() or "")
    empty = get_task("msmarco_rerank").with_data(DataSource(folder=tmp_path))
    reason = empty.unavailable() or ""
    assert "msmarco/test_reranking_data_k{1000,600,285,130,50,14}_dep3.jsonl" in reason
    assert "huggingface.co/datasets/princeton-nlp/HELMET" in reason
    with pytest.raises(UserInputError, match=r"msmarco_rerank: .* has no msmarco/test_rerank"):
        empty.generate(2048, 0, 0, o200k)
    copy_fixtures(tmp_path)
    (tmp_path / RERANK_DEMOS).unlink()
    no_demos = get_task("msmarco_rerank").with_data(DataSource(folder=tmp_path))
    assert f"has no {RERANK_DEMOS} (the demonstrations)" in (no_demos.unavailable() or "")


def test_malformed_lines_are_reported_with_file_and_line_and_the_rest_still_loads(
    tmp_path: Path, o200k: Tokenizer
) -> None:
    copy_fixtures(tmp_path)
    path = tmp_path / RERANK_TEST
    lines = path.read_text().splitlines()
    lines[1] = lines[1][:50]  # a truncated row
    bad_id = json.loads(lines[3])
    bad_id["ctxs"][2]["id"] = "doc-7"
    lines[3] = json.dumps(bad_id)
    twice = json.loads(lines[4])
    twice["ctxs"][1]["id"] = twice["ctxs"][0]["id"]
    lines[4] = json.dumps(twice)
    path.write_text("\n".join(lines) + "\n")
    task = get_task("msmarco_rerank").with_data(DataSource(folder=tmp_path))
    problems = [str(p) for p in task.data_problems()]
    assert problems[0].startswith(f"{path}:2: not valid JSON")
    assert problems[1] == f"{path}:4: passage id 'doc-7' is not a whole number; line skipped"
    assert problems[2].startswith(f"{path}:5: passage id ") and "appears twice" in problems[2]
    assert len(problems) == 3
    examples = [task.generate(2048, 0, i, o200k) for i in range(6)]
    assert {e.metadata["data_line"] for e in examples} == {1, 3, 6, 7, 8, 9}


def test_gold_run_on_the_fixture_data_scores_one_into_duckdb(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "rerank.duckdb"
    config = tmp_path / "lctui.toml"
    copy_fixtures(tmp_path / "release")
    config.write_text('data_dir = "release"\n')  # relative to the config file
    args = ["run", "-m", "gold", "-t", "rerank,niah_single_1", "-l", "2k", "-n", "3"]
    assert main([*args, "--config", str(config), "--db", str(db)]) == 0
    con = duckdb.connect(str(db), read_only=True)
    rows = con.execute(
        "SELECT r.task, r.scorer, r.metric, r.score, e.prompt_tokens + e.max_new_tokens "
        "FROM results r JOIN examples e USING (example_id)"
    ).fetchall()
    con.close()
    assert sorted({r[0] for r in rows}) == ["msmarco_rerank", "niah_single_1"]
    assert len(rows) == 6 and all(score == 1.0 for *_, score, _ in rows)
    reranked = [r for r in rows if r[0] == "msmarco_rerank"]
    assert {(r[1], r[2]) for r in reranked} == {("helmet_rerank", "ndcg@10")}
    assert all(2048 - 10 <= total <= 2048 for *_, total in reranked)


def test_hub_dataset_is_read_offline_from_the_standard_cache(tmp_path: Path) -> None:
    # Under data/, as the release tarball unpacks.
    copy_fixtures(hub_repo(tmp_path / "hf", "lctui-test/helmet-msmarco") / "data")
    db = tmp_path / "hub.duckdb"
    args = ["run", "-m", "gold", "-t", "msmarco_rerank", "-l", "2k", "-n", "2", "--db", str(db)]
    ran = lctui_offline([*args, "--data", "hf://lctui-test/helmet-msmarco"], tmp_path / "hf")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT count(*), min(score) FROM results").fetchone() == (2, 1.0)
    con.close()
