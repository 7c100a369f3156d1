"""HELMET's in-context-learning tasks on invented hub files: structure, label maps,
balanced demonstrations, fitting, missing and malformed data, the hub cache offline.

The fixtures (tests/fixtures/helmet/icl, written by make_icl.py) are a `--data` folder
holding `hub/ORG/NAME/...` files as the datasets' repositories lay them out.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from helpers.helmet_data import HELMET_FIXTURES
from helpers.hub_cache import hub_repo, lctui_offline
from lctui.cli import main
from lctui.core.errors import UserInputError
from lctui.core.protocols import Tokenizer
from lctui.core.types import Example
from lctui.scoring import score_example
from lctui.tasks import get_task, select_tasks
from lctui.tasks.budget import Budget
from lctui.tasks.datasets import DataSource
from lctui.tasks.helmet.icl import ANSWER_PREFIX, DATASETS, MAX_NEW_TOKENS
from lctui.tasks.helmet.icl_data import balanced, balanced_rounds, label_mapping, row_seed

ICL_DATA = HELMET_FIXTURES / "icl"
FIXTURES = DataSource(folder=ICL_DATA)
ICL = list(DATASETS)
BANKING_TEST = "hub/PolyAI/banking77/default/test/0000.parquet"


def _within(example: Example, tokenizer: Tokenizer) -> bool:
    total = tokenizer.count(example.user_text) + example.template_overhead + example.max_new_tokens
    tolerance = Budget(example.length, example.max_new_tokens).tolerance
    return example.length - tolerance <= total <= example.length


def _demos(example: Example) -> list[tuple[str, str]]:
    pairs = [demo.rsplit("\nlabel: ", 1) for demo in example.context.split("\n\n")]
    return [(text, label) for text, label in pairs]


def test_icl_is_helmets_category_with_its_metric_scorer_and_answer_budget() -> None:
    tasks = select_tasks("icl")
    assert [t.name for t in tasks] == ICL == [
        "icl_trec_coarse", "icl_trec_fine", "icl_banking77", "icl_clinc150", "icl_nlu",
    ]  # fmt: skip
    for task in tasks:
        assert (task.suite, task.category, task.metric) == ("helmet", "icl", "em")
        assert task.max_new_tokens == MAX_NEW_TOKENS == 20
        assert task in select_tasks("helmet")
    labels = {name: spec.num_labels for name, (spec, _) in DATASETS.items()}
    assert labels == {
        "icl_trec_coarse": 6, "icl_trec_fine": 50, "icl_banking77": 77,
        "icl_clinc150": 151, "icl_nlu": 68,
    }  # fmt: skip


@pytest.mark.parametrize("name", ICL)
def test_prompt_holds_labelled_examples_with_one_label_map_and_the_asked_text(
    name: str, o200k: Tokenizer
) -> None:
    task = get_task(name).with_data(FIXTURES)
    example = task.generate(2048, seed=0, index=1, tokenizer=o200k)
    assert _within(example, o200k)
    assert example.answer_prefix == ANSWER_PREFIX == "label:"
    assert example.metadata["scorer"] == "helmet_icl"
    demos = _demos(example)
    assert len(demos) == example.metadata["shots"] > 50
    spec = DATASETS[name][0]
    names = example.metadata["label_names"]
    assert sorted(names, key=int) == [str(i) for i in range(spec.num_labels)]
    # One map per example: a label integer always stands for the same natural label.
    assert all(label in names for _, label in demos)
    mapping = label_mapping(spec.num_labels, row_seed(example.question.strip(), 42))
    assert example.gold == (str(mapping[example.metadata["asked_label"]]),)
    assert example.question == "\n\n" + example.metadata["row_key"]
    # Balanced: every label of the train split as often as any other, up to one.
    counts = Counter(label for _, label in demos)
    assert max(counts.values()) - min(counts.values()) <= 1


def test_the_label_map_changes_per_asked_row_and_names_come_from_the_files(
    o200k: Tokenizer,
) -> None:
    task = get_task("icl_trec_coarse").with_data(FIXTURES)
    first, second = (task.generate(2048, 0, i, o200k) for i in (0, 1))
    assert set(first.metadata["label_names"].values()) == {
        "ABBR", "ENTY", "DESC", "HUM", "LOC", "NUM",
    }  # fmt: skip
    assert first.metadata["label_names"] != second.metadata["label_names"]
    assert (
        first.metadata["rounds"] * 6 >= first.metadata["shots"] > (first.metadata["rounds"] - 1) * 6
    )


def test_a_gold_label_scores_one_and_another_label_zero(o200k: Tokenizer) -> None:
    example = get_task("icl_banking77").with_data(FIXTURES).generate(2048, 0, 2, o200k)
    assert score_example(example, " " + example.gold[0]).value == 1.0
    other = next(label for label in example.metadata["label_names"] if label != example.gold[0])
    assert score_example(example, f" {other}").value == 0.0


def test_balanced_draw_is_helmets_rounds_cut_to_the_count() -> None:
    rows = [(f"t{i}", i % 3) for i in range(7)]  # labels 0, 1, 2 with 3, 2 and 2 rows

    def label(row: tuple[str, int]) -> int:
        return row[1]

    five = balanced(rows, 5, seed=3, label_of=label)
    assert five == balanced_rounds(rows, 2, 3, label)[:5]
    # More rounds than a label has rows: it repeats them, every round still whole.
    drawn = balanced_rounds(rows, 4, 3, label)
    assert len(drawn) == 12
    for i in range(4):
        assert sorted(label(r) for r in drawn[3 * i : 3 * i + 3]) == [0, 1, 2]
    assert balanced(rows, 0, 3, label) == []


@pytest.mark.parametrize(
    "length", [2048, 4096, 32768, pytest.param(131072, marks=pytest.mark.slow)]
)
def test_demonstrations_fill_every_length_within_the_tolerance(
    length: int, o200k: Tokenizer
) -> None:
    for name in ("icl_trec_fine", "icl_clinc150"):
        task = get_task(name).with_data(FIXTURES)
        for index in range(2):
            example = task.generate(length, seed=0, index=index, tokenizer=o200k)
            assert _within(example, o200k), (name, example.prompt_tokens)
            assert example.metadata["shots"] > length // 40


def test_a_run_seed_draws_as_helmets_seed_42_plus_it(o200k: Tokenizer) -> None:
    task = get_task("icl_nlu").with_data(FIXTURES)
    zero, one = task.generate(2048, 0, 0, o200k), task.generate(2048, 1, 0, o200k)
    assert zero.metadata["helmet_seed"] == 42 and one.metadata["helmet_seed"] == 43
    assert zero.context != one.context


def test_missing_data_makes_the_task_unavailable_with_where_to_get_it(
    tmp_path: Path, o200k: Tokenizer
) -> None:
    empty = get_task("icl_banking77").with_data(DataSource(folder=tmp_path))
    reason = empty.unavailable() or ""
    assert reason.startswith(f"{tmp_path} has no hub/PolyAI/banking77/default/train/0000.parquet")
    assert "https://huggingface.co/datasets/PolyAI/banking77" in reason
    assert "--revision refs/convert/parquet" in reason
    with pytest.raises(UserInputError, match=r"icl_banking77: .* has no hub/PolyAI"):
        empty.generate(2048, 0, 0, o200k)
    unbound = get_task("icl_clinc150").with_data(None)
    assert (unbound.unavailable() or "").startswith(
        "the hub cache has no hub/clinc/clinc_oos/plus/train-00000-of-00001.parquet"
    )
    shutil.copytree(ICL_DATA, tmp_path / "data")
    (tmp_path / "data" / BANKING_TEST).unlink()
    no_test = get_task("icl_banking77").with_data(DataSource(folder=tmp_path / "data"))
    assert "has no hub/PolyAI/banking77/default/test/0000.parquet" in (no_test.unavailable() or "")


def test_malformed_rows_are_reported_with_file_and_row_and_the_rest_still_loads(
    tmp_path: Path, o200k: Tokenizer
) -> None:
    shutil.copytree(ICL_DATA, tmp_path / "data")
    path = tmp_path / "data" / BANKING_TEST
    table = pq.read_table(path)
    texts, labels = table.column("text").to_pylist(), table.column("label").to_pylist()
    texts[1] = ""
    labels[3] = 77  # BANKING77's labels are 0..76
    fixed = pa.table(
        {"text": pa.array(texts, pa.string()), "label": pa.array(labels, pa.int64())}
    ).replace_schema_metadata(table.schema.metadata)
    pq.write_table(fixed, path)
    task = get_task("icl_banking77").with_data(DataSource(folder=tmp_path / "data"))
    problems = [str(p) for p in task.data_problems()]
    assert problems == [
        f"{path}:2: no 'text' text; line skipped",
        f"{path}:4: 'label' 77 is outside 0..76; line skipped",
    ]
    example = task.generate(2048, 0, 0, o200k)
    assert example.metadata["data_line"] not in (2, 4)
    assert score_example(example, " " + example.gold[0]).value == 1.0


def test_trec_tasks_read_one_file_with_their_own_label_field(o200k: Tokenizer) -> None:
    coarse = get_task("icl_trec_coarse").with_data(FIXTURES).generate(2048, 0, 0, o200k)
    fine = get_task("icl_trec_fine").with_data(FIXTURES).generate(2048, 0, 0, o200k)
    assert len(coarse.metadata["label_names"]) == 6 and len(fine.metadata["label_names"]) == 50
    # The fixture's ten fine labels fall into the six coarse ones.
    assert len({label for _, label in _demos(coarse)}) == 6
    assert len({label for _, label in _demos(fine)}) == 10


def test_datasets_are_read_offline_from_the_hub_cache_without_data(tmp_path: Path) -> None:
    home = tmp_path / "hf"
    # A script-based repository: its files on the Parquet branch, which the cache names.
    snapshot = hub_repo(home, "PolyAI/banking77", revision="b" * 40)
    branch = home / "hub" / "datasets--PolyAI--banking77" / "refs" / "refs" / "convert"
    branch.mkdir(parents=True)
    (branch / "parquet").write_text("b" * 40)
    (home / "hub" / "datasets--PolyAI--banking77" / "refs" / "main").write_text("c" * 40)
    shutil.copytree(ICL_DATA / "hub" / "PolyAI" / "banking77", snapshot, dirs_exist_ok=True)
    # A Parquet repository: its files on main.
    clinc = hub_repo(home, "clinc/clinc_oos")
    shutil.copytree(ICL_DATA / "hub" / "clinc" / "clinc_oos", clinc, dirs_exist_ok=True)
    listed = lctui_offline(["tasks", "--format", "json"], home)
    assert listed.returncode == 0, listed.stderr
    reasons = {row["name"]: row["unavailable"] for row in json.loads(listed.stdout)}
    assert reasons["icl_banking77"] is None and reasons["icl_clinc150"] is None
    assert "the hub cache has no hub/CogComp/trec/" in reasons["icl_trec_coarse"]
    db = tmp_path / "hub.duckdb"
    args = ["run", "-m", "gold", "-t", "icl_banking77,icl_clinc150", "-l", "2k", "-n", "2"]
    ran = lctui_offline([*args, "--db", str(db)], home)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT count(*), min(score) FROM results").fetchone() == (4, 1.0)
    con.close()


def test_gold_run_on_the_fixture_data_scores_one_into_duckdb(tmp_path: Path) -> None:
    db = tmp_path / "icl.duckdb"
    config = tmp_path / "lctui.toml"
    shutil.copytree(ICL_DATA, tmp_path / "release")
    config.write_text('data_dir = "release"\n')  # relative to the config file
    args = ["run", "-m", "gold", "-t", "icl,niah_single_1", "-l", "2k", "-n", "2"]
    assert main([*args, "--config", str(config), "--db", str(db)]) == 0
    con = duckdb.connect(str(db), read_only=True)
    rows = con.execute(
        "SELECT r.task, r.scorer, r.metric, r.score, e.prompt_tokens + e.max_new_tokens "
        "FROM results r JOIN examples e USING (example_id)"
    ).fetchall()
    con.close()
    assert sorted({r[0] for r in rows}) == sorted([*ICL, "niah_single_1"])
    assert len(rows) == 12 and all(score == 1.0 for *_, score, _ in rows)
    icl = [r for r in rows if r[0] != "niah_single_1"]
    assert {(r[1], r[2]) for r in icl} == {("helmet_icl", "em")}
    assert all(2048 - 10 <= total <= 2048 for *_, total in icl)
