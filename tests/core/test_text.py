"""The one text shortener (core/text.py): where it cuts, what marks the cut, and the
terminal cells it counts with `cells=True`, checked against what Rich draws; the one
escaping of what a terminal would obey (`escape_unprintable`, `escape_tsv`); counts
with their noun (`plural`) and paths broken where a reader sees a boundary
(`break_long_words`)."""

from __future__ import annotations

import unicodedata

import pytest
from rich.cells import cell_len

from lctui.core.text import (
    ELLIPSIS,
    abbreviate,
    break_long_words,
    cell_width,
    escape_tsv,
    escape_unprintable,
    family_runs,
    fit,
    name_family,
    plural,
    shorten,
)


def test_text_that_fits_comes_back_whole() -> None:
    assert shorten("abcde", 5) == "abcde"  # an exact fit is not cut
    assert shorten("", 3) == ""
    assert shorten("abcde", 80) == "abcde"


def test_a_cut_keeps_the_start_and_ends_with_one_ellipsis_character() -> None:
    assert shorten("abcdef", 5) == "abcd…"
    assert len(shorten("x" * 100, 60)) == 60
    assert ELLIPSIS == "…"


@pytest.mark.parametrize("cells", [False, True])
def test_tiny_widths_never_overflow(cells: bool) -> None:
    assert shorten("abc", 0, cells=cells) == ""  # not even the ellipsis fits
    assert shorten("abc", -3, cells=cells) == ""
    assert shorten("abc", 1, cells=cells) == "…"
    assert shorten("a", 1, cells=cells) == "a"
    assert shorten("", 0, cells=cells) == ""


def test_one_line_joins_lines_and_runs_of_whitespace_before_measuring() -> None:
    text = "  first line\n\n  second\tline  "
    assert shorten(text, 80, one_line=True) == "first line second line"
    assert shorten(text, 12, one_line=True) == "first line …"
    assert shorten(text, 80) == text  # without it, the text is left as it is
    assert shorten("a\nb", 2) == "a…"  # a newline counts as a character


def test_cells_count_wide_characters_twice() -> None:
    text = "漢字かな混じり"  # 7 wide characters: 14 cells
    assert shorten(text, 14, cells=True) == text  # exact fit
    assert shorten(text, 13, cells=True) == "漢字かな混じ…"  # 12 + 1 cells
    assert shorten(text, 6, cells=True) == "漢字…"  # 5 cells: a wide one does not fit in 1
    assert shorten(text, 2, cells=True) == "…"
    assert shorten(text, 7) == text  # counting characters, it fits
    assert shorten("ab漢字", 4, cells=True) == "ab…"


def test_a_combining_mark_stays_with_its_letter() -> None:
    text = "cafe\u0301 au lait"  # é written as e + a combining acute accent
    assert cell_width(text) == 12
    assert shorten(text, 5, cells=True) == "cafe\u0301…"


@pytest.mark.parametrize(
    "text",
    [
        "plain ascii",
        "漢字",
        "ｶﾀｶﾅ",
        "ＡＢＣ",
        "한국어",
        "e\u0301",
        "😀 ok",
        "✓ done",
        "a\u200bb",
        "—·…",
    ],
)
def test_cell_width_agrees_with_what_rich_draws(text: str) -> None:
    assert cell_width(text) == cell_len(text)


@pytest.mark.parametrize("width", [0, 1, 2, 3, 5, 8, 13])
@pytest.mark.parametrize(
    "text", ["", "ab", "label", "漢字かな", "mixed 漢字 text", "e\u0301e\u0301"]
)
def test_fit_takes_exactly_the_width_asked(text: str, width: int) -> None:
    fitted = fit(text, width)
    assert cell_len(fitted) == width
    assert fitted.rstrip(" ") == shorten(text, width, cells=True).rstrip(" ")


LIFBENCH = [
    "lifbench_blur_offset_query_element",
    "lifbench_blur_offset_query_id",
    "lifbench_offset_query_element",
    "lifbench_offset_query_id",
]


def test_abbreviate_keeps_names_that_fit_whole() -> None:
    assert abbreviate(["vt", "niah_single_1"], 13) == ["vt", "niah_single_1"]
    assert abbreviate([], 5) == []


@pytest.mark.parametrize("width", [5, 8, 12, 16, 20, 24, 28])
def test_abbreviations_fit_and_stay_distinct(width: int) -> None:
    names = [*LIFBENCH, "niah_multikey_1", "niah_multikey_2", "niah_multikey_3", "vt"]
    short = abbreviate(names, width)
    assert all(cell_width(s) <= width for s in short)
    assert len(set(short)) == len(names)  # a cut at the end would make these collide
    for name, s in zip(names, short, strict=True):
        if s != name:  # the start and the end kept, the middle left out
            head, tail = s.split(ELLIPSIS)
            assert name.startswith(head) and name.endswith(tail)


def test_abbreviate_keeps_both_ends_of_a_cut_name() -> None:
    short = abbreviate(["lifbench_blur_offset_query_element"], 20)[0]
    assert short == "lifbench_b…y_element"


def test_abbreviate_counts_wide_characters_as_two_cells() -> None:
    short = abbreviate(["模型一号检查点第一版", "模型一号检查点第二版"], 9)
    assert all(cell_width(s) <= 9 for s in short) and short[0] != short[1]


def test_equal_names_stay_equal_and_tiny_widths_cut_the_end() -> None:
    assert abbreviate(["abcdefgh", "abcdefgh"], 5) == ["ab…gh", "ab…gh"]
    assert abbreviate(["abcdef"], 2) == ["a…"]


def test_family_runs_find_consecutive_names_sharing_a_first_word() -> None:
    names = ["cwe", "lifbench_qa", "lifbench_repeat", "niah_single_1", "vt", "vt_x"]
    assert family_runs(names) == [(1, 3, "lifbench_")]
    assert family_runs(names, least=1) == [(1, 3, "lifbench_"), (3, 4, "niah_"), (5, 6, "vt_")]
    assert name_family("lifbench_qa") == "lifbench_"
    assert name_family("vt") == name_family("qa_") == name_family("_x") == ""


def test_what_a_terminal_would_obey_is_shown_as_escapes_and_text_stays_whole() -> None:
    assert escape_unprintable("m2\n\r\t\x1b[31mX\x07\x08\x7f\x9b1m") == (
        "m2\\n\\r\\t\\x1b[31mX\\x07\\x08\\x7f\\x9b1m"
    )
    assert escape_unprintable("a\u202eb\u2066c\u2028d\ud800") == "a\\u202eb\\u2066c\\u2028d\\ud800"
    # Ordinary text, Unicode included, is kept: accents, CJK, an emoji joined by ZWJ.
    plain = "naïve 東京 👩\u200d💻 [bold]x C:\\path"
    assert escape_unprintable(plain) == plain
    assert escape_unprintable("line one\nline\ttwo\x1b", keep="\n\t") == "line one\nline\ttwo\\x1b"


def test_tsv_values_are_one_field_and_read_back_whole() -> None:
    for value in ["m2\n\x1b[31mX\t[bold]", "C:\\new\\table", "東京\u202e\ud800 👩\u200d💻", ""]:
        field = escape_tsv(value)
        assert not any(unicodedata.category(c) in ("Cc", "Cs") for c in field)
        assert field.encode("latin-1", "backslashreplace").decode("unicode_escape") == value


def test_a_count_says_its_noun_in_the_number_it_has() -> None:
    assert plural(1, "model") == "1 model"
    assert plural(0, "row") == "0 rows"
    assert plural(2, "row") == "2 rows"
    assert plural(12_345, "row") == "12,345 rows"
    assert plural(1, "entry", "entries") == "1 entry"
    assert plural(3, "entry", "entries") == "3 entries"


PATH = "/root/.local/share/lctui/exports/inspector/niah_single_1-8k-0-0123abcd.json"


@pytest.mark.parametrize("width", [36, 56])  # a toast's line at 80 and at 120 columns
def test_a_long_path_is_broken_after_a_slash_never_inside_a_name(width: int) -> None:
    text = f"Exported to {PATH} (the prompt, the output and every score)"
    broken = break_long_words(text, width)
    pieces = broken.removeprefix("Exported to ").split(" (")[0].split("\n")
    assert "".join(pieces) == PATH and len(pieces) > 1
    assert all(cell_len(piece) <= width for piece in pieces), pieces
    assert all(piece.endswith("/") for piece in pieces[:-1]), pieces  # a folder a line
    assert broken.replace("\n", "") == text  # nothing else changed


def test_only_words_longer_than_a_line_are_broken() -> None:
    assert break_long_words("one two three", 5) == "one two three"  # the widget wraps these
    assert break_long_words("first\n\nsecond", 20) == "first\n\nsecond"
    assert break_long_words("abcdefghij", 4) == "abcd\nefgh\nij"  # no separator: a hard cut
    assert break_long_words("see /a/bb/ccc", 6) == "see /a/bb/\nccc"
    assert break_long_words("lctui-niah_multikey_1.json", 12) == "lctui-niah_\nmultikey_1.\njson"
    assert break_long_words("日本語のテキスト", 5).split("\n") == ["日本", "語の", "テキ", "スト"]
