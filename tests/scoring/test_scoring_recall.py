"""The recall scorer: paper metric as value, plus extraction, spurious values and points."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from lctui.core.types import Example, Score, ScoreStatus
from lctui.scoring.recall import POINT_ALL_PRESENT, POINT_NO_SPURIOUS, POINT_ONCE, score_recall
from lctui.scoring.rubric import weighted_fraction

Factory = Callable[..., Example]

UUID = r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"
VAR_NAME = r"\b[A-Z]{5}\b"

FOUR = ("1234567", "7654321", "1111111", "8812345")
KEY = "0b1f6c2e-7a3d-4c5e-9f10-2a3b4c5d6e7f"
VALUE = "9e8d7c6b-5a49-4837-a625-14f3e2d1c0b9"
WORDS = (*(f"word{letter}" for letter in "abcdefghijklmnopqrstuvwxyz"), "apple", "river")
COMMON = WORDS[:10]


def point(score: Score, name: str) -> float:
    return next(p.earned for p in score.points if p.name == name)


@pytest.mark.parametrize("metric", ["string_match_all", "string_match_part", "subem", "em"])
def test_the_gold_answer_scores_one_for_every_metric(make_example: Factory, metric: str) -> None:
    score = score_recall(make_example(["1234567"], metric), "1234567")
    assert score.status is ScoreStatus.OK
    assert score.value == 1.0
    assert score.metric == metric
    assert score.scorer == "recall"
    assert score.extracted == ("1234567",)
    assert weighted_fraction(score.points) == 1.0
    assert score.extras == {
        "spurious": 0,
        "extracted": 1,
        "precision": 1.0,
        "recall": 1.0,
        "echoed": 0,
        "repeats": 0,
    }


@pytest.mark.parametrize("metric", ["string_match_all", "string_match_part", "subem"])
def test_all_gold_values_score_one(make_example: Factory, metric: str) -> None:
    score = score_recall(make_example(FOUR, metric), ", ".join(FOUR))
    assert score.value == 1.0
    assert score.extracted == FOUR
    assert "found all 4 requested values" in score.explanation


def test_listing_every_candidate_keeps_the_metric_but_shows_spurious_words(
    make_example: Factory,
) -> None:
    example = make_example(COMMON, value_pattern=None, candidates=WORDS)
    score = score_recall(example, "Most common: " + ", ".join(reversed(WORDS)))
    assert score.value == 1.0  # string_match_all is recall-only, as in RULER
    assert score.extras["spurious"] == 18
    assert score.extras["extracted"] == 28
    assert score.extras["precision"] == pytest.approx(10 / 28)
    assert point(score, POINT_ALL_PRESENT) == 1.0
    assert point(score, POINT_NO_SPURIOUS) == pytest.approx(10 / 28)
    assert weighted_fraction(score.points) < 1.0
    assert score.extracted[:2] == ("river", "apple")  # output order
    spurious_point = next(p for p in score.points if p.name == POINT_NO_SPURIOUS)
    assert spurious_point.explanation.startswith("output lists 18 words that were not asked for:")
    assert "and 13 more" in spurious_point.explanation


def test_extra_numbers_are_spurious_values(make_example: Factory) -> None:
    score = score_recall(make_example(["1234567"]), "1234567, 5555555 or 6666666")
    assert score.value == 1.0
    assert score.extras["spurious"] == 2
    no_spurious = next(p for p in score.points if p.name == POINT_NO_SPURIOUS)
    assert no_spurious.earned == pytest.approx(1 / 3)
    assert no_spurious.explanation == (
        "output lists 2 values that were not asked for: 5555555, 6666666; "
        "none of them is a value of the prompt"
    )
    assert no_spurious.capabilities == ("Recog",)
    assert no_spurious.weight == 1.0


def test_partial_answer_scores_half(make_example: Factory) -> None:
    score = score_recall(make_example(FOUR), "I found 1234567 and 7654321.")
    assert score.status is ScoreStatus.OK
    assert score.value == 0.5
    found = next(p for p in score.points if p.name == POINT_ALL_PRESENT)
    assert found.earned == 0.5
    assert found.weight == 2.0
    assert found.explanation == "found 2 of 4 requested values; missing: 1111111, 8812345"
    assert point(score, POINT_NO_SPURIOUS) == 1.0


@pytest.mark.parametrize(
    "output",
    [
        "",
        "   \n",
        "I'm sorry, I cannot help with that.",
        "The text mentions several magic numbers.",
    ],
)
def test_empty_or_garbage_output_is_unparsed(make_example: Factory, output: str) -> None:
    score = score_recall(make_example(FOUR), output)
    assert score.status is ScoreStatus.UNPARSED
    assert score.value == 0.0
    assert score.extracted == ()
    assert score.explanation.startswith("unparsed: ")
    assert weighted_fraction(score.points) == 0.0


def test_empty_output_says_so(make_example: Factory) -> None:
    assert score_recall(make_example(FOUR), "").explanation == "unparsed: the output is empty."


def test_control_characters_alone_are_an_empty_output_as_ruler_counts_them(
    make_example: Factory,
) -> None:
    # RULER strips the output, turns control characters into newlines and strips again:
    # nothing is left, a row its summary counts among the Nulls.
    score = score_recall(make_example(FOUR), "\x00\x07 \x1f")
    assert score.status is ScoreStatus.UNPARSED
    assert score.explanation == (
        "unparsed: the output holds only whitespace and control characters."
    )


def test_a_gold_inside_a_longer_word_is_counted_by_the_metric_and_the_explanation_says_so(
    make_example: Factory,
) -> None:
    example = make_example(COMMON[:2], value_pattern=None, candidates=WORDS)
    score = score_recall(example, "xwordaY, wordb")
    assert score.value == 1.0  # RULER's substring test finds both
    assert point(score, POINT_ALL_PRESENT) == 0.5  # as a word, only wordb is given
    assert score.explanation.startswith(
        "string_match_all = 1.00: found 1 of 2 requested words; missing: worda (the "
        "metric's substring test also counts worda, not given as a separate word)"
    )


def test_a_capital_dotted_i_is_no_i_for_the_metric_nor_the_extraction(
    make_example: Factory,
) -> None:
    # "İ".lower() is "i" plus a combining dot: RULER's str.lower() test does not find
    # ABICD in "ABİCD", and the extraction, comparing lower-cased text, agrees.
    example = make_example(["ABICD", "FGHJK"], value_pattern=VAR_NAME)
    score = score_recall(example, "AB\u0130CD, FGHJK")
    assert score.value == 0.5
    assert "found 1 of 2 requested values; missing: ABICD" in score.explanation
    assert "the metric" not in score.explanation


def test_a_gold_only_another_case_folding_finds_is_not_counted_and_said_so(
    make_example: Factory,
) -> None:
    # Lower-cased alone, "ΟΔΟΣ" ends in a final sigma, as the gold does; inside
    # "ΟΔΟΣΑ" its sigma is medial, so RULER's lower-cased output does not hold the gold.
    example = make_example(["οδος"], value_pattern=r"\b\w{4}\b")
    score = score_recall(example, "ΟΔΟΣΑ")
    assert score.value == 0.0
    assert point(score, POINT_ALL_PRESENT) == 1.0
    assert "the metric does not count οδος" in score.explanation


def test_words_outside_the_list_are_unparsed(make_example: Factory) -> None:
    example = make_example(COMMON, value_pattern=None, candidates=WORDS)
    score = score_recall(example, "banana cherry grape")
    assert score.status is ScoreStatus.UNPARSED
    assert score.value == 0.0


def test_a_wrong_value_of_the_right_kind_is_a_wrong_answer_not_unparsed(
    make_example: Factory,
) -> None:
    score = score_recall(make_example(["1234567"]), "The number is 7654321.")
    assert score.status is ScoreStatus.OK
    assert score.value == 0.0
    assert score.extracted == ("7654321",)
    assert point(score, POINT_ALL_PRESENT) == 0.0
    assert point(score, POINT_NO_SPURIOUS) == 0.0
    assert score.explanation == (
        "string_match_all = 0.00: did not find the requested value 1234567; "
        "also lists 1 value not asked for."
    )
    no_spurious = next(p for p in score.points if p.name == POINT_NO_SPURIOUS)
    assert no_spurious.explanation == (
        "output lists 1 value that was not asked for: 7654321; it is not a value of the prompt"
    )


def test_case_is_ignored(make_example: Factory) -> None:
    score = score_recall(make_example([VALUE], value_pattern=UUID), VALUE.upper())
    assert score.value == 1.0
    assert score.extras["spurious"] == 0

    names = ("ABCDE", "FGHIJ")
    vt = make_example(names, value_pattern=VAR_NAME, question="Which variables hold 12345?")
    score = score_recall(vt, "abcde and fghij")
    assert score.value == 1.0  # RULER lower-cases; the extraction must agree
    assert score.extracted == ("abcde", "fghij")
    assert point(score, POINT_ALL_PRESENT) == 1.0


def test_repeated_values_are_extracted_once_and_counted(make_example: Factory) -> None:
    score = score_recall(make_example(FOUR), "8812345, 1234567, 8812345, 9999999, 9999999")
    assert score.extracted == ("8812345", "1234567", "9999999")
    assert score.extras["spurious"] == 1
    assert score.extras["repeats"] == 2
    once = next(p for p in score.points if p.name == POINT_ONCE)
    assert once.earned == pytest.approx(3 / 5)
    assert once.explanation == (
        "output gives 2 values more than once: 8812345 (2 times), 9999999 (2 times)"
    )
    assert score.explanation.endswith("gives 2 values more than once.")


def test_a_value_written_once_is_not_a_repeat(make_example: Factory) -> None:
    score = score_recall(make_example(FOUR[:2]), "1234567 and 7654321")
    once = next(p for p in score.points if p.name == POINT_ONCE)
    assert once.earned == 1.0
    assert once.explanation == "output gives each of its 2 values once"
    assert "more than once" not in score.explanation


def test_words_outside_the_vocabulary_in_a_list_are_spurious(make_example: Factory) -> None:
    example = make_example(COMMON, value_pattern=None, candidates=WORDS)
    output = "Here they are: worda, pursuit, wordb, struggle, struggle"
    score = score_recall(example, output)
    assert score.extracted == ("worda", "pursuit", "wordb", "struggle")
    assert point(score, POINT_NO_SPURIOUS) == pytest.approx(2 / 4)
    no_spurious = next(p for p in score.points if p.name == POINT_NO_SPURIOUS)
    assert no_spurious.explanation == (
        "output lists 2 words that were not asked for: pursuit, struggle; "
        "none of them is a word of the prompt"
    )
    assert point(score, POINT_ONCE) == pytest.approx(4 / 5)
    assert score.value == pytest.approx(0.2)  # the metric does not move


def test_prose_around_a_list_is_not_a_listed_value(make_example: Factory) -> None:
    example = make_example(COMMON, value_pattern=None, candidates=WORDS)
    score = score_recall(example, "Sure, here is what I counted: worda, wordb.")
    assert score.extracted == ("worda", "wordb")
    assert point(score, POINT_NO_SPURIOUS) == 1.0
    no_spurious = next(p for p in score.points if p.name == POINT_NO_SPURIOUS)
    assert no_spurious.explanation == "every word the output gives was asked for"


def test_the_question_key_repeated_in_the_answer_is_not_spurious(make_example: Factory) -> None:
    example = make_example(
        [VALUE], "subem", value_pattern=UUID, question=f"What is the value of key {KEY}?"
    )
    score = score_recall(example, f"The value of key {KEY} is {VALUE}.")
    assert score.value == 1.0
    assert score.extracted == (VALUE,)
    assert score.extras["echoed"] == 1
    assert score.extras["spurious"] == 0

    only_key = score_recall(example, f"I cannot find {KEY}.")
    assert only_key.status is ScoreStatus.UNPARSED
    assert KEY in only_key.explanation


def test_subem_ignores_articles_and_punctuation(make_example: Factory) -> None:
    example = make_example(
        ["The Eiffel Tower"], "subem", value_pattern=r"\b[A-Z][a-z]+(?: [A-Z][a-z]+)*\b"
    )
    score = score_recall(example, "answer: eiffel tower.")
    assert score.value == 1.0
    # The metric credits it though no value of the kind was extracted: ok, not unparsed.
    assert score.status is ScoreStatus.OK

    json_kv = make_example([VALUE], "subem", value_pattern=UUID)
    assert score_recall(json_kv, f'Answer: "{VALUE}"').value == 1.0


def test_em_uses_the_parsed_answer_line(make_example: Factory) -> None:
    example = make_example(["1234567"], "em", answer_prefix="Answer:")
    score = score_recall(example, "Answer: 1234567.\nI found it in the middle of the text.")
    assert score.value == 1.0
    loose = score_recall(example, "It is 1234567, I think.")
    assert loose.value == 0.0
    assert loose.status is ScoreStatus.OK
    assert "not exactly a requested value" in loose.explanation


def test_a_gold_inside_a_longer_number_counts_as_found(make_example: Factory) -> None:
    score = score_recall(make_example(["1234567"]), "12345678")
    assert score.value == 1.0  # RULER's substring rule
    assert score.extracted == ("1234567",)
    assert score.extras["spurious"] == 0


def test_multi_word_candidates_match_longest_first(make_example: Factory) -> None:
    example = make_example(
        ["ice cream"], value_pattern=None, candidates=["ice", "ice cream", "cream", "tea"]
    )
    score = score_recall(example, "Ice cream, then tea.")
    assert score.extracted == ("ice cream", "tea")
    assert score.extras["spurious"] == 1


def test_candidate_words_match_whole_words_only(make_example: Factory) -> None:
    example = make_example(["cat"], value_pattern=None, candidates=["cat", "dog"])
    score = score_recall(example, "category")
    assert score.extracted == ("category",)  # a listed word, but not the word asked for
    assert point(score, POINT_ALL_PRESENT) == 0.0
    assert point(score, POINT_NO_SPURIOUS) == 0.0
    assert score.value == 1.0  # RULER's substring metric still credits it
    assert score.status is ScoreStatus.OK


@pytest.mark.parametrize(
    ("metadata", "message"),
    [
        ({"metric": "rouge"}, "metadata 'metric' is 'rouge'"),
        ({"value_pattern": None}, "needs metadata 'value_pattern'"),
        ({"value_pattern": "(unclosed"}, "is invalid"),
        ({"value_pattern": None, "candidates": "cat dog"}, "must be a list of words"),
    ],
)
def test_bad_metadata_raises(
    make_example: Factory, metadata: dict[str, object], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        score_recall(make_example(["1234567"], **metadata), "1234567")


def test_empty_gold_raises_with_the_example_id(make_example: Factory) -> None:
    with pytest.raises(ValueError, match="example ex-1 of task niah_test"):
        score_recall(make_example([]), "1234567")


def test_unasked_values_from_the_prompt_are_told_from_made_up_ones(
    make_example: Factory,
) -> None:
    example = make_example(
        COMMON, value_pattern=None, candidates=WORDS, question="Which words? Pursuits count."
    )
    # "text" is a word of the prompt ("Some text."), "pursuit" only a part of "Pursuits".
    score = score_recall(example, "worda, text, pursuit, lagoon")
    no_spurious = next(p for p in score.points if p.name == POINT_NO_SPURIOUS)
    assert no_spurious.explanation == (
        "output lists 3 words that were not asked for: text, pursuit, lagoon; "
        "2 of them are not words of the prompt: pursuit, lagoon"
    )


def test_an_output_without_values_says_what_it_gives_truthfully(make_example: Factory) -> None:
    # Eight digits: an answer, but no value of the asked kind (7 digits).
    score = score_recall(make_example(["1234567"]), "The number is 17777777.")
    no_spurious = next(p for p in score.points if p.name == POINT_NO_SPURIOUS)
    assert no_spurious.explanation == (
        "output gives no values of the asked kind, so it shows no precision to credit"
    )
    # A word of the question listed back is an echo, and said to be one.
    example = make_example(
        COMMON, value_pattern=None, candidates=WORDS, question="Name the common words."
    )
    score = score_recall(example, '"name", "name", "name"')
    once = next(p for p in score.points if p.name == POINT_ONCE)
    assert once.explanation == (
        "output lists no words other than the question's own (name), so there is nothing "
        "given once to credit"
    )
