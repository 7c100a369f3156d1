"""HELMET's summarization tasks (infbench_sum, multi_lexsum) on invented files in the
original formats: structure, document truncation, judge metadata, data sources.

The committed fixtures (tests/fixtures/helmet/summ, written by make_summ.py) hold short
documents; `_write_long_release` writes a release of long ones (over HELMET's 65,536
tokens) into a temporary folder for the truncation and CLI tests.
"""

from __future__ import annotations

import json
import random
import shutil
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from helpers.counting_tokenizer import CountingTokenizer
from helpers.helmet_data import HELMET_FIXTURES
from helpers.hub_cache import REVISION, hub_repo, lctui_offline
from lctui.cli import main
from lctui.core.errors import UserInputError
from lctui.core.protocols import Tokenizer
from lctui.core.types import Example
from lctui.scoring import score_example
from lctui.scoring.judge import judge_task
from lctui.tasks import get_task, select_tasks
from lctui.tasks.budget import Budget
from lctui.tasks.datasets import DataSource
from lctui.tasks.helmet.summ import (
    ANSWER_PREFIX,
    CUT_MARKER,
    MIN_TOKENS,
    document_pieces,
    document_tokens,
)
from lctui.tasks.helmet.summ_data import INFBENCH_FILE
from lctui.tasks.tokenizers import reference_tokenizer

SUMM = ["infbench_sum", "multi_lexsum"]
FIXTURES = HELMET_FIXTURES / "summ"
SOURCE = DataSource(folder=FIXTURES)
BOOKS = "hub/xinrongzhang2022/infinitebench/longbook_sum_eng.jsonl"
LEXSUM = "hub/allenai/multi_lexsum/v20230518"
SHORT = {"min_document_tokens": 0}  # the fixture documents are short
WORDS = ["mill", "harbour", "letter", "ferry", "salt", "bridge", "festival", "court", "well"]


@pytest.fixture(scope="module")
def o200k() -> Tokenizer:
    return reference_tokenizer("o200k_base")


@pytest.fixture(autouse=True)
def _offline_hub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """In-process lookups of hub files read an empty cache and never the network."""
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "empty-hub-cache"))
    yield


def _within(example: Example, tokenizer: Tokenizer) -> bool:
    total = tokenizer.count(example.user_text) + example.template_overhead + example.max_new_tokens
    return (
        example.length - Budget(example.length, example.max_new_tokens).tolerance
        <= total
        <= example.length
    )


def _long_text(rng: random.Random, words: int) -> str:
    sentences = []
    while words > 0:
        sentence = " ".join(rng.choice(WORDS) + str(rng.randrange(40)) for _ in range(12))
        sentences.append(sentence.capitalize() + ".")
        words -= 12
    return "\n\n".join(" ".join(sentences[i : i + 6]) for i in range(0, len(sentences), 6))


def _write_long_release(root: Path, words: int = 60_000) -> Path:
    """A release of three long books and long cases (sources over HELMET's 65,536 tokens)."""
    rng = random.Random(5)
    books = root / BOOKS
    books.parent.mkdir(parents=True)
    rows = [
        {"id": i, "context": _long_text(rng, words), "input": "", "answer": [f"Summary {i}."]}
        for i in range(3)
    ]
    books.write_text("".join(json.dumps(r) + "\n" for r in rows))
    for split in ("validation", "train"):
        cases = [
            {
                "id": f"{split}-{i}",
                "sources": [_long_text(rng, words // 3) for _ in range(3)],
                "summary/long": f"Long {split} {i}.",
                "summary/short": f"Short {split} {i}.",
            }
            for i in range(3)
        ]
        path = root / LEXSUM / split / "0000.parquet"
        path.parent.mkdir(parents=True)
        pq.write_table(pa.Table.from_pylist(cases), path)
    return root


@pytest.fixture(scope="module")
def long_release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _write_long_release(tmp_path_factory.mktemp("long-summ"))


def test_summ_tasks_are_helmets_category_with_its_metric_and_answer_budgets() -> None:
    tasks = select_tasks("summ")
    assert [t.name for t in tasks] == SUMM
    assert [t.max_new_tokens for t in tasks] == [1200, 400]
    for task in tasks:
        assert (task.suite, task.category, task.metric) == ("helmet", "summ", "rougeL_f1")
        assert task.params["shots"] == 2  # min_document_tokens: 65536 (HELMET's), 0 under conftest
        assert task.answer_prefix == ANSWER_PREFIX
    assert MIN_TOKENS == 65536


@pytest.mark.parametrize("name", SUMM)
@pytest.mark.parametrize("length", [4096, 32768])
def test_the_document_is_cut_at_its_end_so_the_prompt_fills_the_length(
    name: str, length: int, long_release: Path, o200k: Tokenizer
) -> None:
    task = get_task(name).with_data(DataSource(folder=long_release))
    for index in range(2):
        example = task.generate(length, 0, index, o200k)
        assert _within(example, o200k), example.prompt_tokens
        meta = example.metadata
        assert meta["truncated"] and example.context.endswith(CUT_MARKER)
        kept, whole = meta["document_tokens"]
        assert 0 < kept < length < 65536 <= whole
        # The kept text is the start of the document; the instruction and the closing
        # request are whole.
        assert example.question.strip().startswith("Write the summary of")
        assert example.preamble.startswith(task.instruction)  # type: ignore[attr-defined]
        assert example.preamble.count(f"{ANSWER_PREFIX} ") == 2  # two demonstrations
        (span, *more) = example.spans
        assert span.start == 0 and span.kind == "passage"
        assert example.context[: (more[-1] if more else span).end] + CUT_MARKER == example.context


def test_a_document_shorter_than_the_length_is_whole_and_untruncated(o200k: Tokenizer) -> None:
    task = get_task("multi_lexsum").with_data(SOURCE).with_params(SHORT)
    example = task.generate(8192, 0, 1, o200k)
    kept, whole = example.metadata["document_tokens"]
    assert not example.metadata["truncated"] and kept == whole
    assert CUT_MARKER not in example.context
    assert example.prompt_tokens + example.max_new_tokens < 8192
    assert example.metadata["data_file"] == f"{LEXSUM}/validation/0000.parquet"
    # One span per source document of the case, labelled as the inspector shows it.
    assert [s.label for s in example.spans] == [
        f"document {i}" for i in range(1, len(example.spans) + 1)
    ]
    assert len(example.spans) >= 2
    assert "\n\n".join(example.context[s.start : s.end] for s in example.spans) == example.context


def test_documents_under_min_document_tokens_are_not_asked(o200k: Tokenizer) -> None:
    task = (
        get_task("infbench_sum").with_data(SOURCE).with_params({"min_document_tokens": MIN_TOKENS})
    )
    with pytest.raises(UserInputError, match=r"no document has 65536 tokens .* --set infbench_sum"):
        task.generate(4096, 0, 0, o200k)
    books = task.load()  # type: ignore[attr-defined]
    counts = {row.key: document_tokens(row, o200k) for row in books.tests}
    least = sorted(counts.values())[2]
    limited = task.with_params({"min_document_tokens": least})
    asked = {limited.generate(4096, 0, i, o200k).metadata["row_key"] for i in range(10)}
    assert asked == {key for key, n in counts.items() if n >= least}


def test_the_pool_counts_a_book_only_until_it_reaches_the_bound(
    tmp_path: Path, o200k: Tokenizer
) -> None:
    """Books of 20,000 words each of its own (no shared count answers for another) and
    a bound of 3,000 tokens: which books are asked is decided from the start of each,
    and only the asked book is counted whole (its count is in the metadata)."""
    rng = random.Random(8)
    books = tmp_path / BOOKS
    books.parent.mkdir(parents=True)
    rows = [
        {"id": b, "context": " ".join(f"b{b}w{i}{rng.choice(WORDS)}" for i in range(20_000))}
        for b in range(4)
    ]
    books.write_text("".join(json.dumps({**r, "answer": ["A summary."]}) + "\n" for r in rows))
    task = get_task("infbench_sum").with_data(DataSource(folder=tmp_path))
    tokenizer = CountingTokenizer()
    example = task.with_params({"min_document_tokens": 3000}).generate(4096, 0, 0, tokenizer)
    asked = example.metadata["row_key"]
    counted = Counter(piece.strip().split("w")[0] for piece in tokenizer.batched)
    assert counted[f"b{asked}"] == 20_000
    whole = rows[int(asked)]["context"]
    assert example.metadata["document_tokens"][1] == sum(o200k.count_batch(document_pieces(whole)))
    others = [f"b{b}" for b in range(4) if str(b) != asked]
    assert all(0 < counted[book] < 20_000 // 2 for book in others), counted


@pytest.mark.parametrize(
    ("name", "key", "points", "reference"),
    [
        ("infbench_sum", "1", [f"Point {k} of book 1." for k in range(3)], "answer"),
        (
            "multi_lexsum",
            "VAL-001",
            [f"VAL-001 point {k}." for k in range(2)],
            "Long summary of VAL-001. The court ordered reports.",
        ),
    ],
)
def test_judge_metadata_holds_the_release_key_points_and_the_expert_summary(
    name: str, key: str, points: list[str], reference: str, o200k: Tokenizer
) -> None:
    task = get_task(name).with_data(SOURCE).with_params(SHORT)
    example = next(
        e
        for e in (task.generate(4096, 0, i, o200k) for i in range(6))
        if e.metadata["row_key"] == key
    )
    assert example.metadata["judge"] == "summ"
    assert example.metadata["data_file"] == (
        BOOKS if name == "infbench_sum" else f"{LEXSUM}/validation/0000.parquet"
    )
    assert example.metadata["key_points"] == points
    # What HELMET's judge reads for precision: InfiniteBench's answer as it is,
    # Multi-LexSum's long summary (the ROUGE reference is the short one).
    expected = example.gold[0] if reference == "answer" else reference
    assert example.metadata["reference_summary"] == expected
    judged = judge_task(example, "A summary.")
    assert judged is not None and judged.key_points == tuple(points)
    # Without a judge the metric is ROUGE-L F1, and the reference itself scores 1.
    score = score_example(example, example.gold[0])
    assert (score.metric, score.value) == ("rougeL_f1", 1.0)


def test_a_book_without_key_points_is_not_sent_to_the_judge(o200k: Tokenizer) -> None:
    task = get_task("infbench_sum").with_data(SOURCE).with_params(SHORT)
    examples = [task.generate(4096, 0, i, o200k) for i in range(6)]
    unjudged = [e for e in examples if not e.metadata["key_points_found"]]
    assert [e.metadata["row_key"] for e in unjudged] == ["5"]
    assert "judge" not in unjudged[0].metadata and judge_task(unjudged[0], "x") is None


def test_demonstrations_are_deterministic_and_never_the_asked_row(o200k: Tokenizer) -> None:
    for name in SUMM:
        task = get_task(name).with_data(SOURCE).with_params(SHORT)
        for index in range(4):
            first = task.generate(4096, 3, index, o200k)
            assert first.preamble == task.generate(4096, 3, index, o200k).preamble
            assert f"{ANSWER_PREFIX} {first.gold[0].strip()}" not in first.preamble
        no_shots = task.with_params({"shots": 0}).generate(4096, 3, 0, o200k)
        assert ANSWER_PREFIX not in no_shots.preamble


def test_missing_data_makes_the_tasks_unavailable_with_where_to_get_it(tmp_path: Path) -> None:
    empty = DataSource(folder=tmp_path)
    books = get_task("infbench_sum").with_data(empty).unavailable() or ""
    assert f"has no {INFBENCH_FILE}" in books and "hf download" in books
    cases = get_task("multi_lexsum").with_data(None).unavailable() or ""
    assert "the hub cache has no v20230518/validation/0000.parquet of allenai/multi_lexsum" in cases
    assert "--revision refs/convert/parquet" in cases
    with pytest.raises(UserInputError, match=r"task infbench_sum: .* has no hub/xinrongzhang2022"):
        get_task("infbench_sum").with_data(empty).generate(
            4096, 0, 0, reference_tokenizer("o200k_base")
        )


def test_malformed_rows_are_reported_with_file_and_line_and_the_rest_still_load(
    tmp_path: Path, o200k: Tokenizer
) -> None:
    shutil.copytree(FIXTURES, tmp_path, dirs_exist_ok=True)
    books = tmp_path / BOOKS
    lines = books.read_text().splitlines()
    lines[1] = lines[1][:40]  # a cut line
    lines.insert(3, json.dumps({"id": 9, "context": "A book.", "answer": 3}))
    books.write_text("\n".join(lines) + "\n")
    task = get_task("infbench_sum").with_data(DataSource(folder=tmp_path)).with_params(SHORT)
    problems = [str(p) for p in task.data_problems()]
    assert problems[0].startswith(f"{books}:2: not valid JSON")
    assert problems[1] == f"{books}:4: 'answer' is not a list of summary strings; line skipped"
    asked = {task.generate(4096, 0, i, o200k).metadata["data_line"] for i in range(10)}
    assert asked == {1, 3, 5, 6, 7}
    cases = tmp_path / LEXSUM / "validation/0000.parquet"
    table = pq.read_table(cases).to_pylist()
    table[1]["sources"] = None
    pq.write_table(pa.Table.from_pylist(table), cases)
    lexsum = get_task("multi_lexsum").with_data(DataSource(folder=tmp_path))
    assert [str(p) for p in lexsum.data_problems()] == [
        f"{cases}:2: 'sources' is not a list of strings; line skipped"
    ]


def test_both_datasets_are_read_offline_from_the_standard_hub_cache(tmp_path: Path) -> None:
    """No --data: InfiniteBench from its hub repository, Multi-LexSum from the Parquet
    conversion's revision, both in the standard cache."""
    home = tmp_path / "hf"
    books = hub_repo(home, "xinrongzhang2022/infinitebench") / "longbook_sum_eng.jsonl"
    shutil.copy(FIXTURES / BOOKS, books)
    lexsum = hub_repo(home, "allenai/multi_lexsum")
    converted = home / "hub/datasets--allenai--multi_lexsum/refs/refs/convert/parquet"
    converted.parent.mkdir(parents=True)
    converted.write_text(REVISION)
    shutil.copytree(FIXTURES / LEXSUM, lexsum / "v20230518")
    listed = lctui_offline(["tasks", "--format", "json"], home)
    assert listed.returncode == 0, listed.stderr
    listed_rows = {row["name"]: row for row in json.loads(listed.stdout)}
    assert [listed_rows[name]["unavailable"] for name in SUMM] == [None, None]
    # HELMET's length filter is the default outside the tests.
    assert [listed_rows[name]["params"]["min_document_tokens"]["default"] for name in SUMM] == [
        65536
    ] * 2
    db = tmp_path / "hub.duckdb"
    args = ["run", "-m", "gold", "-t", "summ", "-l", "2k", "-n", "2", "--db", str(db)]
    settings = [
        "--set",
        "infbench_sum.min_document_tokens=0",
        "--set",
        "multi_lexsum.min_document_tokens=0",
    ]
    ran = lctui_offline([*args, *settings], home)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT count(*), min(score) FROM results").fetchone() == (4, 1.0)
    con.close()
    bare = lctui_offline(["tasks", "--format", "json"], tmp_path / "no-cache")
    reasons = {row["name"]: row["unavailable"] for row in json.loads(bare.stdout)}
    assert "the hub cache has no" in reasons["infbench_sum"]


@pytest.mark.slow
def test_gold_run_on_long_documents_scores_one_into_duckdb(
    long_release: Path, tmp_path: Path
) -> None:
    db = tmp_path / "summ.duckdb"
    args = ["run", "-m", "gold", "-t", "summ", "-l", "4k", "-n", "2", "--data", str(long_release)]
    assert main([*args, "--db", str(db)]) == 0
    con = duckdb.connect(str(db), read_only=True)
    rows = con.execute(
        "SELECT r.task, r.score, e.prompt_tokens + e.max_new_tokens, r.metric "
        "FROM results r JOIN examples e USING (example_id)"
    ).fetchall()
    con.close()
    assert sorted(r[0] for r in rows) == sorted(SUMM * 2)
    assert all(score == 1.0 and metric == "rougeL_f1" for _, score, _, metric in rows)
    assert all(4096 - 20 <= total <= 4096 for _, _, total, _ in rows)
