"""Regenerate tests/parity/helmet_metrics.jsonl: HELMET's own EM, F1, SubEM and parsed
answer line for outputs we wrote, on lctui's json_kv examples and on free-text probes.

Run by hand from the repository root with lctui's python, never in CI:

    PYTHONPATH=src python scripts/parity/helmet_metrics.py \
        --helmet PATH/TO/HELMET --python PATH/TO/originals-venv/bin/python

--helmet is a checkout of princeton-nlp/HELMET (its git HEAD is the commit named in the
header; a plain folder needs --commit); --python has HELMET's light dependencies
(rouge_score, nltk, pyyaml). HELMET's code runs in that python (helmet_driver.py); this
script builds lctui's examples and the outputs, and writes the fixture.

Rows: json_kv outputs on 6 examples (4k and 8k, seed 0, indices 0-2, o200k_base), each
once as generated after lctui's answer prefix (HELMET puts the prefix in front, as for
a prompt without chat template) and once as a chat model's answer (nothing in front);
then free-text probes scored by HELMET's default post-processing ("Answer:").
"""

from __future__ import annotations

import json
import unicodedata
from typing import Any

from helmet_common import parity_parser, run_driver, snapshot_commit, write_fixture

from lctui.core.types import Example
from lctui.tasks import get_task
from lctui.tasks.json_kv import KEY_LABEL
from lctui.tasks.tokenizers import reference_tokenizer

LENGTHS, SEED, INDICES, TOKENIZER = (4096, 8192), 0, (0, 1, 2), "o200k_base"
QA_PREFIX = "Answer:"
FULLWIDTH = {ord(d): 0xFF10 + int(d) for d in "0123456789"}
# Free-text probes: (golds, output), each scored with and without "Answer:" in front.
PROBES: list[tuple[list[str], str]] = [
    (["The Eiffel Tower"], "eiffel tower!"),
    (["a cat"], "Cat"),
    (["U.S.A."], "usa"),
    (["rock-n-roll"], "rock n roll"),
    (["rock\u2013n\u2013roll"], "rock-n-roll"),
    (["naïve"], "naive"),
    (["Ångström"], unicodedata.normalize("NFD", "Ångström")),
    (["anthem"], "them"),
    (["the an a"], ""),
    (["A"], "B"),
    ([" "], "anything"),
    (["yes"], "Yes, it is."),
    (["yes"], "no"),
    (["no"], "no"),
    (["no"], "No way"),
    (["noanswer"], "no answer"),
    (["São Paulo"], "sao paulo"),
    (["e-mail"], "email"),
    (["\u201cquoted\u201d"], "quoted"),
    (["don't"], "don\u2019t"),
    (["50%"], "50"),
    (["C++"], "c"),
    (["AT&T"], "att"),
    (["İstanbul"], "istanbul"),
    (["istanbul"], "İSTANBUL"),
    (["New York"], "New\u00a0York"),
    (["the big red apple"], "a red apple pie"),
    (["New York, New York"], "new york"),
    (["Paris", "Québec"], "Quebec"),
    (["London", "paris"], "PARIS!"),
    (["rome", "Rome City"], "rome city"),
    (["rtwo"], "two"),  # without chat template: "Answer:two" holds "rtwo"
    (["Paris"], "Answer: Paris\nBecause it is."),
    (["Paris"], "I think so.\nanswer: ANSWER: paris"),
    (["Paris"], "\nParis"),
    (["Paris"], "Answer:\nParis"),
    (["Paris"], "Lyon\u2028Paris"),
    (["Paris"], "Paris\r\nmore"),
]


def _answers(gold: str) -> list[tuple[str, Any]]:
    """Outputs for one gold answer, named by the rule each one reaches."""
    half = len(gold) // 2
    return [
        ("exact", gold),
        ("with_prose", f"The answer is: {gold}."),
        ("upper", gold.upper()),
        ("title", gold.title()),
        ("repeated_3x", " ".join([gold] * 3)),
        ("empty", ""),
        ("whitespace", "   \n\t "),
        ("control_char_inside", gold[:half] + "\x07" + gold[half:]),
        ("nul_after", gold + "\x00"),
        ("zero_width_inside", gold[:1] + "\u200b" + gold[1:]),
        ("nbsp_around", "\u00a0" + gold + "\u00a0"),
        ("hyphen_to_en_dash", gold.replace("-", "\u2013")),
        ("hyphen_to_minus_sign", gold.replace("-", "\u2212")),
        ("hyphen_to_underscore", gold.replace("-", "_")),
        ("hyphen_removed", gold.replace("-", "")),
        ("hyphen_to_space", gold.replace("-", " ")),
        ("curly_quoted", "\u201c" + gold + "\u201d"),
        ("ascii_quoted", f'"{gold}"'),
        ("fullwidth_digits", gold.translate(FULLWIDTH)),
        ("spaces_inside", " ".join(gold)),
        ("markdown_bold", f"**{gold}**"),
        ("code_fenced", f"```\n{gold}\n```"),
        ("trailing_period", gold + "."),
        ("article_prefixed", "the " + gold),
        ("overlong_100k", {"repeat": "filler ", "times": 15000, "then": gold}),
        ("near_miss_last_char", gold[:-1] + ("0" if gold[-1] != "0" else "1")),
        ("truncated", gold[:-4]),
        ("embedded_in_word", "x" + gold + "y"),
        ("dotted_I_upper", gold.upper().replace("I", "\u0130")),
    ]


def _json_kv_answers(example: Example) -> list[tuple[str, Any]]:
    """Outputs that reach the answer-line rules, with lctui's prefix and labels."""
    gold, key, prefix = example.gold[0], str(example.metadata["key"]), example.answer_prefix
    demo_value = example.metadata["demos"][-1][1]  # type: ignore[index]
    other = json.loads(example.context)
    other_value = next(v for k, v in other.items() if k != key)
    return [
        ("prefix_repeated", f"{prefix} {gold}"),
        ("prefix_repeated_lower", f"{prefix.lower()} {gold}"),
        ("prose_then_prefix_line", f"Let me look it up.\n{prefix} {gold}"),
        ("prose_line_then_value", f"Let me look it up.\n{gold}"),
        ("value_on_second_line", "\n" + gold),
        ("key_then_value", f'"{key}": "{gold}"'),
        ("answer_then_next_lookup", f"{gold}\n{KEY_LABEL} something"),
        ("json_object", json.dumps({key: gold})),
        ("demo_value", demo_value),
        ("other_value_of_the_object", other_value),
    ]


def _after_prefix(output: Any) -> Any:
    """An output as a model writes it after a pre-filled prefix: one space first."""
    if isinstance(output, dict):
        return {**output, "repeat": " " + output["repeat"].rstrip(), "then": " " + output["then"]}
    return " " + output if output and not output.startswith("\n") else output


def expand(output: Any) -> str:
    if isinstance(output, dict):
        return str(output["repeat"]) * int(output["times"]) + str(output["then"])
    return str(output)


def _rows() -> list[dict[str, Any]]:
    tokenizer = reference_tokenizer(TOKENIZER)
    task = get_task("json_kv")
    rows: list[dict[str, Any]] = []
    for length in LENGTHS:
        for index in INDICES:
            example = task.generate(length, SEED, index, tokenizer)
            named = {"task": "json_kv", "length": length, "seed": SEED, "index": index}
            named["tokenizer"] = TOKENIZER
            cases = _answers(example.gold[0]) + _json_kv_answers(example)
            for case, output in cases:
                for chat in (False, True):
                    rows.append(
                        {
                            "task": "json_kv",
                            "example": named,
                            "case": case,
                            "gold": list(example.gold),
                            "prefix": example.answer_prefix,
                            "use_chat_template": chat,
                            "output": output if chat else _after_prefix(output),
                        }
                    )
    for golds, output in PROBES:
        for chat in (False, True):
            rows.append(
                {
                    "task": "qa",
                    "example": None,
                    "case": f"probe {golds!r} <- {output!r}",
                    "gold": golds,
                    "prefix": QA_PREFIX,
                    "use_chat_template": chat,
                    "output": output,
                }
            )
    return rows


def _compact(text: str | None) -> Any:
    # An over-long answer line is stored by its length and ends, not whole.
    if text is None or len(text) <= 300:
        return text
    return {"chars": len(text), "head": text[:40], "tail": text[-60:]}


def main() -> int:
    parser = parity_parser(__doc__, "helmet_metrics.jsonl")
    args = parser.parse_args()
    commit = snapshot_commit(args.helmet, args.commit)
    rows = _rows()
    request = [
        {
            "task": row["task"],
            "gold": row["gold"],
            "output": expand(row["output"]),
            "use_chat_template": row["use_chat_template"],
            "prefix": row["prefix"],
        }
        for row in rows
    ]
    results = run_driver(args.python, args.helmet, "metrics", {"rows": request})
    for row, result in zip(rows, results, strict=True):
        result["parsed_output"] = _compact(result["parsed_output"])
        row["helmet"] = result
    notes = (
        "HELMET's EM, F1 and SubEM (utils.py) through its JSON KV post-processing "
        "(load_json_kv; parse_output given lctui's answer prefix instead of HELMET's) or "
        "default_post_process (task qa, prefix 'Answer:'), after eval.py's step for prompts "
        "without chat template (use_chat_template false: the prefix in front of the output). "
        "json_kv rows name lctui's example; outputs are ours ({repeat, times, then} stands "
        "for repeat*times+then); parsed_output over 300 characters is stored by its length "
        "and ends."
    )
    write_fixture(args.out, commit, notes, rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
