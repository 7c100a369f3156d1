"""HELMET's ALCE items (data.py `load_alce`, 4526dfb), made from the release's test file
and the checkout's prompts file as its loader makes them.

- The prompts file (the config's demo file, `prompts/{asqa,qampari}_*.json` of the
  checkout) gives the `instruction`, the `demo_prompt` a solved question is written
  with, the `doc_prompt` of a document and the `demos`.
- A row's context is its first N documents (N: the dataset name's last number,
  `alce_asqa_700`), each `doc_prompt` filled with the document and `ID` (from 1),
  joined by a blank line; its demonstrations are `random.sample(demos, shots)`, drawn
  for every row of the file in the file's order from Python's `random` seeded with
  --seed just before (eval.py), each written with its own documents, all of them, and
  joined (and followed, when there are any) by two blank lines.
- `max_test_samples` rows in the order of `Dataset.shuffle(seed)`, after the draws.

The answers are scored by lctui's ALCE scorers (helmet_alce_asqa: STR-EM over the
sub-questions' short answers; helmet_alce_qampari: recall at 5), and the citations by
`lctui cite-score` over the documents the prompt shows whole (metadata `documents`:
each one's title and text, as offsets in the user text; eval_alce.py reads them from
the row, where a citation may also name one the prompt never showed).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from string import Formatter
from typing import Any

from lctui.core.types import JSONValue
from lctui.tasks.bounded_read import FileProblem, JsonDocument, shown
from lctui.tasks.datasets import JsonLines
from lctui.tasks.helmet.alce_data import answer_groups
from lctui.tasks.helmet.kilt import shuffled
from lctui.tasks.inputs.helmet_items import (
    HelmetItem,
    ItemProblem,
    RowFails,
    Sampling,
    filled,
    unified,
)
from lctui.tasks.inputs.helmet_templates import checked_format

DOC_JOINER = "\n\n"
DEMO_JOINER = "\n\n\n"
# Where a document's title and text lie in its filled doc_prompt, for the citations.
DOC_PARTS = "doc_parts"


@dataclass(frozen=True)
class AlcePrompts:
    """What load_alce reads from the prompts file."""

    instruction: str
    demo_prompt: str
    doc_prompt: str
    demos: tuple[Mapping[str, Any], ...]


def read_alce_prompts(path: Path) -> AlcePrompts | str:
    """The prompts file, or why load_alce could not use it."""
    members: dict[str, Any] = {}
    demos: list[Any] = []
    document = JsonDocument(path, "demos")
    try:
        for key, value in document:
            if isinstance(key, int):
                demos.append(value)
            else:
                members[key] = value
    except FileProblem as err:
        return f"{path.name}:{err.line}: {err.why}"
    except OSError as err:
        return f"{path}: not readable ({err.strerror or err})"
    texts = {name: members.get(name) for name in ("instruction", "demo_prompt", "doc_prompt")}
    missing = [name for name, value in texts.items() if not isinstance(value, str)]
    if not document.listed or missing:
        lacking = ", ".join(["demos", *missing] if not document.listed else missing)
        return f"{path.name}: no {lacking} (load_alce reads them)"
    if not all(isinstance(d, Mapping) for d in demos):
        return f"{path.name}: a demonstration is not an object"
    where = f"{path.name}"
    return AlcePrompts(
        str(texts["instruction"]),
        checked_format(str(texts["demo_prompt"]), f"{where}'s demo_prompt"),
        checked_format(str(texts["doc_prompt"]), f"{where}'s doc_prompt"),
        tuple(demos),
    )


def _documents(doc_prompt: str, docs: Any, limit: int | None, what: str) -> list[str]:
    if not isinstance(docs, list) or not all(isinstance(d, Mapping) for d in docs):
        raise RowFails(f"{what}: 'docs' is not a list of documents: {shown(docs)}")
    shown_docs = docs if limit is None else docs[:limit]
    if any("ID" in d for d in shown_docs):
        raise RowFails(f"{what}: a document has its own 'ID' (HELMET fails)")
    return [filled(doc_prompt, {**d, "ID": i + 1}, what) for i, d in enumerate(shown_docs)]


def doc_parts(doc_prompt: str, doc: Mapping[str, Any], number: int) -> list[int]:
    """[title start, title end, text start, text end] in the filled doc_prompt (the
    whole document as its text where the prompt names no title or text)."""
    values = {**doc, "ID": number}
    at = 0
    found: dict[str, tuple[int, int]] = {}
    for literal, name, _, _ in Formatter().parse(doc_prompt):
        at += len(literal)
        if name is None:
            continue
        piece = ("{" + name + "}").format(**values)
        found.setdefault(name, (at, at + len(piece)))
        at += len(piece)
    if "text" not in found:
        return [0, 0, 0, at]
    title = found.get("title", (found["text"][0], found["text"][0]))
    return [*title, *found["text"]]


def alce_items(
    loaded: JsonLines, prompts: AlcePrompts, sampling: Sampling
) -> list[HelmetItem | ItemProblem]:
    rows = unified(loaded, "docs")
    citing = "asqa" if "asqa" in sampling.dataset else "qampari"
    try:
        count = int(sampling.dataset.split("_")[-1])
    except ValueError:
        line = rows.lines[0] if rows.lines else 1
        why = f"{sampling.dataset}: its last part is no number of documents (HELMET fails)"
        return [ItemProblem(line, why)]
    draws = random.Random(sampling.seed)  # eval.py's random.seed(args.seed)
    made: list[HelmetItem | ItemProblem] = []
    for row, line in zip(rows.rows, rows.lines, strict=True):
        try:
            if sampling.shots > len(prompts.demos):
                raise RowFails(
                    f"the prompts file has {len(prompts.demos)} demonstrations for "
                    f"{sampling.shots} shots (HELMET's random.sample fails)"
                )
            picked = draws.sample(prompts.demos, sampling.shots)
            made.append(_item(row, line, prompts, picked, count, citing))
        except RowFails as err:
            made.append(ItemProblem(line, str(err)))
    if sampling.max_test_samples is None:
        return made
    order = shuffled(len(made), sampling.seed)[: min(sampling.max_test_samples, len(made))]
    return [made[i] for i in order]


def _item(
    row: dict[str, Any],
    line: int,
    prompts: AlcePrompts,
    picked: list[Mapping[str, Any]],
    count: int,
    citing: str,
) -> HelmetItem:
    documents = _documents(prompts.doc_prompt, row.get("docs"), count, "a document")
    demos = []
    for demo in picked:
        if "instruction" in demo or "context" in demo:
            raise RowFails("a demonstration has its own 'instruction' or 'context' (HELMET fails)")
        listed = DOC_JOINER.join(
            _documents(prompts.doc_prompt, demo.get("docs"), None, "a demonstration")
        )
        values = {**demo, "instruction": prompts.instruction, "context": listed}
        demos.append(filled(prompts.demo_prompt, values, "a demonstration"))
    demo_text = DEMO_JOINER.join(demos) + (DEMO_JOINER if picked else "")
    groups = answer_groups(row, citing)
    if isinstance(groups, str):
        raise RowFails(groups)
    docs = row["docs"][:count]
    parts: list[JSONValue] = [
        list(doc_parts(prompts.doc_prompt, d, i + 1)) for i, d in enumerate(docs)
    ]
    fields = {
        **row,
        "context": DOC_JOINER.join(documents),
        "demo_text": demo_text,
        "instruction": prompts.instruction,
    }
    return HelmetItem(
        line,
        fields,
        tuple(group[0] for group in groups),
        {
            "scorer": f"helmet_alce_{citing}",
            "answer_groups": [list(g) for g in groups],
            "gold_mode": "exact",
            "citations": citing,  # what `lctui cite-score` reads
            "asked_text": str(row.get("question")),
            DOC_PARTS: parts,
        },
        tuple((text, str(i + 1)) for i, text in enumerate(documents)),
    )
