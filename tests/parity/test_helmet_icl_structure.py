"""HELMET's ICL tasks have HELMET's structure: helmet_icl_structure.jsonl holds what
HELMET's own loader (data.py load_icl, scripts/parity/helmet_icl.py) built from the same
fixture files, and lctui's examples must match it row by row.

Compared: the asked rows in HELMET's order (all of a small test split; BANKING77's 520
shuffled and label-balanced to 500; NLU's split off its one file), and per example the
demonstrations HELMET draws for the same row (with `draw` shots: lctui's shown shots are
the first of that draw, which at most rounds up the shots to whole rounds of labels):
their texts and integer labels in order (the last one may be cut to fill the length: its text
is then a start of HELMET's, its label the same), the asked text and the answer.
"""

from __future__ import annotations

import pytest

from helpers.helmet_data import HELMET_FIXTURES
from helpers.parity_fixtures import load_fixture
from lctui.tasks import get_task
from lctui.tasks.datasets import DataSource
from lctui.tasks.helmet.icl import HelmetIcl
from lctui.tasks.helmet.icl_data import load
from lctui.tasks.tokenizers import reference_tokenizer

FIXTURE = load_fixture("helmet_icl_structure")
DATA = DataSource(folder=HELMET_FIXTURES / "icl")
ASKED = [row for row in FIXTURE.rows if row["kind"] == "asked"]
EXAMPLES = [row for row in FIXTURE.rows if row["kind"] == "example"]


def _task(name: str) -> HelmetIcl:
    task = get_task(name).with_data(DATA)
    assert isinstance(task, HelmetIcl)
    return task


@pytest.mark.parametrize("row", ASKED, ids=lambda row: str(row["task"]))
def test_the_asked_rows_are_helmets_in_its_order(row: dict[str, object]) -> None:
    task = _task(str(row["task"]))
    train, test = task._files()
    assert train is not None
    data = load(task.spec, train, test, 42)
    assert len(data.test) == row["asked"]
    assert [r.text for r in data.test] == row["questions"]


@pytest.mark.parametrize(
    "row", EXAMPLES, ids=lambda row: f"{row['task']}-{row['length']}-{row['index']}"
)
def test_demonstrations_labels_and_answer_are_those_helmet_draws(row: dict[str, object]) -> None:
    tokenizer = reference_tokenizer("o200k_base")
    example = _task(str(row["task"])).generate(
        int(str(row["length"])), 0, int(str(row["index"])), tokenizer
    )
    assert example.metadata["test_position"] == row["position"]
    assert example.metadata["shots"] == row["shots"]
    assert example.metadata["draw_shots"] == row["draw"]
    shown = [demo.rsplit("\nlabel: ", 1) for demo in example.context.split("\n\n")]
    helmet = row["demos"]
    assert isinstance(helmet, list) and len(helmet) == row["draw"]
    helmet = helmet[: len(shown)]  # HELMET's draw of `draw` shots starts with those shown
    assert len(shown) == row["shots"]
    if example.metadata["cut_shot"]:
        (text, label), (whole, helmet_label) = shown[-1], helmet[-1]
        assert label == helmet_label and whole.startswith(text) and len(text) < len(whole)
        shown, helmet = shown[:-1], helmet[:-1]
    assert shown == helmet
    assert example.question == "\n\n" + str(row["question"])
    assert example.gold == (row["answer"],)


def test_the_fixture_reaches_every_way_helmet_picks_its_rows() -> None:
    asked = {str(row["task"]): row["asked"] for row in ASKED}
    assert asked["icl_banking77"] == 500  # 520 test rows: shuffled, then balanced
    assert asked["icl_nlu"] == 7  # a tenth of the one file, split off with the seed
    assert {str(row["task"]) for row in EXAMPLES} == {
        "icl_trec_coarse", "icl_trec_fine", "icl_banking77", "icl_clinc150", "icl_nlu",
    }  # fmt: skip
    tokenizer = reference_tokenizer("o200k_base")
    cut = [
        _task(str(r["task"]))
        .generate(int(str(r["length"])), 0, int(str(r["index"])), tokenizer)
        .metadata["cut_shot"]
        for r in EXAMPLES
    ]
    assert any(cut) and not all(cut)
    # Over one round of labels: the draw repeats labels, so its rounds matter.
    assert all(int(str(r["shots"])) > 50 for r in EXAMPLES)
