"""The inputs framework (tasks/inputs/reading.py) through its smallest kind, `prompts`:
rows become examples whose user text is the row's text and answer prefix joined as they
are, ids are content hashes that no path or position changes, every example says where
it came from (file, SHA-256, line), and what cannot be used is named with file and line.
The files are written here in the kind's format, with invented text."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from lctui.core.errors import UserInputError
from lctui.core.types import FRAMING
from lctui.tasks.inputs import (
    INPUT_KINDS,
    InputFile,
    InputKind,
    InputsArg,
    parse_inputs_arg,
    read_inputs,
)
from lctui.tasks.inputs.prompts import PromptsKind

ROWS: list[dict[str, Any]] = [
    {
        "input": "A heron counts pebbles.\n\tThe tally for the heron is 5821.\nWhat is the tally?",
        "answer_prefix": " The tally is",
        "outputs": ["5821"],
    },
    {"input": "Lanterns: 77 of them, café\u00e9 lit.  ", "outputs": ["77"]},
]


def write_rows(path: Path, rows: list[Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_the_user_text_is_the_rows_text_and_prefix_byte_for_byte(tmp_path: Path) -> None:
    path = write_rows(tmp_path / "niah_single_1.jsonl", ROWS)
    found = read_inputs(parse_inputs_arg(f"prompts:{path}"), lengths=[2048])
    assert [e.user_text for e in found.examples] == [
        r["input"] + r.get("answer_prefix", "") for r in ROWS
    ]
    first = found.examples[0]
    # The prefix joined the text: no backend adds anything between them.
    assert first.answer_prefix == ""
    assert first.metadata["answer_prefix"] == " The tally is"
    assert first.metadata[FRAMING] == "completion"
    assert (first.task, first.length, first.max_new_tokens) == ("niah_single_1", 2048, 128)
    assert first.gold == ("5821",)


def test_each_example_names_its_file_digest_and_line(tmp_path: Path) -> None:
    path = write_rows(tmp_path / "vt.jsonl", ["", *ROWS])  # a blank first line
    found = read_inputs(parse_inputs_arg(f"prompts:{path}"), lengths=[4096])
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    sources = [e.metadata["inputs"] for e in found.examples]
    assert sources == [
        {"kind": "prompts", "file": str(path), "sha256": digest, "line": 2, "row": 0},
        {"kind": "prompts", "file": str(path), "sha256": digest, "line": 3, "row": 1},
    ]
    (record,) = found.files
    assert record.as_dict() == {
        "kind": "prompts",
        "path": str(path),
        "sha256": digest,
        "task": "vt",
        "length": 4096,
        "framing": "completion",
        "rows": 2,
    }


def test_ids_are_the_contents_not_the_place(tmp_path: Path) -> None:
    path = write_rows(tmp_path / "a" / "cwe.jsonl", ROWS)
    moved = write_rows(tmp_path / "b" / "cwe.jsonl", ROWS[::-1])
    first = read_inputs(parse_inputs_arg(f"prompts:{path}"), lengths=[1024]).examples
    ids = {e.user_text: e.example_id for e in first}
    again = read_inputs(parse_inputs_arg(f"prompts:{moved}"), lengths=[1024]).examples
    assert {e.user_text: e.example_id for e in again} == ids
    assert all(i.startswith("prompts-") for i in ids.values())
    # Another length, framing or prompt is another example.
    other_length = read_inputs(parse_inputs_arg(f"prompts:{path}"), lengths=[2048]).examples
    as_user = read_inputs(
        parse_inputs_arg(f"prompts:{path}"), lengths=[1024], options={"framing": "user"}
    ).examples
    assert not {e.example_id for e in [*other_length, *as_user]} & set(ids.values())


def test_rows_that_are_no_example_are_named_with_file_and_line(tmp_path: Path) -> None:
    rows = [
        ROWS[0],
        "{not json",
        {"input": 5, "outputs": ["1"]},
        {"input": "x", "outputs": []},
        {"input": "x", "outputs": ["  "]},
        ROWS[0],
        ROWS[1],
    ]
    path = write_rows(tmp_path / "fwe.jsonl", rows)
    found = read_inputs(parse_inputs_arg(f"prompts:{path}"), lengths=[1024])
    assert [e.metadata["inputs"]["line"] for e in found.examples] == [1, 7]
    lines = [p.split(": ", 1)[0] for p in found.problems]
    assert lines == [f"{path}:{n}" for n in (2, 3, 4, 5, 6)]
    assert "not valid JSON" in found.problems[0]
    assert "same example as" in found.problems[4] and f"{path}:1" in found.problems[4]


def test_a_folder_a_task_filter_and_n(tmp_path: Path) -> None:
    write_rows(tmp_path / "niah_single_1.jsonl", ROWS)
    write_rows(tmp_path / "vt.jsonl", ROWS)
    write_rows(tmp_path / "notes.jsonl", ROWS)
    found = read_inputs(parse_inputs_arg(f"prompts:{tmp_path}"), lengths=[1024], n=1)
    assert [(e.task, e.index) for e in found.examples] == [("niah_single_1", 0), ("vt", 0)]
    assert len(found.problems) == 1 and "notes.jsonl" in found.problems[0]
    only = read_inputs(parse_inputs_arg(f"prompts:{tmp_path}"), lengths=[1024], tasks={"vt"})
    assert {e.task for e in only.examples} == {"vt"}


def test_what_to_pass_when_the_layout_names_no_length(tmp_path: Path) -> None:
    path = write_rows(tmp_path / "niah_single_1.jsonl", ROWS)
    for lengths in (None, [1024, 2048]):
        with pytest.raises(UserInputError, match=r"pass the one length .* --lengths"):
            read_inputs(parse_inputs_arg(f"prompts:{path}"), lengths=lengths)


def test_bad_kinds_options_and_paths_are_refused(tmp_path: Path) -> None:
    path = write_rows(tmp_path / "niah_single_1.jsonl", ROWS)
    with pytest.raises(
        UserInputError, match=f"KIND:PATH with KIND one of {', '.join(INPUT_KINDS)}"
    ):
        parse_inputs_arg(f"nosuch:{path}")
    with pytest.raises(UserInputError, match="framing must be one of completion, user"):
        read_inputs(parse_inputs_arg(f"prompts:{path}"), lengths=[1024], options={"framing": "x"})
    with pytest.raises(UserInputError, match="prompts inputs take framing"):
        read_inputs(parse_inputs_arg(f"prompts:{path}"), lengths=[1024], options={"seed": 1})
    with pytest.raises(UserInputError, match="no such file or folder"):
        read_inputs(parse_inputs_arg(f"prompts:{tmp_path / 'gone'}"), lengths=[1024])
    broken = write_rows(tmp_path / "x" / "vt.jsonl", ["{"])
    with pytest.raises(UserInputError, match="nothing to run"):
        read_inputs(parse_inputs_arg(f"prompts:{broken}"), lengths=[1024])


def test_every_kind_declares_what_lctui_data_says_of_it() -> None:
    for kind in INPUT_KINDS.values():
        assert kind.name and kind.suite and kind.title and kind.files and kind.origin
        assert set(kind.framings) <= {"completion", "user"}
        # A kind without framings decides each file's itself.
        assert kind.framings or type(kind).framing_of is not InputKind.framing_of


class PerFileFraming(PromptsKind):
    """The prompts kind, but its original sends vt's files as chat and the others as
    completions (as HELMET decides per dataset), with no `framing` option."""

    framings = ()

    def framing_of(self, file: InputFile, options: Mapping[str, Any]) -> str:
        return "user" if file.task == "vt" else "completion"


def test_a_kind_may_decide_each_files_framing(tmp_path: Path) -> None:
    write_rows(tmp_path / "vt.jsonl", ROWS)
    write_rows(tmp_path / "qa_1.jsonl", ROWS)
    kind = PerFileFraming()
    found = read_inputs(InputsArg(kind, tmp_path), lengths=[1024])
    framings = {(e.task, e.metadata[FRAMING]) for e in found.examples}
    assert framings == {("vt", "user"), ("qa_1", "completion")}
    assert {(f.task, f.framing) for f in found.files} == framings
    # The same text sent otherwise is another example.
    assert len({e.example_id for e in found.examples}) == 4
    with pytest.raises(UserInputError, match="take no options"):
        read_inputs(InputsArg(kind, tmp_path), lengths=[1024], options={"framing": "user"})


def test_a_changed_row_is_another_example_and_the_file_another_digest(tmp_path: Path) -> None:
    path = write_rows(tmp_path / "qa_1.jsonl", ROWS)
    before = read_inputs(parse_inputs_arg(f"prompts:{path}"), lengths=[1024])
    write_rows(path, [ROWS[0], {**ROWS[1], "outputs": ["78"]}])
    after = read_inputs(parse_inputs_arg(f"prompts:{path}"), lengths=[1024])
    assert before.files[0].digest != after.files[0].digest
    assert before.examples[0].example_id == after.examples[0].example_id
    assert before.examples[1].example_id != after.examples[1].example_id
