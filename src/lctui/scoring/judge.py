"""LLM-as-judge rubrics for long-document QA and summarization, in the manner of HELMET.

Pure parts only (prompts, defensive parsing of the judge's reply, verdicts to a Score)
plus the types of a call. `ask_judge` (scoring/judge_call.py) talks to any model through
the Backend protocol; caching and storage of the calls live in the engine
(engine/judging.py) and the store (store/judge_calls.py).

QA: fluency 0/1 times correctness 0-3, score = fluency * correctness / 3.
Summaries: key-point recall (one call listing the gold key points), sentence precision
against the reference summary (one call, which also rates fluency), score = F1 * fluency.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from lctui.core.hashing import stable_hash
from lctui.core.text import shorten
from lctui.core.types import Example, RubricPoint, Score, ScoreStatus
from lctui.scoring.failure import SCORER_FAILURE
from lctui.scoring.json_text import find_object, loads_or_none
from lctui.scoring.rubric import make_point

JUDGE_SCORER = "judge"
QA, SUMM = "qa", "summ"
METRICS = {QA: "judge_qa", SUMM: "judge_summ"}
# Roles of the calls: one for QA, two for a summary.
ROLE_QA, ROLE_RECALL, ROLE_PRECISION = "qa", "recall", "precision"
MAX_SENTENCES = 40  # a looping summary is cut here: its verdict will not change
_TRUE = {"true", "yes", "supported", "1", "y"}
_FALSE = {"false", "no", "unsupported", "not supported", "0", "n"}


@dataclass(frozen=True)
class JudgeTask:
    """What a judge reads about one generation: never the long document itself."""

    kind: str  # QA | SUMM
    question: str
    answers: tuple[str, ...] = ()  # QA: accepted answers
    key_points: tuple[str, ...] = ()  # SUMM: points a good summary covers
    reference: str = ""  # SUMM: a reference summary
    output: str = ""


@dataclass(frozen=True)
class JudgePrompt:
    role: str
    text: str
    max_new_tokens: int
    items: int = 0  # verdicts expected (key points or sentences); 0 for QA

    @cached_property
    def key(self) -> str:
        """The prompt's hash: what the judge_calls cache and a batch's custom_id use."""
        return stable_hash(self.text, length=24)


@dataclass(frozen=True)
class JudgeReply:
    text: str
    prompt_tokens: int
    output_tokens: int
    latency_s: float


def judge_task(example: Example, output: str) -> JudgeTask | None:
    """The judge task of an example whose metadata asks for one ("judge": "qa" | "summ")."""
    kind = example.metadata.get("judge")
    if kind is None:
        return None
    meta = example.metadata
    if kind == QA:
        answers = _strings(meta.get("gold")) or tuple(example.gold)
        if not answers:
            raise ValueError(f"example {example.example_id} asks for a QA judge but has no gold")
        return JudgeTask(QA, example.question.strip(), answers=answers, output=output)
    if kind == SUMM:
        points = _strings(meta.get("key_points"))
        reference = str(meta.get("reference_summary") or "\n".join(example.gold))
        if not points or not reference.strip():
            raise ValueError(
                f"example {example.example_id} asks for a summary judge but lacks "
                "metadata key_points or a reference summary (metadata reference_summary or gold)"
            )
        return JudgeTask(SUMM, example.question.strip(), (), points, reference, output)
    raise ValueError(f"example {example.example_id}: unknown judge kind {kind!r}; use qa or summ")


def _strings(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, Sequence):
        return tuple(str(v) for v in value if str(v).strip())
    return ()


def sentences(text: str) -> list[str]:
    """Split a summary into sentences (end punctuation or line breaks)."""
    parts = re.split(r"(?<=[.!?])\s+|\n+", text.strip())
    return [p.strip(" -*\t") for p in parts if p.strip(" -*\t")][:MAX_SENTENCES]


def _numbered(items: Sequence[str]) -> str:
    return "\n".join(f"{i}. {item}" for i, item in enumerate(items, 1))


def _qa_prompt(task: JudgeTask) -> str:
    answers = "\n".join(f"- {a}" for a in task.answers)
    return (
        "Your job is to grade an answer that a model gave to a question about a long "
        "document. The document is not shown; trust the reference answers, they are right.\n\n"
        f"Question:\n{task.question}\n\nReference answers:\n{answers}\n\n"
        f"Answer to grade:\n{task.output}\n\n"
        "Give two grades.\n"
        "fluency: 1 when the answer reads as normal language, stays on the question and "
        "does not loop or break off into noise; otherwise 0.\n"
        "correctness, an integer from 0 to 3:\n"
        "3 = agrees with a reference answer on every point that matters;\n"
        "2 = right in substance but one detail of the reference is missing or vague;\n"
        "1 = about the right subject, yet the fact that was asked for is wrong or absent;\n"
        "0 = wrong, off topic, or no answer at all.\n"
        "Extra words are fine as long as they do not contradict the references.\n\n"
        "Answer with a single JSON object and no other text, in this shape:\n"
        '{"reason": "<one or two sentences>", "fluency": <0 or 1>, "correctness": <0 to 3>}'
    )


def _recall_prompt(task: JudgeTask) -> str:
    return (
        "Your job is to check which key points of a long document a summary covers. The "
        "document is not shown; the key points below are what a complete summary states.\n\n"
        f"Key points:\n{_numbered(task.key_points)}\n\nSummary to check:\n{task.output}\n\n"
        "For every key point, decide whether the summary states it, in any wording "
        '("supported": true), or omits or contradicts it ("supported": false).\n\n'
        "Answer with a single JSON object and no other text, one entry per key point in "
        'order:\n{"points": [{"id": 1, "reason": "<short>", "supported": <true or false>}, ...]}'
    )


def _precision_prompt(task: JudgeTask, split: Sequence[str]) -> str:
    return (
        "Your job is to check whether each sentence of a summary is backed by a reference "
        "summary of the same document.\n\n"
        f"Reference summary:\n{task.reference}\n\n"
        f"Sentences of the summary to check:\n{_numbered(split)}\n\n"
        'For every sentence: "supported": true when the reference states or plainly implies '
        "it, false when the sentence adds, changes or contradicts something.\n"
        "Also grade the fluency of the summary as a whole: 1 when it reads as normal "
        "language without loops or noise, otherwise 0.\n\n"
        "Answer with a single JSON object and no other text:\n"
        '{"fluency": <0 or 1>, "sentences": [{"id": 1, "reason": "<short>", '
        '"supported": <true or false>}, ...]}'
    )


def judge_prompts(task: JudgeTask) -> tuple[JudgePrompt, ...]:
    """The calls a task needs; none for an empty output (there is nothing to judge)."""
    if not task.output.strip():
        return ()
    if task.kind == QA:
        return (JudgePrompt(ROLE_QA, _qa_prompt(task), 256),)
    split = sentences(task.output)
    points = len(task.key_points)
    return (
        JudgePrompt(ROLE_RECALL, _recall_prompt(task), _list_budget(points), points),
        JudgePrompt(
            ROLE_PRECISION, _precision_prompt(task, split), _list_budget(len(split)), len(split)
        ),
    )


def _list_budget(items: int) -> int:
    """Room for a short reason and a verdict per item."""
    return min(2048, 96 + 48 * items)


# -- reading the judge's reply --------------------------------------------------------


def find_json_object(text: str) -> dict[str, Any] | None:
    """The reply as a JSON object: the whole text, else the first `{...}` span that parses."""
    whole = loads_or_none(_unfenced(text))
    return whole if isinstance(whole, dict) else find_object(text)


def _unfenced(text: str) -> str:
    """`text` without a ```json fence around it (string operations: a pattern with
    `\\s*```$` was tried at every space of a long run, quadratic)."""
    stripped = text.strip()
    if stripped.startswith("```"):
        stripped = stripped[3:]
        stripped = stripped[4:] if stripped.startswith("json") else stripped
        stripped = stripped.lstrip()
    if stripped.endswith("```"):
        stripped = stripped[:-3].rstrip()
    return stripped


_LINE_PREFIX = re.compile(r"[\s\-*#>]*")
_NAME_WORDS = re.compile(r"[a-z][a-z ]*", re.IGNORECASE)
_BLANKS = re.compile(r"\s*")
_DIGITS = re.compile(r"\d*")


def _line_name(head: str) -> str | None:
    """The name of a `name: value` line: words then an optional number, or a number.

    Read in unambiguous steps (words, blanks, digits): the former single pattern
    backtracked through every split of a long run of spaces, which took seconds.
    """
    if head.startswith('"'):
        head = head[1:]
    if head.endswith('"'):
        head = head[:-1]
    words = _NAME_WORDS.match(head)
    if words is None:
        return head if head and _DIGITS.fullmatch(head) else None
    end = _match_end(_DIGITS, head, _match_end(_BLANKS, head, words.end()))
    return head if end == len(head) else None


def _match_end(pattern: re.Pattern[str], text: str, pos: int) -> int:
    """Where `pattern` (one that matches the empty string) stops matching from `pos`."""
    found = pattern.match(text, pos)
    return found.end() if found else pos


def _line_values(text: str) -> dict[str, str]:
    """`name: value` lines ("correctness: 2", "point 3: yes"), names lowercased.

    A name whose line ends at the separator takes the next non-blank line as its value
    ("Fluency:" then "1" on a line of its own).
    """
    out: dict[str, str] = {}
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        colon, equals = line.find(":"), line.find("=")
        if colon < 0 and equals < 0:
            continue
        cut = colon if equals < 0 or 0 <= colon < equals else equals
        name = _line_name(line[_match_end(_LINE_PREFIX, line, 0) : cut].rstrip())
        if name is None:
            continue
        value = line[cut + 1 :].strip()
        while not value and i < len(lines):
            value, i = lines[i].strip(), i + 1
        if value:
            out.setdefault(" ".join(name.lower().split()), value.strip(" ,\"'"))
    return out


# "2" or "2/3" (blanks around the slash); outer blanks are stripped first, so no two
# parts of the pattern can take the same blanks.
_GRADE = re.compile(r"\d+(?:\s*/\s*\d+)?")
# No grade or item number has more digits; int() refuses a string of over 4,300.
_MAX_DIGITS = 9


def _small_int(digits: str) -> int | None:
    """int(digits), or None when it has too many digits to be a grade or an item number."""
    digits = digits.strip()
    return int(digits) if len(digits) <= _MAX_DIGITS else None


def _integer(value: Any, low: int, high: int) -> int | None:
    if isinstance(value, bool):
        value = int(value)
    if isinstance(value, int):
        number: int | None = value  # not through float(): a 400-digit int overflows it
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
    elif isinstance(value, str) and _GRADE.fullmatch(value.strip()):
        number = _small_int(value.split("/")[0])
    else:
        return None
    return number if number is not None and low <= number <= high else None


def _verdict(value: Any) -> bool | None:
    if isinstance(value, Mapping):
        value = value.get("supported", value.get("verdict"))
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        word = value.strip().lower().rstrip(".")
        if word in _TRUE:
            return True
        if word in _FALSE:
            return False
    return None


def _reason(value: Any) -> str:
    if isinstance(value, Mapping):
        for key in ("reason", "explanation", "reasoning", "why"):
            if isinstance(value.get(key), str):
                return str(value[key]).strip()
    return ""


def parse_reply(prompt: JudgePrompt, text: str) -> dict[str, Any] | None:
    """The verdict in a normal shape, or None when the reply does not give all of it.

    QA: {"fluency", "correctness", "reason"}; lists: {"verdicts": [{"supported",
    "reason"}], "fluency" (precision only)}. Never guesses a missing grade.
    """
    found = find_json_object(text)
    lines = _line_values(text)

    def grade(name: str, high: int) -> int | None:
        value = _integer((found or {}).get(name), 0, high)
        return value if value is not None else _integer(lines.get(name), 0, high)

    if prompt.role == ROLE_QA:
        fluency, correctness = grade("fluency", 1), grade("correctness", 3)
        if fluency is None or correctness is None:
            return None
        return {"fluency": fluency, "correctness": correctness, "reason": _reason(found)}
    numbered = {
        number: v
        for k, v in lines.items()
        if (m := re.search(r"(\d+)$", k)) and (number := _small_int(m.group(1))) is not None
    }
    verdicts = _in_order(_json_entries(found, prompt.items), prompt.items) or _in_order(
        numbered, prompt.items
    )
    if verdicts is None:
        return None
    if prompt.role != ROLE_PRECISION:
        return {"verdicts": verdicts}
    fluency = grade("fluency", 1)
    return None if fluency is None else {"verdicts": verdicts, "fluency": fluency}


def _json_entries(found: dict[str, Any] | None, items: int) -> dict[int, Any]:
    """Verdict entries by number: from a list (by "id", else by position) or a mapping."""
    keys = ("points", "key_points", "sentences", "verdicts")
    entries = next((found[k] for k in keys if k in found), None) if found else None
    if isinstance(entries, Mapping):  # {"1": true, "2": false}
        return {i: entries.get(str(i)) for i in range(1, items + 1)}
    by_id: dict[int, Any] = {}
    for position, entry in enumerate(entries if isinstance(entries, list) else [], 1):
        ident = _integer(entry.get("id"), 1, items) if isinstance(entry, Mapping) else None
        by_id.setdefault(ident or position, entry)
    return by_id


def _in_order(by_id: Mapping[int, Any], items: int) -> list[dict[str, Any]] | None:
    """Verdicts 1..items, or None when any of them is missing or unreadable."""
    out = []
    for i in range(1, items + 1):
        verdict = _verdict(by_id.get(i))
        if verdict is None:
            return None
        out.append({"supported": verdict, "reason": _reason(by_id.get(i))})
    return out


# -- verdicts to a score ----------------------------------------------------------------


def _said(reason: str) -> str:
    return f"the judge says: {reason}" if reason else "the judge gave no reason"


def judge_score(
    task: JudgeTask,
    parsed: Mapping[str, dict[str, Any] | None],
    replies: Mapping[str, str],
    extras: Mapping[str, Any] | None = None,
    failures: Mapping[str, str] | None = None,
) -> Score:
    """Turn the parsed verdict of each role into a Score with one rubric point per grade.

    An unreadable reply gives status unparsed (value 0, counted apart), never a silent 0.
    `failures` says, per role, why reading a reply failed outright (it took too long);
    those scores carry the reason in extras["scorer_failure"].
    """
    metric = METRICS[task.kind]
    extra = dict(extras or {})
    if not task.output.strip():
        return _unparsed(
            metric, "the output is empty: there is nothing for the judge to read", extra
        )
    missing = [role for role, verdict in parsed.items() if verdict is None]
    failed = [role for role in missing if (failures or {}).get(role)]
    if failed:
        role, why = failed[0], (failures or {})[failed[0]]
        extra[SCORER_FAILURE] = why
        return _unparsed(metric, f"the judge's {role} reply could not be read: {why}", extra)
    if missing:
        role = missing[0]
        return _unparsed(
            metric,
            f"the judge's {role} reply could not be read as a verdict: "
            f"{shorten(replies.get(role, ''), 160, one_line=True)!r}",
            extra,
        )
    if task.kind == QA:
        return _qa_score(parsed[ROLE_QA] or {}, metric, extra)
    return _summ_score(task, parsed[ROLE_RECALL] or {}, parsed[ROLE_PRECISION] or {}, metric, extra)


def _unparsed(metric: str, why: str, extras: dict[str, Any]) -> Score:
    point = make_point("judge verdict", 1.0, 0.0, why)
    return Score(JUDGE_SCORER, metric, 0.0, ScoreStatus.UNPARSED, (), why, (point,), extras)


def _qa_score(verdict: Mapping[str, Any], metric: str, extras: dict[str, Any]) -> Score:
    fluency, correctness = int(verdict["fluency"]), int(verdict["correctness"])
    said = _said(str(verdict.get("reason", "")))
    points = (
        make_point("fluency", 1.0, fluency, f"fluency {fluency}/1: {said}"),
        make_point("correctness", 1.0, correctness / 3, f"correctness {correctness}/3: {said}"),
    )
    value = fluency * correctness / 3
    explanation = f"judge: fluency {fluency} x correctness {correctness}/3 = {value:.2f}"
    extras.update(fluency=fluency, correctness=correctness)
    return Score(JUDGE_SCORER, metric, value, ScoreStatus.OK, (), explanation, points, extras)


def _summ_score(
    task: JudgeTask,
    recall_verdict: Mapping[str, Any],
    precision_verdict: Mapping[str, Any],
    metric: str,
    extras: dict[str, Any],
) -> Score:
    fluency = int(precision_verdict["fluency"])
    recalled = [bool(v["supported"]) for v in recall_verdict["verdicts"]]
    backed = [bool(v["supported"]) for v in precision_verdict["verdicts"]]
    recall = sum(recalled) / len(recalled)
    precision = sum(backed) / len(backed) if backed else 0.0
    f1 = 2 * recall * precision / (recall + precision) if recall + precision else 0.0
    points: list[RubricPoint] = [
        make_point(
            "fluency", 1.0, fluency, f"fluency {fluency}/1 (the judge's grade of the whole summary)"
        )
    ]
    points += _verdict_points("recall", "key point", task.key_points, recall_verdict, "covered")
    points += _verdict_points(
        "precision", "sentence", sentences(task.output), precision_verdict, "backed"
    )
    value = f1 * fluency
    explanation = (
        f"judge: recall {sum(recalled)}/{len(recalled)}, precision {sum(backed)}/{len(backed)}, "
        f"F1 {f1:.2f} x fluency {fluency} = {value:.2f}"
    )
    extras.update(fluency=fluency, recall=recall, precision=precision, f1=f1)
    return Score(
        JUDGE_SCORER, metric, value, ScoreStatus.OK, (), explanation, tuple(points), extras
    )


def _verdict_points(
    name: str, noun: str, texts: Sequence[str], verdict: Mapping[str, Any], yes: str
) -> list[RubricPoint]:
    """One point per key point or sentence, with the judge's reason."""
    out = []
    for i, (text, v) in enumerate(zip(texts, verdict["verdicts"], strict=True), 1):
        state = yes if v["supported"] else f"not {yes}"
        why = f"{noun} {shorten(text, 80, one_line=True)!r} {state}: {_said(v['reason'])}"
        out.append(make_point(f"{name} {i}", 1.0, float(v["supported"]), why))
    return out
