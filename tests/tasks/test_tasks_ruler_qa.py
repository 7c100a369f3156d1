"""RULER's qa_1 (SQuAD) and qa_2 (HotpotQA) on invented files in the datasets' formats:
where the files are found, what is reported when they are missing or malformed, the
documents and questions as RULER reads them, and examples that fill their length with
the question's documents among others, their depth recorded."""

from __future__ import annotations

import json
import re
import statistics
from collections.abc import Sequence
from pathlib import Path

import duckdb
import pytest

from helpers.hub_cache import lctui_offline
from helpers.ruler_qa_data import (
    HOTPOTQA,
    LAYOUTS,
    RULER_QA_FIXTURES,
    SQUAD,
    break_hotpotqa,
    break_squad,
    write_hotpotqa_hub,
    write_large_hotpotqa,
    write_ruler_qa,
)
from lctui.cli import main
from lctui.core.errors import UserInputError
from lctui.core.protocols import Tokenizer
from lctui.core.types import Example, ScoreStatus
from lctui.scoring import score_example
from lctui.suites.ruler.tasks.qa import RULER_SEED, RulerQA, shuffled
from lctui.suites.ruler.tasks.qa_data import HOTPOTQA_HUB, SQUAD_URL
from lctui.tasks import get_task, select_tasks
from lctui.tasks.budget import Budget
from lctui.tasks.datasets import DataSource
from lctui.tasks.tokenizers import TiktokenTokenizer

FIXTURES = DataSource(folder=RULER_QA_FIXTURES)
HEADING = re.compile(r"Document (\d+):\n")


def _task(name: str, source: DataSource | None = FIXTURES) -> RulerQA:
    task = get_task(name).with_data(source)
    assert isinstance(task, RulerQA)
    return task


def _blocks(example: Example) -> dict[int, str]:
    """Each listed document's text (without its heading) by its number, from the spans."""
    out = {}
    for span in example.spans:
        if span.kind == "passage":
            block = example.context[span.start : span.end]
            heading = HEADING.match(block)
            assert heading and heading.group(1) == span.label, block[:40]
            out[int(span.label)] = block[heading.end() :]
    return out


def test_the_tasks_are_rulers_qa_with_string_match_part_and_32_answer_tokens() -> None:
    tasks = select_tasks("qa")
    assert [t.name for t in tasks] == ["qa_1", "qa_2"]
    assert {(t.suite, t.category, t.metric, t.max_new_tokens) for t in tasks} == {
        ("ruler", "qa", "string_match_part", 32)
    }
    assert all(t.needs_data for t in tasks)
    assert [t.name for t in select_tasks("ruler")][-2:] == ["qa_1", "qa_2"]


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_files_are_found_under_rulers_names_the_download_names_and_a_checkout(
    layout: str, tmp_path: Path, o200k: Tokenizer
) -> None:
    write_ruler_qa(tmp_path, layout)
    for name, relative in zip(("qa_1", "qa_2"), LAYOUTS[layout], strict=True):
        task = _task(name, DataSource(folder=tmp_path))
        assert task.unavailable() is None and task.data_problems() == ()
        assert task.release_path() == relative
        example = task.generate(2048, 0, 0, o200k)
        assert example.metadata["data_file"] == relative
        # The same question wherever the file lies; another file is another example.
        same = _task(name).generate(2048, 0, 0, o200k)
        key = example.metadata["question_key"]
        assert (key, example.gold) == (same.metadata["question_key"], same.gold)
        assert example.example_id != same.example_id


def test_missing_files_make_the_tasks_unavailable_with_where_to_get_them(
    tmp_path: Path, o200k: Tokenizer
) -> None:
    empty = DataSource(folder=tmp_path)
    squad, hotpot = (_task(n, empty).unavailable() or "" for n in ("qa_1", "qa_2"))
    assert f"{tmp_path}: no SQuAD v2.0 dev file" in squad
    assert SQUAD_URL in squad and "DIR/ruler/squad.json" in squad
    assert "hotpot_dev_distractor_v1.json" in hotpot and "DIR/ruler/hotpotqa.json" in hotpot
    assert "hf download namlh2004/hotpotqa" in hotpot
    assert _task("qa_1", empty).data_problems() == ()
    with pytest.raises(UserInputError, match=r"qa_1: .*no SQuAD v2.0 dev file"):
        _task("qa_1", empty).generate(2048, 0, 0, o200k)
    # Without --data only the hub cache is asked (and only for HotpotQA).
    assert (_task("qa_1", None).unavailable() or "").startswith("no --data")


def test_malformed_entries_are_reported_with_file_and_position_and_the_rest_used(
    tmp_path: Path, o200k: Tokenizer
) -> None:
    squad, hotpot = write_ruler_qa(tmp_path)
    expected_squad, expected_hotpot = break_squad(squad), break_hotpotqa(hotpot)
    source = DataSource(folder=tmp_path)
    qa_1, qa_2 = _task("qa_1", source), _task("qa_2", source)
    assert [str(p) for p in qa_1.data_problems()] == expected_squad
    assert [str(p) for p in qa_2.data_problems()] == expected_hotpot
    whole = _task("qa_1").corpus()[1]
    _, kept = qa_1.corpus()
    # Article 2's questions and the spoilt question are gone; article 3 keeps 9 paragraphs.
    lost = {q.key for q in whole.questions if q.line == 2 or q.key.startswith("sq0201")}
    lost.add("sq03000")
    assert {q.key for q in kept.questions} == {q.key for q in whole.questions} - lost
    assert len(kept.documents) == len(whole.documents) - 10 - 1
    lines = {qa_2.generate(2048, 0, i, o200k).metadata["data_line"] for i in range(4)}
    assert lines == {1, 4, 6, 7}


def test_lctui_data_sees_the_file_and_the_lengths_its_documents_fill() -> None:
    qa_1, qa_2 = _task("qa_1"), _task("qa_2")
    assert qa_1.data_files() == (SQUAD,) and qa_2.data_files() == (HOTPOTQA,)
    assert _task("qa_1", None).data_files() == ()
    # About 18K tokens of SQuAD documents, 14K of HotpotQA's (estimated from characters).
    reach = qa_1.data_reach([4096, 16384, 32768])
    assert reach.filled() == (4096, 16384) and reach.total == 224
    assert "160 documents" in reach.how and reach.estimated
    assert qa_2.data_reach([8192, 16384]).filled() == (8192,)


def test_a_file_without_one_usable_question_is_refused_with_the_reason(
    tmp_path: Path, o200k: Tokenizer
) -> None:
    # HotpotQA's file where SQuAD's is looked for: every row lacks 'paragraphs'.
    (tmp_path / "ruler").mkdir()
    (tmp_path / "ruler" / "squad.json").write_bytes(HOTPOTQA.read_bytes())
    task = _task("qa_1", DataSource(folder=tmp_path))
    assert len(task.data_problems()) == 36
    with pytest.raises(UserInputError, match=r"holds no usable SQuAD v2\.0 dev question"):
        task.generate(2048, 0, 0, o200k)


def test_documents_and_questions_are_read_as_ruler_reads_them() -> None:
    squad = json.loads(SQUAD.read_text())["data"]
    _, corpus = _task("qa_1").corpus()
    paragraphs = [p["context"] for a in squad for p in a["paragraphs"]]
    assert corpus.documents == tuple(sorted(set(paragraphs)))
    asked = [
        (q["id"], q["question"])
        for a in squad
        for p in a["paragraphs"]
        for q in p["qas"]
        if not q["is_impossible"]
    ]
    assert [(q.key, q.question) for q in corpus.questions] == asked
    first = corpus.questions[0]
    article = [corpus.documents.index(p["context"]) for p in squad[0]["paragraphs"]]
    assert first.documents == first.supporting == (article[0],)
    assert first.related == tuple(article[1:])
    # SQuAD repeats an answer given by several annotators: each is kept once.
    assert first.answers == tuple(
        dict.fromkeys(a["text"] for a in squad[0]["paragraphs"][0]["qas"][0]["answers"])
    )

    rows = json.loads(HOTPOTQA.read_text())
    _, hotpot = _task("qa_2").corpus()
    texts = {f"{t}\n{''.join(s)}" for row in rows for t, s in row["context"]}
    assert hotpot.documents == tuple(sorted(texts))
    row, question = rows[0], hotpot.questions[0]
    assert (question.key, question.answers) == (row["_id"], (row["answer"],))
    assert [hotpot.documents[i].split("\n")[0] for i in question.documents] == [
        t for t, _ in row["context"]
    ]
    assert {hotpot.documents[i].split("\n")[0] for i in question.supporting} == {
        t for t, _ in row["supporting_facts"]
    }


@pytest.mark.parametrize("name", ["qa_1", "qa_2"])
@pytest.mark.parametrize("length", [4096, 8192])
def test_examples_fill_the_length_with_the_questions_documents_and_record_their_depth(
    name: str, length: int, o200k: TiktokenTokenizer
) -> None:
    task = _task(name)
    _, corpus = task.corpus()
    for index in range(4):
        example = task.generate(length, 0, index, o200k)
        _check_example(example, task, o200k)
        asked = corpus.questions[index]
        blocks = _blocks(example)
        listed = [blocks[n] for n in sorted(blocks)]
        assert len(listed) == example.metadata["num_documents"]
        whole = listed[:-1] if example.metadata["cut_document"] else listed
        assert len(set(whole)) == len(whole)  # no document twice
        own = [corpus.documents[i] for i in asked.documents]
        numbers = example.metadata["question_documents"]
        assert sorted(blocks[n] for n in numbers) == sorted(own)
        # The question's documents land where RULER's shuffle puts the first ones.
        order = shuffled(range(len(whole)), RULER_SEED)
        assert numbers == sorted(order.index(k) + 1 for k in range(len(own)))
        golds = example.metadata["gold_documents"]
        assert {blocks[n] for n in golds} == {corpus.documents[i] for i in asked.supporting}
        # Marked for the inspector: the answer's documents as needles, the answer in
        # them as gold (`g` jumps there), HotpotQA's other own documents as distractors.
        needles = [s for s in example.spans if s.kind == "needle"]
        assert sorted(int(example.context[s.start :].split(":")[0][9:]) for s in needles) == golds
        found = [example.context[s.start : s.end] for s in example.spans if s.kind == "gold"]
        assert set(found) <= set(example.gold)
        assert found or example.gold[0] in ("yes", "no")
        distractors = [s for s in example.spans if s.kind == "distractor"]
        assert len(distractors) == len(numbers) - len(golds)
        depths = [round(100 * (n - 1) / (len(listed) - 1), 2) for n in golds]
        assert example.metadata["gold_depths"] == depths
        assert example.depth == round(statistics.mean(depths), 2)
        # All of a SQuAD question's article is listed when it fits (RULER's order).
        related = {corpus.documents[i] for i in asked.related}
        assert related <= set(whole)


def _check_example(example: Example, task: RulerQA, tokenizer: Tokenizer) -> None:
    total = tokenizer.count(example.user_text) + example.template_overhead + 32
    tolerance = Budget(example.length, 32).tolerance
    assert example.length - tolerance <= total <= example.length, total
    assert example.prompt_tokens + 32 == total
    assert example.answer_prefix == "Answer:" and example.max_new_tokens == 32
    assert example.metadata["metric"] == "string_match_part"
    assert example.metadata["gold_mode"] == "any"
    assert example.question.endswith(example.metadata["asked_text"])
    assert all(g in example.context for g in example.gold if g not in ("yes", "no"))
    again = task.generate(example.length, example.seed, example.index, tokenizer)
    assert (again.example_id, again.context) == (example.example_id, example.context)
    assert example.example_id == task.example_id(
        example.length, example.seed, example.index, tokenizer.name
    )


def test_at_one_document_count_every_question_has_the_same_places_as_in_ruler(
    o200k: TiktokenTokenizer,
) -> None:
    """RULER shuffles every question's list with one seed: the question's documents sit
    at the same numbers for every question with as many documents; another run seed
    (RULER's --random_seed 42 + seed) moves them."""
    task = _task("qa_1")
    by_count: dict[int, set[tuple[int, ...]]] = {}
    for index in range(8):
        example = task.generate(4096, 0, index, o200k)
        whole = example.metadata["num_documents"] - example.metadata["cut_document"]
        by_count.setdefault(whole, set()).add(tuple(example.metadata["question_documents"]))
        assert example.metadata["shuffle_seed"] == 42
    assert all(len(places) == 1 for places in by_count.values())
    other = task.generate(4096, 5, 0, o200k)
    assert other.metadata["shuffle_seed"] == 47
    first = task.generate(4096, 0, 0, o200k)
    assert other.metadata["question_documents"] != first.metadata["question_documents"]
    # Another index asks another question; the same index with another seed the same one.
    assert other.metadata["question_key"] == first.metadata["question_key"]
    assert task.generate(4096, 0, 1, o200k).metadata["question_key"] != "sq00000"


def test_a_yes_no_answer_is_scored_by_string_match_part(o200k: TiktokenTokenizer) -> None:
    """HotpotQA's comparison questions are answered yes or no, words the documents need
    not hold: no gold span then, and the answer is still found in the output."""
    example = _task("qa_2").generate(2048, 0, 6, o200k)
    assert example.gold == ("yes",) and not [s for s in example.spans if s.kind == "gold"]
    assert len([s for s in example.spans if s.kind == "needle"]) == 2
    assert score_example(example, "Yes, both are.").value == 1.0
    wrong = score_example(example, "No.")
    assert wrong.value == 0.0 and wrong.status is ScoreStatus.UNPARSED


def test_questions_repeat_after_the_last_in_file_order(o200k: TiktokenTokenizer) -> None:
    task = _task("qa_2")
    first = task.generate(2048, 0, 0, o200k)
    wrapped = task.generate(2048, 0, 36, o200k)
    assert wrapped.metadata["question_key"] == first.metadata["question_key"] == "hp000"
    assert wrapped.example_id != first.example_id


def test_each_document_is_tokenised_once_per_tokenizer(o200k: TiktokenTokenizer) -> None:
    """A spy around the real tokenizer (its own name: its own caches) counts what is
    tokenised: the second example of the same question at the same length tokenises
    no document again, only the few texts it assembles."""

    class Spy(TiktokenTokenizer):
        def __init__(self) -> None:
            super().__init__("o200k_base")
            super().count_batch(["loads the batch counter under the real name"])
            self.name = "o200k_base-spy"
            self.texts: list[str] = []

        def count_batch(self, texts: Sequence[str]) -> list[int]:
            self.texts.extend(texts)
            return super().count_batch(texts)

    spy = Spy()
    task = _task("qa_1")
    task.generate(8192, 0, 0, spy)
    first = len(spy.texts)
    task.generate(8192, 1, 0, spy)  # another seed: other documents drawn, most known
    again = len(spy.texts) - first
    assert first > 60 and again < first / 2
    assert len(set(spy.texts)) == len(spy.texts)  # nothing counted twice


def test_a_128k_example_from_a_large_file_fills_its_length(
    tmp_path: Path, o200k: TiktokenTokenizer
) -> None:
    write_large_hotpotqa(tmp_path, copies=12)
    task = _task("qa_2", DataSource(folder=tmp_path))
    for index in range(2):
        example = task.generate(131072, 0, index, o200k)
        _check_example(example, task, o200k)
        assert not example.metadata["documents_exhausted"]
        assert 1800 < example.metadata["num_documents"] < 2600


def test_an_exhausted_file_lists_every_document_once_and_says_so(
    o200k: TiktokenTokenizer,
) -> None:
    """A length beyond the file's documents (the fixture's SQuAD holds about 18K tokens)
    lists them all, each once; the example says it fell short. RULER would repeat the
    documents instead."""
    example = _task("qa_1").generate(32768, 0, 0, o200k)
    _, corpus = _task("qa_1").corpus()
    assert example.metadata["documents_exhausted"] and not example.metadata["cut_document"]
    assert example.metadata["num_documents"] == len(corpus.documents)
    assert example.prompt_tokens + 32 < 32768 * 0.7


def test_without_data_qa_2_reads_rulers_hotpotqa_file_from_the_hub_cache(tmp_path: Path) -> None:
    home = tmp_path / "hf"
    listed = lctui_offline(["tasks", "--format", "json"], home)
    assert listed.returncode == 0, listed.stderr
    reasons = {row["name"]: row["unavailable"] for row in json.loads(listed.stdout)}
    assert "no HotpotQA dev distractor file" in reasons["qa_2"]
    write_hotpotqa_hub(home)
    listed = lctui_offline(["tasks", "--format", "json"], home)
    reasons = {row["name"]: row["unavailable"] for row in json.loads(listed.stdout)}
    assert reasons["qa_2"] is None and "no SQuAD v2.0 dev file" in reasons["qa_1"]
    db = tmp_path / "hub.duckdb"
    ran = lctui_offline(
        ["run", "-m", "gold", "-t", "qa_2", "-l", "2k", "-n", "2", "--db", str(db)], home
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    con = duckdb.connect(str(db), read_only=True)
    files = con.execute("SELECT DISTINCT metadata->>'data_file' FROM examples").fetchall()
    scores = con.execute("SELECT count(*), min(score) FROM results").fetchone()
    con.close()
    assert files == [(HOTPOTQA_HUB,)] and scores == (2, 1.0)


def test_gold_run_end_to_end_scores_one_into_duckdb_with_depths(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    write_ruler_qa(data)
    db = tmp_path / "qa.duckdb"
    args = ["run", "--model", "gold", "--tasks", "qa_1,qa_2", "--data", str(data)]
    assert main([*args, "--lengths", "4k", "--n", "3", "--db", str(db)]) == 0
    con = duckdb.connect(str(db), read_only=True)
    rows = con.execute(
        "SELECT r.task, r.score, r.metric, r.status, e.depth, e.prompt_tokens + e.max_new_tokens "
        "FROM results r JOIN examples e USING (example_id) ORDER BY r.task"
    ).fetchall()
    con.close()
    assert [r[0] for r in rows] == ["qa_1"] * 3 + ["qa_2"] * 3
    assert {(score, metric, status) for _, score, metric, status, _, _ in rows} == {
        (1.0, "string_match_part", "ok")
    }
    assert all(0 <= depth <= 100 and 4096 - 20 <= total <= 4096 for *_, depth, total in rows)
    capsys.readouterr()
    assert main(["tasks", "--data", str(data), "--format", "json"]) == 0
    listed = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    assert listed["qa_1"]["unavailable"] is None and listed["qa_2"]["unavailable"] is None
    assert listed["qa_1"]["groups"] == ["qa (RULER)"]


def test_run_reports_malformed_entries_with_file_and_position_and_still_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "400")
    squad, _ = write_ruler_qa(tmp_path / "data")
    expected = break_squad(squad)
    db = tmp_path / "r.duckdb"
    args = [
        "run",
        "-m",
        "gold",
        "-t",
        "qa_1",
        "-l",
        "2k",
        "-n",
        "2",
        "--data",
        str(tmp_path / "data"),
    ]
    assert main([*args, "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert all(problem.split("; ")[0] in out for problem in expected), out
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT count(*), min(score) FROM results").fetchone() == (2, 1.0)
    con.close()


@pytest.mark.slow
def test_smollm2s_tokenizer_fills_4k_and_8k_within_the_tolerance() -> None:
    from transformers import AutoTokenizer

    from lctui.backends.embedded import embedded_checkpoint
    from lctui.backends.hf_tokenizer import HFTokenizer

    tokenizer = HFTokenizer(AutoTokenizer.from_pretrained(embedded_checkpoint()))
    for name in ("qa_1", "qa_2"):
        task = _task(name)
        for length in (4096, 8192):
            for index in range(2):
                _check_example(task.generate(length, 0, index, tokenizer), task, tokenizer)
