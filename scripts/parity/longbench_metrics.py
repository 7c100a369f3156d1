"""Regenerate tests/parity/longbench_metrics.jsonl: LongBench v2's own answer reading and
result table on responses we wrote.

Run by hand from the repository root with lctui's python, never in CI:

    PYTHONPATH=src python scripts/parity/longbench_metrics.py \
        --longbench PATH/TO/LongBench --python PATH/TO/venv/bin/python

--longbench is a checkout of THUDM/LongBench (its git HEAD is the commit named in the
header; a plain folder needs --commit); --python has tiktoken. The original's code runs
in that python (longbench_driver.py).

Answer rows: one question each, answered with a response written to reach a branch of
the original's reading (the answer sentence with or without parentheses, asterisks
anywhere, several sentences, lower case, letters outside A-D, look-alike characters,
empty, very long). pred.py's get_pred asks the question with a stand-in model that gives
the response, and the row records the result line it wrote (response, pred, judge), or
that it wrote none (an empty response is asked again on the original's next run).

Set rows: sets of questions over the six domains, both difficulties and the three length
buckets, each answered by a drawn mix of right, wrong and unreadable responses. get_pred
writes the set's result file, and result.py (the original script, then a scratch copy
with `compensated = True`) computes its table: Overall, Easy, Hard, Short, Medium, Long.
A set that lacks a difficulty or bucket records the error the original stops with.
Every row holds its questions (short invented texts) and the responses.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

# The fixture helpers (tests/helpers) and lctui's fixed sets are shared with the tests.
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))

from longbench_common import check_checkout, original, parity_parser, write

from helpers.longbench_data import expand_output
from lctui.suites.longbench.tasks.data import BUCKETS, DIFFICULTIES, DOMAINS

LETTERS = "ABCD"
FILLER = "Let me weigh each option against the text once more. "
# (name, response, gold): each response reaches one branch of the original's reading.
ANSWERS: list[tuple[str, Any, str]] = [
    ("parens_right", "The correct answer is (B)", "B"),
    ("parens_wrong", "The correct answer is (B)", "C"),
    ("bare_right", "The correct answer is C", "C"),
    ("bare_with_period", "The correct answer is A.", "A"),
    ("bare_then_word", "The correct answer is Apple.", "A"),
    ("bare_closing_paren", "The correct answer is D)", "D"),
    ("bold_sentence", "**The correct answer is (D)**", "D"),
    ("bold_letter", "The correct answer is **(A)**", "A"),
    ("bold_inside_parens", "The correct answer is (*C*)", "C"),
    ("bold_word", "The *correct* answer is (B)", "B"),
    ("bold_bare_letter", "**Answer:** The correct answer is **B**", "B"),
    ("escaped_asterisks", "The correct answer is \\*\\*(A)\\*\\*", "A"),
    (
        "reasoning_then_sentence",
        "Option A contradicts the text.\n\nThe correct answer is (D).",
        "D",
    ),
    ("two_parens_first_counts", "The correct answer is (A). No: the correct answer is (B).", "B"),
    ("two_parens_both", "The correct answer is (A). The correct answer is (B).", "B"),
    ("bare_then_parens", "The correct answer is B. Checking: The correct answer is (C).", "C"),
    ("parens_then_bare", "The correct answer is (C), so The correct answer is D", "C"),
    ("outside_then_bare", "The correct answer is (E). The correct answer is B", "B"),
    ("lower_case", "the correct answer is (A)", "A"),
    ("upper_case", "THE CORRECT ANSWER IS (A)", "A"),
    ("lower_letter", "The correct answer is (a)", "A"),
    ("letter_e", "The correct answer is (E)", "A"),
    ("letter_e_bare", "The correct answer is E", "A"),
    ("two_letters", "The correct answer is (AB)", "A"),
    ("double_parens", "The correct answer is ((B))", "B"),
    ("open_paren_only", "The correct answer is (A", "A"),
    ("double_space", "The correct answer is  (A)", "A"),
    ("no_space", "The correct answer is(A)", "A"),
    ("colon", "The correct answer is: (A)", "A"),
    ("line_break", "The correct answer is\n(A)", "A"),
    ("no_break_space", "The correct\u00a0answer is (A)", "A"),
    ("zero_width_space", "The correct answer\u200b is (A)", "A"),
    ("fullwidth_parens", "The correct answer is \uff08A\uff09", "A"),
    ("fullwidth_letter", "The correct answer is (\uff21)", "A"),
    ("cyrillic_a", "The correct answer is (\u0410)", "A"),
    ("greek_alpha", "The correct answer is (\u0391)", "A"),
    ("math_bold_a", "The correct answer is (\U0001d400)", "A"),
    ("combining_accent", "The correct answer is (A\u0301)", "A"),
    ("other_phrase", "Answer: (C)", "C"),
    ("chinese", "\u6b63\u786e\u7b54\u6848\u662f (A)", "A"),
    ("letter_only", "B", "B"),
    ("empty", "", "A"),
    ("whitespace_only", "  \n\t ", "A"),
    ("padded", "\n  The correct answer is (C)  \n", "C"),
    (
        "very_long_then_sentence",
        {"repeat": FILLER, "times": 400, "then": "The correct answer is (D)"},
        "D",
    ),
    ("very_long_without", {"repeat": FILLER, "times": 400, "then": "I cannot decide."}, "D"),
]

# Responses a set's questions get, drawn with these weights: (kind, weight).
RESPONSE_KINDS: tuple[tuple[str, int], ...] = (
    ("right_parens", 5),
    ("right_bare", 2),
    ("right_bold", 1),
    ("wrong_parens", 5),
    ("wrong_bare", 1),
    ("unreadable", 3),
    ("blank", 1),
)
UNREADABLE = (
    "I cannot tell from the text.",
    "the correct answer is (B)",
    "The correct answer is (E)",
    "Answer: C",
)
# (name, questions, weights override or None, seed); sizes give results ending in 5 at
# the second decimal (16, 40, 80) as well as others.
SETS: list[tuple[str, int, dict[str, int] | None, int]] = [
    ("mixed_12", 12, None, 1),
    ("mixed_16", 16, None, 2),
    ("mixed_24", 24, None, 3),
    ("mixed_40", 40, None, 4),
    ("mixed_61", 61, None, 5),
    ("mixed_80", 80, None, 6),
    ("mostly_right_30", 30, {"right_parens": 20, "wrong_parens": 2, "unreadable": 1}, 7),
    ("mostly_unreadable_30", 30, {"unreadable": 10, "right_bare": 1, "wrong_bare": 1}, 8),
    ("all_right_6", 6, {"right_parens": 1}, 9),
    ("all_unreadable_6", 6, {"unreadable": 1}, 10),
    ("release_shape_503", 503, None, 11),
]
# Sets without a group the original divides by: it stops with an error.
INCOMPLETE: list[tuple[str, tuple[str, ...]]] = [
    ("no_long_bucket", ("short", "medium")),
    ("no_easy_question", ("hard",)),
]


def _item(k: int, domain: str, difficulty: str, bucket: str, answer: str) -> dict[str, Any]:
    return {
        "_id": f"6719b{k:019x}",
        "domain": domain,
        "sub_domain": f"sub-{k % 5}",
        "difficulty": difficulty,
        "length": bucket,
        "question": f"[q{k:05d}] Which option does the text support?",
        **{f"choice_{x}": f"Option {x} of q{k:05d}" for x in LETTERS},
        "answer": answer,
        "context": f"A short text for question {k}.",
    }


def _response(kind: str, gold: str, rng: random.Random) -> str:
    other = rng.choice([x for x in LETTERS if x != gold])
    return {
        "right_parens": f"The text says so in its third part. The correct answer is ({gold})",
        "right_bare": f"The correct answer is {gold}.",
        "right_bold": f"**The correct answer is ({gold})**",
        "wrong_parens": f"The correct answer is ({other})",
        "wrong_bare": f"The correct answer is {other}",
        "unreadable": rng.choice(UNREADABLE),
        "blank": "   ",  # the original keeps it (not '') and reads no option
    }[kind]


def answer_rows(start: int) -> list[dict[str, Any]]:
    rows = []
    domains = list(DOMAINS)
    for i, (name, output, gold) in enumerate(ANSWERS):
        item = _item(start + i, domains[i % 6], DIFFICULTIES[i % 2], BUCKETS[i % 3], gold)
        rows.append({"kind": "answer", "name": name, "item": item, "output": output})
    return rows


def _groups(n: int, rng: random.Random) -> list[tuple[str, str, str]]:
    """(domain, difficulty, bucket) of n questions: the release's mix for 503, else
    cycling through all three so that every group has questions."""
    if n == 503:
        domains = [d for d, count in DOMAINS.items() for _ in range(count)]
        difficulties = ["easy"] * 192 + ["hard"] * 311
        buckets = ["short"] * 180 + ["medium"] * 215 + ["long"] * 108
        for column in (domains, difficulties, buckets):
            rng.shuffle(column)
        return list(zip(domains, difficulties, buckets, strict=True))
    domains = list(DOMAINS)
    return [(domains[i % 6], DIFFICULTIES[i % 2], BUCKETS[(i // 2) % 3]) for i in range(n)]


def set_rows(start: int) -> list[dict[str, Any]]:
    rows = []
    k = start
    for name, n, weights, seed in SETS:
        rng = random.Random(seed)
        kinds = dict(RESPONSE_KINDS) if weights is None else weights
        items = []
        for domain, difficulty, bucket in _groups(n, rng):
            gold = rng.choice(LETTERS)
            kind = rng.choices(list(kinds), weights=list(kinds.values()))[0]
            items.append(
                {
                    **_item(k, domain, difficulty, bucket, gold),
                    "output": _response(kind, gold, rng),
                }
            )
            k += 1
        rows.append({"kind": "set", "name": name, "items": items})
    for i, (name, kept) in enumerate(INCOMPLETE):
        rng = random.Random(100 + i)
        items = []
        for j in range(12):
            difficulty = kept[j % len(kept)] if kept[0] in DIFFICULTIES else DIFFICULTIES[j % 2]
            bucket = kept[j % len(kept)] if kept[0] in BUCKETS else BUCKETS[j % 3]
            gold = rng.choice(LETTERS)
            kind = rng.choice(["right_parens", "wrong_parens", "unreadable"])
            items.append(
                {
                    **_item(k, list(DOMAINS)[j % 6], difficulty, bucket, gold),
                    "output": _response(kind, gold, rng),
                }
            )
            k += 1
        rows.append({"kind": "set", "name": name, "items": items})
    return rows


def main() -> None:
    parser = parity_parser(__doc__, "longbench_metrics.jsonl")
    args = parser.parse_args()
    check_checkout(args.longbench)
    answers = answer_rows(0)
    request_items = [{**row["item"], "output": expand_output(row["output"])} for row in answers]
    for row, result in zip(
        answers, original(args, "answers", {"items": request_items}), strict=True
    ):
        if result["_id"] != row["item"]["_id"]:
            raise SystemExit("the driver answered out of order")
        row.update({k: v for k, v in result.items() if k != "_id"})
    sets = set_rows(1000)
    tables = original(args, "results", {"sets": {row["name"]: row["items"] for row in sets}})
    for row in sets:
        table = tables[row["name"]]
        written = [line["_id"] for line in table["lines"]]
        if written != [item["_id"] for item in row["items"]]:
            raise SystemExit(f"set {row['name']}: get_pred did not write every question")
        row["preds"] = [line["pred"] for line in table["lines"]]
        row["judges"] = [line["judge"] for line in table["lines"]]
        row["plain"], row["compensated"] = table["plain"], table["compensated"]
    notes = (
        "answer rows: pred.py's get_pred (direct mode, an API model, a stand-in chat client "
        "that gives the row's output) and the result line it wrote, if any; set rows: "
        "get_pred's result file of the set, then result.py on it as is and with "
        "compensated = True (its printed table). Questions and responses are ours. "
        f"{len(answers)} answers, {len(sets)} sets, "
        f"{sum(len(r['items']) for r in sets)} answered questions in the sets."
    )
    write(args, notes, answers + sets)


if __name__ == "__main__":
    main()
