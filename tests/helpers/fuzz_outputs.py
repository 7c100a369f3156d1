"""What a model may write, as hypothesis strategies, and what every score of it must satisfy.

Shared by tests/scoring/test_scoring_fuzz.py (a few dozen outputs per task, in CI) and
bench/fuzz_scorers.py (100,000 outputs, run by hand). An output mixes junk (unicode of
every plane, lone surrogates, control characters, backslash escapes, number literals
JSON cannot hold) with the example's own material (its gold, reference answer,
metadata strings, context lines and sentences, values of its value pattern), often
changed by one edit, and arranged in the task's own answer formats: so the scorers'
deeper branches run (placing near misses, reading labels, JSON lists), not only their
"nothing found" path. Large outputs are runs that make patterns backtrack (spaces,
`a`, newlines, colons, the task's separators), nesting to 100,000 levels, and any
output repeated to 1 MB.
"""

from __future__ import annotations

import json
import math
import os
import re
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from hypothesis import strategies as st
from hypothesis.configuration import set_hypothesis_home_dir

from lctui.backends.gold import reference_answer
from lctui.core.types import Example, Score, ScoreStatus
from lctui.scoring import SCORER_FAILURE, score_example, scorer_of
from lctui.scoring.judge import JudgePrompt, judge_score, parse_reply
from lctui.scoring.rubric import weighted_fraction
from lctui.suites.lifbench.scoring.point_specs import LIFEVAL_TASKS
from lctui.suites.lifbench.tasks.onedoc_context import ALL_TYPES
from lctui.tasks import all_tasks, get_task
from lctui.tasks.tokenizers import reference_tokenizer

# Hypothesis keeps caches (and, unless a test disables it, its example database) in
# ./.hypothesis; they go to the temp folder, never into the repository.
if "HYPOTHESIS_STORAGE_DIRECTORY" not in os.environ:
    set_hypothesis_home_dir(Path(tempfile.gettempdir()) / "lctui-hypothesis")

ONE_MB = 1_000_000
SYNTHETIC_LENGTH = 2048
LIFBENCH_LENGTH = 3 * 1024  # LIFBench's shortest interval, "3K"
TASKS = tuple(task.name for task in all_tasks())

# -- the examples ----------------------------------------------------------------------


@cache
def example_of(task: str) -> Example:
    """A real example of `task`, built once per process with the o200k_base tokenizer."""
    spec = get_task(task)
    length = LIFBENCH_LENGTH if spec.suite == "lifbench" else SYNTHETIC_LENGTH
    return spec.generate(length, 0, 0, reference_tokenizer("o200k_base"))


# -- junk ------------------------------------------------------------------------------

ANY_CHAR = st.characters(codec=None)  # every plane, no surrogates (hypothesis's default)
SURROGATE = st.characters(categories=["Cs"])  # lone surrogates: a Python str can hold them
CONTROL = st.characters(categories=["Cc", "Cf", "Zs", "Zl", "Zp"])
JUNK = st.one_of(
    st.text(ANY_CHAR, max_size=40),
    st.text(st.one_of(ANY_CHAR, SURROGATE), max_size=20),
    st.text(CONTROL, max_size=20),
)
# Escapes a scorer that decodes backslash escapes (as LIFEval's original does) trips on.
ESCAPES = ("\\", "\\x", "\\x4", "\\N", "\\N{", "\\N{BOGUS}", "\\u12", "\\U0011ffff", "\\ud800")
# Numbers JSON can write but a float or an int cannot hold (or only with a limit).
NUMBERS = (
    "NaN",
    "-NaN",
    "Infinity",
    "-Infinity",
    "1e999",
    "-1e999",
    "1e-999",
    "0.0000000000000000000000000001",
    "123456789012345678901234567890",
    "9" * 5_000,  # over int()'s 4,300-digit limit
    "-" + "9" * 5_000,
    "1" + "0" * 400 + ".5",
    "2/3",
    "3.0",
    "-1",
    "1e5",
)
# Marks of answer formats of every task: cues, fences, list and label syntax.
MARKS = (
    "Answer:",
    "Output:",
    "```",
    "```json\n",
    "\n```",
    "[",
    "]",
    "{",
    "}",
    '"',
    "'",
    ", ",
    ",",
    ": ",
    ":",
    " | ",
    "|",
    "\n",
    "\r\n",
    "\t",
    "1. ",
    "- ",
    "* ",
    "doc1: ",
    "doc0: ",
    "doc" + "1" * 5_000 + ": ",
    "None",
    "null",
    "NONE",
    "yes",
    "no",
    "True",
    "False",
    "and",
    " (38 times)",
    *(f"<{kind}-1>" for kind in ALL_TYPES),
    *(f"</{kind}-1>" for kind in ALL_TYPES),
    *(f"{kind} | " for kind in ALL_TYPES),
)
# Runs that make a backtracking pattern take quadratic (or worse) time.
RUN_PIECES = (
    " ",
    "a",
    "\n",
    ":",
    "\t",
    "[",
    "{",
    "]",
    "}",
    '"',
    "\\",
    '\\"',
    "-",
    ".",
    ",",
    "0",
    "\u3000",
    "\x00",
    "doc1: ",
    "<Topic-1>",
    "</Topic-1>",
    "```",
    "Answer: ",
    "1. ",
    '{"a": ',
    '{"k":1,',
    "[[",
    "yes ",
    "fluency: 1 ",
)
RUN_LENGTHS = (100, 1_000, 10_000, 100_000)
DEPTHS = (2, 3, 63, 64, 65, 200, 1_000, 100_000)
OPENERS = ("[", "{", '{"a": ', '{"doc1": ', '["', "[{", '[["')


def to_size(text: str, size: int) -> str:
    """`text` repeated (or cut) to exactly `size` characters."""
    text = text or "x"
    return (text * (size // len(text) + 1))[:size]


def _run(head: str, piece: str, count: int, tail: str) -> str:
    return head + piece * min(count, ONE_MB // max(1, len(piece))) + tail


def _nested(opener: str, depth: int, inner: str, closed: bool) -> str:
    closer = "".join({"[": "]", "{": "}"}.get(c, "") for c in reversed(opener))
    return opener * depth + inner + (closer * depth if closed else closer * (depth // 2))


# -- the example's own material ------------------------------------------------------------


@dataclass(frozen=True)
class Material:
    """Pieces of one example that answers to it are made of."""

    pieces: tuple[str, ...]  # gold, reference answer, metadata strings, question words
    context: tuple[str, ...]  # lines and sentences of the context
    marks: tuple[str, ...]  # the task's own format marks (separator, labels, tags)
    value_pattern: str | None  # the regex of the task's answer values


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        yield str(value)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _strings(item)


def _distinct(texts: Iterator[str] | Sequence[str], limit: int) -> tuple[str, ...]:
    kept = dict.fromkeys(t[:500] for t in texts if t.strip())
    return tuple(kept)[:limit] or ("x",)


def material_of(example: Example) -> Material:
    meta = example.metadata
    skip = {"scorer", "metric", "context_key", "gold_mode", "scenario", "value_pattern"}
    own = [value for key, value in meta.items() if key not in skip]
    pieces = _distinct(
        [
            *example.gold,
            reference_answer(example),
            *_strings(own),
            *re.findall(r"[\w-]+", example.question + " " + example.answer_prefix),
        ],
        400,
    )
    lines = example.context.splitlines()
    sentences = re.split(r"(?<=[.!?])\s+", example.context)
    context = _distinct([*lines, *sentences], 300)
    separator = meta.get("separator")
    marks = [str(separator)] if isinstance(separator, str) else []
    marks += [f"doc{i}: " for i in range(int(meta.get("n_docs", 0) or 0) + 2)]
    marks += [f"<{kind}-{i}>" for kind in ALL_TYPES for i in (1, 2, 5)]
    pattern = meta.get("value_pattern")
    return Material(
        pieces,
        context,
        _distinct(marks, 100),
        pattern if isinstance(pattern, str) else None,
    )


# -- outputs -------------------------------------------------------------------------------

_EDITS: tuple[Callable[[str, int], str], ...] = (
    lambda s, i: s[:i] + s[i + 1 :],  # a character dropped
    lambda s, i: s[:i] + "#" + s[i + 1 :],  # one replaced
    lambda s, i: s[:i] + s[i : i + 1] * 2 + s[i + 1 :],  # one doubled
    lambda s, i: s[:i] + " " + s[i:],  # a space inserted
    lambda s, i: s.swapcase(),
    lambda s, i: s.upper(),
    lambda s, i: s.lower(),
    lambda s, i: s[1:],
    lambda s, i: s[:-1],
    lambda s, i: s.replace(" ", "\u00a0"),
    lambda s, i: s.replace("-", "\u2013"),
    lambda s, i: s + s,
)


def _mutate(text: str, edit: int, at: int) -> str:
    return _EDITS[edit](text, at % max(1, len(text)))


def _mutated(texts: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.builds(_mutate, texts, st.integers(0, len(_EDITS) - 1), st.integers(0, 1_000))


def _json_string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _raw_json(leaves: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """JSON-looking text: numbers no float holds, keys and strings of the example."""
    keys = st.one_of(
        st.sampled_from(("doc1", "doc2", "doc" + "1" * 5_000, "id", "type", "text", "supported")),
        leaves,
    )
    scalar = st.one_of(
        leaves.map(_json_string),
        st.sampled_from(NUMBERS),
        st.sampled_from(("null", "true", "false", '""', "None")),
        leaves,  # not quoted: invalid JSON
    )

    def extend(kids: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        sep = st.sampled_from((", ", ",", ",\n", " "))
        items = st.lists(kids, max_size=6)
        pairs = st.lists(st.tuples(keys.map(_json_string), kids), max_size=6)
        return st.one_of(
            st.builds(lambda s, xs: "[" + s.join(xs) + "]", sep, items),
            st.builds(lambda s, ps: "{" + s.join(f"{k}: {v}" for k, v in ps) + "}", sep, pairs),
        )

    return st.recursive(scalar, extend, max_leaves=20)


def _real_json(leaves: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """json.dumps of values with NaN, infinities, huge integers and the example's strings."""
    scalar = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.integers(min_value=10**300, max_value=10**400),
        st.floats(allow_nan=True, allow_infinity=True),
        leaves,
    )
    values = st.recursive(
        scalar,
        lambda kids: st.one_of(
            st.lists(kids, max_size=6),
            st.dictionaries(st.one_of(st.text(max_size=8), leaves), kids),
        ),
        max_leaves=20,
    )
    return st.builds(
        lambda v, indent, ascii_only: json.dumps(v, indent=indent, ensure_ascii=ascii_only),
        values,
        st.sampled_from((None, 0, 2)),
        st.booleans(),
    )


# An answer's items, written in the formats the tasks ask for (and their near misses).
_FORMATS: tuple[Callable[[list[str]], str], ...] = (
    lambda xs: json.dumps(xs),
    lambda xs: json.dumps(xs, ensure_ascii=False, indent=2),
    lambda xs: "\n".join(json.dumps(xs[i : i + 2]) for i in range(0, len(xs), 2)),
    lambda xs: json.dumps([xs[i : i + 3] for i in range(0, len(xs), 3)]),
    lambda xs: ", ".join(xs),
    lambda xs: "\n".join(xs),
    lambda xs: "\n".join(f"{i}. {x}" for i, x in enumerate(xs, 1)),
    lambda xs: "\n".join(f"- {x}" for x in xs),
    lambda xs: "[" + ", ".join(xs) + "]",
    lambda xs: "\n".join('"' + x + '"' for x in xs),
    lambda xs: "\n".join(f"doc{i}: {x}" for i, x in enumerate(xs, 1)),
    lambda xs: json.dumps({f"doc{i}": x for i, x in enumerate(xs, 1)}),
    lambda xs: "\n".join(f"{ALL_TYPES[i % len(ALL_TYPES)]} | {x}" for i, x in enumerate(xs)),
    lambda xs: "".join(f"<Topic-{i}>{x}</Topic-{i}>" for i, x in enumerate(xs, 1)),
    lambda xs: " and ".join(xs),
)
_WRAPS = (
    ("", ""),
    ("Answer: ", ""),
    ("Output:\n", ""),
    ("```json\n", "\n```"),
    ("```\n", "```"),
    ("Sure! Here is the answer:\n", "\nI hope this helps."),
    ("", "."),
    ('"', '"'),
    ("[", "]"),
)


def outputs(example: Example, *, small_per_large: int = 2) -> st.SearchStrategy[str]:
    """Outputs for `example`: `small_per_large` kinds of small ones for each kind of large.

    The tests draw large outputs often (they are where scorers hang); the bench draws
    them rarely, so that 100,000 outputs run in minutes.
    """
    m = material_of(example)
    piece = st.sampled_from(m.pieces)
    own = [piece, _mutated(piece), st.sampled_from(m.context), _mutated(st.sampled_from(m.context))]
    if m.value_pattern is not None:
        own.append(st.from_regex(m.value_pattern, fullmatch=True))
    material = st.one_of(*own)
    marks = st.sampled_from(m.marks + MARKS)
    fragment = st.one_of(
        material,
        material,
        marks,
        JUNK,
        st.sampled_from(ESCAPES),
        st.sampled_from(NUMBERS),
    )
    answer = st.builds(
        lambda fmt, xs, wrap: wrap[0] + fmt(xs) + wrap[1],
        st.sampled_from(_FORMATS),
        st.lists(st.one_of(material, material, fragment), max_size=12),
        st.sampled_from(_WRAPS),
    )
    json_text = st.one_of(_raw_json(material), _real_json(material))
    small_nesting = st.builds(
        _nested, st.sampled_from(OPENERS), st.integers(1, 70), st.one_of(material, answer),
        st.booleans(),
    )  # fmt: skip
    body = st.lists(
        st.one_of(fragment, fragment, answer, json_text, small_nesting), max_size=6
    ).map("".join)
    small = st.one_of(body, answer, json_text)
    head_or_tail = st.one_of(st.just(""), fragment, answer)
    runs = st.builds(
        _run,
        head_or_tail,
        st.one_of(st.sampled_from(RUN_PIECES), marks, piece),
        st.sampled_from(RUN_LENGTHS),
        head_or_tail,
    )
    nesting = st.builds(
        _nested,
        st.sampled_from(OPENERS),
        st.sampled_from(DEPTHS),
        st.one_of(st.just(""), material, answer),
        st.booleans(),
    )
    big = st.builds(to_size, st.one_of(small, material), st.sampled_from((100_000, ONE_MB)))
    large = st.one_of(runs, nesting, big)
    return st.one_of(*([small] * small_per_large), large)


# -- the properties --------------------------------------------------------------------------


def _value_ceiling(example: Example, score: Score) -> float:
    """1, or more where a LIFEval point may earn beyond its weight (see lifeval/point_specs.py)."""
    task = LIFEVAL_TASKS.get(str(example.metadata.get("lifeval_task")))
    unbounded = {p.name for p in task.points if not p.bounded} if task else set()
    if not unbounded or not score.points:
        return 1.0
    return max(1.0, weighted_fraction(score.points))


def score_problems(example: Example, score: Score) -> list[str]:
    """What is wrong with a score of a model's output (empty when nothing is)."""
    problems = []
    if SCORER_FAILURE in score.extras:
        problems.append(f"the scorer raised: {score.extras[SCORER_FAILURE]}")
    if score.status not in (ScoreStatus.OK, ScoreStatus.UNPARSED):
        problems.append(f"status {score.status.value} (an output scores ok or unparsed)")
    value = score.value
    ceiling = _value_ceiling(example, score)
    if value is None or not math.isfinite(value) or not 0.0 <= value <= ceiling:
        problems.append(f"value {value!r} outside [0, {ceiling:g}]")
    task = LIFEVAL_TASKS.get(str(example.metadata.get("lifeval_task")))
    unbounded = {p.name for p in task.points if not p.bounded} if task else set()
    for p in score.points:
        high = math.inf if p.name in unbounded else 1.0
        if not math.isfinite(p.earned) or not 0.0 <= p.earned <= high:
            problems.append(f"point {p.name!r} earned {p.earned!r} outside [0, {high:g}]")
    return problems


def score_output(example: Example, output: str) -> Score:
    """score_example, raising what the scorer raised where score_example would fall back.

    score_example turns a scorer's exception into an unparsed 0; a fuzzer wants the
    exception itself (its traceback names the line), so the scorer is run again bare.
    """
    score = score_example(example, output)
    if SCORER_FAILURE in score.extras:
        scorer_of(example)[1](example, output)  # raises the same exception, with traceback
    return score


# -- judge replies ---------------------------------------------------------------------------

JUDGE_NAMES = (
    "fluency",
    "correctness",
    "points",
    "key_points",
    "sentences",
    "verdicts",
    "supported",
    "verdict",
    "id",
    "reason",
    "point 1",
    "point 2",
    "sentence 1",
    "1",
    "2",
    "3",
    "point " + "1" * 5_000,
    "1" * 5_000,
)
JUDGE_VALUES = (
    "0",
    "1",
    "2",
    "3",
    "4",
    "-1",
    "2/3",
    "2 / 3",
    "1.0",
    "true",
    "false",
    "yes",
    "no",
    "supported",
    "not supported",
    "y",
    "n",
    "null",
    "٣",
    "\U0001d7d0",
    *NUMBERS,
)


def judge_replies(small_per_large: int = 2) -> st.SearchStrategy[str]:
    """Replies a judge model may write: its JSON shapes and `name: value` lines, broken."""
    names = st.sampled_from(JUDGE_NAMES)
    values = st.sampled_from(JUDGE_VALUES)
    leaves = st.one_of(names, values, st.text(max_size=20))
    entry = st.builds(
        lambda ident, verdict, reason: (
            f'{{"id": {ident}, "supported": {verdict}, "reason": {_json_string(reason)}}}'
        ),
        values,
        values,
        st.text(max_size=20),
    )
    entries = st.builds(
        lambda key, xs, fluency: f'{{"fluency": {fluency}, "{key}": [' + ", ".join(xs) + "]}",
        st.sampled_from(("points", "sentences", "verdicts", "key_points")),
        st.lists(entry, max_size=5),
        values,
    )
    grades = st.builds(
        lambda f, c, r: f'{{"reason": {_json_string(r)}, "fluency": {f}, "correctness": {c}}}',
        values,
        values,
        st.text(max_size=30),
    )
    line = st.builds(
        lambda prefix, name, sep, value: f"{prefix}{name}{sep}{value}",
        st.sampled_from(("", "- ", "* ", "## ", "> ", '"')),
        names,
        st.sampled_from((": ", ":", " = ", ":\n", ":   \n\n")),
        values,
    )
    lines = st.lists(line, max_size=8).map("\n".join)
    fragment = st.one_of(
        JUNK, names, values, st.sampled_from(MARKS), st.sampled_from(ESCAPES), entries, grades
    )
    json_text = st.one_of(_raw_json(leaves), _real_json(leaves))
    body = st.lists(st.one_of(fragment, lines, json_text), max_size=6).map("".join)
    small = st.one_of(body, entries, grades, lines, json_text)
    runs = st.builds(
        _run,
        st.one_of(st.just(""), fragment),
        st.one_of(st.sampled_from(RUN_PIECES), names, values),
        st.sampled_from(RUN_LENGTHS),
        st.one_of(st.just(""), fragment),
    )
    nesting = st.builds(
        _nested, st.sampled_from(OPENERS), st.sampled_from(DEPTHS), st.one_of(small, values),
        st.booleans(),
    )  # fmt: skip
    big = st.builds(to_size, small, st.sampled_from((100_000, ONE_MB)))
    return st.one_of(*([small] * small_per_large), runs, nesting, big)


def verdict_problems(prompt: JudgePrompt, verdict: dict[str, Any] | None) -> list[str]:
    """What is wrong with parse_reply's reading (None, a refusal to guess, is fine)."""
    if verdict is None:
        return []
    problems = []
    if prompt.items == 0:
        if verdict.get("fluency") not in (0, 1):
            problems.append(f"fluency {verdict.get('fluency')!r} is not 0 or 1")
        if verdict.get("correctness") not in (0, 1, 2, 3):
            problems.append(f"correctness {verdict.get('correctness')!r} is not 0 to 3")
        return problems
    verdicts = verdict.get("verdicts")
    if not isinstance(verdicts, list) or len(verdicts) != prompt.items:
        problems.append(f"{prompt.items} verdicts expected, got {verdicts!r:.200}")
    elif not all(isinstance(v.get("supported"), bool) for v in verdicts):
        problems.append(f"a verdict that is not true or false: {verdicts!r:.200}")
    if "fluency" in verdict and verdict["fluency"] not in (0, 1):
        problems.append(f"fluency {verdict['fluency']!r} is not 0 or 1")
    return problems


__all__ = [
    "TASKS",
    "Material",
    "example_of",
    "judge_replies",
    "judge_score",
    "material_of",
    "outputs",
    "parse_reply",
    "score_output",
    "score_problems",
    "to_size",
    "verdict_problems",
]
