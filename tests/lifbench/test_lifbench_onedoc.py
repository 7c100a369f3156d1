"""LIFBench OneDoc tasks: LIFBench's tags and variable spaces, references score 1.0,
prompts fit, and the original's point rules on wrong answers."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from helpers.lifbench_checks import (
    check_covers_every_sample,
    check_deterministic_per_seed,
    check_fits,
    check_gold_run_scores_one,
    check_reference_score,
    covering_indices,
    earned_points,
)
from lctui.backends.gold import reference_answer
from lctui.core.types import Example, ScoreStatus
from lctui.scoring import score_example
from lctui.suites.lifbench.tasks.onedoc import (
    QA_OPTIONS,
    REPEAT_COUNTS,
    REPEAT_SEPARATORS,
    OneDocTask,
)
from lctui.suites.lifbench.tasks.onedoc_context import ABSENT_TYPE, ALL_TYPES, parse_tagged
from lctui.suites.lifbench.tasks.shared import RULES_CORRECTED
from lctui.tasks import get_task, select_tasks
from lctui.tasks.tokenizers import TiktokenTokenizer

NAMES = ["lifbench_repeat", "lifbench_extract", "lifbench_qa"]


def _task(name: str, **params: object) -> OneDocTask:
    (task,) = select_tasks(name)
    assert isinstance(task, OneDocTask)
    changed = task.with_params(params) if params else task
    assert isinstance(changed, type(task))
    return changed


def _example(
    name: str, o200k: TiktokenTokenizer, rules: str = "original", **want: object
) -> Example:
    """The first 3K example of `name` whose metadata has the `want` values."""
    task = _task(f"lifbench_{name}", rules=rules)
    for index in range(len(task.spec.expressions) * len(task.spec.variables)):
        example = task.generate(3072, seed=1, index=index, tokenizer=o200k)
        if all(example.metadata[k] == v for k, v in want.items()):
            return example
    raise AssertionError(f"no {name} example with {want}")


def test_registry_and_task_settings() -> None:
    assert [t.name for t in select_tasks("lifbench")][-3:] == NAMES
    for name in NAMES:
        task = _task(name)
        assert get_task(name).name == name
        assert task.category == task.suite == "lifbench" and task.metric == "lifeval_ars"
        assert task.max_new_tokens == 512 and task.answer_prefix == "Output:"
        assert len(task.spec.expressions) >= 5 and len(task.spec.variables) >= 5
        assert task.params == {"rules": "original"}


def _check_reference(
    task: OneDocTask, length: int, index: int, o200k: TiktokenTokenizer
) -> Example:
    example = task.generate(length, seed=3, index=index, tokenizer=o200k)
    meta = example.metadata
    assert (meta["expression"], meta["variable"]) == task.choice(index)
    assert meta["scenario"] == "onedoc" and meta["scorer"] == "lifeval"
    assert meta["lifeval_task"] == task.spec.name and meta["gold_mode"] == "exact"
    answer = reference_answer(example)
    assert answer == meta["reference"]
    assert o200k.count(answer) < example.max_new_tokens
    check_reference_score(example, answer, task.spec.name)
    check_fits(example, o200k)
    return example


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("length", [3072, 6144, 13312])
def test_reference_scores_one_for_every_expression_and_variable(
    name: str, length: int, o200k: TiktokenTokenizer
) -> None:
    for task in (_task(name), _task(name, rules=RULES_CORRECTED)):
        seen = {task.choice(index) for index in covering_indices(task)}
        check_covers_every_sample(task, seen)
        for index in covering_indices(task):
            _check_reference(task, length, index, o200k)


def test_reference_scores_one_at_a_longer_length(o200k: TiktokenTokenizer) -> None:
    task = _task("lifbench_repeat")
    example = _check_reference(task, 28672, 2, o200k)
    assert len(example.context) > 80_000


def test_tags_types_counts_and_fakes_are_lifbenchs(o200k: TiktokenTokenizer) -> None:
    assert ALL_TYPES == (
        "#Topic#", "@argument@", "!Transition!", "|Summary|", "*Evidence*", "-Concession-",
    )  # fmt: skip
    for length in (3072, 13312):
        example = _task("lifbench_extract").generate(length, seed=7, index=0, tokenizer=o200k)
        tagged = parse_tagged(example.context)
        assert [t.id for t in tagged] == list(range(1, 24))
        keys = Counter(t.type for t in tagged if t.tail == t.type)
        fakes = Counter(t.type for t in tagged if t.tail != t.type)
        assert keys == {
            "#Topic#": 4, "@argument@": 3, "!Transition!": 5, "*Evidence*": 4, "-Concession-": 4,
        }  # fmt: skip
        assert fakes == {"@argument@": 1, "!Transition!": 1, "-Concession-": 1}
        assert ABSENT_TYPE not in {t.type for t in tagged} | {t.tail for t in tagged}
        meta = example.metadata
        assert [k["id"] for k in meta["keys"]] == [t.id for t in tagged if t.type == t.tail]
        assert [f["id"] for f in meta["fakes"]] == [t.id for t in tagged if t.type != t.tail]
        texts = [t.text for t in tagged]
        assert len(set(texts)) == 23
        # The original's scorers find sentences as substrings and count separators and
        # type names in the output: no tagged sentence holds another, a separator or a
        # type name, or text its escape decoding would change.
        assert not any(a != b and a in b for a in texts for b in texts)
        assert all(t.isascii() and "\\" not in t for t in texts)
        assert not any(mark in t for t in texts for mark in (*REPEAT_SEPARATORS, *ALL_TYPES))
        first, last = (example.context.find(f"<{t.type}-{t.id}>") for t in (tagged[0], tagged[-1]))
        assert first < 0.1 * len(example.context) and last > 0.9 * len(example.context)
        assert f"<{tagged[0].type}-1>{tagged[0].text}<{tagged[0].tail}>" in example.context


def test_variable_spaces_are_lifbenchs() -> None:
    repeat = _task("lifbench_repeat").spec.variables
    assert {v["num"] for v in repeat} == set(REPEAT_COUNTS) == {1, 2, 4, 6, 8}
    assert {v["sep"] for v in repeat} == set(REPEAT_SEPARATORS)
    assert REPEAT_SEPARATORS == ("###", "-12367-", "|||||", "#stop#", "[sep]")
    assert len({(v["num"], v["sep"]) for v in repeat}) == len(repeat)
    assert [v["type"] for v in _task("lifbench_extract").spec.variables] == list(ALL_TYPES)
    assert QA_OPTIONS == (
        ("True", "False"), ("Yes", "No"), ("False", "True"), ("apple", "APPLE"), ("12345", "12346"),
    )  # fmt: skip
    qa = _task("lifbench_qa").spec.variables
    assert len(qa) == 30
    for start in range(0, 30, 6):  # as the original's six samples per wording
        six = qa[start : start + 6]
        assert Counter(v["ask"] for v in six) == {"key": 2, "fake": 2, "plain": 2}
        pairs = [QA_OPTIONS.index(tuple(v["options"])) for v in six]
        assert pairs == [(pairs[0] + j) % 5 for j in range(6)]  # rotated
    assert {(v["ask"], tuple(v["options"])) for v in qa} == {
        (ask, pair) for ask in ("key", "fake", "plain") for pair in QA_OPTIONS
    }


def test_qa_asks_about_the_sentence_its_kind_says(o200k: TiktokenTokenizer) -> None:
    task = _task("lifbench_qa")
    for index in range(30):
        example = task.generate(3072, seed=5, index=index, tokenizer=o200k)
        meta = example.metadata
        tagged = {t.text: t for t in parse_tagged(example.context)}
        sentence = meta["evidence"]
        assert f'"{sentence}"' in example.question and sentence in example.context
        if meta["ask"] == "plain":
            assert sentence not in tagged
        else:
            assert (tagged[sentence].tail == tagged[sentence].type) is (meta["ask"] == "key")
        assert meta["reference"] == meta["options"][0 if meta["ask"] == "key" else 1]


@pytest.mark.parametrize("name", NAMES)
def test_deterministic_per_seed(name: str, o200k: TiktokenTokenizer) -> None:
    check_deterministic_per_seed(_task(name), o200k)


# -- the original's rules on wrong answers (hand-checked values; the parity fixtures
# -- hold hundreds more, computed by the original's code)


def test_qa_partial_credit_is_the_originals(o200k: TiktokenTokenizer) -> None:
    key = _example("qa", o200k, ask="key", options=["Yes", "No"])
    fake = _example("qa", o200k, ask="fake", options=["Yes", "No"])
    plain = _example("qa", o200k, ask="plain", options=["True", "False"])
    assert earned_points(score_example(key, "No")) == {
        "correct": pytest.approx(1 / 30),
        "format": 1.0,
    }
    assert earned_points(score_example(fake, "Yes")) == {
        "correct": pytest.approx(2 / 3),
        "format": 1.0,
    }
    assert earned_points(score_example(plain, "True")) == {
        "correct": pytest.approx(2 / 3),
        "format": 1.0,
    }
    both = earned_points(score_example(key, "Yes or No"))
    assert both == {"correct": pytest.approx(1 / 6), "format": 0.5}  # long (0.5) + both (0.5)
    # Case-sensitive: "yes" is neither option, and earns only its length.
    assert earned_points(score_example(key, "yes")) == {"correct": 0.0, "format": 0.5}
    assert earned_points(score_example(fake, "No.")) == {"correct": 1.0, "format": 1.0}
    chatty = score_example(plain, "I am not sure whether it is one of them.")
    assert chatty.status is ScoreStatus.OK and earned_points(chatty)["format"] == 0.25


def test_repeat_keeps_the_always_awarded_ori_half(o200k: TiktokenTokenizer) -> None:
    original = _example("repeat", o200k, num=4)
    corrected = _example("repeat", o200k, rules=RULES_CORRECTED, num=4)
    garbage = "I cannot find the key sentences."
    assert earned_points(score_example(original, garbage))["ori"] == 0.5
    assert earned_points(score_example(corrected, garbage))["ori"] == 0.0
    sep = original.metadata["sep"]
    keys = original.metadata["keys"][:4]
    lines = [f"{k['text']} {sep} {k['type']}" for k in keys] + ["Some words of my own."]
    # The original counts every line in correct's denominator; corrected only typed ones.
    assert earned_points(score_example(original, "\n".join(lines)))["correct"] == pytest.approx(0.8)
    assert earned_points(score_example(corrected, "\n".join(lines)))["correct"] == 1.0


def test_repeat_points_on_fakes_types_and_near_misses(o200k: TiktokenTokenizer) -> None:
    example = _example("repeat", o200k, num=4)
    sep = example.metadata["sep"]
    keys = example.metadata["keys"][:4]
    fake = example.metadata["fakes"][0]

    def render(pairs: list[tuple[str, str]]) -> str:
        return "\n".join(f"{text} {sep} {kind}" for text, kind in pairs)

    pairs = [(k["text"], k["type"]) for k in keys]
    with_fake = earned_points(
        score_example(example, render([*pairs[:3], (fake["text"], fake["type"])]))
    )
    assert with_fake["hit"] == pytest.approx((4 - 0.5) / 4) and with_fake["correct"] == 1.0
    off = [(t[:10] + "#" + t[11:], k) for t, k in pairs]  # one character off: no hit
    near = earned_points(score_example(example, render(off)))
    assert near["hit"] == 0.0 and near["correct"] == 1.0
    swapped = [(t, "|Summary|") for t, _ in pairs]
    assert earned_points(score_example(example, render(swapped)))["correct"] == 0.0


def test_extract_keeps_the_order_point_that_never_fails(o200k: TiktokenTokenizer) -> None:
    original = _example("extract", o200k, type="!Transition!")
    corrected = _example("extract", o200k, rules=RULES_CORRECTED, type="!Transition!")
    texts = list(original.gold)
    assert len(texts) == 5
    backwards = json.dumps(texts[::-1])
    assert score_example(original, backwards).value == 1.0
    assert earned_points(score_example(corrected, backwards))["order"] == pytest.approx(1 / 5)
    fake = next(f["text"] for f in original.metadata["fakes"] if f["type"] == "!Transition!")
    with_fake = earned_points(score_example(original, json.dumps([*texts, fake])))
    assert with_fake["correct"] == pytest.approx((3.5 * 5 / 6) / 4)


def test_extract_of_the_absent_type_wants_exactly_an_empty_list(o200k: TiktokenTokenizer) -> None:
    original = _example("extract", o200k, type=ABSENT_TYPE)
    corrected = _example("extract", o200k, rules=RULES_CORRECTED, type=ABSENT_TYPE)
    assert original.metadata["reference"] == "[]" and score_example(original, "[]").value == 1.0
    assert score_example(original, "[ ]").value == pytest.approx(4.5 / 14)
    assert score_example(corrected, "[ ]").value == 1.0
    assert score_example(original, "```json\n[]\n```").value == pytest.approx(3.5 / 14)


def test_empty_output_is_unparsed(o200k: TiktokenTokenizer) -> None:
    for name in ("repeat", "extract", "qa"):
        score = score_example(_example(name, o200k), "  \n")
        assert score.status is ScoreStatus.UNPARSED and score.value == 0.0
        assert all(p.earned == 0.0 for p in score.points)


def test_gold_run_through_the_cli_scores_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    check_gold_run_scores_one(tmp_path / "onedoc.duckdb", ",".join(NAMES), 6)
    capsys.readouterr()
