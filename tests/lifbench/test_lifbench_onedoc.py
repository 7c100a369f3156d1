"""LIFBench OneDoc tasks: references score 1.0, prompts fit, wrong answers lose the right points."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from lifbench_checks import (
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
from lctui.tasks import get_task, select_tasks
from lctui.tasks.lifbench.onedoc import NONE_WORD, OneDocTask
from lctui.tasks.lifbench.onedoc_context import ABSENT_TYPE, parse_tagged

NAMES = ["lifbench_repeat", "lifbench_extract", "lifbench_qa"]


def _task(name: str) -> OneDocTask:
    (task,) = select_tasks(name)
    assert isinstance(task, OneDocTask)
    return task


def _example(name: str, o200k, **want: object) -> Example:  # type: ignore[no-untyped-def]
    """The first 3K example of `name` whose metadata has the `want` values."""
    task = _task(f"lifbench_{name}")
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


def _check_reference(task: OneDocTask, length: int, index: int, o200k) -> Example:  # type: ignore[no-untyped-def]
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
@pytest.mark.parametrize("length", [3072, 6144])
def test_reference_scores_one_for_every_expression_and_variable(
    name: str, length: int, o200k
) -> None:  # type: ignore[no-untyped-def]
    task = _task(name)
    seen = {task.choice(index) for index in covering_indices(task)}
    check_covers_every_sample(task, seen)
    for index in covering_indices(task):
        _check_reference(task, length, index, o200k)


def test_reference_scores_one_at_a_longer_length(o200k) -> None:  # type: ignore[no-untyped-def]
    task = _task("lifbench_repeat")
    example = _check_reference(task, 28672, 2, o200k)
    assert len(example.context) > 80_000


def test_tag_counts_fakes_and_spread(o200k) -> None:  # type: ignore[no-untyped-def]
    for length in (3072, 13312):
        example = _task("lifbench_extract").generate(length, seed=7, index=0, tokenizer=o200k)
        tagged = parse_tagged(example.context)
        assert [t.id for t in tagged] == list(range(1, 24))
        keys = Counter(t.type for t in tagged if t.tail == t.type)
        fakes = Counter(t.type for t in tagged if t.tail != t.type)
        assert keys == {"Topic": 4, "Argument": 3, "Transition": 5, "Evidence": 4, "Concession": 4}
        assert fakes == {"Argument": 1, "Transition": 1, "Concession": 1}
        assert ABSENT_TYPE not in {t.type for t in tagged} | {t.tail for t in tagged}
        meta = example.metadata
        assert [k["id"] for k in meta["keys"]] == [t.id for t in tagged if t.type == t.tail]
        assert [f["id"] for f in meta["fakes"]] == [t.id for t in tagged if t.type != t.tail]
        assert len({t.text for t in tagged}) == 23
        first, last = (example.context.find(f"<{t.type}-{t.id}>") for t in (tagged[0], tagged[-1]))
        assert first < 0.1 * len(example.context) and last > 0.9 * len(example.context)
        assert "closing tag repeats the opening tag" in example.preamble


@pytest.mark.parametrize("name", NAMES)
def test_deterministic_per_seed(name: str, o200k) -> None:  # type: ignore[no-untyped-def]
    check_deterministic_per_seed(_task(name), o200k)


def _repeat_lines(example: Example) -> list[tuple[str, str]]:
    meta = example.metadata
    keys = {k["id"]: k for k in meta["keys"]}
    return [(keys[i]["type"], keys[i]["text"]) for i in meta["expected_ids"]]


def _render(lines: list[tuple[str, str]], sep: str) -> str:
    return "\n".join(f"{label}{sep}{text}" for label, text in lines)


def test_repeat_wrong_answers_lose_the_right_points(o200k) -> None:  # type: ignore[no-untyped-def]
    example = _example("repeat", o200k, count=5)
    sep = example.metadata["separator"]
    lines = _repeat_lines(example)
    fake = example.metadata["fakes"][0]
    with_fake = earned_points(
        score_example(example, _render([*lines[:4], (fake["type"], fake["text"])], sep))
    )
    assert with_fake["hit"] == 0.8 and with_fake["num"] == 1.0 and with_fake["ori"] == 1.0
    assert with_fake["correct"] == 1.0 and with_fake["format"] == 1.0
    other = "Topic" if lines[0][0] != "Topic" else "Evidence"
    wrong_type = earned_points(
        score_example(example, _render([(other, lines[0][1]), *lines[1:]], sep))
    )
    assert wrong_type["correct"] == 0.8 and wrong_type["hit"] == 1.0 and wrong_type["format"] == 1.0
    few = earned_points(score_example(example, _render(lines[:3], sep)))
    assert few["num"] == pytest.approx(0.6) and few["hit"] == 1.0 and few["correct"] == 1.0
    other_sep = " = " if sep != " = " else " | "
    bad_sep = score_example(example, _render(lines, other_sep))
    assert earned_points(bad_sep)["format"] == 0.0 and earned_points(bad_sep)["num"] == 1.0
    assert "line 1" in bad_sep.explanation
    label, text = lines[1]
    typo = text[:10] + ("x" if text[10] != "x" else "y") + text[11:]
    typo_points = earned_points(
        score_example(example, _render([lines[0], (label, typo), *lines[2:]], sep))
    )
    assert 0.8 < typo_points["ori"] < 1.0 and typo_points["hit"] == 1.0
    fake_score = score_example(example, _render([(fake["type"], fake["text"])], sep))
    assert "does not match" in fake_score.explanation


def test_repeat_plain_sentence_and_wrong_end(o200k) -> None:  # type: ignore[no-untyped-def]
    example = _example("repeat", o200k, end="first", count=3)
    sep = example.metadata["separator"]
    keys = example.metadata["keys"]
    late = [(k["type"], k["text"]) for k in keys[-3:]]
    points = earned_points(score_example(example, _render(late, sep)))
    assert points["hit"] == 0.0 and points["correct"] == 1.0 and points["ori"] == 1.0
    plain = score_example(
        example, _render([*_repeat_lines(example)[:2], ("Topic", "We must act now, friends.")], sep)
    )
    assert earned_points(plain)["hit"] == pytest.approx(2 / 3) and earned_points(plain)["ori"] < 1.0


def test_extract_order_missing_extra_and_format(o200k) -> None:  # type: ignore[no-untyped-def]
    example = _example("extract", o200k, format="lines", types=["Transition"])
    texts = list(example.gold)
    assert len(texts) == 5
    swapped = earned_points(score_example(example, "\n".join(texts[::-1])))
    assert swapped["order"] < 1.0 and swapped["correct"] == 1.0 and swapped["format"] == 1.0
    missing = earned_points(score_example(example, "\n".join(texts[:-1])))
    assert missing["correct"] == 0.8 and missing["order"] == 1.0
    fake = next(f for f in example.metadata["fakes"] if f["type"] == "Transition")
    with_fake = score_example(example, "\n".join([*texts, fake["text"]]))
    assert earned_points(with_fake)["correct"] == pytest.approx(5 / 6)
    assert "decoy" in with_fake.explanation
    numbered = earned_points(
        score_example(example, "\n".join(f"{i}. {t}" for i, t in enumerate(texts, 1)))
    )
    assert numbered["format"] == 0.0 and numbered["correct"] == 1.0
    as_json = earned_points(score_example(example, json.dumps(texts)))
    assert as_json["format"] == 0.0 and as_json["correct"] == 1.0 and as_json["order"] == 1.0
    said_none = earned_points(score_example(example, NONE_WORD))
    assert said_none["correct"] == said_none["order"] == said_none["ori"] == 0.0


def test_extract_json_format(o200k) -> None:  # type: ignore[no-untyped-def]
    example = _example("extract", o200k, format="json", types=["Concession"])
    texts = list(example.gold)
    assert score_example(example, "Output: " + json.dumps(texts)).value == 1.0
    wrapped = earned_points(score_example(example, "Here they are: " + json.dumps(texts)))
    assert wrapped["format"] == 0.5 and wrapped["correct"] == 1.0
    lines = earned_points(score_example(example, "\n".join(texts)))
    assert lines["format"] == 0.0 and lines["correct"] == 1.0


@pytest.mark.parametrize("fmt", ["lines", "json"])
def test_extract_of_the_absent_type_wants_the_none_word(fmt: str, o200k) -> None:  # type: ignore[no-untyped-def]
    example = _example("extract", o200k, format=fmt, types=[ABSENT_TYPE])
    assert example.metadata["reference"] == NONE_WORD and example.gold == (NONE_WORD,)
    right = score_example(example, NONE_WORD)
    assert right.value == 1.0 and right.extracted == (NONE_WORD,)
    lower = earned_points(score_example(example, "none."))
    assert lower["correct"] == 1.0 and lower["format"] == 0.5
    topics = [k["text"] for k in example.metadata["keys"] if k["type"] == "Topic"]
    some = score_example(example, "\n".join(topics) if fmt == "lines" else json.dumps(topics))
    assert some.status is ScoreStatus.OK and some.value is not None and some.value < 0.5
    assert earned_points(some)["correct"] == 0.0 and earned_points(some)["order"] == 0.0


def test_qa_options(o200k) -> None:  # type: ignore[no-untyped-def]
    for ask in ("key", "fake", "plain"):
        example = _example("qa", o200k, ask=ask)
        yes, no = example.metadata["options"]
        right, wrong = (yes, no) if ask == "key" else (no, yes)
        assert example.metadata["reference"] == right
        assert example.metadata["sentence"] in example.context
        assert score_example(example, f'"{right}".').value == 1.0
        flipped = earned_points(score_example(example, wrong))
        assert flipped == {"correct": 0.0, "format": 1.0}
        chatty = earned_points(score_example(example, f"{right}, because of its tags."))
        assert chatty == {"correct": 1.0, "format": 0.5}
    example = _example("qa", o200k, ask="fake", options=["apple", "banana"])
    foreign = score_example(example, "No")
    assert earned_points(foreign) == {"correct": 1.0, "format": 0.0} and foreign.extracted == (
        "No",
    )


@pytest.mark.parametrize("name", ["repeat", "extract", "qa"])
def test_garbage_is_unparsed(name: str, o200k) -> None:  # type: ignore[no-untyped-def]
    example = _example(name, o200k)
    for garbage in ("  \n", "I am not sure, sorry. Maybe blue? 42."):
        score = score_example(example, garbage)
        assert score.status is ScoreStatus.UNPARSED and score.value == 0.0
        assert all(p.earned == 0.0 for p in score.points)


def test_gold_run_through_the_cli_scores_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    check_gold_run_scores_one(tmp_path / "onedoc.duckdb", ",".join(NAMES), 6)
    capsys.readouterr()


def test_lenient_reading_of_labels_numbering_tags_and_json(o200k) -> None:  # type: ignore[no-untyped-def]
    example = _example("repeat", o200k, count=5)
    sep = example.metadata["separator"]
    lines = _repeat_lines(example)
    numbered = "\n".join(f"{i}. {label}{sep}{text}" for i, (label, text) in enumerate(lines, 1))
    points = earned_points(score_example(example, numbered))
    assert points["format"] == 0.0 and points["correct"] == points["hit"] == points["num"] == 1.0
    keys = {k["text"]: k["id"] for k in example.metadata["keys"]}
    tagged = "\n".join(f"<{lab}-{keys[t]}>{t}</{lab}-{keys[t]}>" for lab, t in lines)
    points = earned_points(score_example(example, tagged))
    assert points["format"] == 0.0 and points["correct"] == points["hit"] == 1.0
    pairs = earned_points(score_example(example, json.dumps([list(pair) for pair in lines])))
    assert pairs["format"] == 0.0 and pairs["correct"] == pairs["ori"] == 1.0
    extract = _example("extract", o200k, format="lines", types=["Evidence"])
    ids = example.metadata["expected_ids"]
    assert ids == sorted(ids)
    texts = list(extract.gold)
    labelled = earned_points(score_example(extract, "\n".join(f"Evidence: {t}" for t in texts)))
    assert labelled["format"] == 0.0 and labelled["correct"] == labelled["ori"] == 1.0


def test_repeat_lines_with_the_separator_after_other_words_are_read_not_unparsed(o200k) -> None:  # type: ignore[no-untyped-def]
    task = get_task("lifbench_repeat")
    example = task.generate(3072, seed=0, index=0, tokenizer=o200k)
    sep = str(example.metadata["separator"]).strip()
    lines = [f"- Item {i}: Evidence {sep} Some sentence of my own." for i in range(1, 4)]
    score = score_example(example, "\n".join(lines))
    assert score.status is ScoreStatus.OK
    points = {p.name: p.earned for p in score.points}
    assert points["format"] == 0.0 and points["hit"] == 0.0
    assert score.extracted and all(e.startswith("Evidence") for e in score.extracted)


def test_a_quote_of_an_untagged_sentence_is_placed_exactly_or_as_a_near_miss(o200k) -> None:  # type: ignore[no-untyped-def]
    from lctui.scoring.lifeval_onedoc import DocIndex, _plain_sentences
    from lctui.scoring.lifeval_text import near_limit

    example = _task("lifbench_extract").generate(6144, seed=3, index=0, tokenizer=o200k)
    index = DocIndex(example)
    tagged = {t.text.casefold() for t in index.tagged}
    sentences = [s for s in _plain_sentences(example.context) if len(s) > 60 and s not in tagged]
    assert len(sentences) > 20
    for sentence in sentences[:: max(1, len(sentences) // 20)]:
        exact = index.place(sentence.upper())  # case and spacing do not matter
        assert (exact.found, exact.ori, exact.tagged) == (True, 1.0, None)
        typo = sentence[:10] + "#" + sentence[11:]  # one substitution
        near = index.place(typo)
        assert near.found and near.tagged is None
        assert near.ori == pytest.approx(1.0 - 1 / (near_limit(sentence) + 1))
        cut = next(i for i in range(5, len(sentence)) if " " not in sentence[i - 1 : i + 4])
        shorter = index.place(sentence[:cut] + sentence[cut + 3 :])  # 3 deletions
        assert shorter.found and shorter.ori == pytest.approx(1.0 - 3 / (near_limit(sentence) + 1))
        mangled = sentence[:10] + "#####" + sentence[15:]  # 5 edits: past any near-miss limit
        assert index.place(mangled).found is (mangled in _plain_sentences(example.context))
