"""HELMET's answer metrics (EM, SubEM, F1, the answer line), each checked by hand.

tests/parity/test_helmet_metrics.py checks the same functions against HELMET's own
results on every row of its fixture.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from lctui.scoring.metrics import (
    answer_metrics,
    exact_match,
    f1,
    parse_output,
    substring_exact_match,
)

UUID = "9e8d7c6b-5a49-4837-a625-14f3e2d1c0b9"
Metric = Callable[[str, list[str]], float]


def test_substring_exact_match_normalises_articles_punctuation_and_case() -> None:
    assert substring_exact_match("It's the Eiffel Tower!", ["Eiffel Tower"]) == 1.0
    assert substring_exact_match("eiffel tower", ["The Eiffel Tower."]) == 1.0
    assert substring_exact_match("apple", ["An apple"]) == 1.0
    assert substring_exact_match("the usa", ["U.S.A."]) == 1.0
    assert substring_exact_match("the Louvre", ["Eiffel Tower"]) == 0.0
    assert substring_exact_match("them", "anthem") == 0.0  # one gold string is a list of one


def test_substring_exact_match_is_no_more_lenient_than_helmet() -> None:
    # HELMET drops ASCII punctuation only and normalises no Unicode: an en-dashed UUID,
    # a curly-quoted gold or a decomposed accent is not the answer.
    assert substring_exact_match(UUID.replace("-", "\u2013"), [UUID]) == 0.0
    assert substring_exact_match(UUID.replace("-", ""), [UUID]) == 1.0
    assert substring_exact_match("quoted", ["\u201cquoted\u201d"]) == 0.0
    assert substring_exact_match("Cafe\u0301 au lait", ["Café"]) == 0.0
    assert substring_exact_match("CAFÉ au lait", ["café"]) == 1.0


@pytest.mark.parametrize("metric", [substring_exact_match, exact_match])
def test_a_gold_that_normalises_to_nothing_matches_every_output(metric: Metric) -> None:
    # HELMET's rule, kept: "the an a" normalises to "", a substring of (and equal to) "".
    assert metric("", ["the an a"]) == 1.0
    assert substring_exact_match("anything", ["A"]) == 1.0
    assert f1("", ["the an a"]) == 0.0


@pytest.mark.parametrize("metric", [substring_exact_match, exact_match, f1])
def test_empty_gold_list_raises(metric: Metric) -> None:
    with pytest.raises(ValueError, match="empty list of gold"):
        metric("anything", [])


def test_exact_match_compares_whole_normalised_answers() -> None:
    assert exact_match("The Paris.", ["paris"]) == 1.0
    assert exact_match("Paris is the capital", ["paris"]) == 0.0
    assert exact_match("London", ["Rome", "london"]) == 1.0
    assert exact_match("", ["paris"]) == 0.0


def test_f1_is_token_overlap_of_the_normalised_answers() -> None:
    assert f1("the big red apple", ["a red apple pie"]) == pytest.approx(2 / 3)
    assert f1("new york", ["New York, New York"]) == pytest.approx(2 / 3)
    assert f1("Paris", ["London", "paris"]) == 1.0
    assert f1("", ["paris"]) == 0.0


def test_f1_of_yes_no_counts_only_an_equal_answer() -> None:
    assert f1("Yes, it is.", ["yes"]) == 0.0  # "yes it is" is not "yes"
    assert f1("yes", ["Yes!"]) == 1.0
    assert f1("no way", ["no"]) == 0.0
    assert f1("noanswer", ["no answer"]) == 0.0
    assert substring_exact_match("Yes, it is.", ["yes"]) == 1.0


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ("Answer: 42\nBecause it is.", "42"),
        ("answer: Answer: 42", "42"),
        ("Let me think.\nAnswer: Paris", "Paris"),
        ("42\nmore text", "42"),
        ("\n42", ""),  # no prefix: the first line, even an empty one
        ("Answer:\n42", ""),  # the rest of the prefix's line, even an empty one
        ("", ""),
    ],
)
def test_parse_output(output: str, expected: str) -> None:
    assert parse_output(output) == expected


def test_parse_output_with_a_custom_prefix_matched_literally() -> None:
    assert parse_output("The value is: abc\nxyz", prefix="The value is:") == "abc"
    assert parse_output("Value (UUID): abc", prefix="Value (UUID):") == "abc"
    assert parse_output("x\ny", prefix="") == "x"


def test_answer_metrics_keep_the_better_of_raw_and_parsed_output() -> None:
    raw = f"Value: {UUID}\nKey: something else"
    metrics = answer_metrics(raw, [UUID], "Value:")
    assert metrics.parsed == UUID
    assert metrics.exact_match == 1.0  # only the parsed line equals the gold
    assert metrics.substring_exact_match == 1.0
    assert metrics.f1 == 1.0
    second_line = answer_metrics(f"Value:\n{UUID}", [UUID], "Value:")
    assert second_line.parsed == ""
    assert (second_line.exact_match, second_line.substring_exact_match) == (0.0, 1.0)
    assert second_line.f1 == pytest.approx(2 / 3)  # "value" and the UUID against the UUID
