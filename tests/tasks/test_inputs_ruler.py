"""The `ruler` input kind (tasks/inputs/ruler.py) on files in the format of RULER's
prepare.py, laid out as its run.sh lays them out (helpers/ruler_inputs.py, our text):
every prompt is input + answer_prefix as call_api.py joins them, the cell length is the
layout's, the budget and metric RULER's, and the recall scorer reads the outputs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers.ruler_inputs import MODEL, data_file, ruler_row, sent_prompts, write_ruler_root
from lctui.core.errors import UserInputError
from lctui.scoring import score_example
from lctui.scoring.metrics import string_match_all, string_match_part
from lctui.tasks.inputs import parse_inputs_arg, read_inputs

TASKS = ("niah_single_1", "niah_multikey_3", "vt", "cwe", "fwe", "qa_1", "qa_2")


def test_every_prompt_is_input_and_answer_prefix_at_the_layouts_length(tmp_path: Path) -> None:
    root = write_ruler_root(tmp_path / "benchmark_root", tasks=TASKS, lengths=(4096, 131072))
    found = read_inputs(parse_inputs_arg(f"ruler:{root}"))
    assert len(found.examples) == len(TASKS) * 2 * 2
    assert found.problems == ()
    for length in (4096, 131072):
        for task in TASKS:
            mine = [e for e in found.examples if (e.task, e.length) == (task, length)]
            assert [e.user_text for e in mine] == sent_prompts(data_file(root, task, length))
    # Files in RULER's task order, lengths ascending (not the folders' sorted names).
    assert [(f.length, f.task) for f in found.files][:3] == [
        (4096, "niah_single_1"),
        (4096, "niah_multikey_3"),
        (4096, "vt"),
    ]


def test_budgets_and_metrics_are_rulers(tmp_path: Path) -> None:
    root = write_ruler_root(tmp_path, tasks=TASKS, lengths=(4096,), rows=1)
    found = read_inputs(parse_inputs_arg(f"ruler:{root}"))
    budgets = {e.task: e.max_new_tokens for e in found.examples}
    # RULER's tokens_to_generate of each family (its data/synthetic/constants.py).
    assert budgets == {
        "niah_single_1": 128,
        "niah_multikey_3": 128,
        "vt": 30,
        "cwe": 120,
        "fwe": 50,
        "qa_1": 32,
        "qa_2": 32,
    }
    metrics = {e.task: e.metadata["metric"] for e in found.examples}
    assert {metrics["qa_1"], metrics["qa_2"]} == {"string_match_part"}
    assert {metrics[t] for t in TASKS[:5]} == {"string_match_all"}
    niah = next(e for e in found.examples if e.task == "niah_single_1")
    row = ruler_row("niah_single_1", 0, 4096)
    assert niah.prompt_tokens == row["length"] - 128  # RULER's count less the budget
    assert niah.metadata["ruler_index"] == row["index"]
    assert niah.spans[0].label == row["outputs"][0] and niah.depth is not None


@pytest.mark.parametrize(
    "output",
    ["4100", "The token is 4100.", "harbour-0 reads 4137", "", "QWXYZ and PLMOK", "at 4100!"],
)
def test_the_recall_scorer_gives_rulers_metric(tmp_path: Path, output: str) -> None:
    root = write_ruler_root(tmp_path, tasks=("niah_single_1", "vt", "qa_1"), lengths=(4096,))
    for example in read_inputs(parse_inputs_arg(f"ruler:{root}")).examples:
        metric = string_match_part if example.task == "qa_1" else string_match_all
        assert score_example(example, output).value == metric(output, example.gold)


def test_a_data_folder_or_file_outside_the_layout_needs_one_length(tmp_path: Path) -> None:
    root = write_ruler_root(tmp_path / "root", tasks=("vt",), lengths=(4096,))
    path = data_file(root, "vt", 4096)
    loose = tmp_path / "save_dir" / "vt" / "validation.jsonl"
    loose.parent.mkdir(parents=True)
    loose.write_bytes(path.read_bytes())
    with pytest.raises(UserInputError, match=r"LENGTH of LENGTH/data/TASK/.*--lengths"):
        read_inputs(parse_inputs_arg(f"ruler:{loose.parent.parent}"))
    found = read_inputs(parse_inputs_arg(f"ruler:{loose}"), lengths=[8192])
    assert {e.length for e in found.examples} == {8192}
    # In the layout, --lengths selects among the lengths it names.
    both = write_ruler_root(tmp_path / "two", tasks=("vt",), lengths=(4096, 8192))
    only = read_inputs(parse_inputs_arg(f"ruler:{both / MODEL}"), lengths=[8192])
    assert {e.length for e in only.examples} == {8192}
    # The same rows at another length are other examples.
    assert not {e.example_id for e in found.examples} & {
        e.example_id for e in read_inputs(parse_inputs_arg(f"ruler:{path}")).examples
    }


def test_what_is_no_rulers_row_or_folder_is_named(tmp_path: Path) -> None:
    root = write_ruler_root(tmp_path, tasks=("niah_single_1",), lengths=(4096,))
    path = data_file(root, "niah_single_1", 4096)
    good = ruler_row("niah_single_1", 5, 4096)
    bad = [
        {**good, "input": None},
        {**good, "answer_prefix": 3},
        {**good, "outputs": "4100"},
        {**good, "outputs": ["", "1"]},
        {**good, "input": good["input"] + "\ud800"},
    ]
    with path.open("a", encoding="utf-8") as f:
        f.write("".join(json.dumps(row) + "\n" for row in bad) + "[1]\n")
    custom = path.parent.parent / "niah_custom" / "validation.jsonl"
    custom.parent.mkdir()
    custom.write_text(json.dumps(good) + "\n")
    found = read_inputs(parse_inputs_arg(f"ruler:{root}"))
    assert len(found.examples) == 2
    assert [p.split(": ", 1)[0] for p in found.problems] == [
        str(custom),
        *(f"{path}:{line}" for line in range(3, 9)),
    ]
    assert "names none of RULER's tasks" in found.problems[0]
    assert "lone surrogate" in found.problems[5]
    assert "not a JSON object" in found.problems[6]


def test_the_subset_option_reads_test_files(tmp_path: Path) -> None:
    root = write_ruler_root(tmp_path, tasks=("vt",), lengths=(4096,))
    path = data_file(root, "vt", 4096)
    path.rename(path.with_name("test.jsonl"))
    with pytest.raises(UserInputError, match=r"holds no RULER data file \(DATA/TASK/validation"):
        read_inputs(parse_inputs_arg(f"ruler:{root}"))
    found = read_inputs(parse_inputs_arg(f"ruler:{root}"), options={"subset": "test"})
    assert len(found.examples) == 2
