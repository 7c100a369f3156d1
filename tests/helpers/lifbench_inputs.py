"""Small prompt files in the format of LIFBench's released data (data/prompts/
SCENARIO-TASK.json: a JSON list of records with prompt, label, param, length, ins_id and
param_id, as its data/PromptGenerate.py writes them), with text of our own: the shape of
its records and the markers its evaluation cuts a prompt at, none of its sentences.

The prompts hold what a careless reader would change: tabs, runs of spaces, a carriage
return, non-ASCII letters, an emoji, a trailing newline; a List entry that runs over two
lines (which LIFBench's evaluation reads as one entry).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

LIST_TASKS = (
    "single_query_id",
    "multi_query_id",
    "offset_query_id",
    "offset_query_element",
    "blur_offset_query_id",
    "blur_offset_query_element",
)
FILES: dict[str, str] = {
    **{task: f"list-{task}" for task in LIST_TASKS},
    "find_dup_text": "multidoc-find_dup_text",
    "batch_label": "multidoc-batch_label",
    "repeat": "onedoc-repeat",
    "extract": "onedoc-extract",
    "qa": "onedoc-qa",
}
WORDS = ("heron", "lantern", "quay", "ferry", "Ærø", "gull", "net", "tide", "harbour", "🚢")


def list_entry(i: int) -> str:
    if i % 3 == 0:
        return f"{(0x9F3A17 * (i + 7)) % 16**12:012x}4c2e11ef8a{i:010x}"  # uuid1-like hex
    # ASCII: multi_query_id's judge reads the output through unicode_escape, which
    # garbles any other letter, so no answer could quote such an entry.
    ascii_words = [w for w in WORDS if w.isascii()]
    words = " ".join(ascii_words[(i + k) % len(ascii_words)] for k in range(4 + i % 5))
    if i == 4:
        return f"Sketch {i} the {words}:\n  then stop"  # one entry on two lines
    return f"Describe {i} the {words}\tbriefly."


def _list_record(task: str, number: int, interval: int) -> dict[str, Any]:
    items = [list_entry(i) for i in range(24 + 2 * number)]
    listed = "".join(f"{i + 1}. {item}\n" for i, item in enumerate(items))
    k = len(items)
    if task == "multi_query_id":
        ids = [2, 5, 11 + number][: 2 + number % 2]
        param: dict[str, Any] = {"id_arr": ids, "elements": [items[i - 1] for i in ids]}
        ask = f"Give entries {ids} as a JSON list."
    else:
        n = (3, 12, k - 4)[number % 3]
        param = {
            "id": n + 1,
            "ordid": f"{n + 1}th",
            "element": items[n],
            "pre_element": items[n - 1],
            "post_element": items[n + 1],
        }
        if task != "single_query_id":
            param["bias"] = (1, -1)[number % 2]
        ask = f"Which entry is next to entry {n + 1}?  Say it alone."
    head = "Our searcher reads lists, café 🚢.\r\n"
    prompt = f"{head}List to be retrieved:\n{listed}\nInstruction: {ask}\n"
    return {"prompt": prompt, "label": k, "param": param, "length": interval}


_KINDS = ("#Topic#", "@argument@", "!Transition!", "*Evidence*", "-Concession-")


def _onedoc_record(task: str, number: int, interval: int) -> dict[str, Any]:
    sentences = [f"The {WORDS[i % 10]} rests by the {WORDS[(i + 3) % 10]} {i}." for i in range(14)]
    label: dict[str, list[list[Any]]] = {}
    marked = list(sentences)
    for i, kind in enumerate(_KINDS):
        at = 2 * i + 1
        key = i != 2  # the third type's one sentence is a fake (its tail tag differs)
        label[kind] = [[sentences[at], i, at, key]]
        tail = kind if key else "<fake>"
        marked[at] = f"<{kind}-0>{sentences[at]}<{tail}>"
    text = "  ".join(marked) + "\tEnd of the café text.\n"
    if task == "repeat":
        param: dict[str, Any] = {"num": 1 + number, "sep": ("###", "|||")[number % 2]}
        ask = f"Quote {1 + number} tagged sentences with their types."
    elif task == "extract":
        param = {"type": f"<{_KINDS[(0, 1, 3, 4)[number % 4]]}>"}  # a type with key sentences
        ask = f"List every sentence tagged {param['type']} as JSON."
    else:
        param = {"evidence": sentences[1 + 2 * (number % 5)], "options": ["Yes", "No"]}
        ask = f'Is "{param["evidence"]}" a key sentence? Yes or No.'
    prompt = f"Tagged text follows.\n\nInput text: {text}\n\nInstruction: {ask}\n"
    return {"prompt": prompt, "label": label, "param": param, "length": interval}


def _document(n: int, doc: dict[str, str]) -> str:
    fields = "".join(f"{key}: {value}\n" for key, value in doc.items())
    return f"******************** doc-{n} ********************\n{fields}\n\n"


def _multidoc_record(task: str, number: int, interval: int) -> dict[str, Any]:
    docs: list[dict[str, str]] = []
    for i in range(7):
        doc = {"id": f"Qx{i}{number}Zk", "iD2": f"c0ffee-{i}-{number}", "title": f"Harbour {i}"}
        # The same text every third document; the last one's is its own, and it alone
        # has no title (no group then holds a missing field).
        doc["text"] = f"The {WORDS[i % 3]} log notes {WORDS[(i + 4) % 10]} at dawn {i % 3}."
        if i % 2:
            doc["source"] = "news"
        if i == 6:
            doc["text"] = "The last log is blank."
            del doc["title"]
        docs.append(doc)
    listed = "".join(_document(n, doc) for n, doc in enumerate(docs, 1))
    if task == "batch_label":
        param: dict[str, Any] = {
            "rule_key": "abcd",
            "candidates": ["apple", "banana", "cat", "dog"],
            "rules": "our rules",
            "doc_keys": [list(doc) for doc in docs],
        }
        ask = "Label each document."
    else:
        fields = ("id", "id title")[number % 2]
        groups = [[0, 3], [1, 4], [2, 5]]
        param = {
            "info_text": fields,
            "info_keys": fields,
            "example": '[["x"]]',
            "dup_idxs": groups,
            "dup_infos": [
                [{f: docs[i].get(f) for f in fields.split(" ")} for i in g] for g in groups
            ],
        }
        ask = "Group the documents whose text repeats."
    prompt = f"Our documents:\n\n Documents:\n{listed}\n\n Instructions:{ask}"
    return {"prompt": prompt, "label": len(docs), "param": param, "length": interval}


def lifbench_record(task: str, number: int, interval: int = 3) -> dict[str, Any]:
    """Record `number` of LIFEval task `task` at length interval `interval`."""
    scenario = FILES[task].split("-", 1)[0]
    make = {"list": _list_record, "onedoc": _onedoc_record, "multidoc": _multidoc_record}
    record = make[scenario](task, number, interval)
    return {**record, "ins_id": number % 3, "param_id": number}


def write_lifbench(
    root: Path,
    tasks: tuple[str, ...] = tuple(FILES),
    intervals: tuple[int, ...] = (3,),
    records: int = 2,
) -> Path:
    """A LIFBench checkout's data/prompts with `records` records per task and interval
    (every interval's in one file, as released); the checkout's folder."""
    folder = root / "data" / "prompts"
    folder.mkdir(parents=True, exist_ok=True)
    for task in tasks:
        rows = [lifbench_record(task, n, i) for i in intervals for n in range(records)]
        prompt_file(root, task).write_text(json.dumps(rows, indent=2, ensure_ascii=False))
    return root


def prompt_file(root: Path, task: str) -> Path:
    return root / "data" / "prompts" / f"{FILES[task]}.json"


def file_prompts(path: Path) -> list[str]:
    """The prompts of a prompt file, in its order: what LIFBench's inference sends."""
    return [str(record["prompt"]) for record in json.loads(path.read_text(encoding="utf-8"))]
