"""HELMET's citation tasks (ALCE ASQA, QAMPARI) on invented ALCE-format files: structure,
document fitting, demos as HELMET draws them, missing and malformed data, a gold run."""

from __future__ import annotations

import json
import random
import re
import shutil
from pathlib import Path

import duckdb
import pytest

from helpers.counting_tokenizer import CountingTokenizer
from helpers.helmet_data import HELMET_FIXTURES
from helpers.hub_cache import hub_repo, lctui_offline
from lctui.cli import main
from lctui.core.errors import UserInputError
from lctui.core.protocols import Tokenizer
from lctui.core.types import Example
from lctui.scoring import score_example
from lctui.tasks import get_task, select_tasks
from lctui.tasks.budget import Budget
from lctui.tasks.datasets import DataSource, read_records
from lctui.tasks.helmet.alce import ANSWER_PREFIX, MAX_NEW_TOKENS, format_doc
from lctui.tasks.helmet.alce_data import Doc, choose_alce_demos, parse_rows, read_demos
from lctui.tasks.helmet.holding import first_holders
from lctui.tasks.helmet.kilt import normalize_answer
from lctui.tasks.tokenizers import reference_tokenizer

CITE = ["alce_asqa", "alce_qampari"]
FIXTURES = DataSource(folder=HELMET_FIXTURES)
ASQA_TEST = "alce/asqa_eval_gtr_top2000.json"
FILES = (
    ASQA_TEST,
    "alce/qampari_eval_gtr_top2000.json",
    "prompts/asqa_revised.json",
    "prompts/qampari_revised.json",
)


@pytest.fixture(scope="module")
def o200k() -> Tokenizer:
    return reference_tokenizer("o200k_base")


def copy_alce(folder: Path) -> Path:
    """A writable copy of the ALCE fixtures (test files and demo files) under `folder`."""
    for name in FILES:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(HELMET_FIXTURES / name, folder / name)
    return folder


def _within(example: Example, tokenizer: Tokenizer) -> bool:
    total = tokenizer.count(example.user_text) + example.template_overhead + example.max_new_tokens
    tolerance = Budget(example.length, example.max_new_tokens).tolerance
    return example.length - tolerance <= total <= example.length


def _row(example: Example) -> object:
    dataset = "asqa" if example.task == "alce_asqa" else "qampari"
    rows, _ = parse_rows(read_records(HELMET_FIXTURES / example.metadata["data_file"]), dataset)
    return next(r for r in rows if r.line == example.metadata["data_line"])


def test_cite_tasks_are_helmets_category_with_its_metrics_and_answer_budget() -> None:
    tasks = select_tasks("cite")
    assert [t.name for t in tasks] == CITE
    assert [t.metric for t in tasks] == ["str_em", "qampari_rec_top5"]
    for task in tasks:
        assert (task.suite, task.max_new_tokens, task.params) == ("helmet", 300, {"shots": 2})
        assert task.answer_prefix == ANSWER_PREFIX


@pytest.mark.parametrize("name", CITE)
def test_prompt_holds_two_demos_then_the_question_then_numbered_documents(
    name: str, o200k: Tokenizer
) -> None:
    task = get_task(name).with_data(FIXTURES)
    for index in range(4):
        example = task.generate(2048, seed=0, index=index, tokenizer=o200k)
        assert _within(example, o200k) and example.max_new_tokens == MAX_NEW_TOKENS
        row = _row(example)
        # Two solved questions, each with its five documents and its cited answer.
        assert example.preamble.count("\nAnswer: ") == 2
        assert example.preamble.count("Document [") == 10
        assert example.preamble.endswith(f"Question: {row.question}\n\n")  # type: ignore[attr-defined]
        assert example.metadata["scorer"] == f"helmet_alce_{name[5:]}"
        groups = [list(g) for g in row.groups]  # type: ignore[attr-defined]
        assert example.metadata["answer_groups"] == groups
        assert example.gold == tuple(g[0] for g in groups)
        # One passage span per document, labelled with its number, in order.
        docs = example.metadata["documents"]
        assert len(example.spans) == len(docs) == example.metadata["num_docs"] > 5
        for number, (span, (t0, t1, x0, x1)) in enumerate(zip(example.spans, docs, strict=True), 1):
            assert (span.kind, span.label) == ("passage", str(number))
            doc: Doc = row.docs[number - 1]  # type: ignore[attr-defined]
            assert example.context[t0:t1] == doc.title
            block = example.context[span.start : span.end]
            if number < len(docs) - 1 or not example.metadata["cut_doc"]:
                assert block == format_doc(number, doc)
                assert example.context[x0:x1] == doc.text
            else:  # the last one (or two, when the gap was small) cut to fill the length
                assert format_doc(number, doc).startswith(block)
                assert doc.text.startswith(example.context[x0:x1])
        # The reference answer cites a document holding each answer and scores 1.
        reference = example.metadata["reference"]
        assert example.metadata["gold_mode"] == "exact"
        for gold, number in zip(example.gold, re.findall(r"\[(\d+)\]", reference), strict=True):
            assert gold in example.context[slice(*docs[int(number) - 1][2:])]
        assert score_example(example, reference).value == 1.0


def test_demos_are_drawn_as_helmet_draws_them_one_stream_per_file_order() -> None:
    rows, _ = parse_rows(read_records(HELMET_FIXTURES / ASQA_TEST), "asqa")
    pool, problems = read_demos(HELMET_FIXTURES / "prompts/asqa_revised.json")
    assert not problems and len(pool) == 4
    stream = random.Random(42)  # HELMET's --seed, then random.sample per row in file order
    for row in rows:
        expected = [pool[i] for i in stream.sample(range(len(pool)), 2)]
        assert choose_alce_demos(row, pool, 2) == expected
    assert choose_alce_demos(rows[0], pool, 0) == []
    assert len(choose_alce_demos(rows[0], pool, 9)) == 4


def _write_pool(folder: Path, docs: int) -> None:
    copy_alce(folder)
    rng = random.Random(3)
    rows = json.loads((folder / ASQA_TEST).read_text())
    for row in rows:
        words = " ".join(d["text"] for d in row["docs"]).split()
        row["docs"] = [
            {"title": f"T{i}", "text": " ".join(rng.choices(words, k=40))} for i in range(docs)
        ]
    (folder / ASQA_TEST).write_text(json.dumps(rows))


@pytest.mark.parametrize("length", [8192, 32768, pytest.param(131072, marks=pytest.mark.slow)])
def test_documents_fill_every_length_within_the_tolerance(
    length: int, tmp_path: Path, o200k: Tokenizer
) -> None:
    _write_pool(tmp_path, docs=1600 if length > 32768 else 400)
    task = get_task("alce_asqa").with_data(DataSource(folder=tmp_path))
    counts = []
    for index in range(2):
        example = task.generate(length, seed=0, index=index, tokenizer=o200k)
        assert _within(example, o200k), example.prompt_tokens
        assert not example.metadata["docs_exhausted"]
        counts.append(example.metadata["num_docs"])
    assert min(counts) > length // 250


def test_a_build_counts_the_documents_only_up_to_the_length(tmp_path: Path) -> None:
    """Rows of 2,000 documents at a length that holds about 100: the documents past
    the ones the prompt lists are never tokenised (they were all counted, 6x the
    work of tokenising the prompt at 128K)."""
    _write_pool(tmp_path, docs=2000)
    task = get_task("alce_asqa").with_data(DataSource(folder=tmp_path))
    for index in range(3):
        tokenizer = CountingTokenizer()
        example = task.generate(16384, seed=0, index=index, tokenizer=tokenizer)
        shown = example.metadata["num_docs"]
        counted = {int(t[len("Document [") :].split("]")[0]) for t in tokenizer.batched}
        assert 50 < shown < 500 and not example.metadata["docs_exhausted"]
        # The first documents, and only a few past the last one shown.
        assert counted == set(range(1, len(counted) + 1))
        assert shown <= len(counted) <= 1.1 * shown + 16
        assert _within(example, tokenizer)


_HOSTILE_WORDS = ["the", "a", "An", "THE", "O'Neil", "St.", "İstanbul", "ΟΔΟΣ", "σ", "river"]
_HOSTILE_WORDS += ["mill", "old", "x’the’y", "_the_", "—", "«a»", "an-old", "ﬁsh", "straße"]
_HOSTILE_GAPS = [" ", " ", "  ", "\t", "\n", "\u2028", "\xa0", ", "]


@pytest.mark.parametrize("seed", range(60))
def test_the_first_document_holding_an_answer_is_the_one_normalising_each_finds(
    seed: int,
) -> None:
    """first_holders (one pattern over all documents, then the candidates normalised)
    against normalising every document, on texts that change length when lower-cased
    (İ) and when their punctuation goes, hold articles between an answer's words, a
    final sigma, unusual whitespace, and (every fourth case) the joining character."""
    rng = random.Random(seed)

    def text(words: int) -> str:
        picked = (rng.choice(_HOSTILE_WORDS) + rng.choice(_HOSTILE_GAPS) for _ in range(words))
        return "".join(picked).strip()

    texts = [text(rng.randint(0, 12)) for _ in range(rng.randint(1, 60))]
    if seed % 4 == 0:
        texts[rng.randrange(len(texts))] += "\x00"
    groups = [[text(rng.randint(1, 3)) for _ in range(rng.randint(1, 3))] for _ in range(8)]
    plain = [normalize_answer(t) for t in texts]
    expected = []
    for group in groups:
        aliases = [normalize_answer(a) for a in group if normalize_answer(a)]
        found = (i for i, t in enumerate(plain) if any(a in t for a in aliases))
        expected.append(next(found, None))
    assert first_holders(groups, texts) == expected


def test_a_row_with_too_few_documents_says_so_and_stays_under_the_length(
    o200k: Tokenizer,
) -> None:
    example = get_task("alce_qampari").with_data(FIXTURES).generate(16384, 0, 0, o200k)
    assert example.metadata["docs_exhausted"] and example.metadata["num_docs"] == 40
    assert example.prompt_tokens + example.max_new_tokens <= 16384


def test_missing_data_greys_the_task_out_with_where_to_get_it(
    tmp_path: Path, o200k: Tokenizer
) -> None:
    unbound = get_task("alce_asqa").with_data(None)
    reason = unbound.unavailable() or ""
    assert "--data" in reason and "princeton-nlp/HELMET" in reason and "prompts/" in reason
    empty = get_task("alce_asqa").with_data(DataSource(folder=tmp_path))
    assert f"has no {ASQA_TEST}" in (empty.unavailable() or "")
    with pytest.raises(UserInputError, match=r"alce_asqa: .* has no alce/asqa_eval"):
        empty.generate(2048, 0, 0, o200k)
    (tmp_path / "alce").mkdir()
    shutil.copy(HELMET_FIXTURES / ASQA_TEST, tmp_path / ASQA_TEST)
    reason = get_task("alce_asqa").with_data(DataSource(folder=tmp_path)).unavailable() or ""
    assert "has no prompts/asqa_revised.json" in reason
    assert "github.com/princeton-nlp/HELMET" in reason


def test_malformed_rows_and_demos_are_reported_and_the_rest_still_loads(
    tmp_path: Path, o200k: Tokenizer
) -> None:
    copy_alce(tmp_path)
    path = tmp_path / ASQA_TEST
    rows = json.loads(path.read_text())
    rows[1].pop("qa_pairs")
    rows[2]["docs"] = "none"
    rows.insert(3, ["not", "a", "row"])
    path.write_text(json.dumps(rows))
    demos = tmp_path / "prompts/asqa_revised.json"
    content = json.loads(demos.read_text())
    content["demos"][0].pop("answer")
    demos.write_text(json.dumps(content))
    task = get_task("alce_asqa").with_data(DataSource(folder=tmp_path))
    problems = sorted(str(p) for p in task.data_problems())
    assert problems == sorted(
        [
            f"{path}:2: no 'qa_pairs' list; line skipped",
            f"{path}:3: 'docs' is not a non-empty list of {{title, text}}; line skipped",
            f"{path}:4: item is not an object; line skipped",
            f"{demos}:1: demo lacks a 'question', an 'answer' or its 'docs'; line skipped",
        ]
    )
    examples = [task.generate(2048, 0, i, o200k) for i in range(10)]
    assert {e.metadata["data_line"] for e in examples} == {1, *range(5, 14)}
    assert all(e.preamble.count("\nAnswer: ") == 2 for e in examples)


def test_gold_run_on_the_fixture_data_scores_one_into_duckdb(tmp_path: Path) -> None:
    db = tmp_path / "cite.duckdb"
    release = copy_alce(tmp_path / "release")
    args = ["run", "-m", "gold", "-t", "cite", "-l", "2k", "-n", "3", "--data", str(release)]
    assert main([*args, "--db", str(db)]) == 0
    con = duckdb.connect(str(db), read_only=True)
    rows = con.execute(
        "SELECT r.task, r.category, r.score, e.prompt_tokens + e.max_new_tokens, e.spans "
        "FROM results r JOIN examples e USING (example_id)"
    ).fetchall()
    con.close()
    assert sorted({r[0] for r in rows}) == CITE and len(rows) == 6
    assert all(category == "cite" and score == 1.0 for _, category, score, _, _ in rows)
    assert all(2048 - 10 <= total <= 2048 for *_, total, _ in rows)
    assert all(re.search(r'"passage"', str(spans)) for *_, spans in rows)


def test_the_files_are_read_offline_from_a_hub_dataset_in_the_standard_cache(
    tmp_path: Path,
) -> None:
    copy_alce(hub_repo(tmp_path / "hf", "lctui-test/helmet-alce") / "data")
    db = tmp_path / "hub.duckdb"
    args = ["run", "-m", "gold", "-t", "alce_qampari", "-l", "2k", "-n", "2", "--db", str(db)]
    ran = lctui_offline([*args, "--data", "hf://lctui-test/helmet-alce"], tmp_path / "hf")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT count(*), min(score) FROM results").fetchone() == (2, 1.0)
    con.close()
