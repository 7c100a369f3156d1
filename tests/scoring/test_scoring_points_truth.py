"""Every rubric point of the recall scorer is true of the output, on real examples of every
recall task: outputs holding unasked values taken from the prompt, values made up, and
values repeated, checked against what the test wrote into them.

The invariants each point claims:
- "all requested values present" earns (asked values in the output) / (asked values),
  and names the asked values the output lacks;
- "no values that were not asked for" earns (asked values) / (distinct values given),
  names every unasked value, and says which of them are not words (or values) of the
  prompt at all; it earns 1.0 only when every value given was asked for;
- "each value given once" earns (distinct values) / (values given, repeats included),
  and names every repeated value with its count; 1.0 only when nothing is repeated.
The score itself stays the benchmark's metric, whatever the points say.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache

import pytest

from lctui.core.types import Example, RubricPoint, Score
from lctui.scoring import score_example
from lctui.scoring.metrics import DEFAULT_ANSWER_PREFIX, answer_metrics, string_match_all
from lctui.scoring.recall import POINT_ALL_PRESENT, POINT_NO_SPURIOUS, POINT_ONCE
from lctui.tasks import all_tasks, get_task
from lctui.tasks.tokenizers import reference_tokenizer

# RAG's and RULER QA's answers are free text (their value pattern matches only the
# accepted answers), so no made-up value of their kind exists;
# tests/tasks/test_tasks_helmet_rag.py and tests/parity/test_ruler_qa_structure.py score them.
# Re-ranking has its own scorer (helmet_rerank, tests/scoring/test_scoring_helmet_real.py),
# and so have long-document QA (helmet_rouge, helmet_mc; tests/tasks/test_tasks_helmet_longqa.py)
# summarization (helmet_rouge, tests/tasks/test_tasks_helmet_summ.py)
# and the citation tasks (tests/tasks/test_tasks_helmet_cite.py), and LongBench v2
# (longbench, tests/scoring/test_scoring_longbench.py).
RECALL_TASKS = [
    t.name
    for t in all_tasks()
    if t.suite not in ("lifbench", "longbench")
    and t.category not in ("rag", "qa", "rerank", "longqa", "summ", "cite", "icl")
]
LENGTH = 2048


@cache
def real_example(name: str) -> Example:
    tokenizer = reference_tokenizer("o200k_base")
    example = get_task(name).generate(LENGTH, seed=0, index=0, tokenizer=tokenizer)
    assert example.metadata["scorer"] == "recall"
    return example


def _rotate(char: str, shift: int) -> str:
    """`char` moved `shift` places within its class, so a value keeps its form."""
    for alphabet in (
        "0123456789",
        "abcdef",
        "ghijklmnopqrstuvwxyz",
        "ABCDEF",
        "GHIJKLMNOPQRSTUVWXYZ",
    ):
        if char in alphabet:
            return alphabet[(alphabet.index(char) + shift) % len(alphabet)]
    return char


def _of_the_kind(example: Example, value: str) -> bool:
    pattern = example.metadata.get("value_pattern")
    return pattern is None or re.fullmatch(pattern, value) is not None


def made_up_value(example: Example) -> str:
    """A value of the task's form that occurs nowhere in the prompt."""
    prompt = (example.user_text + example.answer_prefix).lower()
    for shift in range(1, 10):
        value = "".join(_rotate(c, shift) for c in example.gold[0])
        if value.lower() not in prompt and _of_the_kind(example, value):
            return value
    raise AssertionError(f"no made-up value for {example.task}")


def asking(example: Example) -> str:
    """The part of the question that asks (json_kv's question also holds solved lookups)."""
    asked = example.metadata.get("asked_text")
    return asked if isinstance(asked, str) else example.question


def unasked_value(example: Example, where: str) -> str | None:
    """A value of the task's kind that the prompt holds but the question does not ask
    for, or None: from the context (a distractor, another word of the list) or from the
    instructions (the solved example's answer, a word of the preamble, a value of
    json_kv's solved lookups after the context)."""
    golds = {g.lower() for g in example.gold}
    asked_text = (asking(example) + example.answer_prefix).lower()
    candidates = example.metadata.get("candidates")
    solved_lookups = example.question.replace(asking(example), "")
    text = example.context if where == "context" else example.preamble + solved_lookups
    solved = re.search(r"Answer: (.*)", text)
    if where != "context" and solved is not None:
        text = solved.group(1)  # the solved example's answer, the likeliest to be copied
    if candidates is not None:
        known = {w.lower() for w in candidates}
        words = candidates if where == "context" else re.findall(r"[^\W\d_]+", text)
        found = [w for w in words if where == "context" or w.lower() not in known]
    else:
        found = [m.group() for m in re.finditer(example.metadata["value_pattern"], text)]
        if where != "context":
            found = [v for v in found if v not in example.context]
    found = [v for v in found if v.lower() not in golds and v.lower() not in asked_text]
    return found[0] if found else None


@dataclass(frozen=True)
class Written:
    """What the test put into an output: asked values, unasked ones, and how often each."""

    entries: tuple[str, ...]
    golds: tuple[str, ...]

    @property
    def distinct(self) -> list[str]:
        return list(dict.fromkeys(e.lower() for e in self.entries))

    @property
    def spurious(self) -> list[str]:
        asked = {g.lower() for g in self.golds}
        return [e for e in self.distinct if e not in asked]

    @property
    def repeated(self) -> dict[str, int]:
        counts = {e: [x.lower() for x in self.entries].count(e) for e in self.distinct}
        return {e: n for e, n in counts.items() if n > 1}


KINDS = ["from the context", "from the instructions", "made up", "repeated", "all kinds"]


def written(example: Example, kind: str) -> Written | None:
    golds = list(dict.fromkeys(example.gold))
    # One asked value left out where there are several, so "missing" is exercised too.
    asked = golds[: max(1, len(golds) - 1)]
    if kind.startswith("from the "):
        other = unasked_value(example, kind.removeprefix("from the "))
        if other is None:
            return None
        entries = [*asked, other]
    elif kind == "made up":
        entries = [*asked, made_up_value(example)]
    elif kind == "repeated":
        entries = [*asked, asked[0], asked[0]]
    else:  # every kind at once, the made-up value repeated, as in issue 15's cwe output
        others = [unasked_value(example, where) for where in ("context", "instructions")]
        made_up = made_up_value(example)
        entries = [*asked, *[o for o in others if o], made_up, made_up, made_up]
    return Written(tuple(entries), tuple(example.gold))


Format = Callable[[Sequence[str], Example], str]
FORMATS: dict[str, Format] = {
    "bare list": lambda entries, _: ", ".join(entries),
    "sentence": lambda entries, _: f"The answer is: {', '.join(entries)}.",
    "numbered lines": lambda entries, _: "\n".join(f"{i}. {e}" for i, e in enumerate(entries, 1)),
    # The question repeated first: its key (json_kv, niah_multikey_3) is an echo, not an
    # unasked value, and its words are no answer. (json_kv's question also holds solved
    # lookups: only its asking part is repeated, their values would be unasked ones.)
    "after the question": lambda entries, ex: f"{asking(ex).strip()}\n{', '.join(entries)}",
}


def point(score: Score, name: str) -> RubricPoint:
    return next(p for p in score.points if p.name == name)


def assert_points_are_true(example: Example, output: str, truth: Written, score: Score) -> None:
    golds = list(dict.fromkeys(g.lower() for g in example.gold))
    given = truth.distinct
    noun = "word" if "candidates" in example.metadata else "value"

    present = point(score, POINT_ALL_PRESENT)
    found = [g for g in golds if g in given]
    missing = [g for g in example.gold if g.lower() not in given]
    assert present.earned == pytest.approx(len(found) / len(golds))
    for gold in missing[:5]:
        assert gold in present.explanation
    if not missing:
        assert "missing" not in present.explanation

    no_spurious = point(score, POINT_NO_SPURIOUS)
    spurious = truth.spurious
    assert no_spurious.earned == pytest.approx((len(given) - len(spurious)) / len(given))
    text = no_spurious.explanation.lower()
    if spurious:
        assert no_spurious.earned < 1.0
        assert f"output lists {len(spurious)} {noun}" in text
        listed = text.split(": ", 1)[1]
        for value in spurious:
            assert value in listed
        prompt = (example.user_text + example.answer_prefix).lower()
        invented = [v for v in spurious if v not in prompt]
        if invented and len(invented) < len(spurious):
            tail = text.split(" of the prompt: ", 1)[1]
            assert all(v in tail for v in invented)
            assert not any(v in tail for v in spurious if v not in invented)
        elif len(invented) == 1:
            assert text.endswith(f"; it is not a {noun} of the prompt")
        elif invented:
            assert text.endswith(f"; none of them is a {noun} of the prompt")
        else:
            assert "prompt" not in text
    else:
        assert no_spurious.earned == 1.0
        assert no_spurious.explanation == f"every {noun} the output gives was asked for"

    once = point(score, POINT_ONCE)
    assert once.earned == pytest.approx(len(given) / len(truth.entries))
    if truth.repeated:
        assert once.earned < 1.0
        for value, count in truth.repeated.items():
            assert f"{value} ({count} times)" in once.explanation.lower()
    else:
        assert once.earned == 1.0
        assert "more than once" not in once.explanation

    # The score stays the benchmark's metric, whatever the points say.
    metric = example.metadata["metric"]
    expected = string_match_all(output, example.gold) if metric == "string_match_all" else None
    if metric == "subem":
        # HELMET's SubEM of the output after the pre-filled answer prefix.
        prefix = example.answer_prefix
        scored = answer_metrics(prefix + output, example.gold, prefix or DEFAULT_ANSWER_PREFIX)
        expected = scored.substring_exact_match
    assert score.value == expected
    assert ("not asked for" in score.explanation) == bool(spurious)
    assert ("more than once" in score.explanation) == bool(truth.repeated)


def _cases() -> list[tuple[str, str]]:
    """(task, kind) pairs whose prompt has a value of that kind to put in the output
    (niah_single's context holds no distractor, for one): only those are collected,
    rather than collected and skipped."""
    return [(t, k) for t in RECALL_TASKS for k in KINDS if written(real_example(t), k)]


CASES = _cases()


def test_every_task_is_checked_with_made_up_repeated_and_mixed_values() -> None:
    for task in RECALL_TASKS:
        kinds = {k for t, k in CASES if t == task}
        assert {"made up", "repeated", "all kinds"} <= kinds, task
    assert {k for _, k in CASES} == set(KINDS)


@pytest.mark.parametrize("fmt", list(FORMATS))
@pytest.mark.parametrize(("task", "kind"), CASES)
def test_every_point_is_true_of_an_output_with_unasked_values(
    task: str, kind: str, fmt: str
) -> None:
    example = real_example(task)
    truth = written(example, kind)
    assert truth is not None
    output = FORMATS[fmt](truth.entries, example)
    score = score_example(example, output)
    assert_points_are_true(example, output, truth, score)


@pytest.mark.parametrize("task", RECALL_TASKS)
def test_the_gold_answer_earns_every_point(task: str) -> None:
    example = real_example(task)
    output = ", ".join(example.gold)
    score = score_example(example, output)
    assert score.value == 1.0
    assert all(p.earned == 1.0 for p in score.points), score.points
    assert_points_are_true(example, output, Written(example.gold, example.gold), score)


def test_issue_15_cwe_output_with_three_unasked_words() -> None:
    """The cwe output of issue 15: a word of the solved example, one asked word, two words
    the prompt never holds, the last repeated until the answer ran out."""
    example = get_task("cwe").generate(
        1024, seed=0, index=0, tokenizer=reference_tokenizer("o200k_base")
    )
    # The solved example's answer: its answer prefix, then its numbered words.
    demo = re.search(re.escape(example.answer_prefix) + r" 1\. (\S+) 2\. ", example.preamble)
    assert demo is not None
    demo_word = demo.group(1)
    assert demo_word not in example.metadata["candidates"]  # in the prompt, not the list
    prompt = example.user_text.lower()
    assert "pursuit" not in prompt and "fliers" not in prompt
    output = " " + ", ".join([demo_word, example.gold[0], "pursuit", *["fliers"] * 38])

    score = score_example(example, output)

    assert score.value == pytest.approx(0.1)  # string_match_all, as RULER computes it
    assert point(score, POINT_ALL_PRESENT).earned == pytest.approx(0.1)
    no_spurious = point(score, POINT_NO_SPURIOUS)
    assert no_spurious.earned == pytest.approx(1 / 4)
    assert no_spurious.explanation == (
        f"output lists 3 words that were not asked for: {demo_word}, pursuit, fliers; "
        "2 of them are not words of the prompt: pursuit, fliers"
    )
    once = point(score, POINT_ONCE)
    assert once.earned == pytest.approx(4 / 41)
    assert once.explanation == "output gives 1 word more than once: fliers (38 times)"
    assert "also lists 3 words not asked for" in score.explanation
    assert "no other words" not in score.explanation
