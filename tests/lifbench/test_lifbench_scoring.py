"""The List rubric: the original's rules, its kept bugs, the corrected variant, linear time.

Every branch's numbers are checked against the original on the parity fixtures
(tests/parity/test_lifeval_list.py); these tests show the rules a reader of the
user guide meets (docs/suites.md), with their explanations, and what `rules="corrected"` changes.
"""

from __future__ import annotations

import json
import random
import re
import time
import warnings
from collections.abc import Callable
from functools import cache

import pytest

from lctui.core.errors import UserInputError
from lctui.core.types import Example, Score, ScoreStatus
from lctui.scoring import score_example
from lctui.suites.lifbench.scoring.list_answer import KEEP_LITERAL, ListIndex, unescape
from lctui.suites.lifbench.tasks.list_context import parse_list
from lctui.tasks import get_task
from lctui.tasks.tokenizers import reference_tokenizer

HEX32 = re.compile(r"^[0-9a-f]{32}$")


def _points(score: Score) -> dict[str, float]:
    return {p.name: p.earned for p in score.points}


@cache
def _example(name: str, uuid: bool | None = None, rules: str = "original") -> Example:
    """The first 3K example of `name` whose answer is (or is not) a uuid."""
    task = get_task(f"lifbench_{name}").with_params({"rules": rules})
    tokenizer = reference_tokenizer("o200k_base")
    for seed in range(10):
        for index in range(12):
            example = task.generate(3072, seed=seed, index=index, tokenizer=tokenizer)
            if uuid is None or bool(HEX32.match(example.metadata["expected"][0])) == uuid:
                return example
    raise AssertionError("no such example")


def _other_uuid(example: Example) -> str:
    right = example.metadata["expected"][0]
    return next(e for e in parse_list(example.context) if HEX32.match(e) and e != right)


@pytest.mark.parametrize("name", ["single_query_id", "offset_query_id", "offset_query_element"])
def test_any_wrong_uuid_earns_half_of_correct_as_in_the_original(name: str) -> None:
    example = _example(name, uuid=True)
    score = score_example(example, _other_uuid(example))
    assert _points(score) == {"format": 1.0, "correct": 0.5, "ori": 1.0}
    assert score.value == 0.75 and score.status is ScoreStatus.OK
    assert "within" in score.explanation and "edits of it" in score.explanation
    corrected = _example(name, uuid=True, rules="corrected")
    fixed = score_example(corrected, _other_uuid(corrected))
    assert _points(fixed)["correct"] == 0.0 and fixed.value == 0.5


@pytest.mark.parametrize("name", ["single_query_id", "blur_offset_query_id"])
def test_an_output_with_no_entry_scores_zero_though_its_format_shows_0_2(name: str) -> None:
    example = _example(name)
    garbage = "I could not find that entry in the list, sorry about that."
    score = score_example(example, garbage)
    assert _points(score)["format"] == 0.2 and score.value == 0.0
    assert score.status is ScoreStatus.UNPARSED and score.extracted == ()
    assert "the original stops here and scores the response 0" in score.explanation
    fixed = score_example(_example(name, rules="corrected"), garbage)
    assert fixed.value == pytest.approx(0.2 / (4 if name == "single_query_id" else 5))
    assert fixed.status is ScoreStatus.OK


def test_a_typo_in_the_right_entry_scores_zero_unless_corrected() -> None:
    example = _example("single_query_id", uuid=True)
    right = example.metadata["expected"][0]
    typo = right[:-1] + ("0" if right[-1] != "0" else "1")
    assert score_example(example, typo).value == 0.0  # no entry occurs: the original stops
    fixed = score_example(_example("single_query_id", uuid=True, rules="corrected"), typo)
    assert _points(fixed) == {"format": 0.2, "correct": 0.5, "ori": 0.0}
    assert fixed.value == pytest.approx((0.2 + 1.0) / 4)


def test_format_steps_of_a_single_entry_answer() -> None:
    example = _example("single_query_id", uuid=True)
    right = example.metadata["expected"][0]
    longest = max(len(e) for e in parse_list(example.context))
    cases = {
        right: 1.0,  # 0.2 + 0.8: exactly one entry
        f'"{right}"': 0.5,  # 0.2 + 0.3: one entry inside other text, a plausible length
        json.dumps([right]): 0.5,
        "x" * longest + right: 0.3,  # longer than every entry: 0.3 only
        # Two occurrences: no more than the length's 0.2, if the two fit the longest entry.
        f"{right} {right}": 0.2 if 2 * len(right) + 1 <= longest else 0.0,
    }
    for output, fmt in cases.items():
        score = score_example(example, output)
        assert _points(score)["format"] == pytest.approx(fmt), (output, score.explanation)
        assert _points(score)["correct"] == 1.0
    embedded = score_example(example, f'"{right}"').explanation
    assert "0.3 more: exactly one list entry, inside other text" in embedded
    assert score_example(example, right.upper()).value == 0.0  # case-sensitive


def test_multi_query_id_formats_counts_and_order() -> None:
    example = _example("multi_query_id")
    expected = list(example.metadata["expected"])
    reference = json.dumps(expected)
    values = {
        reference: 1.0,
        json.dumps(expected[::-1]): 0.8,  # order lost
        f"Here they are: {reference}": 0.95,  # the bracketed span: format 0.75
        "[" + ", ".join(f"'{e}'" for e in expected) + "]": 0.8,  # Python literal: not JSON
        "[]": 0.3,  # format 1, and the order point's 0.5 for at most one entry
        "Sorry, I cannot do this.": 0.1,
    }
    for output, value in values.items():
        assert score_example(example, output).value == pytest.approx(value), output
    crash = score_example(example, reference + "\\")
    assert crash.value == pytest.approx(0.95) and crash.status is ScoreStatus.OK
    assert "the original cannot decode" in crash.explanation


@pytest.mark.parametrize("name", ["blur_offset_query_id", "blur_offset_query_element"])
def test_blur_position_is_the_side_of_every_entry_given(name: str) -> None:
    example = _example(name)
    meta = example.metadata
    items = parse_list(example.context)
    pivot, step = meta["pivot"], 1 if meta["direction"] == "after" else -1
    named, right = items[pivot - 1], items[pivot - 1 + step]
    far = items[-1] if step > 0 else items[0]
    assert score_example(example, far).value == 1.0
    assert _points(score_example(example, named))["position"] == pytest.approx(1 / 3)
    assert score_example(example, named).value == pytest.approx(0.6)
    both = score_example(example, f"{right}\n{named}")  # format 0.2 only if short enough
    assert _points(both)["position"] == pytest.approx(1 / 3)
    assert both.value == pytest.approx((2 + _points(both)["format"]) / 5)
    if 0 <= pivot - 1 - step < len(items):
        wrong = items[pivot - 1 - step]
        assert score_example(example, wrong).value == pytest.approx(0.4)


@pytest.mark.parametrize(
    "name",
    [
        "single_query_id",
        "multi_query_id",
        "offset_query_id",
        "offset_query_element",
        "blur_offset_query_id",
        "blur_offset_query_element",
    ],
)
def test_empty_is_unparsed_and_zero(name: str) -> None:
    example = _example(name)
    for output in ("", "  \n\t "):
        empty = score_example(example, output)
        assert empty.status is ScoreStatus.UNPARSED and empty.value == 0.0
        assert all(p.earned == 0.0 for p in empty.points)


def test_the_rules_parameter_is_declared_and_checked() -> None:
    task = get_task("lifbench_single_query_id")
    assert task.params == {"rules": "original"}
    assert task.with_params({"rules": "corrected"}).params == {"rules": "corrected"}
    with pytest.raises(UserInputError, match="rules must be one of original, corrected"):
        task.with_params({"rules": "lenient"})


def test_occurrences_count_as_str_count_does() -> None:
    """On random lists of short entries sharing prefixes (duplicates and an empty one too)."""
    rng = random.Random(3)
    for _ in range(2000):
        items = [
            "".join(rng.choices("ab ", k=rng.randint(1, 7))) for _ in range(rng.randint(1, 12))
        ]
        items += [""] if rng.random() < 0.1 else []
        index = ListIndex(items)
        for _ in range(5):
            text = "".join(rng.choices("ab ", k=rng.randint(0, 40)))
            counts = {i: text.count(e) for i, e in enumerate(items) if text.count(e)}
            assert index.occurrences(text) == counts, (items, text)


def test_unescape_reads_escapes_as_the_codec_does_and_bad_ones_as_written() -> None:
    texts = (
        '["a\\u0062c", "\\"q\\""]',
        "tab\\tend",
        "\\\\q",
        "a\\\\\\q",
        "x\\\ny",
        "\\8",
        "caf\u00e9",
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # the codec warns on \\q, \\8
        decoded = [t.encode("utf-8").decode("unicode_escape") for t in texts]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # ours never warns
        assert [unescape(t) for t in texts] == [(d, False) for d in decoded]
        for crashing in ("abc\\", "a\\x4g b", "\\u12", "\\U0011ffff", "\\N{no such}", "\\N x"):
            # where the codec raises, the escape is read as written
            assert unescape(crashing) == (crashing, True)
        assert unescape("\\\\x4g") == ("\\x4g", False)  # an escaped backslash, then "x4g"


def test_unescape_agrees_with_the_codec_reading_bad_escapes_as_written() -> None:
    """On random escape-heavy text: the codec's text (with an error handler keeping what
    it cannot decode, as the parity glue reads the original's crashes) and its raising."""
    alphabet = ["\\"] * 6 + [
        *"xuUN{}0123456789abcdefABCDEFqz\n\r'\" \u00e9",
        "LATIN SMALL LETTER A",
    ]
    rng = random.Random(7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        for _ in range(20_000):
            text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 16)))
            data = text.encode("utf-8")
            try:
                expected = (data.decode("unicode_escape"), False)
            except UnicodeDecodeError:
                expected = (data.decode("unicode_escape", KEEP_LITERAL), True)
            assert unescape(text) == expected, text


def test_unescape_of_a_text_holding_every_private_use_character() -> None:
    """No character is left to set escaped backslashes aside: the slower patterns pair them."""
    blocks = ((0xE000, 0xF900), (0xF0000, 0xFFFFE), (0x100000, 0x10FFFE))
    every = "".join(chr(c) for low, high in blocks for c in range(low, high))
    text = every + "a\\q \\\\\\x4g \\u0041 \\N{zz} end\\"
    data = text.encode("utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # the codec warns on \\q
        assert unescape(text) == (data.decode("unicode_escape", KEEP_LITERAL), True)


GROWTH = 8


def _per_call(work: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(3):
        calls, started = 0, time.perf_counter()
        while (elapsed := time.perf_counter() - started) < 0.02 or not calls:
            work()
            calls += 1
        best = min(best, elapsed / calls)
    return best


@pytest.mark.parametrize(
    ("name", "make"),
    [
        ("single_query_id", lambda e, n: (e + " ") * (n // (len(e) + 1))),
        ("single_query_id", lambda e, n: "0123456789abcdef" * (n // 16)),
        ("single_query_id", lambda e, n: "Summarize the main arguments for " * (n // 33)),
        ("blur_offset_query_id", lambda e, n: (e + "\n") * (n // (len(e) + 1))),
        ("multi_query_id", lambda e, n: "[" + (json.dumps(e) + ", ") * (n // (len(e) + 4))),
        ("multi_query_id", lambda e, n: "\\x" * (n // 2)),
        ("multi_query_id", lambda e, n: "[" * n),
    ],
)
def test_list_scoring_is_linear_in_the_output(name: str, make: Callable[[str, int], str]) -> None:
    """A score at 8x the output takes about 8x the time (a quadratic rule: 64x)."""
    example = _example(name, uuid=True)
    entry = example.metadata["expected"][0]
    small, large = make(entry, 16_000), make(entry, GROWTH * 16_000)
    score_example(example, small)
    ratio = _per_call(lambda: score_example(example, large)) / _per_call(
        lambda: score_example(example, small)
    )
    assert ratio < 3 * GROWTH, ratio
