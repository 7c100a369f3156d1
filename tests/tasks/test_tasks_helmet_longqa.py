"""HELMET's long-document QA tasks (NarrativeQA, InfiniteBench QA and MC) on invented files
in the hub repositories' layouts: structure, truncation, row and demo choice, data sources.

The data is read from `--data DIR` (files under DIR/hub/ORG/NAME/) or, without --data,
from the standard Hugging Face cache (offline, in a subprocess).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from helpers.hub_cache import hub_repo, lctui_offline
from helpers.longqa_data import (
    IB_MC,
    IB_QA,
    INFBENCH,
    LONGQA_FIXTURES,
    NARRATIVEQA,
    NQA_TEST,
    write_infbench,
    write_longqa_release,
    write_narrativeqa,
)
from lctui.cli import main
from lctui.core.errors import UserInputError
from lctui.core.protocols import Tokenizer
from lctui.core.types import Example
from lctui.scoring import score_example
from lctui.scoring.judge import judge_task
from lctui.tasks import get_task, select_tasks
from lctui.tasks.base import Task
from lctui.tasks.budget import Budget
from lctui.tasks.datasets import DataSource
from lctui.tasks.helmet.longqa import ANSWER_PREFIX, CUT_NOTE, PLACEHOLDER
from lctui.tasks.tokenizers import reference_tokenizer

LONGQA = ["narrativeqa", "infbench_qa", "infbench_mc"]
FIXTURES = DataSource(folder=LONGQA_FIXTURES)
LOW = {"min_document_tokens": 1000}  # the fixture stories are about 3,000 tokens


@pytest.fixture(scope="module")
def o200k() -> Tokenizer:
    return reference_tokenizer("o200k_base")


def _task(name: str, source: DataSource = FIXTURES, **params: int) -> Task:
    return get_task(name).with_data(source).with_params({**LOW, **params})


def _within(example: Example, tokenizer: Tokenizer) -> bool:
    total = tokenizer.count(example.user_text) + example.template_overhead + example.max_new_tokens
    tolerance = Budget(example.length, example.max_new_tokens).tolerance
    return example.length - tolerance <= total <= example.length


def _test_rows(name: str, folder: Path = LONGQA_FIXTURES) -> list[dict[str, Any]]:
    if name == "narrativeqa":
        return pq.read_table(folder / "hub" / NARRATIVEQA / NQA_TEST).to_pylist()
    path = folder / "hub" / INFBENCH / (IB_QA if name == "infbench_qa" else IB_MC)
    return [json.loads(line) for line in path.read_text().splitlines()]


def _document(name: str, row: dict[str, Any]) -> str:
    return str(row["document"]["text"] if name == "narrativeqa" else row["context"])


def test_longqa_tasks_are_helmets_category_with_its_metrics_and_answer_budgets() -> None:
    tasks = select_tasks("longqa")
    assert [t.name for t in tasks] == LONGQA
    assert [t.max_new_tokens for t in tasks] == [100, 10, 10]
    assert [t.metric for t in tasks] == ["rougeL_f1", "rougeL_f1", "em"]
    assert all(t.suite == "helmet" and t.category == "longqa" for t in tasks)
    assert [t.params for t in tasks] == [
        {"shots": 2, "min_document_tokens": 131_073},
        {"shots": 2, "min_document_tokens": 65_536},
        {"shots": 2, "min_document_tokens": 65_536},
    ]


@pytest.mark.parametrize("name", LONGQA)
def test_prompt_is_instruction_demos_cut_story_question_with_the_scorers_metadata(
    name: str, o200k: Tokenizer
) -> None:
    task = _task(name)
    rows = _test_rows(name)
    for index in range(4):
        example = task.generate(2048, seed=0, index=index, tokenizer=o200k)
        assert _within(example, o200k), example.prompt_tokens
        assert example.answer_prefix == ANSWER_PREFIX
        meta = example.metadata
        row = rows[meta["data_line"] - 1]
        document = _document(name, row)
        # The story's start, cut at the end with the note, and nothing else in the context.
        assert meta["truncated"] and example.context.endswith(CUT_NOTE)
        kept = example.context[: -len(CUT_NOTE)]
        assert document.startswith(kept) and len(kept) < len(document)
        tokens = meta["document_tokens"]
        assert tokens["whole"] == o200k.count(document)
        assert abs(tokens["kept"] - o200k.count(kept)) <= 1  # the cut may split a word
        assert example.spans[0].kind == "passage"
        assert (example.spans[0].start, example.spans[0].end) == (0, len(example.context))
        # Two demonstrations: NarrativeQA's without a story, InfiniteBench's with a placeholder.
        assert example.preamble.count("\nAnswer: ") == 2
        assert example.preamble.count(PLACEHOLDER) == (0 if name == "narrativeqa" else 2)
        assert len(meta["demo_keys"]) == 2 and meta["row_key"] not in meta["demo_keys"]
        if name == "infbench_mc":
            options = row["options"]
            letter = "ABCD"[options.index(row["answer"][0])]
            listed = "\n".join(f"{c}. {o}" for c, o in zip("ABCD", options, strict=True))
            assert example.question.endswith(f"\nOptions:\n{listed}")
            assert example.gold == (letter, f"{letter}. {row['answer'][0]}")
            assert meta["scorer"] == "helmet_mc" and "judge" not in meta
        else:
            question = row["question"]["text"] if name == "narrativeqa" else row["input"]
            assert example.question == f"\n\nQuestion: {question}"
            assert meta["scorer"] == "helmet_rouge"
            assert meta.get("judge") == ("qa" if name == "narrativeqa" else None)
        assert score_example(example, example.gold[0]).value == 1.0


def test_narrativeqa_is_judged_on_its_question_and_answers(o200k: Tokenizer) -> None:
    example = _task("narrativeqa").generate(2048, 0, 0, o200k)
    judged = judge_task(example, "a clay jar")
    assert judged is not None and judged.kind == "qa"
    assert judged.question == example.question.strip() and judged.answers == example.gold
    assert len(example.gold) == 2  # every answer NarrativeQA gives


@pytest.mark.parametrize("name", LONGQA)
@pytest.mark.parametrize("length", [4096, 16384, 32768])
def test_long_documents_are_cut_to_fill_every_length_within_the_tolerance(
    name: str, length: int, tmp_path_factory: pytest.TempPathFactory, o200k: Tokenizer
) -> None:
    root = _long_release(tmp_path_factory)
    task = _task(name, DataSource(folder=root))
    for index in range(2):
        example = task.generate(length, seed=0, index=index, tokenizer=o200k)
        assert _within(example, o200k), (example.prompt_tokens, example.max_new_tokens)
        assert example.metadata["truncated"] and example.context.endswith(CUT_NOTE)
        kept = example.metadata["document_tokens"]["kept"]
        assert kept < example.metadata["document_tokens"]["whole"]
        assert kept > length * 0.8  # the instruction, demos and question are short


@pytest.mark.slow
@pytest.mark.parametrize("name", LONGQA)
def test_stories_over_helmets_bound_fill_128k_with_the_default_parameters(
    name: str, o200k: Tokenizer
) -> None:
    # tests/conftest.py binds these tasks to stories of about 140,000 tokens.
    task = get_task(name)
    assert task.params["min_document_tokens"] in (131_073, 65_536)
    example = task.generate(131072, seed=0, index=0, tokenizer=o200k)
    assert _within(example, o200k), example.prompt_tokens
    assert example.metadata["truncated"]
    assert example.metadata["document_tokens"]["whole"] >= task.params["min_document_tokens"]


_LONG: list[Path] = []


def _long_release(factory: pytest.TempPathFactory) -> Path:
    """Stories of about 40,000 tokens (written once per session)."""
    if not _LONG:
        _LONG.append(write_longqa_release(factory.mktemp("long"), sentences=2600, rows=4))
    return _LONG[0]


def test_a_story_shorter_than_the_length_is_shown_whole_without_the_note(
    o200k: Tokenizer,
) -> None:
    example = _task("infbench_qa").generate(8192, 0, 0, o200k)
    meta = example.metadata
    assert not meta["truncated"] and CUT_NOTE not in example.context
    assert meta["document_tokens"]["kept"] == meta["document_tokens"]["whole"]
    assert example.prompt_tokens + example.max_new_tokens < 8192


class _CountingTokenizer:
    """o200k_base that counts how often each long text is encoded."""

    def __init__(self, inner: Tokenizer, name: str) -> None:
        self._inner = inner
        self.name = name
        self.encoded: dict[str, int] = {}

    def encode(self, text: str) -> list[int]:
        if len(text) > 5000:
            self.encoded[text[:60]] = self.encoded.get(text[:60], 0) + 1
        return self._inner.encode(text)

    def decode(self, ids: Sequence[int]) -> str:
        return self._inner.decode(ids)

    def count(self, text: str) -> int:
        return self._inner.count(text)

    def count_batch(self, texts: Sequence[str]) -> list[int]:
        return self._inner.count_batch(texts)


def test_each_document_is_tokenised_once_per_tokenizer(o200k: Tokenizer) -> None:
    counting = _CountingTokenizer(o200k, "o200k_base-counting-longqa")
    task = _task("narrativeqa")
    for length in (2048, 2304, 2560):
        for index in range(9):  # three questions on each of three stories
            task.generate(length, 0, index, counting)
    assert len(counting.encoded) == 3 and set(counting.encoded.values()) == {1}


def test_rows_follow_the_seeded_shuffle_and_short_documents_are_left_out(
    o200k: Tokenizer,
) -> None:
    rows = _test_rows("infbench_qa")
    order = np.random.default_rng(42).permutation(len(rows))
    task = _task("infbench_qa")
    lines = [task.generate(2048, 42, i, o200k).metadata["data_line"] for i in range(len(rows))]
    assert lines == [int(i) + 1 for i in order]
    # A bound between the stories' lengths keeps only the longer ones, in the same order.
    whole = [o200k.count(str(r["context"])) for r in rows]
    bound = sorted(whole)[len(whole) // 2]
    kept = [int(i) + 1 for i in order if whole[int(i)] >= bound]
    bounded = _task("infbench_qa", min_document_tokens=bound)
    lines = [bounded.generate(2048, 42, i, o200k).metadata["data_line"] for i in range(len(kept))]
    assert lines == kept and len(kept) < len(rows)
    # HELMET's own bound leaves out every fixture story: a clear error says how to lower it.
    with pytest.raises(UserInputError, match=r"min_document_tokens=N"):
        get_task("infbench_qa").with_data(FIXTURES).generate(2048, 0, 0, o200k)


def test_infbench_demos_are_the_first_rows_of_the_seeded_shuffle_of_the_others(
    o200k: Tokenizer,
) -> None:
    rows = _test_rows("infbench_mc")
    task = _task("infbench_mc")
    for index in range(len(rows)):
        example = task.generate(2048, 7, index, o200k)
        others = [str(r["id"]) for r in rows if str(r["id"]) != example.metadata["row_key"]]
        expected = [others[int(i)] for i in np.random.default_rng(7).permutation(len(others))[:2]]
        assert example.metadata["demo_keys"] == expected
        # Each shows its options and answers with the letter.
        for key in expected:
            demo = next(r for r in rows if str(r["id"]) == key)
            letter = "ABCD"[demo["options"].index(demo["answer"][0])]
            assert f"{demo['input']}\nOptions:\nA. " in example.preamble
            assert f"D. {demo['options'][3]}\nAnswer: {letter}" in example.preamble


def test_narrativeqa_demos_are_train_questions_drawn_per_question(o200k: Tokenizer) -> None:
    train = pq.read_table(
        LONGQA_FIXTURES / "hub" / NARRATIVEQA / "data/train-00000-of-00001.parquet"
    )
    pairs = {
        f"{r['document']['id']}/{r['question']['text']}": r["answers"][0]["text"]
        for r in train.to_pylist()
    }
    task = _task("narrativeqa")
    seen = set()
    for index in range(9):
        example = task.generate(2048, 0, index, o200k)
        again = task.generate(2304, 3, index, o200k)
        keys = example.metadata["demo_keys"]
        if example.metadata["row_key"] == again.metadata["row_key"]:
            assert again.metadata["demo_keys"] == keys  # the question's own draw
        for key in keys:
            question = key.split("/", 1)[1]
            assert f"Question: {question}\nAnswer: {pairs[key]}\n" in example.preamble
        seen.add(tuple(keys))
    assert len(seen) > 1


def test_missing_data_makes_the_tasks_unavailable_with_where_to_get_it(
    tmp_path: Path, o200k: Tokenizer
) -> None:
    empty = DataSource(folder=tmp_path)
    reasons = {name: get_task(name).with_data(empty).unavailable() or "" for name in LONGQA}
    assert "hub/deepmind/narrativeqa/data/test-*-of-00008.parquet" in reasons["narrativeqa"]
    assert "hf download deepmind/narrativeqa" in reasons["narrativeqa"]
    assert "hub/xinrongzhang2022/infinitebench/longbook_qa_eng.jsonl" in reasons["infbench_qa"]
    assert "longbook_choice_eng.jsonl --repo-type dataset" in reasons["infbench_mc"]
    with pytest.raises(UserInputError, match=r"infbench_mc: .* has no hub/xinrongzhang2022"):
        get_task("infbench_mc").with_data(empty).generate(2048, 0, 0, o200k)
    # A test split without its train split (the demonstrations) is not enough either.
    write_narrativeqa(tmp_path / "hub" / NARRATIVEQA)
    (tmp_path / "hub" / NARRATIVEQA / "data/train-00000-of-00001.parquet").unlink()
    assert "(train split)" in (get_task("narrativeqa").with_data(empty).unavailable() or "")


def test_malformed_rows_are_reported_with_file_and_row_and_the_rest_still_load(
    tmp_path: Path, o200k: Tokenizer
) -> None:
    repo = write_infbench(tmp_path / "hub" / INFBENCH)
    path = repo / IB_MC
    lines = path.read_text().splitlines()
    bad_option = json.loads(lines[2])
    bad_option["answer"] = ["an answer that is no option"]
    lines[2] = json.dumps(bad_option)
    lines.insert(1, "{broken")
    path.write_text("\n".join(lines) + "\n")
    task = _task("infbench_mc", DataSource(folder=tmp_path))
    problems = [str(p) for p in task.data_problems()]
    assert problems[0].startswith(f"{path}:2: not valid JSON")
    assert problems[1] == f"{path}:4: the answer is none of the 'options'; line skipped"
    assert len(problems) == 2
    used = {task.generate(2048, 0, i, o200k).metadata["data_line"] for i in range(5)}
    assert used == {1, 3, 5, 6, 7}

    nqa = write_narrativeqa(tmp_path / "hub" / NARRATIVEQA)
    table = pq.read_table(nqa / NQA_TEST).to_pylist()
    table[4]["question"] = None
    pq.write_table(pa.Table.from_pylist(table), nqa / NQA_TEST)
    narrative = _task("narrativeqa", DataSource(folder=tmp_path))
    assert [str(p) for p in narrative.data_problems()] == [
        f"{nqa / NQA_TEST}:5: no 'question' text; line skipped"
    ]
    used = {narrative.generate(2048, 0, i, o200k).metadata["data_line"] for i in range(8)}
    assert used == {1, 2, 3, 4, 6, 7, 8, 9}


LOW_SETS = [f"--set={name}.min_document_tokens=1000" for name in LONGQA]


def test_without_data_the_files_are_read_offline_from_the_standard_hub_cache(
    tmp_path: Path,
) -> None:
    home = tmp_path / "hf"
    listed = lctui_offline(["tasks", "--format", "json"], home)
    assert listed.returncode == 0, listed.stderr
    reasons = {row["name"]: row["unavailable"] for row in json.loads(listed.stdout)}
    assert "the hub cache (no --data) has no hub/deepmind/narrativeqa" in reasons["narrativeqa"]
    write_narrativeqa(hub_repo(home, NARRATIVEQA))
    write_infbench(hub_repo(home, INFBENCH))
    listed = lctui_offline(["tasks", "--format", "json"], home)
    reasons = {row["name"]: row["unavailable"] for row in json.loads(listed.stdout)}
    assert [reasons[name] for name in LONGQA] == [None] * 3
    db = tmp_path / "hub.duckdb"
    ran = lctui_offline(
        ["run", "-m", "gold", "-t", "longqa", "-l", "2k", "-n", "2", "--db", str(db), *LOW_SETS],
        home,
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT count(*), min(score) FROM results").fetchone() == (6, 1.0)
    con.close()


def test_gold_run_on_the_fixture_data_scores_one_into_duckdb(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "longqa.duckdb"
    args = ["run", "-m", "gold", "-t", "longqa", "-l", "2k", "-n", "3", "--db", str(db)]
    assert main([*args, "--data", str(LONGQA_FIXTURES), *LOW_SETS]) == 0
    con = duckdb.connect(str(db), read_only=True)
    rows = con.execute(
        "SELECT r.task, r.score, r.metric, e.prompt_tokens + e.max_new_tokens "
        "FROM results r JOIN examples e USING (example_id)"
    ).fetchall()
    con.close()
    assert sorted({r[0] for r in rows}) == sorted(LONGQA) and len(rows) == 9
    assert all(score == 1.0 for _, score, _, _ in rows)
    assert {task: metric for task, _, metric, _ in rows} == {
        "narrativeqa": "rougeL_f1",
        "infbench_qa": "rougeL_f1",
        "infbench_mc": "em",
    }
    assert all(2048 - 10 <= total <= 2048 for *_, total in rows)


def test_run_reports_malformed_rows_with_file_and_line_and_still_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "400")
    release = write_longqa_release(tmp_path / "release")
    path = release / "hub" / INFBENCH / IB_QA
    path.write_text(path.read_text() + "{broken\n")
    args = ["run", "-m", "gold", "-t", "infbench_qa", "-l", "2k", "-n", "2", "--data", str(release)]
    db = tmp_path / "r.duckdb"
    assert main([*args, "--db", str(db), "--set", "infbench_qa.min_document_tokens=1000"]) == 0
    assert f"{path}:7: not valid JSON" in capsys.readouterr().out
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT count(*), min(score) FROM results").fetchone() == (2, 1.0)
    con.close()


def test_infbench_questions_about_one_book_share_its_text(tmp_path: Path) -> None:
    """The book of several questions is kept once (and so tokenised once)."""
    from lctui.tasks.helmet.longdocs import read_infbench

    book = "The mill stood by the river. " * 50
    rows = [
        {"id": i, "context": context, "input": f"question {i}?", "answer": ["mill"]}
        for i, context in enumerate([book, "Another book entirely. " * 40, book])
    ]
    path = tmp_path / "longbook_qa_eng.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    docs = read_infbench(path, "hub/x/y/longbook_qa_eng.jsonl", choice=False)
    assert [r.document for r in docs.rows] == ["0", "1", "0"]
    assert [r.key for r in docs.rows] == ["0", "1", "2"]
    assert sorted(docs.texts) == ["0", "1"] and docs.texts["0"] == book
