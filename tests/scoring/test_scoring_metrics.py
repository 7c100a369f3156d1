"""RULER's metrics, each checked by hand (HELMET's: test_scoring_helmet_metrics.py)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest

from lctui.scoring.metrics import ruler_prediction, string_match_all, string_match_part

Metric = Callable[[str, Sequence[str]], float]

FOUR = ["1234567", "7654321", "1111111", "2222222"]


def test_string_match_all_is_the_share_of_golds_found() -> None:
    assert string_match_all("The numbers are 1234567 and 7654321.", FOUR) == 0.5
    assert string_match_all("1111111 2222222 1234567 7654321", FOUR) == 1.0
    assert string_match_all("1234567", ["1234567"]) == 1.0
    assert string_match_all("none here", FOUR) == 0.0


def test_string_match_all_ignores_case_and_counts_substrings() -> None:
    assert string_match_all("variables: abcde, FGHIJ", ["ABCDE", "fghij"]) == 1.0
    assert string_match_all("ÉCOLE", ["école"]) == 1.0
    # RULER counts a gold inside a longer token: the metric is lenient on purpose.
    assert string_match_all("12345678", ["1234567"]) == 1.0


def test_ruler_cleans_the_output_as_its_evaluation_does() -> None:
    # strip, every C0 control character (tab, newline too) to a newline, strip again.
    assert ruler_prediction(" \x00 a\tb\x1fc \x0b") == "a\nb\nc"
    assert ruler_prediction("\x07\x1f") == ""
    assert ruler_prediction("a\x7fb\x85") == "a\x7fb"  # DEL is no C0 character; NEL is space


def test_string_match_all_cleans_the_output_never_the_gold() -> None:
    assert string_match_all("a\x00b", ["a\nb"]) == 1.0
    assert string_match_all("tab\tinside", ["tab\tinside"]) == 0.0
    assert string_match_all(" padded", [" padded"]) == 0.0
    assert string_match_part("x\ty", ["x\ty", "y"]) == 1.0  # the other alternative


def test_string_match_all_has_no_unicode_normalisation_or_punctuation_folding() -> None:
    assert string_match_all("jalapen\u0303o", ["jalapeño"]) == 0.0  # NFD is not NFC
    assert string_match_all("1\u20132", ["1-2"]) == 0.0  # en dash is no hyphen
    assert string_match_all("\uff11\uff12", ["12"]) == 0.0  # fullwidth digits
    assert string_match_all("\u0130STANBUL", ["istanbul"]) == 0.0  # "İ".lower() is 2 letters


def test_string_match_all_counts_duplicate_golds_each() -> None:
    assert string_match_all("cat", ["cat", "cat", "dog"]) == pytest.approx(2 / 3)


def test_string_match_part_is_the_max_over_golds() -> None:
    assert string_match_part("It was in Paris.", ["London", "paris"]) == 1.0
    assert string_match_part("It was in Rome.", ["London", "Paris"]) == 0.0


@pytest.mark.parametrize("metric", [string_match_all, string_match_part])
def test_string_matches_of_empty_output_are_zero(metric: Metric) -> None:
    assert metric("", ["1234567"]) == 0.0


@pytest.mark.parametrize("metric", [string_match_all, string_match_part])
def test_empty_gold_list_raises(metric: Metric) -> None:
    with pytest.raises(ValueError, match="empty list of gold"):
        metric("anything", [])


@pytest.mark.parametrize("metric", [string_match_all, string_match_part])
def test_blank_gold_raises_instead_of_matching_everything(metric: Metric) -> None:
    with pytest.raises(ValueError, match="empty or blank"):
        metric("anything", ["1234567", " "])


def test_a_bare_string_is_not_a_gold_list() -> None:
    with pytest.raises(TypeError, match="sequence of strings"):
        string_match_all("1234567", "1234567")
