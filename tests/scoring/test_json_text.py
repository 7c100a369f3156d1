"""JSON read from model output: depth bounded before decoding, objects found in prose."""

from __future__ import annotations

import pytest

from lctui.scoring.json_text import MAX_DEPTH, TooDeep, find_object, loads, loads_or_none


def test_nesting_deeper_than_the_bound_is_refused_before_decoding() -> None:
    assert loads("[" * MAX_DEPTH + "]" * MAX_DEPTH) is not None
    too_deep = "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1)
    with pytest.raises(TooDeep):
        loads(too_deep)
    # Deep enough to exhaust the decoder's recursion: refused, never RecursionError.
    for text in ("[" * 1024, "[" * 200_000, '{"a":' * 20_000, '[{"a": ' * 5_000):
        assert loads_or_none(text) is None


def test_brackets_inside_strings_do_not_count_as_nesting() -> None:
    text = '["' + "[" * 500 + '", "{{{"]'
    assert loads(text) == ["[" * 500, "{{{"]
    assert loads('{"a": "\\"[[[["}') == {"a": '"[[[['}


def test_find_object_takes_the_first_object_that_parses() -> None:
    assert find_object('[1, 2] {"a": {"b": 1}} {"c": 2}') == {"a": {"b": 1}}
    assert find_object('{"bad json": } then {"fluency": 0}') == {"fluency": 0}
    assert find_object('verdict {"reason": "has } and { inside", "ok": 1}.') == {
        "reason": "has } and { inside",
        "ok": 1,
    }
    assert find_object("{{{ {x} no object") is None
    assert find_object('__import__("os").system("true")') is None


def test_find_object_still_finds_an_object_after_long_junk() -> None:
    junk = '{"k":1,' * 20_000  # every "{" opens a span that never closes
    assert find_object(junk + ' {"fluency": 1}') == {"fluency": 1}
    assert find_object("{" * 100_000 + '{"fluency": 1}') == {"fluency": 1}
