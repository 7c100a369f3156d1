"""The two MultiDoc tasks of LIFBench with our own instruction wordings and variable spaces.

find_dup_text asks for the groups of documents that share their text, each group as
a list of one field of its documents; batch_label asks for a label per document,
chosen from a label set by rules on which optional fields the document has. As in
the List tasks, example `index` uses expression `index % E` and variable sample
`(index // E) % V`.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from lctui.core.errors import UserInputError
from lctui.core.protocols import Tokenizer
from lctui.tasks.base import Draft, Task
from lctui.tasks.budget import Budget
from lctui.tasks.lifbench.multidoc_context import (
    SCENARIO_DESCRIPTION,
    Doc,
    build_docs,
    docs_stream,
    dup_groups,
)
from lctui.tasks.lifbench.shared import LifbenchTask

MAX_NEW_TOKENS = 4096
DUP_FORMATS: dict[str, str] = {
    "json": 'a JSON list of strings, e.g. ["first value", "second value"]',
    "bare": (
        "a list in square brackets with the values separated by commas and not quoted, "
        "e.g. [first value, second value]"
    ),
}
DUP_HOW = (
    "Write one group per line: the {field} values of its documents as {fmt}. List "
    "the documents of a group in document order and the groups in the order of their "
    "first document. Write None for a document that has no {field}. Output only these lines."
)
LABEL_RULES: dict[str, str] = {
    "count": (
        'a document that has both a title and a source gets "{a}"; a document that has '
        'exactly one of the two gets "{b}"; a document that has neither gets "{c}".'
    ),
    "which": (
        'a document that has a title but no source gets "{a}"; a document that has a '
        'source but no title gets "{b}"; every other document (with both fields or with '
        'neither) gets "{c}".'
    ),
    "source_first": (
        'a document that has a source gets "{a}", with or without a title; a document '
        'without a source but with a title gets "{b}"; a document with neither gets "{c}".'
    ),
}
LABEL_FORMAT = (
    "Reply with a single JSON object that maps the name of every document, from doc1 to "
    'the last one, to its label, e.g. {{"doc1": "{a}", "doc2": "{b}"}}, and nothing else.'
)


def label_of(doc: Doc, rule: str, labels: Sequence[str]) -> str:
    """The label `rule` gives `doc` from the three `labels`."""
    title, source = doc.title is not None, doc.source is not None
    if rule == "count":
        slot = 0 if title and source else 1 if title or source else 2
    elif rule == "which":
        slot = 0 if title and not source else 1 if source and not title else 2
    elif rule == "source_first":
        slot = 0 if source else 1 if title else 2
    else:
        raise ValueError(f"unknown labelling rule {rule!r}")
    return labels[slot]


def render_group(values: Sequence[str], fmt: str) -> str:
    """One line of the find_dup_text reference: a group's values in format `fmt`."""
    if fmt == "json":
        return json.dumps(list(values), ensure_ascii=False)
    return "[" + ", ".join(values) + "]"


@dataclass(frozen=True)
class MultiDocSpec:
    """One MultiDoc task: its LIFEval name, wordings and variable samples."""

    name: str
    description: str
    expressions: tuple[str, ...]
    variables: tuple[Mapping[str, Any], ...]


class MultiDocTask(LifbenchTask):
    scenario: ClassVar[str] = "multidoc"
    spec: MultiDocSpec

    def __init__(self, spec: MultiDocSpec) -> None:
        super().__init__(spec, MAX_NEW_TOKENS)

    def answer_tokens(self, length: int) -> int:
        # Answers grow with the number of documents (about one per 450 tokens); an
        # eighth of the length leaves room for the context at short lengths.
        return min(MAX_NEW_TOKENS, max(256, length // 8))

    def build(self, rng: random.Random, budget: Budget, tokenizer: Tokenizer, index: int) -> Draft:
        expression, variable = self.choice(index)
        sample = self.spec.variables[variable]
        template = self.spec.expressions[expression]
        if self.spec.name == "find_dup_text":
            field, fmt = str(sample["field"]), str(sample["format"])
            how = DUP_HOW.format(fmt=DUP_FORMATS[fmt], field=field)
            question = "\n\n" + template.format(how=how)
        else:
            labels = [str(label) for label in sample["labels"]]
            a, b, c = labels
            rules = LABEL_RULES[str(sample["rule"])].format(a=a, b=b, c=c)
            fmt_text = LABEL_FORMAT.format(a=a, b=b)
            names = ", ".join(f'"{label}"' for label in labels)
            question = "\n\n" + template.format(rules=rules, fmt=fmt_text, labels=names)
        seed, key = self.shared(budget, tokenizer)
        built = build_docs(docs_stream(seed, tokenizer), budget, tokenizer, question)
        docs = built.docs
        metadata: dict[str, Any] = {
            "scorer": "lifeval",
            "scenario": "multidoc",
            "context_key": key,
            "lifeval_task": self.spec.name,
            "expression": expression,
            "variable": variable,
            "n_docs": len(docs),
            "gold_mode": "exact",
        }
        if self.spec.name == "find_dup_text":
            groups = dup_groups(docs)
            if not groups:
                raise UserInputError(
                    f"a length of {budget.length} tokens is too short for {self.name}: "
                    "it needs room for at least two documents"
                )
            values = [doc.value(field) for doc in docs]
            lines = [
                render_group([values[k - 1] or "None" for k in group], fmt) for group in groups
            ]
            gold = tuple(lines)
            metadata.update(field=field, format=fmt, values=values, groups=groups)
            metadata["reference"] = "\n".join(lines)
        else:
            expected = [label_of(doc, str(sample["rule"]), labels) for doc in docs]
            gold = tuple(f"doc{k}: {label}" for k, label in enumerate(expected, 1))
            metadata.update(labels=labels, rule=sample["rule"], expected=expected)
            reference = {f"doc{k}": label for k, label in enumerate(expected, 1)}
            metadata["reference"] = json.dumps(reference, ensure_ascii=False)
        return Draft(
            preamble=SCENARIO_DESCRIPTION,
            context=built.context,
            question=question,
            gold=gold,
            tokens=built.tokens,
            metadata=metadata,
        )


_DUP_VARS: tuple[Mapping[str, Any], ...] = (
    {"field": "id", "format": "json"},
    {"field": "title", "format": "bare"},
    {"field": "iD2", "format": "json"},
    {"field": "source", "format": "bare"},
    {"field": "id", "format": "bare"},
    {"field": "title", "format": "json"},
    {"field": "source", "format": "json"},
    {"field": "iD2", "format": "bare"},
)

_LABEL_VARS: tuple[Mapping[str, Any], ...] = (
    {"labels": ("A", "B", "C"), "rule": "count"},
    {"labels": ("red", "green", "blue"), "rule": "which"},
    {"labels": ("keep", "check", "drop"), "rule": "source_first"},
    {"labels": ("high", "medium", "low"), "rule": "count"},
    {"labels": ("A", "B", "C"), "rule": "source_first"},
    {"labels": ("keep", "check", "drop"), "rule": "which"},
)

MULTIDOC_TASKS: tuple[MultiDocSpec, ...] = (
    MultiDocSpec(
        "find_dup_text",
        "LIFBench MultiDoc: list the groups of documents that share their text",
        (
            "Some documents above have exactly the same text as one or more other "
            "documents. Find every such group of documents. {how}",
            "Which documents repeat the text of another document? Collect every set of "
            "documents whose texts are identical. {how}",
            "Look for duplicated texts in the collection and group together the documents "
            "whose text fields are the same. {how}",
            "Identify each group of two or more documents that share one and the same text. {how}",
            "Compare the texts of the documents and gather the documents with identical "
            "texts into groups. {how}",
        ),
        _DUP_VARS,
    ),
    MultiDocSpec(
        "batch_label",
        "LIFBench MultiDoc: label every document by rules on the fields it has",
        (
            "Label each of the documents above by these rules: {rules} {fmt}",
            "Give every document one of the labels {labels}, following these rules: {rules} {fmt}",
            "Classify all the documents in the collection. The rules: {rules} {fmt}",
            "Go through the documents one by one and tag each with a label. Rules: {rules} {fmt}",
            "Sort the documents into the classes {labels} by looking only at which fields "
            "each one has: {rules} {fmt}",
        ),
        _LABEL_VARS,
    ),
)


def multidoc_tasks() -> list[Task]:
    return [MultiDocTask(spec) for spec in MULTIDOC_TASKS]
