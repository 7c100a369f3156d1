"""The two MultiDoc tasks of LIFBench with our own instruction wordings.

The variable spaces are the original's. find_dup_text asks for the groups of
documents that share their text, one line per group, each line a JSON list with one
list per document holding the asked fields (id; iD2; id and title; iD2 and date; id,
source and title). batch_label asks for a label per document by four rules on which
of title and source the document has (both; no source; no title; neither), the
labels taken from one of the original's five label sets, and the answer as a JSON
object from "doc1" on. As in the List tasks, example `index` uses expression
`index % E` and variable sample `(index // E) % V`.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from lctui.core.errors import UserInputError
from lctui.core.protocols import Tokenizer
from lctui.suites.lifbench.tasks.multidoc_context import (
    SCENARIO_DESCRIPTION,
    Doc,
    build_docs,
    docs_stream,
    dup_groups,
)
from lctui.suites.lifbench.tasks.shared import RULES_PARAM, LifbenchTask
from lctui.tasks.base import Draft, Task
from lctui.tasks.budget import Budget

MAX_NEW_TOKENS = 4096
# The original's five label sets, each in the order of the rules: a document with
# both a title and a source, one without a source, one without a title, one with
# neither. (Its scorer compares them as case-sensitive substrings, so the sets are
# kept as they are, "complete" inside "incomplete" included.)
LABEL_SETS: tuple[tuple[str, str, str, str], ...] = (
    ("11311", "22422", "33233", "44444"),
    ("apple", "banana", "cat", "dog"),
    ("dog", "cat", "apple", "banana"),
    ("complete", "miss_title", "miss_source", "incomplete"),
    ("incomplete", "miss_source", "miss_title", "complete"),
)
# The fields find_dup_text asks for, in the original's five samples.
DUP_FIELDS: tuple[tuple[str, ...], ...] = (
    ("iD2",),
    ("id",),
    ("id", "title"),
    ("iD2", "date"),
    ("id", "source", "title"),
)
LABEL_RULES = (
    'Give a document that has both a title and a source the label "{0}"; one that has a '
    'title but no source "{1}"; one that has a source but no title "{2}"; and one that has '
    'neither "{3}".'
)
LABEL_FORMAT = (
    "Answer with one JSON object that maps the name of every document, doc1 to the last, "
    'to its label, for example {{"doc1": "{0}", "doc2": "{1}"}}, and nothing else.'
)
DUP_FORMAT = (
    "Write one line per group and nothing else. A line is a JSON list with one list per "
    "document of the group, in document order, and each document's list gives its "
    "{fields} in this order; write null (None) for a field the document lacks. For "
    "example: {example}"
)


def slot_of(doc: Doc) -> int:
    """Which rule labels `doc`: 0 both title and source, 1 no source, 2 no title, 3 neither."""
    return 2 * (doc.title is None) + (doc.source is None)


def dup_line(values: Sequence[Sequence[str | None]]) -> str:
    """One line of the find_dup_text reference: a group's documents as JSON lists."""
    return json.dumps([list(v) for v in values])


def _names(fields: Sequence[str]) -> str:
    return fields[0] if len(fields) == 1 else ", ".join(fields[:-1]) + " and " + fields[-1]


def _dup_example(fields: Sequence[str]) -> str:
    """An example of the asked format with placeholder values (two groups)."""
    groups = ((1, 2, 3), (4, 5)) if len(fields) == 1 else ((1, 2), (3, 4))
    lines = [json.dumps([[f"{field}_{k}" for field in fields] for k in group]) for group in groups]
    return "\n" + "\n".join(lines)


@dataclass(frozen=True)
class MultiDocSpec:
    """One MultiDoc task: its LIFEval name, wordings and variable samples."""

    name: str
    description: str
    expressions: tuple[str, ...]
    variables: tuple[Mapping[str, Any], ...]


class MultiDocTask(LifbenchTask):
    scenario: ClassVar[str] = "multidoc"
    param_specs = (RULES_PARAM,)
    spec: MultiDocSpec

    def reads_prose(self) -> bool:
        return True  # State of the Union prose (and factbook backgrounds) cut into sentences

    def __init__(self, spec: MultiDocSpec) -> None:
        super().__init__(spec, MAX_NEW_TOKENS)
        self.params = {RULES_PARAM.name: RULES_PARAM.default}

    def answer_tokens(self, length: int) -> int:
        # Answers grow with the number of documents (about one per 450 tokens); an
        # eighth of the length leaves room for the context at short lengths.
        return min(MAX_NEW_TOKENS, max(256, length // 8))

    def build(self, rng: random.Random, budget: Budget, tokenizer: Tokenizer, index: int) -> Draft:
        expression, variable = self.choice(index)
        sample = self.spec.variables[variable]
        template = self.spec.expressions[expression]
        if self.spec.name == "find_dup_text":
            fields = tuple(str(f) for f in sample["fields"])
            fmt = DUP_FORMAT.format(fields=_names(fields), example=_dup_example(fields))
            question = "\n\n" + template.format(fields=_names(fields), fmt=fmt)
        else:
            labels = [str(label) for label in sample["labels"]]
            rules = LABEL_RULES.format(*labels)
            fmt_text = LABEL_FORMAT.format(*labels)
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
            values = [[[docs[k - 1].value(f) for f in fields] for k in group] for group in groups]
            lines = [dup_line(group) for group in values]
            metadata.update(fields=list(fields), groups=groups, values=values)
            metadata["reference"] = "\n".join(lines)
            gold = tuple(lines)
        else:
            slots = [slot_of(doc) for doc in docs]
            expected = [labels[slot] for slot in slots]
            metadata.update(labels=labels, slots=slots, expected=expected)
            reference = {f"doc{k}": label for k, label in enumerate(expected, 1)}
            metadata["reference"] = json.dumps(reference)
            gold = tuple(f"doc{k}: {label}" for k, label in enumerate(expected, 1))
        return Draft(
            preamble=SCENARIO_DESCRIPTION,
            context=built.context,
            question=question,
            gold=gold,
            tokens=built.tokens,
            metadata=metadata,
        )


_DUP_VARS: tuple[Mapping[str, Any], ...] = tuple({"fields": list(f)} for f in DUP_FIELDS)
_LABEL_VARS: tuple[Mapping[str, Any], ...] = tuple({"labels": list(s)} for s in LABEL_SETS)

MULTIDOC_TASKS: tuple[MultiDocSpec, ...] = (
    MultiDocSpec(
        "find_dup_text",
        "LIFBench MultiDoc: list the groups of documents that share their text",
        (
            "Some documents above have exactly the same text as one or more other "
            "documents, though their other fields differ. Find every such group and give "
            "the {fields} of its documents. {fmt}",
            "Which documents repeat the text of another document? Collect every set of "
            "documents whose texts are identical and list the {fields} of each. {fmt}",
            "Look for duplicated texts in the collection: group together the documents "
            "whose text fields are the same and report their {fields}. {fmt}",
            "Identify each group of two or more documents that share one and the same "
            "text, and give the {fields} of every document in it. {fmt}",
            "Compare the texts of the documents, gather the documents with identical texts "
            "into groups and write out their {fields}. {fmt}",
        ),
        _DUP_VARS,
    ),
    MultiDocSpec(
        "batch_label",
        "LIFBench MultiDoc: label every document by rules on the fields it has",
        (
            "Label each of the documents above, in order, by these rules: {rules} {fmt}",
            "Give every document one of the labels {labels}, following these rules: {rules} {fmt}",
            "Classify all the documents in the collection, one by one. The rules: {rules} {fmt}",
            "Go through the documents in order and tag each with a label. Rules: {rules} {fmt}",
            "Sort the documents into the classes {labels} by looking only at which fields "
            "each one has: {rules} {fmt}",
        ),
        _LABEL_VARS,
    ),
)


def multidoc_tasks() -> list[Task]:
    return [MultiDocTask(spec) for spec in MULTIDOC_TASKS]
