"""What LIFEval's scorer needs of one of LIFBench's released records, read from the
record's `param` and `label` as LIFBench's evaluation reads them.

A record of `data/prompts/SCENARIO-TASK.json` (data/PromptGenerate.py writes them) holds
`prompt`, `label`, `param`, `length`, `ins_id` and `param_id`; LIFBench's judge
functions (evaluation/EvaluateFunc.py) read `param` and `label`, and the List ones the
list between the prompt's markers. `record_reading` gives the metadata lctui's own
LIFBench examples give the scorer (scoring/lifeval/), made from those fields, and a
reference answer (the gold backend's output). Where the original's judge would crash on
the record (a field missing, of another type, a division by zero) the record is
refused with why (`RecordProblem`): no score of it could be the original's.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lctui.core.types import JSONValue
from lctui.suites.lifbench.tasks.onedoc_context import KEY_TYPES
from lctui.tasks.bounded_read import shown

# metadata["list_reading"]: the scorer reads the list as LIFBench's evaluation does
# (scoring/lifeval/list_scenario.py).
LIST_READING = "lifbench"
# Where LIFBench's evaluation cuts a prompt to read its list or documents (its
# get_input_text's start and end): the example's context.
LIST_MARKERS = ("List to be retrieved:\n", "\nInstruction:")
DOCS_MARKERS = ("\n\n Documents:\n", "\n\n Instructions:")
_BIASES = {0: "element", 1: "post_element", -1: "pre_element"}  # the element asked for
_CANDIDATES = 4  # batch_label's labels: both, no source, no title, neither


class RecordProblem(ValueError):
    """Why a record is none LIFBench's evaluation can score."""


@dataclass(frozen=True)
class RecordReading:
    """The scorer's metadata of a record, and what a perfect answer is."""

    metadata: dict[str, JSONValue]
    reference: str


def context_span(scenario: str, prompt: str) -> tuple[int, int] | None:
    """[start, end) of the list or documents LIFBench's evaluation reads in `prompt`
    (after the last start marker, to the first end marker after it); None for OneDoc,
    whose judges read no part of the prompt."""
    markers = {"list": LIST_MARKERS, "multidoc": DOCS_MARKERS}.get(scenario)
    if markers is None:
        return None
    start_marker, end_marker = markers
    at = prompt.rfind(start_marker)
    start = at + len(start_marker) if at >= 0 else 0
    end = prompt.find(end_marker, start)
    return start, end if end >= 0 else len(prompt)


def record_reading(scenario: str, task: str, record: Mapping[str, Any]) -> RecordReading:
    """The scorer's metadata of `record` (of LIFEval task `task`); RecordProblem."""
    param, label = record.get("param"), record.get("label")
    if not isinstance(param, (dict, list)):
        raise RecordProblem(f"`param` is not an object: {shown(param)}")
    if scenario == "list":
        found = _list_reading(task, _object(param, "param"), label)
    elif scenario == "onedoc":
        found = _onedoc_reading(task, _object(param, "param"), label)
    else:
        found = _multidoc_reading(task, _object(param, "param"), label)
    common: dict[str, JSONValue] = {
        "scorer": "lifeval",
        "metric": "lifeval_ars",
        "scenario": scenario,
        "lifeval_task": task,
        # LIFBench's instruction and parameter numbers: LIFEval's expression and variable.
        "expression": _whole(record.get("ins_id")),
        "variable": _whole(record.get("param_id")),
        "reference": found.reference,
        "gold_mode": "exact",
    }
    return RecordReading({**common, **found.metadata}, found.reference)


def _object(value: Any, name: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise RecordProblem(f"`{name}` is not an object: {shown(value)}")
    return value


def _whole(value: Any) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) < 2**53:
        return value
    return None


def _text(param: Mapping[str, Any], key: str, *, empty: bool = True) -> str:
    value = param.get(key)
    if not isinstance(value, str) or (not empty and not value):
        raise RecordProblem(f"`param.{key}` is not {'' if empty else 'non-empty '}text")
    return value


def _count(value: Any, name: str, least: int = 1) -> int:
    number = _whole(value)
    if number is None or number < least:
        raise RecordProblem(f"`{name}` is not a whole number of at least {least}: {shown(value)}")
    return number


def _texts(value: Any, name: str) -> list[str]:
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise RecordProblem(f"`{name}` is not a list of texts: {shown(value)}")
    return value


# -- List --------------------------------------------------------------------------------


def _list_reading(task: str, param: Mapping[str, Any], label: Any) -> RecordReading:
    """judge_label_equal_output, judge_labels_equal_outputs and
    judge_list_input_blur_offset_query read the asked element(s) from `param`."""
    meta: dict[str, JSONValue] = {"list_reading": LIST_READING, "list_size": _whole(label)}
    if task == "multi_query_id":
        elements = _texts(param.get("elements"), "param.elements")
        positions = param.get("id_arr")
        if isinstance(positions, list) and all(_whole(p) is not None for p in positions):
            meta["expected_positions"] = list(positions)
        meta["expected"] = list(elements)
        return RecordReading(meta, json.dumps(elements))
    pivot = _count(param.get("id"), "param.id")
    if task.startswith("blur_"):
        bias = param.get("bias")
        if _whole(bias) is None:
            raise RecordProblem(f"`param.bias` is not a whole number: {shown(bias)}")
        after = bias == 1  # the original's rule: 1 asks after the element, else before
        asked = "post_element" if after else "pre_element"
        meta.update(pivot=pivot, direction="after" if after else "before")
    else:
        bias = param.get("bias", 0)
        if _whole(bias) not in _BIASES:
            raise RecordProblem(f"`param.bias` is none of 0, 1 and -1: {shown(bias)}")
        asked = _BIASES[int(bias)]
        meta["pivot"] = pivot
        if bias:
            meta["direction"] = "after" if bias == 1 else "before"
    element = param.get(asked)
    if not isinstance(element, str):
        raise RecordProblem(f"`param.{asked}` is not text: {shown(element)}")
    step = {"post_element": 1, "pre_element": -1}.get(asked, 0)
    meta.update(expected=[element], expected_positions=[pivot + step])
    return RecordReading(meta, element)


# -- OneDoc ------------------------------------------------------------------------------


def _tagged(label: Any) -> tuple[list[dict[str, JSONValue]], list[dict[str, JSONValue]]]:
    """(key, fake) sentences of a OneDoc label {TYPE: [[text, id, index, is_key], ...]},
    in the label's order (their ids are their places in it)."""
    if not isinstance(label, dict):
        raise RecordProblem(f"`label` is not an object of tagged sentences: {shown(label)}")
    keys: list[dict[str, JSONValue]] = []
    fakes: list[dict[str, JSONValue]] = []
    for kind, entries in label.items():
        if kind not in KEY_TYPES:
            raise RecordProblem(f"`label` names a type LIFBench does not tag: {shown(kind)}")
        if not isinstance(entries, list):
            raise RecordProblem(f"`label.{kind}` is not a list: {shown(entries)}")
        for entry in entries:
            if not (
                isinstance(entry, list)
                and len(entry) == 4
                and isinstance(entry[0], str)
                and isinstance(entry[3], bool)
            ):
                raise RecordProblem(
                    f"`label.{kind}` holds {shown(entry)}, not [sentence, id, index, is_key]"
                )
            key = entry[3]
            tag = {"id": len(keys) + len(fakes), "type": kind, "text": entry[0]}
            (keys if key else fakes).append({**tag, "tail": kind if key else ""})
    return keys, fakes


def _onedoc_reading(task: str, param: Mapping[str, Any], label: Any) -> RecordReading:
    """judge_onedoc_repeat, judge_onedoc_extract and judge_onedoc_qa read the tagged
    sentences from `label` and what is asked from `param`."""
    keys, fakes = _tagged(label)
    meta: dict[str, JSONValue] = {"keys": list(keys), "fakes": list(fakes)}
    if task == "repeat":
        sep, num = _text(param, "sep", empty=False), _count(param.get("num"), "param.num")
        meta.update(sep=sep, num=num)
        lines = [f"{k['text']} {sep} {k['type']}" for k in keys[:num]]
        return RecordReading(meta, "\n".join(lines))
    if task == "extract":
        kind = _text(param, "type")[1:-1]  # `<#Topic#>`: the original drops the brackets
        meta["type"] = kind
        return RecordReading(meta, json.dumps([k["text"] for k in keys if k["type"] == kind]))
    evidence = _text(param, "evidence")
    options = param.get("options")
    if not (isinstance(options, list) and len(options) == 2 and _texts(options, "param.options")):
        raise RecordProblem(f"`param.options` is not two texts: {shown(options)}")
    meta.update(evidence=evidence, options=list(options))
    key = any(str(k["text"]).strip() == evidence.strip() for k in keys)
    return RecordReading(meta, options[0] if key else options[1])


# -- MultiDoc ----------------------------------------------------------------------------


def _multidoc_reading(task: str, param: Mapping[str, Any], label: Any) -> RecordReading:
    """judge_multidoc_batch_label and judge_multidoc_find_dup_text read the documents'
    fields and groups from `param`, their number from `label`."""
    docs = _count(label, "label")
    meta: dict[str, JSONValue] = {"n_docs": docs}
    if task == "find_dup_text":
        return _dup_reading(param, meta)
    labels = _texts(param.get("candidates"), "param.candidates")
    rule_key = _text(param, "rule_key")
    order = {char: place for place, char in enumerate(rule_key)}
    if len(labels) < _CANDIDATES or not all(c and c[0] in order for c in labels):
        raise RecordProblem(
            f"`param.candidates` is not {_CANDIDATES} labels whose first characters "
            f"`param.rule_key` orders: {shown(labels)}"
        )
    ranked = sorted(labels, key=lambda c: order[c[0]])
    doc_keys = param.get("doc_keys")
    if not isinstance(doc_keys, list) or len(doc_keys) < docs:
        raise RecordProblem(f"`param.doc_keys` is not a list of {docs} documents' fields")
    expected = []
    for fields in doc_keys[:docs]:
        if not isinstance(fields, list):
            raise RecordProblem(f"`param.doc_keys` holds {shown(fields)}, not a list of fields")
        expected.append(ranked[2 * ("title" not in fields) + ("source" not in fields)])
    meta.update(labels=list(labels), expected=list(expected))
    reference = {f"doc{n}": value for n, value in enumerate(expected, 1)}
    return RecordReading(meta, json.dumps(reference))


def _dup_reading(param: Mapping[str, Any], meta: dict[str, JSONValue]) -> RecordReading:
    fields = _text(param, "info_keys", empty=False).strip().split(" ")
    groups = param.get("dup_infos")
    if not isinstance(groups, list) or not groups:
        raise RecordProblem(f"`param.dup_infos` is not a list of groups: {shown(groups)}")
    values: list[JSONValue] = []
    for group in groups:
        values.append(_group_values(group, fields))
    meta.update(fields=list(fields), values=values)
    return RecordReading(meta, "\n".join(json.dumps(v) for v in values))


def _group_values(group: Any, fields: Sequence[str]) -> list[JSONValue]:
    """The asked fields of each duplicate of one group, in `info_keys`' order."""
    if not isinstance(group, list) or not group:
        raise RecordProblem(f"`param.dup_infos` holds {shown(group)}, not a list of documents")
    rows: list[JSONValue] = []
    for doc in group:
        # The original reads the asked fields for the groups and every field for the
        # values it looks for: both must be the asked ones.
        if not isinstance(doc, dict) or set(doc) != set(fields):
            raise RecordProblem(
                f"`param.dup_infos` holds {shown(doc)}, not the fields {' '.join(fields)}"
            )
        row = [doc[f] for f in fields]
        if not all(v is None or isinstance(v, (str, int, float)) for v in row):
            raise RecordProblem(f"`param.dup_infos` holds a value that is no text: {shown(row)}")
        rows.append(row)
    return rows
