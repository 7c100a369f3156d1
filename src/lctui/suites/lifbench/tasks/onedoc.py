"""The three OneDoc tasks of LIFBench (repeat, extract, qa) with our own wordings.

The variable spaces are the original's: repeat asks for `num` key sentences (1, 2,
4, 6 or 8) written as "sentence <sep> type" with one of its five separators;
extract asks for the key sentences of one of the six types as a JSON list (an empty
one for the absent type); qa asks whether a sentence is a key sentence, answering
with one of five option pairs (option 0 means "it is"), about a key sentence, a
fake one or an untagged one, two of each per six samples, the option pairs rotated
over them. Example `index` uses expression `index % E` and variable sample
`(index // E) % V`, as the List tasks do; which sentence qa asks about is drawn with
the example's seed, as the original samples it.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from lctui.core.protocols import Tokenizer
from lctui.core.types import Span
from lctui.suites.lifbench.tasks.onedoc_context import (
    ABSENT_TYPE,
    ALL_TYPES,
    SCENARIO_DESCRIPTION,
    DocLayout,
    Tagged,
    build_onedoc,
    doc_stream,
)
from lctui.suites.lifbench.tasks.shared import RULES_PARAM, LifbenchTask
from lctui.tasks.base import Draft, Task
from lctui.tasks.budget import Budget
from lctui.tasks.haystack import realized_depth

# repeat's separators and counts, and qa's option pairs: the original's values (its
# scorer's rules depend on them: separators are counted in the output, options are
# matched as case-sensitive substrings).
REPEAT_SEPARATORS: tuple[str, ...] = ("###", "-12367-", "|||||", "#stop#", "[sep]")
REPEAT_COUNTS: tuple[int, ...] = (1, 2, 4, 6, 8)
QA_OPTIONS: tuple[tuple[str, str], ...] = (
    ("True", "False"), ("Yes", "No"), ("False", "True"), ("apple", "APPLE"), ("12345", "12346"),
)  # fmt: skip
QA_KINDS: tuple[str, ...] = ("key", "key", "fake", "fake", "plain", "plain")


@dataclass(frozen=True)
class Answer:
    """The reference output of an example, its gold values and what the scorer needs."""

    reference: str
    gold: tuple[str, ...]
    metadata: Mapping[str, Any]
    focus: tuple[Tagged, ...] = ()  # the tagged sentences the answer quotes
    probe: str | None = None  # where the untagged sentence asked about sits, if one is


@dataclass(frozen=True)
class Plan:
    """How one variable sample shapes the question and the answer."""

    question: Callable[[DocLayout], str]
    answer: Callable[[DocLayout], Answer]


Planner = Callable[[str, Mapping[str, Any], random.Random], Plan]


@dataclass(frozen=True)
class OneDocSpec:
    """One OneDoc task: its LIFEval name, wordings, variable samples and planner."""

    name: str
    description: str
    expressions: tuple[str, ...]
    variables: tuple[Mapping[str, Any], ...]
    planner: Planner = field(repr=False)


def _tagged_meta(tagged: Sequence[Tagged]) -> list[dict[str, Any]]:
    return [{"id": t.id, "type": t.type, "tail": t.tail, "text": t.text} for t in tagged]


def _repeat_plan(template: str, sample: Mapping[str, Any], rng: random.Random) -> Plan:
    num, sep = int(sample["num"]), str(sample["sep"])
    lines = "line" if num == 1 else f"{num} lines"
    fmt = (
        f"Write {lines}, each with one key sentence, then {sep}, then its type, like "
        f"this: The text of the sentence. {sep} #Topic#"
    )
    fields = {"num": num, "sentences": "sentence" if num == 1 else "sentences", "fmt": fmt}

    def answer(layout: DocLayout) -> Answer:
        chosen = layout.keys[:num]
        extra = {"num": num, "sep": sep, "expected_ids": [t.id for t in chosen]}
        return Answer(
            "\n".join(f"{t.text} {sep} {t.type}" for t in chosen),
            tuple(t.text for t in chosen),
            extra,
            chosen,
        )

    return Plan(lambda _: template.format(**fields), answer)


def _extract_plan(template: str, sample: Mapping[str, Any], rng: random.Random) -> Plan:
    kind = str(sample["type"])

    def answer(layout: DocLayout) -> Answer:
        chosen = layout.of_type(kind)
        texts = [t.text for t in chosen]
        extra = {"type": kind, "expected_ids": [t.id for t in chosen]}
        return Answer(json.dumps(texts), tuple(texts) or ("[]",), extra, chosen)

    return Plan(lambda _: template.format(type=kind), answer)


def _qa_pick(layout: DocLayout, ask: str, rng: random.Random) -> tuple[str, Tagged | None, str]:
    """(sentence asked about, its tagged sentence or None, the probe's place or "")."""
    if ask == "plain":
        at = rng.choice(sorted(layout.probes))
        return layout.probes[at], None, at
    tagged = rng.choice(layout.keys if ask == "key" else layout.fakes)
    return tagged.text, tagged, ""


def _qa_plan(template: str, sample: Mapping[str, Any], rng: random.Random) -> Plan:
    ask = str(sample["ask"])
    yes, no = (str(w) for w in sample["options"])
    fmt = f'Answer "{yes}" if it is a key sentence and "{no}" if it is not.'
    picked: list[tuple[str, Tagged | None, str]] = []

    def pick(layout: DocLayout) -> tuple[str, Tagged | None, str]:
        # Drawn once: the question and the answer name the same sentence.
        if not picked:
            picked.append(_qa_pick(layout, ask, rng))
        return picked[0]

    def question(layout: DocLayout) -> str:
        return template.format(sentence=pick(layout)[0], fmt=fmt)

    def answer(layout: DocLayout) -> Answer:
        sentence, tagged, at = pick(layout)
        word = yes if ask == "key" else no
        extra = {"options": [yes, no], "ask": ask, "evidence": sentence, "expected": word}
        if at:
            extra["at"] = at
        return Answer(word, (word,), extra, (tagged,) if tagged else (), at or None)

    return Plan(question, answer)


def _gold_spans(context: str, spans: Sequence[Span], focus: Sequence[Tagged]) -> list[Span]:
    """Gold spans over the quoted sentences, inside their tags."""
    out: list[Span] = []
    for tagged in focus:
        for span in spans:
            if span.label == f"tag-{tagged.id}":
                start = context.find(tagged.text, span.start, span.end)
                if start >= 0:
                    out.append(Span(start, start + len(tagged.text), "gold", span.label))
    return out


class OneDocTask(LifbenchTask):
    scenario: ClassVar[str] = "onedoc"
    param_specs = (RULES_PARAM,)
    spec: OneDocSpec

    def reads_prose(self) -> bool:
        return True  # State of the Union prose (and factbook backgrounds) cut into sentences

    def __init__(self, spec: OneDocSpec) -> None:
        super().__init__(spec, 512)
        self.params = {RULES_PARAM.name: RULES_PARAM.default}

    def build(self, rng: random.Random, budget: Budget, tokenizer: Tokenizer, index: int) -> Draft:
        expression, variable = self.choice(index)
        sample = self.spec.variables[variable]
        plan = self.spec.planner(self.spec.expressions[expression], sample, rng)
        seed, key = self.shared(budget, tokenizer)
        stream = doc_stream(seed, tokenizer)
        built = build_onedoc(stream, budget, tokenizer, lambda lay: "\n\n" + plan.question(lay))
        answer = plan.answer(built.layout)
        layout = built.layout
        metadata: dict[str, Any] = {
            "scorer": "lifeval",
            "scenario": "onedoc",
            "context_key": key,
            "lifeval_task": self.spec.name,
            "expression": expression,
            "variable": variable,
            "reference": answer.reference,
            "gold_mode": "exact",
            "keys": _tagged_meta(layout.keys),
            "fakes": _tagged_meta(layout.fakes),
            **answer.metadata,
        }
        focus = answer.focus[0].id if answer.focus else None
        if answer.probe is not None:
            depth = realized_depth(built.spans, built.context, f"probe-{answer.probe}")
        elif focus is not None:
            depth = realized_depth(built.spans, built.context, f"tag-{focus}")
        else:
            depth = None
        return Draft(
            preamble=SCENARIO_DESCRIPTION,
            context=built.context,
            question=built.question,
            gold=answer.gold,
            tokens=built.tokens,
            depth=depth,
            spans=(*built.spans, *_gold_spans(built.context, built.spans, answer.focus)),
            metadata=metadata,
        )


# Every count and every separator twice, each pair once.
_REPEAT_VARS: tuple[Mapping[str, Any], ...] = tuple(
    {"num": REPEAT_COUNTS[i % 5], "sep": REPEAT_SEPARATORS[(i + i // 5) % 5]} for i in range(10)
)
_EXTRACT_VARS: tuple[Mapping[str, Any], ...] = tuple({"type": t} for t in ALL_TYPES)
# Sample 6r + j asks about a sentence of kind QA_KINDS[j] with option pair (r + j) % 5:
# as in the original, six consecutive samples ask about two key sentences, two fakes
# and two untagged sentences, the option pairs rotating; over the 30 samples every
# kind meets every pair.
_QA_VARS: tuple[Mapping[str, Any], ...] = tuple(
    {"ask": QA_KINDS[j], "options": QA_OPTIONS[(r + j) % 5]} for r in range(5) for j in range(6)
)

ONEDOC_TASKS: tuple[OneDocSpec, ...] = (
    OneDocSpec(
        "repeat",
        "LIFBench OneDoc: repeat N key sentences, each with its type",
        (
            "Pick {num} key {sentences} of the document and write each one out with its "
            "type. {fmt}",
            "Quote {num} of the key sentences in the document and name the type of each. {fmt}",
            "Copy {num} key {sentences} from the document, each together with its type. {fmt}",
            "Give {num} key {sentences} of the document along with the type each belongs to. {fmt}",
            "Repeat {num} key {sentences} of the document word for word and say which type "
            "each is. {fmt}",
        ),
        _REPEAT_VARS,
        _repeat_plan,
    ),
    OneDocSpec(
        "extract",
        "LIFBench OneDoc: extract the key sentences of one type, ordered by id",
        (
            "Find every key sentence of the type {type} in the document and give them as a "
            'JSON list of strings in increasing order of id, like ["First one.", "Second '
            'one."]. If there is none, reply with an empty JSON list: []',
            "Which sentences of the document are key sentences of the type {type}? Reply "
            "with a JSON list of their texts, ordered by id, or [] if there are none.",
            "Collect all key sentences of the type {type}, from the lowest id to the "
            "highest, into one JSON list of strings. When the document has none, the answer "
            "is [].",
            "Go through the document and copy out each key sentence of the type {type}, "
            "keeping the order of their ids, as a JSON list of strings ([] when there is "
            "no such sentence).",
            "Return the key sentences of the type {type}, sorted by id, as a JSON list of "
            "strings; return [] if the type has no key sentence.",
        ),
        _EXTRACT_VARS,
        _extract_plan,
    ),
    OneDocSpec(
        "qa",
        "LIFBench OneDoc: say whether a given sentence is a key sentence, with an option pair",
        (
            'Is this sentence a key sentence of the document: "{sentence}"? {fmt}',
            'Consider the sentence "{sentence}". Is it one of the key sentences of the '
            "document? {fmt}",
            'Does the document mark "{sentence}" as a key sentence? {fmt}',
            'Check the document: is "{sentence}" a key sentence there? {fmt}',
            "Tell whether the following sentence is a key sentence of the document. Sentence: "
            '"{sentence}" {fmt}',
        ),
        _QA_VARS,
        _qa_plan,
    ),
)


def onedoc_tasks() -> list[Task]:
    return [OneDocTask(spec) for spec in ONEDOC_TASKS]


__all__ = ["ABSENT_TYPE", "ONEDOC_TASKS", "OneDocTask", "onedoc_tasks"]
