"""The three OneDoc tasks of LIFBench (repeat, extract, qa) with our own wordings.

Each task has several expression templates and a declared variable space (how many
key sentences and from which end, the separator, the requested types and output
format, the option pair and which sentence is asked about). Example `index` uses
expression `index % E` and variable sample `(index // E) % V`, as the List tasks do.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from lctui.core.protocols import Tokenizer
from lctui.core.types import Span
from lctui.tasks.base import Draft, Task
from lctui.tasks.budget import Budget
from lctui.tasks.haystack import realized_depth
from lctui.tasks.lifbench.onedoc_context import (
    SCENARIO_DESCRIPTION,
    DocLayout,
    Tagged,
    build_onedoc,
    doc_stream,
)
from lctui.tasks.lifbench.shared import LifbenchTask

NONE_WORD = "NONE"
_EXTRACT_FORMATS: dict[str, str] = {
    "lines": "Write each sentence on its own line, without tags, numbers or any other text.",
    "json": 'Give them as one JSON list of strings, like ["First one.", "Second one."], and '
    "nothing else.",
}


@dataclass(frozen=True)
class Answer:
    """The reference output of an example, its gold values and what the scorer needs."""

    reference: str
    gold: tuple[str, ...]
    metadata: Mapping[str, Any]
    focus: tuple[Tagged, ...] = ()  # the tagged sentences the answer quotes


@dataclass(frozen=True)
class Plan:
    """How one variable sample shapes the question and the answer."""

    question: Callable[[DocLayout], str]
    answer: Callable[[DocLayout], Answer]
    probe: str | None = None  # where the untagged sentence asked about sits, if one is


Planner = Callable[[str, Mapping[str, Any]], Plan]


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


def _repeat_plan(template: str, sample: Mapping[str, Any]) -> Plan:
    count, sep, end = int(sample["count"]), str(sample["sep"]), str(sample["end"])
    example = f"Evidence{sep}The text of the sentence."
    fmt = (
        f'Write one per line as the type, then "{sep.strip()}", then the sentence text '
        f"without its tags, like this: {example} Write nothing else."
    )
    fields = {
        "count": count,
        "end": end,
        "side": "beginning" if end == "first" else "end",
        "fmt": fmt,
    }

    def answer(layout: DocLayout) -> Answer:
        keys = layout.keys
        chosen = keys[:count] if end == "first" else keys[-count:]
        extra = {
            "count": count,
            "separator": sep,
            "end": end,
            "expected_ids": [t.id for t in chosen],
        }
        return Answer(
            "\n".join(f"{t.type}{sep}{t.text}" for t in chosen),
            tuple(t.text for t in chosen),
            extra,
            chosen,
        )

    return Plan(lambda _: template.format(**fields), answer)


def _extract_plan(template: str, sample: Mapping[str, Any]) -> Plan:
    types: tuple[str, ...] = tuple(sample["types"])
    fmt = str(sample["format"])
    plural = len(types) > 1
    fields = {
        "types": " and ".join(types),
        "kind": "types" if plural else "type",
        "fmt": _EXTRACT_FORMATS[fmt],
        "none": f"If the document has no such key sentence, reply with the single word "
        f"{NONE_WORD}.",
    }

    def answer(layout: DocLayout) -> Answer:
        chosen = layout.of_types(types)
        texts = [t.text for t in chosen]
        if not texts:
            reference = NONE_WORD
        elif fmt == "json":
            reference = json.dumps(texts, ensure_ascii=False)
        else:
            reference = "\n".join(texts)
        extra = {
            "types": list(types), "format": fmt, "none_word": NONE_WORD,
            "expected_ids": [t.id for t in chosen],
        }  # fmt: skip
        return Answer(reference, tuple(texts) or (NONE_WORD,), extra, chosen)

    return Plan(lambda _: template.format(**fields), answer)


def _qa_pick(layout: DocLayout, ask: str, at: str) -> tuple[str, Tagged | None]:
    """The sentence asked about and its tagged sentence (None for the untagged probe)."""
    if ask == "plain":
        return layout.probes[at], None
    pool = layout.keys if ask == "key" else layout.fakes
    index = {"head": 0, "middle": len(pool) // 2, "tail": len(pool) - 1}[at]
    return pool[index].text, pool[index]


def _qa_plan(template: str, sample: Mapping[str, Any]) -> Plan:
    ask, at = str(sample["ask"]), str(sample["at"])
    yes, no = (str(w) for w in sample["options"])
    fmt = f"Reply with the single word {yes} if it is a key sentence and {no} if it is not."

    def question(layout: DocLayout) -> str:
        return template.format(sentence=_qa_pick(layout, ask, at)[0], fmt=fmt)

    def answer(layout: DocLayout) -> Answer:
        sentence, tagged = _qa_pick(layout, ask, at)
        word = yes if ask == "key" else no
        extra = {"options": [yes, no], "ask": ask, "at": at, "sentence": sentence, "expected": word}
        return Answer(word, (word,), extra, (tagged,) if tagged else ())

    return Plan(question, answer, at if ask == "plain" else None)


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
    spec: OneDocSpec

    def __init__(self, spec: OneDocSpec) -> None:
        super().__init__(spec, 512)

    def build(self, rng: random.Random, budget: Budget, tokenizer: Tokenizer, index: int) -> Draft:
        expression, variable = self.choice(index)
        plan = self.spec.planner(self.spec.expressions[expression], self.spec.variables[variable])
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
        label = f"probe-{plan.probe}" if plan.probe is not None else f"tag-{focus}"
        depth = realized_depth(built.spans, built.context, label) if label != "tag-None" else None
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


_REPEAT_VARS: tuple[Mapping[str, Any], ...] = (
    {"count": 3, "sep": " | ", "end": "first"},
    {"count": 5, "sep": " :: ", "end": "last"},
    {"count": 8, "sep": " -> ", "end": "first"},
    {"count": 5, "sep": " | ", "end": "first"},
    {"count": 3, "sep": " -> ", "end": "last"},
    {"count": 8, "sep": " :: ", "end": "last"},
)
_EXTRACT_VARS: tuple[Mapping[str, Any], ...] = (
    {"types": ("Evidence",), "format": "lines"},
    {"types": ("Topic", "Argument"), "format": "json"},
    {"types": ("Summary",), "format": "lines"},
    {"types": ("Concession",), "format": "json"},
    {"types": ("Argument", "Evidence"), "format": "lines"},
    {"types": ("Summary",), "format": "json"},
    {"types": ("Transition",), "format": "lines"},
)
_QA_VARS: tuple[Mapping[str, Any], ...] = (
    {"ask": "key", "at": "head", "options": ("True", "False")},
    {"ask": "fake", "at": "head", "options": ("Yes", "No")},
    {"ask": "plain", "at": "middle", "options": ("apple", "banana")},
    {"ask": "key", "at": "tail", "options": ("Yes", "No")},
    {"ask": "fake", "at": "tail", "options": ("apple", "banana")},
    {"ask": "key", "at": "middle", "options": ("apple", "banana")},
    {"ask": "plain", "at": "tail", "options": ("True", "False")},
    {"ask": "fake", "at": "middle", "options": ("True", "False")},
    {"ask": "plain", "at": "head", "options": ("Yes", "No")},
)

ONEDOC_TASKS: tuple[OneDocSpec, ...] = (
    OneDocSpec(
        "repeat",
        "LIFBench OneDoc: repeat the first or last N key sentences with their types",
        (
            "List the {end} {count} key sentences of the document together with their types. {fmt}",
            "Find the {count} key sentences closest to the {side} of the document and write "
            "each one out with its type. {fmt}",
            "Going through the document in order, repeat its {end} {count} key sentences, each "
            "labelled with its type. {fmt}",
            "Which {count} key sentences come {end} in the document? Reproduce them with their "
            "types. {fmt}",
            "Quote the {end} {count} key sentences of the document, in document order, and name "
            "the type of each. {fmt}",
        ),
        _REPEAT_VARS,
        _repeat_plan,
    ),
    OneDocSpec(
        "extract",
        "LIFBench OneDoc: extract the key sentences of given types, ordered by id",
        (
            "Extract every key sentence of the {kind} {types} from the document, ordered by id. "
            "{fmt} {none}",
            "Which sentences of the document are key sentences of the {kind} {types}? List them "
            "in increasing order of id. {fmt} {none}",
            "Collect all key sentences of the {kind} {types}, from the lowest id to the "
            "highest. {fmt} {none}",
            "Go through the document and copy out each key sentence of the {kind} {types}, "
            "keeping the order of their ids. {fmt} {none}",
            "Return the key sentences of the {kind} {types}, sorted by id. {fmt} {none}",
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
            'Does the document present "{sentence}" as a key sentence? {fmt}',
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
