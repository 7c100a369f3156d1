"""HELMET's RAG tasks on invented KILT-format files: structure, fitting, demos, data sources.

The data is read from a folder laid out like HELMET's data release (`--data DIR`) or
from a hub dataset in the standard Hugging Face cache (`hf://ORG/NAME`, offline).
"""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from helpers.helmet_data import HELMET_FIXTURES, NQ_TEST, copy_fixtures, write_pool
from helpers.hub_cache import hub_repo, lctui_offline
from lctui.cli import main
from lctui.core.errors import UserInputError
from lctui.core.protocols import Tokenizer
from lctui.core.types import Example
from lctui.tasks import get_task, select_tasks
from lctui.tasks.budget import Budget
from lctui.tasks.datasets import DataSource, parse_source, read_records
from lctui.tasks.helmet.kilt import choose_demos, demo_seed, read_rows
from lctui.tasks.helmet.rag import ANSWER_PREFIX, MAX_NEW_TOKENS, format_passage
from lctui.tasks.tokenizers import reference_tokenizer

RAG = ["kilt_nq", "kilt_triviaqa", "kilt_hotpotqa", "kilt_popqa"]
FIXTURES = DataSource(folder=HELMET_FIXTURES)


@pytest.fixture(scope="module")
def o200k() -> Tokenizer:
    return reference_tokenizer("o200k_base")


def _within(example: Example, tokenizer: Tokenizer) -> bool:
    total = tokenizer.count(example.user_text) + example.template_overhead + example.max_new_tokens
    return (
        example.length - Budget(example.length, example.max_new_tokens).tolerance
        <= total
        <= example.length
    )


def test_rag_tasks_are_helmets_category_with_its_metric_and_answer_budget() -> None:
    tasks = select_tasks("rag")
    assert [t.name for t in tasks] == RAG
    for task in tasks:
        assert (task.suite, task.metric, task.max_new_tokens) == ("helmet", "subem", MAX_NEW_TOKENS)
        assert task.params == {"shots": 2}


@pytest.mark.parametrize("name", RAG)
def test_prompt_holds_demos_then_passages_with_the_gold_at_the_files_depth(
    name: str, o200k: Tokenizer
) -> None:
    task = get_task(name).with_data(FIXTURES)
    meta_depths = []
    for index in range(6):
        example = task.generate(2048, seed=0, index=index, tokenizer=o200k)
        assert _within(example, o200k)
        assert example.answer_prefix == ANSWER_PREFIX and example.max_new_tokens == 20
        # Two solved questions in the preamble, each with its three passages and answer.
        assert example.preamble.count("\nAnswer: ") == 2
        assert example.preamble.count("Document (Title: ") == 6
        rows, _ = read_rows(read_records(HELMET_FIXTURES / example.metadata["data_file"]))
        row = next(r for r in rows if r.line == example.metadata["data_line"])
        assert example.gold == row.answers
        (span,) = [s for s in example.spans if s.kind == "needle"]
        assert example.context[span.start : span.end] == format_passage(row.passages[row.gold or 0])
        passages = example.context.split("\n\n")
        assert len(passages) == example.metadata["num_passages"]
        at = example.metadata["gold_position"]
        assert passages[at] == format_passage(row.passages[row.gold or 0])
        # One passage span per listed passage, labelled with its title, for the inspector.
        listed = [s for s in example.spans if s.kind == "passage"]
        assert [example.context[s.start : s.end] for s in listed] == passages
        assert [f"Document (Title: {s.label}): " for s in listed] == [
            p[: p.index("): ") + 3] for p in passages
        ]
        assert (listed[at].start, listed[at].end) == (span.start, span.end)
        # The gold sits at the file's relative position: first, middle or last.
        share = (row.gold or 0) / (len(row.passages) - 1)
        assert at == round(share * (len(passages) - 1))
        assert example.depth == round(100 * at / (len(passages) - 1), 2)
        meta_depths.append(example.depth)
        # The whole passages come in the file's order (the first negatives), then a cut one.
        negatives = [format_passage(p) for i, p in enumerate(row.passages) if i != row.gold]
        kept = [p for i, p in enumerate(passages) if i != at]
        assert kept[:-1] == negatives[: len(kept) - 1]
        assert negatives[len(kept) - 1].startswith(kept[-1])
    assert {0.0, 100.0} <= set(meta_depths)


def test_demos_are_drawn_as_helmet_draws_them_and_never_the_asked_popqa_row() -> None:
    rows, _ = read_rows(read_records(HELMET_FIXTURES / "kilt/popqa_test_1000_k20_dep6.jsonl"))
    pool, _ = read_rows(read_records(HELMET_FIXTURES / "kilt/popqa_test_1000_k3_dep6.jsonl"))
    asked = next(r for r in rows if r.key == "pq2")
    assert any(d.key == "pq2" for d in pool)
    for row in rows:
        chosen = choose_demos(row, pool, 2, exclude_same_key=True)
        assert len(chosen) == 2 and row.key not in {d.key for d in chosen}
        assert chosen == choose_demos(row, pool, 2, exclude_same_key=True)
    assert 0 <= demo_seed("pq2") < 2**31
    assert choose_demos(asked, pool, 0, exclude_same_key=True) == []


@pytest.mark.parametrize("length", [4096, 32768, pytest.param(131072, marks=pytest.mark.slow)])
def test_passages_fill_every_length_within_the_tolerance(
    length: int, tmp_path: Path, o200k: Tokenizer
) -> None:
    write_pool(tmp_path, rows=3, passages=1000)
    task = get_task("kilt_nq").with_data(DataSource(folder=tmp_path))
    for index in range(3):
        example = task.generate(length, seed=0, index=index, tokenizer=o200k)
        assert _within(example, o200k), example.prompt_tokens
        assert not example.metadata["passages_exhausted"]
        assert all(g in example.context for g in example.gold)


def test_a_row_with_too_few_passages_says_so_and_stays_under_the_length(o200k: Tokenizer) -> None:
    example = get_task("kilt_nq").with_data(FIXTURES).generate(8192, 0, 0, o200k)
    assert example.metadata["passages_exhausted"] and example.metadata["num_passages"] == 20
    assert example.prompt_tokens + example.max_new_tokens <= 8192


def test_missing_data_makes_the_task_unavailable_with_where_to_get_it(
    tmp_path: Path, o200k: Tokenizer
) -> None:
    unbound = get_task("kilt_nq").with_data(None)
    assert "--data" in (unbound.unavailable() or "") and "HELMET" in (unbound.unavailable() or "")
    empty = get_task("kilt_nq").with_data(DataSource(folder=tmp_path))
    reason = empty.unavailable() or ""
    assert "kilt/nq-dev-multikilt_1000_k{1000,440,220,105,50,20}_dep6.jsonl" in reason
    assert "huggingface.co/datasets/princeton-nlp/HELMET" in reason
    with pytest.raises(UserInputError, match=r"kilt_nq: .* has no kilt/nq-dev"):
        empty.generate(2048, 0, 0, o200k)


def test_a_malformed_line_is_reported_with_file_and_line_and_the_rest_still_loads(
    tmp_path: Path,
    o200k: Tokenizer,
) -> None:
    copy_fixtures(tmp_path)
    path = tmp_path / NQ_TEST
    lines = path.read_text().splitlines()
    lines[1] = lines[1][:50]  # a truncated row
    lines.insert(3, '["not", "a", "row"]')
    path.write_text("\n".join(lines) + "\n")
    task = get_task("kilt_nq").with_data(DataSource(folder=tmp_path))
    problems = [str(p) for p in task.data_problems()]
    assert problems[0].startswith(f"{path}:2: not valid JSON")
    assert problems[1] == f"{path}:4: not a JSON object; line skipped"
    assert len(problems) == 2
    examples = [task.generate(2048, 0, i, o200k) for i in range(8)]
    assert {e.metadata["data_line"] for e in examples} == {1, 3, 5, 6, 7, 8, 9, 10}


def test_data_option_rejects_a_missing_folder_and_a_bad_hub_id(tmp_path: Path) -> None:
    with pytest.raises(UserInputError, match="is not a folder"):
        parse_source(str(tmp_path / "nope"))
    with pytest.raises(UserInputError, match="hf://ORG/NAME"):
        parse_source("hf://just-a-name")
    assert parse_source("hf://org/name@v1") == DataSource(repo_id="org/name", revision="v1")


def _hub_cache(root: Path) -> Path:
    """The fixture release as dataset repo `lctui-test/helmet-kilt` in a standard hub cache."""
    # Under data/, as the release tarball unpacks.
    copy_fixtures(hub_repo(root, "lctui-test/helmet-kilt") / "data")
    return root


def test_hub_dataset_is_read_offline_from_the_standard_cache(tmp_path: Path) -> None:
    home = _hub_cache(tmp_path / "hf")
    listed = lctui_offline(
        ["tasks", "--format", "json", "--data", "hf://lctui-test/helmet-kilt"], home
    )
    assert listed.returncode == 0, listed.stderr
    reasons = {row["name"]: row["unavailable"] for row in json.loads(listed.stdout)}
    assert [reasons[name] for name in RAG] == [None] * 4
    missing = lctui_offline(["tasks", "--format", "json", "--data", "hf://lctui-test/other"], home)
    reasons = {row["name"]: row["unavailable"] for row in json.loads(missing.stdout)}
    assert "hf://lctui-test/other has no kilt/nq-dev" in reasons["kilt_nq"]
    db = tmp_path / "hub.duckdb"
    args = ["run", "-m", "gold", "-t", "kilt_popqa", "-l", "2k", "-n", "2", "--db", str(db)]
    ran = lctui_offline([*args, "--data", "hf://lctui-test/helmet-kilt"], home)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT count(*), min(score) FROM results").fetchone() == (2, 1.0)
    con.close()


def test_gold_run_on_the_fixture_data_scores_one_into_duckdb(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "rag.duckdb"
    config = tmp_path / "lctui.toml"
    copy_fixtures(tmp_path / "release")
    config.write_text('data_dir = "release"\n')  # relative to the config file
    args = ["run", "-m", "gold", "-t", "rag,niah_single_1", "-l", "2k", "-n", "3"]
    assert main([*args, "--config", str(config), "--db", str(db)]) == 0
    con = duckdb.connect(str(db), read_only=True)
    rows = con.execute(
        "SELECT r.task, r.score, r.depth, e.prompt_tokens + e.max_new_tokens "
        "FROM results r JOIN examples e USING (example_id)"
    ).fetchall()
    con.close()
    assert sorted({r[0] for r in rows}) == sorted([*RAG, "niah_single_1"])
    assert len(rows) == 15 and all(score == 1.0 for _, score, _, _ in rows)
    assert all(2048 - 10 <= total <= 2048 for task, _, _, total in rows if task in RAG)
    assert all(depth is not None for task, _, depth, _ in rows if task in RAG)


def test_run_leaves_out_tasks_without_data_and_refuses_when_none_can_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "r.duckdb"
    empty = tmp_path / "empty"
    empty.mkdir()
    args = ["run", "-m", "gold", "-l", "2k", "-n", "1", "--data", str(empty), "--db", str(db)]
    assert main([*args, "-t", "helmet"]) == 0
    out = capsys.readouterr().out
    assert "kilt_nq left out:" in out and "json_kv" in out
    assert main([*args, "-t", "kilt_nq"]) == 2
    assert f"lctui: error: kilt_nq: {empty} has no kilt/nq-dev" in capsys.readouterr().err


def test_run_reports_malformed_lines_with_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "400")
    release = copy_fixtures(tmp_path / "release")
    path = release / NQ_TEST
    path.write_text(path.read_text() + "{broken\n")
    args = ["run", "-m", "gold", "-t", "kilt_nq", "-l", "2k", "-n", "2", "--data", str(release)]
    assert main([*args, "--db", str(tmp_path / "r.duckdb")]) == 0
    assert f"{path}:10: not valid JSON" in capsys.readouterr().out
