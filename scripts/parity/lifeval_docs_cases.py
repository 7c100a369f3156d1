"""Outputs that reach every branch of the original's MultiDoc and OneDoc point rules.

Used by lifeval_docs.py: for an lctui example, a list of (case name, output). Every
output is written here from the example's own reference and metadata; none comes
from a model.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from lctui.core.types import Example
from lctui.suites.lifbench.tasks.multidoc_context import parse_docs
from lctui.suites.lifbench.tasks.onedoc_context import ALL_TYPES

Cases = list[tuple[str, str]]


def near(text: str) -> str:
    """`text` with its middle character changed."""
    i = len(text) // 2
    return text[:i] + ("x" if text[i] != "x" else "y") + text[i + 1 :]


def far(text: str) -> str:
    """`text` with eight characters of its middle changed: past any near-miss limit."""
    i = max(0, len(text) // 2 - 4)
    return text[:i] + "########" + text[i + 8 :]


# -- batch_label -----------------------------------------------------------------------


def batch_label(example: Example) -> Cases:
    meta = example.metadata
    labels = [str(x) for x in meta["labels"]]
    truth = [str(x) for x in meta["expected"]]
    n = len(truth)
    ref = {f"doc{k}": v for k, v in enumerate(truth, 1)}
    body = json.dumps(ref)
    rotate = {k: labels[(labels.index(v) + 1) % 4] for k, v in ref.items()}
    one_wrong = {**ref, "doc2": labels[(labels.index(truth[1]) + 1) % 4]} if n > 1 else rotate
    cases: Cases = [
        ("reference", body),
        ("compact", json.dumps(ref, separators=(",", ":"))),
        ("indented", json.dumps(ref, indent=2)),
        ("fenced", f"```json\n{body}\n```"),
        ("prose_wrapped", f"Here are the labels: {body}. Every document got one."),
        ("python_quoted", str(ref)),
        ("json_list_of_labels", json.dumps(truth)),
        ("missing_last", json.dumps(dict(list(ref.items())[:-1]))),
        ("missing_middle", json.dumps({k: v for k, v in ref.items() if k != f"doc{n // 2 + 1}"})),
        ("extra_doc", json.dumps({**ref, f"doc{n + 1}": truth[0]})),
        ("all_wrong", json.dumps(rotate)),
        ("one_wrong", json.dumps(one_wrong)),
        ("not_candidates", json.dumps({k: "unknown" for k in ref})),
        ("upper_case", json.dumps({k: v.upper() for k, v in ref.items()})),
        ("lines_no_braces", "\n".join(f"{k}: {v}" for k, v in ref.items())),
        ("keys_renamed", json.dumps({f"document {k}": v for k, v in enumerate(truth, 1)})),
        ("empty", ""),
        ("garbage", "I could not decide which labels the documents should get."),
        ("trailing_backslash", body + "\\"),
        ("open_braces", "{" * 60),
        ("nested", json.dumps({"labels": ref})),
        ("deep_brackets", "[" * 3000 + "]" * 3000),
        ("json_null", "null"),
        ("json_zero", "0"),
        ("empty_object", "{}"),
        ("empty_list", "[]"),
        ("comma_in_label", json.dumps({k: v + ", surely" for k, v in ref.items()})),
        ("two_objects", json.dumps(dict(list(ref.items())[:-1])) + "\n\nFixed:\n" + body),
        ("bracket_between", body[: len(body) // 2] + "]" + body[len(body) // 2 :]),
        ("spaced_labels", json.dumps({k: f"  {v} " for k, v in ref.items()})),
        ("zero_padded_keys", json.dumps({f"doc{k:02d}": v for k, v in enumerate(truth, 1)})),
        ("reference_then_prose", body + "\nThe doc keys follow the documents in order."),
        ("over_long", body + "\n" + "This labelling follows the rules given. " * 60),
    ]
    if "complete" in labels:
        swapped = {k: ("incomplete" if v == "complete" else v) for k, v in ref.items()}
        cases.append(("incomplete_for_complete", json.dumps(swapped)))
    return cases


# -- find_dup_text ---------------------------------------------------------------------


def find_dup_text(example: Example) -> Cases:
    meta = example.metadata
    fields = [str(f) for f in meta["fields"]]
    groups: list[list[list[Any]]] = meta["values"]
    docs = parse_docs(example.context)
    lines = [json.dumps(g) for g in groups]
    ref = "\n".join(lines)
    grouped = {k for g in meta["groups"] for k in g}
    loners = [k for k in range(1, len(docs) + 1) if k not in grouped][:2]
    loner_line = json.dumps([[docs[k - 1].get(f) for f in fields] for k in loners])
    first = groups[0]
    cases: Cases = [
        ("reference", ref),
        ("python_None", ref.replace("null", "None")),
        ("compact", "\n".join(json.dumps(g, separators=(",", ":")) for g in groups)),
        ("one_json_list", json.dumps(groups)),
        ("groups_on_one_line", " ".join(lines)),
        ("missing_group", "\n".join(lines[:-1]) if len(lines) > 1 else loner_line),
        ("merged_groups", json.dumps([row for g in groups for row in g])),
        ("extra_group", ref + "\n" + loner_line),
        ("prose_line_before", "Here are the groups:\n" + ref),
        ("prose_same_line", "Groups: " + ref),
        ("fenced", "```\n" + ref + "\n```"),
        ("extra_member", "\n".join([json.dumps([*first, ["zzzzzzzz"] * len(fields)]), *lines[1:]])),
        ("empty", ""),
        ("text_None", "None"),
        ("broken_lines", "\n".join(line[:-1] for line in lines)),
        ("flat_lists", "\n".join(json.dumps([row[0] for row in g]) for g in groups)),
        ("trailing_backslash", ref + "\\"),
        ("reversed", "\n".join(json.dumps(g[::-1]) for g in groups[::-1])),
        ("python_quoted", "\n".join(str([[str(v) for v in row] for row in g]) for g in groups)),
        (
            "wrong_field",
            "\n".join(json.dumps([[docs[0]["date"]] * len(fields)] * 2) for _ in lines),
        ),
        ("string_row", "\n".join(json.dumps([g[0], "loose", *g[1:]]) for g in groups)),
        ("empty_string_row", "\n".join(json.dumps([g[0], "", *g[1:]]) for g in groups)),
        ("number_row", ref + '\n[["a"], 5, ["c"]]'),
        ("tuple_row", ref + '\n[["a"], ("b",), ["c"]]'),
        ("empty_tuple_row", ref + '\n[["a"], (), ["c"]]'),
        ("dict_row", ref + '\n[["a"], {0: "b"}, ["c"]]'),
        ("dict_row_unindexed", ref + '\n[["a"], {1: "b"}, ["c"]]'),
        ("text_after", ref + " (these are all)"),
        ("deep_brackets", "[" * 3000 + "]" * 3000),
        ("escaped_quote_only", '\\"'),
        ("short_first_row", json.dumps([first[0][:1], [v for row in first for v in row]])),
        ("unicode_escapes", ref.replace("a", "\\u0061")),
        ("numbers", "[[1], [2]]\n[[3], [4]]"),
        ("null_in_text", ref + "\nnull values were written as null"),
        ("nested_deeper", "\n".join(json.dumps([[row] for row in g]) for g in groups)),
        ("trailing_commas", "\n".join(line + "," for line in lines)),
        (
            "spaced_values",
            "\n".join(json.dumps([[f" {v} " for v in row] for row in g]) for g in groups),
        ),
        ("open_brackets", "[[" * 40),
        ("not_literal", "[[x]]\n[[1 + 2]]"),
        ("bad_escape", ref + "\\x"),
        ("over_long", ref + "\n" + "These documents repeat one another. " * 60),
    ]
    return cases


# -- repeat ----------------------------------------------------------------------------


def _keys(meta: dict[str, Any]) -> list[tuple[str, str]]:
    return [(str(k["text"]), str(k["type"])) for k in meta["keys"]]


def repeat(example: Example) -> Cases:
    meta: dict[str, Any] = dict(example.metadata)
    num, sep = int(meta["num"]), str(meta["sep"])
    keys = _keys(meta)
    pick = keys[:num]
    fake = meta["fakes"][0]
    fake_pair = (str(fake["text"]), str(fake["type"]))
    other = {t: ALL_TYPES[(ALL_TYPES.index(t) + 1) % len(ALL_TYPES)] for t in ALL_TYPES}

    def render(pairs: list[tuple[str, str]], fmt: str = "{s} {sep} {t}") -> str:
        return "\n".join(fmt.format(s=s, t=t, sep=sep) for s, t in pairs)

    plain = next(s for s in example.context.split(". ")[3:] if "<" not in s and ">" not in s and s)
    return [
        ("reference", render(pick)),
        ("bracketed_sentences", render(pick, "[{s}] {sep} {t}")),
        ("wrong_types", render([(s, other[t]) for s, t in pick])),
        ("with_fake", render([*pick[:-1], fake_pair])),
        ("only_fakes", render([(str(f["text"]), str(f["type"])) for f in meta["fakes"]])),
        ("fewer", render(pick[: max(1, num // 2)])),
        ("more", render(keys[: num + 2])),
        ("no_separator", render(pick, "{s} {t}")),
        ("other_separator", render(pick, "{s} : {t}")),
        ("tags_kept", "\n".join(f"<{t}-1>{s}<{t}> {sep} {t}" for s, t in pick)),
        ("one_char_off", render([(near(s), t) for s, t in pick])),
        ("far_off", render([(far(s), t) for s, t in pick])),
        ("bare_type_names", render([(s, t.strip("#@!|*-")) for s, t in pick])),
        ("lower_case_types", render([(s, t.lower()) for s, t in pick])),
        ("type_first", "\n".join(f"{t}{sep}{s}" for s, t in pick)),
        ("numbered", "\n".join(f"{i}. {s} {sep} {t}" for i, (s, t) in enumerate(pick, 1))),
        ("separator_twice", render(pick, "{s} {sep} {t} {sep}")),
        ("blank_lines", "\n\n".join(f"{s} {sep} {t}" for s, t in pick)),
        ("untagged_sentence", render([(plain.strip() + ".", "#Topic#"), *pick[1:]])),
        ("all_on_one_line", " ".join(f"{s} {sep} {t}" for s, t in pick)),
        ("summary_type", render([(s, "|Summary|") for s, _ in pick])),
        ("empty", ""),
        ("garbage", "I cannot find the key sentences in this document."),
        ("over_long", render(pick) + "\n" + "and more of the same text " * 80),
    ]


# -- extract ---------------------------------------------------------------------------


def extract(example: Example) -> Cases:
    meta: dict[str, Any] = dict(example.metadata)
    kind = str(meta["type"])
    keys = _keys(meta)
    trues = [s for s, t in keys if t == kind]
    fakes = [str(f["text"]) for f in meta["fakes"] if f["type"] == kind]
    others = [s for s, t in keys if t != kind]
    ref = str(meta["reference"])
    cases: Cases = [
        ("reference", ref),
        ("reversed", json.dumps(trues[::-1])),
        ("with_fake", json.dumps(trues + fakes)),
        ("missing_one", json.dumps(trues[:-1])),
        ("other_types", json.dumps(others[:3])),
        ("plus_other_type", json.dumps(trues + others[:2])),
        ("plain_lines", "\n".join(trues) or "none"),
        ("prose_wrapped", "Result: " + ref + " (by id)"),
        ("fenced", "```json\n" + ref + "\n```"),
        ("empty_list", "[]"),
        ("empty_list_spaced", "[ ]"),
        ("empty_list_fenced", "```json\n[]\n```"),
        ("empty_list_in_text", "There are none: []"),
        ("json_object", json.dumps({str(i): s for i, s in enumerate(trues)})),
        ("one_char_off", json.dumps([near(s) for s in trues])),
        ("trailing_backslash", ref + "\\"),
        ("ends_with_backslash_x", ref + "\\x"),
        ("mixed_list", json.dumps([*trues, 1])),
        ("numbers_in_prose", "Ids: [1, 2, 3]"),
        ("python_quoted", str(trues)),
        ("unicode_escapes", ref.replace("e", "\\u0065")),
        ("nested_list", json.dumps([trues])),
        ("deep_brackets", "[" * 3000 + "]" * 3000),
        ("empty", ""),
        ("garbage", "No sentences of that kind."),
        ("over_long", ref + "\n" + "These are all of them, in order. " * 60),
    ]
    if not trues:
        cases.append(("some_sentences", json.dumps(others[:2])))
    return cases


# -- qa --------------------------------------------------------------------------------


def qa(example: Example) -> Cases:
    meta = example.metadata
    yes, no = (str(o) for o in meta["options"])
    right = str(meta["reference"])
    wrong = no if right == yes else yes
    return [
        ("reference", right),
        ("wrong", wrong),
        ("both", f"{yes} or {no}"),
        ("neither", "maybe"),
        ("lower", right.lower()),
        ("upper", right.upper()),
        ("period", right + "."),
        ("quoted", f'"{right}"'),
        ("in_sentence", f"The answer is {right} because of the tags."),
        ("wrong_in_sentence", f"The answer is {wrong}."),
        ("neither_long", "I am not sure whether this sentence is one of them."),
        ("padded", f"  {right}\n"),
        ("empty", ""),
        ("over_long", f"{right}. " + "The tags around it decide the matter. " * 30),
    ]


CASES: dict[str, Callable[[Example], Cases]] = {
    "batch_label": batch_label,
    "find_dup_text": find_dup_text,
    "repeat": repeat,
    "extract": extract,
    "qa": qa,
}
