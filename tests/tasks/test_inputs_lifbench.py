"""The `lifbench` input kind (tasks/inputs/lifbench.py) on prompt files in the format of
LIFBench's released data/prompts (helpers/lifbench_inputs.py, our text): every prompt is
the record's as LIFBench's inference sends it, each record's length interval is its
cell, the budgets are its get_answers', and the scorer reads what its judges read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from helpers.lifbench_inputs import (
    FILES,
    file_prompts,
    lifbench_record,
    list_entry,
    prompt_file,
    write_lifbench,
)
from lctui.core.errors import UserInputError
from lctui.core.types import Example
from lctui.scoring import score_example
from lctui.suites.lifbench.tasks.list_context import parse_numbered_list
from lctui.tasks.inputs import parse_inputs_arg, read_inputs


def source(example: Example) -> dict[str, Any]:
    """Where an example from inputs came from (file, digest, line, row)."""
    value = example.metadata["inputs"]
    assert isinstance(value, dict)
    return value


def test_every_prompt_is_the_records_as_its_inference_sends_it(tmp_path: Path) -> None:
    root = write_lifbench(tmp_path / "LIFBench-2024", intervals=(3, 6))
    found = read_inputs(parse_inputs_arg(f"lifbench:{root}"))
    assert found.problems == ()
    assert len(found.examples) == len(FILES) * 2 * 2
    for task in FILES:
        mine = [e for e in found.examples if e.task == f"lifbench_{task}"]
        assert [e.user_text for e in mine] == file_prompts(prompt_file(root, task))
    # Inference.py's framing for a model without chat template: the prompt, then its cue.
    plain = read_inputs(
        parse_inputs_arg(f"lifbench:{root / 'data'}"), options={"framing": "completion"}
    )
    prompts = [p for task in FILES for p in file_prompts(prompt_file(root, task))]
    assert [e.user_text for e in plain.examples] == [p + "\noutput: " for p in prompts]
    assert {e.metadata["framing"] for e in plain.examples} == {"completion"}
    assert {e.metadata["framing"] for e in found.examples} == {"user"}


def test_each_records_interval_is_its_cell_and_lengths_select_records(tmp_path: Path) -> None:
    root = write_lifbench(tmp_path, tasks=("qa", "single_query_id"), intervals=(3, 6, 13))
    found = read_inputs(parse_inputs_arg(f"lifbench:{root / 'data' / 'prompts'}"))
    assert found.lengths == [3072, 6144, 13312]
    # One file holds every interval: one record of the run's command per file and length.
    assert [(f.task, f.length, f.rows) for f in found.files] == [
        (task, length, 2)
        for task in ("lifbench_single_query_id", "lifbench_qa")
        for length in (3072, 6144, 13312)
    ]
    assert {e.prompt_tokens for e in found.examples} == {3072, 6144, 13312}
    chosen = read_inputs(parse_inputs_arg(f"lifbench:{root}"), lengths=[6144, 13312], n=1)
    assert sorted((e.task, e.length) for e in chosen.examples) == sorted(
        (task, length)
        for task in ("lifbench_single_query_id", "lifbench_qa")
        for length in (6144, 13312)
    )
    # --n takes the first records of each length: the file's third and fifth here.
    assert {source(e)["line"] for e in chosen.examples} == {3, 5}


def test_budgets_are_lifbenchs_per_file(tmp_path: Path) -> None:
    root = write_lifbench(tmp_path, records=1)
    found = read_inputs(parse_inputs_arg(f"lifbench:{root}"))
    budgets = {e.task.removeprefix("lifbench_"): e.max_new_tokens for e in found.examples}
    # evaluation/Inference.py and ApiInference.py's get_answers, by file name.
    assert budgets == {
        "single_query_id": 100,
        "multi_query_id": 512,
        "offset_query_id": 100,
        "offset_query_element": 100,
        "blur_offset_query_id": 100,
        "blur_offset_query_element": 100,
        "find_dup_text": 4096,
        "batch_label": 4096,
        "repeat": 512,
        "extract": 512,
        "qa": 512,
    }


def test_the_list_and_documents_are_what_lifbenchs_judges_read(tmp_path: Path) -> None:
    root = write_lifbench(tmp_path, tasks=("single_query_id", "find_dup_text"), records=1)
    single, dup = read_inputs(parse_inputs_arg(f"lifbench:{root}")).examples
    record = lifbench_record("single_query_id", 0)
    # The list between its markers: the entry that runs over two lines is one entry.
    items = parse_numbered_list(single.context)
    assert len(items) == record["label"]
    assert "\n" in list_entry(4) and items[4] == list_entry(4)
    assert single.preamble.endswith("List to be retrieved:\n")
    assert single.question.startswith("\nInstruction:")
    assert dup.context.startswith("******************** doc-1")
    assert dup.question.startswith("\n\n Instructions:")
    # The first line of that entry alone is no entry: the judge scores it 0.
    assert score_example(single, list_entry(4).split("\n")[0]).value == 0.0
    assert score_example(single, record["param"]["element"]).value == 1.0


@pytest.mark.parametrize("task", list(FILES))
def test_the_reference_answer_earns_every_point(tmp_path: Path, task: str) -> None:
    root = write_lifbench(tmp_path, tasks=(task,), records=3)
    for example in read_inputs(parse_inputs_arg(f"lifbench:{root}")).examples:
        assert example.metadata["lifeval_task"] == task
        score = score_example(example, str(example.metadata["reference"]))
        assert score.value == pytest.approx(1.0), score.explanation
        assert (score_example(example, "no answer here").value or 0.0) < 1.0


def test_what_is_no_lifbench_record_or_file_is_named(tmp_path: Path) -> None:
    root = write_lifbench(tmp_path, tasks=("offset_query_id", "batch_label"), records=1)
    path = prompt_file(root, "offset_query_id")
    good = lifbench_record("offset_query_id", 0)
    bad = [
        {**good, "prompt": 7},
        {**good, "length": "3"},
        {**good, "length": 0},
        {**good, "param": {**good["param"], "bias": 2}},
        {**good, "param": {**good["param"], "post_element": None}},
        "a string",
    ]
    path.write_text(json.dumps([good, *bad]), encoding="utf-8")
    label = prompt_file(root, "batch_label")
    record = lifbench_record("batch_label", 0)
    record["param"]["candidates"] = ["apple", "banana", "cat", "emu"]  # e: not in rule_key
    label.write_text(json.dumps([record]), encoding="utf-8")
    (root / "data" / "prompts" / "list-custom.json").write_text("[]")
    (root / "data" / "prompts" / "onedoc-qa.json").write_text('{"records": []}')
    found = read_inputs(parse_inputs_arg(f"lifbench:{root}"))
    assert len(found.examples) == 1
    problems = [p.split(": ", 1) for p in found.problems]
    assert [where for where, _ in problems] == [
        str(root / "data" / "prompts" / "list-custom.json"),
        *(f"{path}:{n}" for n in range(2, 8)),
        f"{label}:1",
        f"{root / 'data' / 'prompts' / 'onedoc-qa.json'}:1",
    ]
    whys = [why for _, why in problems]
    assert "names none of LIFBench's tasks" in whys[0]
    assert "`prompt` is not text" in whys[1]
    assert all("no length interval" in why for why in whys[2:4])
    assert "none of 0, 1 and -1" in whys[4]
    assert "`param.post_element` is not text" in whys[5]
    assert "not a record" in whys[6]
    assert "rule_key" in whys[7]
    assert "not a list of records" in whys[8]


def test_a_folder_without_prompt_files_says_what_it_reads(tmp_path: Path) -> None:
    with pytest.raises(UserInputError, match=r"no LIFBench prompt file \(data/prompts/"):
        read_inputs(parse_inputs_arg(f"lifbench:{tmp_path}"))
