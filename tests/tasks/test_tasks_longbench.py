"""LongBench v2's tasks on files in the original's format: reading (bad items reported
with file and item number), the question order, the three modes' prompt structure,
the middle cut (equal to the original's cut of the whole tokenisation, never reading
a long context whole), the data sources (--data folder, hub cache) and an end-to-end
run of the gold pseudo-model into DuckDB."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import duckdb
import pytest

from helpers.hub_cache import lctui_offline
from helpers.longbench_data import longbench_rows, prose, write_hub_longbench, write_longbench
from lctui.cli import main
from lctui.core.errors import UserInputError
from lctui.core.protocols import Tokenizer
from lctui.core.types import FollowUp
from lctui.suites.longbench.tasks.data import read_longbench
from lctui.suites.longbench.tasks.middle import keep_ends
from lctui.suites.longbench.tasks.task import ANSWER_TOKENS, REASONING_TOKENS, LongBenchV2
from lctui.tasks import get_task, select_tasks
from lctui.tasks.datasets import DataSource
from lctui.tasks.tokenizers import reference_tokenizer

MODES = ["longbench_v2", "longbench_v2_cot", "longbench_v2_no_context"]


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Six questions: contexts of 300 words (fit everywhere) and 30,000 words (cut)."""
    folder = tmp_path_factory.mktemp("longbench")
    write_longbench(folder, longbench_rows(6, words=(300, 30_000)))
    return folder


def _task(name: str, folder: Path, **params: str) -> LongBenchV2:
    task = get_task(name).with_data(DataSource(folder=folder)).with_params(params)
    assert isinstance(task, LongBenchV2)
    return task


class _Counting:
    """A real tokenizer that records how many characters it was asked to encode."""

    def __init__(self, inner: Tokenizer) -> None:
        self.inner, self.name, self.encoded = inner, inner.name, 0

    def encode(self, text: str) -> list[int]:
        self.encoded += len(text)
        return self.inner.encode(text)

    def decode(self, ids: Sequence[int]) -> str:
        return self.inner.decode(ids)

    def count(self, text: str) -> int:
        return len(self.encode(text))

    def count_batch(self, texts: Sequence[str]) -> list[int]:
        return [self.count(t) for t in texts]


def test_the_three_modes_are_the_longbench_suite_sampled_as_the_original() -> None:
    tasks = select_tasks("longbench")
    assert [t.name for t in tasks] == MODES
    assert [t.max_new_tokens for t in tasks] == [ANSWER_TOKENS, REASONING_TOKENS, ANSWER_TOKENS]
    assert {t.temperature for t in tasks} == {0.1}
    assert all(t.needs_data and t.answer_prefix == "" for t in tasks)


def test_rows_keep_the_files_order_and_bad_items_are_reported_with_their_number(
    tmp_path: Path,
) -> None:
    rows = longbench_rows(5)
    rows[1]["answer"] = "E"
    del rows[2]["choice_C"]
    rows[3]["_id"] = rows[0]["_id"]
    path = write_longbench(tmp_path, rows)
    loaded = read_longbench(path)
    assert [r.id for r in loaded.rows] == [rows[0]["_id"], rows[4]["_id"]]
    assert [(p.line, p.reason) for p in loaded.problems] == [
        (2, "answer 'E' is not one of A, B, C, D"),
        (3, "choice_A to choice_D must all be text"),
        (4, f"_id {rows[0]['_id']!r} repeats"),
    ]
    assert str(loaded.problems[0]).startswith(f"{path}:2: ")
    assert _task("longbench_v2", tmp_path).data_problems() == loaded.problems


def test_a_missing_file_says_where_the_task_looks_and_how_to_get_it(tmp_path: Path) -> None:
    reason = _task("longbench_v2", tmp_path).unavailable()
    assert reason is not None
    assert "longbench_v2/data.json" in reason and "hf download" in reason
    with pytest.raises(UserInputError, match="THUDM/LongBench-v2"):
        _task("longbench_v2", tmp_path).generate(8192, 0, 0, reference_tokenizer("o200k_base"))


def test_example_i_asks_the_ith_question_and_filters_keep_the_order(data_dir: Path) -> None:
    o200k = reference_tokenizer("o200k_base")
    rows = json.loads((data_dir / "longbench_v2" / "data.json").read_text())
    asked = [
        _task("longbench_v2_no_context", data_dir).generate(4096, 0, i, o200k).metadata
        for i in range(6)
    ]
    assert [m["longbench_id"] for m in asked] == [r["_id"] for r in rows]
    hard = _task("longbench_v2_no_context", data_dir, difficulty="hard")
    ids = [hard.generate(4096, 0, i, o200k).metadata["longbench_id"] for i in range(3)]
    assert ids == [r["_id"] for r in rows if r["difficulty"] == "hard"]
    with pytest.raises(UserInputError, match=r"longbench_v2_no_context\.bucket must be one of"):
        hard.with_params({"bucket": "huge"})


@pytest.mark.parametrize("name", MODES)
def test_each_mode_shows_the_question_its_four_options_and_the_answer_form(
    name: str, data_dir: Path
) -> None:
    o200k = reference_tokenizer("o200k_base")
    row = json.loads((data_dir / "longbench_v2" / "data.json").read_text())[0]
    example = _task(name, data_dir).generate(8192, 0, 0, o200k)
    assert example.gold == (row["answer"],)
    assert example.metadata["reference"] == f"The correct answer is ({row['answer']})"
    assert example.metadata["scorer"] == "longbench"
    options = "\n".join(f"({x}) {row['choice_' + x]}" for x in "ABCD")
    assert row["question"] in example.question and options in example.question
    assert example.question.index(row["question"]) < example.question.index(options)
    follow_up = FollowUp.of(example.metadata)
    if name == "longbench_v2_no_context":
        assert example.context == "" and example.preamble == ""
        assert "The correct answer is (X)" in example.question
    elif name == "longbench_v2":
        assert example.context == row["context"].strip()
        assert "The correct answer is (X)" in example.question and follow_up is None
    else:  # the reasoning call asks for no answer sentence; the follow-up does
        assert "The correct answer is" not in example.question
        assert follow_up is not None and follow_up.max_new_tokens == ANSWER_TOKENS
        assert options in follow_up.before and "The correct answer is (X)" in follow_up.after
        assert row["context"][:200] not in follow_up.before + follow_up.after


@pytest.mark.parametrize("tokenizer_name", ["o200k_base", "cl100k_base"])
@pytest.mark.parametrize("length", [8192, 32768])
def test_a_long_context_is_cut_in_the_middle_to_the_exact_budget(
    tokenizer_name: str, length: int, data_dir: Path
) -> None:
    """The prompt keeps the first and last half of the budget, as the original keeps its
    prompt's; its count is exact and never over the length."""
    tokenizer = reference_tokenizer(tokenizer_name)
    task = _task("longbench_v2", data_dir)
    cut = task.generate(length, 0, 1, tokenizer)  # 30,000 words: cut at both lengths
    whole = task.generate(length, 0, 0, tokenizer)  # 300 words: whole
    assert cut.truncated and not whole.truncated
    for example in (cut, whole):
        counted = tokenizer.count(example.user_text) + example.template_overhead
        assert counted == example.prompt_tokens
        assert example.prompt_tokens + example.max_new_tokens <= length
    info = cut.metadata["cut"]
    keep = length - ANSWER_TOKENS - cut.template_overhead - 8
    preamble, question = tokenizer.count(cut.preamble), tokenizer.count(cut.question)
    assert info["head_tokens"] == keep // 2 - preamble
    assert info["tail_tokens"] == keep - keep // 2 - question
    source = json.loads((data_dir / "longbench_v2" / "data.json").read_text())[1]["context"]
    ids = tokenizer.encode(source.strip())
    assert cut.context == tokenizer.decode(
        ids[: info["head_tokens"]] + ids[len(ids) - info["tail_tokens"] :]
    )
    assert cut.context[: info["at"]] == tokenizer.decode(ids[: info["head_tokens"]])


@pytest.mark.parametrize("tokenizer_name", ["o200k_base", "cl100k_base"])
def test_keep_ends_equals_the_whole_tokenisation_cut_without_tokenising_the_whole(
    tokenizer_name: str,
) -> None:
    """A 400,000-word text kept to 4,000 tokens: the ids are those of the whole text's
    tokenisation, and less than 1/20 of the text was tokenised."""
    tokenizer = reference_tokenizer(tokenizer_name)
    text = prose(400_000)
    counting = _Counting(tokenizer)
    kept = keep_ends(text, counting, 2000, 2000)
    assert kept.cut and kept.whole_tokens is None and kept.kept_tokens == 4000
    assert counting.encoded < len(text) / 20
    ids = tokenizer.encode(text)
    assert kept.text == tokenizer.decode(ids[:2000] + ids[-2000:])
    assert kept.text[: kept.head_chars] == tokenizer.decode(ids[:2000])


def test_keep_ends_leaves_a_text_that_fits_and_cuts_one_just_over_exactly() -> None:
    tokenizer = reference_tokenizer("o200k_base")
    text = prose(3000)
    total = tokenizer.count(text)
    whole = keep_ends(text, tokenizer, total // 2, total - total // 2)
    assert (whole.text, whole.cut, whole.whole_tokens) == (text, False, total)
    ids = tokenizer.encode(text)
    over = keep_ends(text, tokenizer, 100, total - 110)
    assert over.cut and over.text == tokenizer.decode(ids[:100] + ids[-(total - 110) :])
    only_head = keep_ends(text, tokenizer, 50, 0)
    assert only_head.text == tokenizer.decode(ids[:50]) and only_head.tail_tokens == 0
    with pytest.raises(ValueError, match=">= 0"):
        keep_ends(text, tokenizer, -1, 5)


def test_a_question_longer_than_the_length_is_refused_with_a_reason(tmp_path: Path) -> None:
    rows = longbench_rows(1)
    rows[0]["question"] = prose(3000)
    write_longbench(tmp_path, rows)
    with pytest.raises(UserInputError, match="choose a longer length"):
        _task("longbench_v2", tmp_path).generate(2048, 0, 0, reference_tokenizer("o200k_base"))


def test_truncate_cuts_the_middle_again(data_dir: Path) -> None:
    tokenizer = reference_tokenizer("o200k_base")
    task = _task("longbench_v2", data_dir)
    example = task.generate(32768, 0, 1, tokenizer)
    cut = task.truncate(example, 8000, tokenizer)
    assert cut.example_id == f"{example.example_id}-t8000" and cut.truncated
    assert tokenizer.count(cut.user_text) + cut.template_overhead == cut.prompt_tokens <= 8000
    assert example.context.startswith(cut.context[: cut.metadata["cut"]["at"]])
    assert example.context.endswith(cut.context[cut.metadata["cut"]["at"] :])
    assert task.truncate(example, 40000, tokenizer) is example


def test_the_gold_model_runs_every_mode_into_duckdb_with_the_original_temperature(
    data_dir: Path, tmp_path: Path
) -> None:
    db = tmp_path / "runs.duckdb"
    args = ["run", "--model", "gold", "--tasks", "longbench", "--lengths", "8k"]
    assert main([*args, "--n", "6", "--data", str(data_dir), "--db", str(db)]) == 0
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute(
            "SELECT task, count(*), avg(score), min(status), max(status) FROM results "
            "GROUP BY task ORDER BY task"
        ).fetchall()
        temperatures = con.execute(
            "SELECT DISTINCT CAST(config->>'temperature' AS DOUBLE) FROM generations"
        ).fetchall()
        calls = con.execute(
            "SELECT e.task, json_array_length(g.calls) FROM generations g "
            "JOIN examples e USING (example_id) WHERE g.calls IS NOT NULL"
        ).fetchall()
    assert rows == [(t, 6, 1.0, "ok", "ok") for t in MODES]
    assert temperatures == [(0.1,)]
    assert sorted(set(calls)) == [("longbench_v2_cot", 2)] and len(calls) == 6


def test_the_hub_dataset_is_read_from_the_cache_without_data(tmp_path: Path) -> None:
    write_hub_longbench(tmp_path / "home", longbench_rows(2))
    db = tmp_path / "runs.duckdb"
    run = ["run", "--model", "gold", "--tasks", "longbench_v2", "--lengths", "4k", "--n", "2"]
    done = lctui_offline([*run, "--db", str(db)], tmp_path / "home")
    assert done.returncode == 0, done.stderr
    with duckdb.connect(str(db), read_only=True) as con:
        found = con.execute("SELECT count(*), avg(score) FROM results").fetchone()
    assert found == (2, 1.0)


def test_show_prints_the_reasoning_call_and_the_answer_calls_prompt(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "runs.duckdb"
    args = ["run", "--model", "gold", "--tasks", "longbench_v2_cot", "--lengths", "8k", "--n", "1"]
    assert main([*args, "--data", str(data_dir), "--db", str(db)]) == 0
    with duckdb.connect(str(db), read_only=True) as con:
        found = con.execute(
            "SELECT generation_id, calls->>'$[1].prompt' FROM generations"
        ).fetchone()
    assert found is not None
    generation_id, answer_prompt = found
    capsys.readouterr()
    assert main(["show", generation_id, "--db", str(db), "--full"]) == 0
    shown = capsys.readouterr().out
    assert "Call 1: reasoning" in shown and "Call 2: answer" in shown
    assert shown.index("Call 1: reasoning") < shown.index("Call 2: answer") < shown.index("Output")
    assert "The document was shown before" in answer_prompt
