"""tasks/bounded_read.py: files from outside read as streams with bounded memory, their
problems named by file and line, links out of a folder refused, values quoted escaped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lctui.tasks.bounded_read import (
    MAX_LINE_BYTES,
    MAX_VALUE_BYTES,
    FileProblem,
    JsonDocument,
    files_within,
    json_lines,
    shown,
)


def test_json_lines_name_each_bad_line_and_read_on(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    lines = [
        b'{"a": 1}',
        b"",
        b"[" * 100_000,
        b'{"a": "\xff"}',
        b"[1, 2]",
        b'{"a": ' + b"9" * 5000 + b"}",
        b"{bad}",
        b'{"a": ' * 65 + b"1" + b"}" * 65,
        b'{"b": 2}',
    ]
    path.write_bytes(b"\n".join(lines) + b"\n")
    read = [(entry.number, entry.value) for entry in json_lines(path)]
    assert read == [
        (1, {"a": 1}),
        (3, "nested deeper than 64 levels"),
        (4, "not UTF-8 (byte 8 of the line)"),
        (5, "not a JSON object"),
        (6, "not valid JSON (a number too long)"),
        (7, "not valid JSON (Expecting property name enclosed in double quotes at column 2)"),
        (8, "nested deeper than 64 levels"),
        (9, {"b": 2}),
    ]


def test_a_line_longer_than_the_bound_is_skipped_without_being_kept(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    with path.open("wb") as handle:
        handle.truncate(MAX_LINE_BYTES + 10)  # zeros, no newline
        handle.seek(0, 2)
        handle.write(b'\n{"after": true}\n')
    first, second = json_lines(path)
    assert (first.number, first.value) == (1, "longer than 64 MiB")
    assert (second.number, second.offset, second.value) == (2, MAX_LINE_BYTES + 11, {"after": True})


def test_a_document_streams_its_list_and_names_the_line_of_an_error(tmp_path: Path) -> None:
    path = tmp_path / "result.json"
    good = {"args": {"x": 1}, "data": [{"o": "a"}, {"o": "b"}], "means": {"m": 1.5}}
    path.write_text(json.dumps(good, indent=4), encoding="utf-8")
    document = JsonDocument(path, "data")
    assert list(document) == [
        ("args", {"x": 1}),
        (1, {"o": "a"}),
        (2, {"o": "b"}),
        ("means", {"m": 1.5}),
    ]
    assert document.listed
    text = json.dumps(good, indent=4).replace('"b"', "b", 1)  # on line 10
    path.write_text(text, encoding="utf-8")
    got: list[object] = []
    with pytest.raises(FileProblem) as info:
        got.extend(JsonDocument(path, "data"))
    assert got == [("args", {"x": 1}), (1, {"o": "a"})]  # what came before the error
    assert (info.value.line, info.value.why) == (
        10,
        "not valid JSON (lexical error: invalid char in json text.)",
    )
    assert "b\n" not in str(info.value)  # yajl's excerpt of the file is left out


@pytest.mark.parametrize(
    ("content", "line", "why"),
    [
        (b"[" * 100_000, 1, "nested deeper than 64 levels"),
        (b'{"data": [1,\n 2,\n "x"\n', 3, "not valid JSON (parse error: premature EOF)"),
        (b"17", 1, "neither a list nor an object"),
        (b"\x00" * 1000, 1, "not valid JSON (lexical error: invalid char in json text.)"),
        (b"[1] [2]", 1, "not valid JSON (parse error: trailing garbage)"),
        (b"[99999999999999999999]", 1, "not valid JSON (parse error: integer overflow)"),
    ],
)
def test_a_document_that_cannot_be_read_is_one_problem(
    tmp_path: Path, content: bytes, line: int, why: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    with pytest.raises(FileProblem) as info:
        list(JsonDocument(path, "data"))
    assert (info.value.line, info.value.why) == (line, why)


def test_a_value_larger_than_the_bound_stops_the_document(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    with path.open("wb") as handle:
        handle.write(b'{"data": [{"a": 1}, "')
        # The bound is checked between the pieces read, 1 MiB at most: a few more.
        handle.write(b"x" * (MAX_VALUE_BYTES + 4 * 1024 * 1024))
        handle.write(b'"]}')
    got: list[object] = []
    with pytest.raises(FileProblem, match="a value larger than 64 MiB"):
        got.extend(JsonDocument(path, "data"))
    assert got == [(1, {"a": 1})]


def test_links_out_of_the_folder_are_refused(tmp_path: Path) -> None:
    root, outside = tmp_path / "results", tmp_path / "elsewhere"
    (root / "sub").mkdir(parents=True)
    outside.mkdir()
    (outside / "secret.json").write_text("{}", encoding="utf-8")
    (root / "a.json").write_text("{}", encoding="utf-8")
    (root / "sub" / "b.json").write_text("{}", encoding="utf-8")
    (root / "inside.json").symlink_to(root / "a.json")
    (root / "out.json").symlink_to(outside / "secret.json")
    (root / "linked").symlink_to(outside, target_is_directory=True)
    (root / "note.txt").write_text("", encoding="utf-8")
    found, refused = files_within(root, (".json",))
    assert found == [root / "a.json", root / "inside.json", root / "sub" / "b.json"]
    assert refused == [f"{root / 'out.json'}: a link to outside {root}; not read"]
    assert files_within(root, (".json",), recursive=False)[0] == found[:2]


def test_shown_values_are_escaped_short_and_never_whole_containers() -> None:
    assert shown("\x1b[2Jhi") == "'\\x1b[2Jhi'"
    assert len(shown("x" * 100_000)) < 70
    assert shown([1, 2, 3]) == "a list of 3"
    assert shown({"a": {"b": 1}}) == "an object of 1 key(s)"
    assert shown(10**5000) == "a number of more than 38 digits"
    assert (shown(None), shown(True), shown(-5), shown(0.5)) == ("null", "true", "-5", "0.5")
