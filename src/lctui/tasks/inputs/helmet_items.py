"""HELMET's test items, made from its released data files as its loaders make them.

A loader of HELMET's data.py (4526dfb) reads a dataset's test file (and demonstration
file), picks `max_test_samples` of its rows, and gives each row the fields its
templates are formatted with (`test_item`): the context, the demonstrations, the
question, the answer. This module does the same for the categories whose data is in
the release, with the templates read from the user's checkout (helmet_templates.py):

- JSON KV (`load_json_kv`): each row's own `demos` pairs, the first `shots` of them;
  `max_test_samples` rows in the order of `Dataset.shuffle(seed)`.
- RAG (`load_qa`: kilt_nq, kilt_triviaqa, kilt_hotpotqa, kilt_popqa_T): the rows of
  `max_test_samples` keys drawn by `random.sample` after `random.seed(seed)` (every
  row of a drawn key, in the file's order); PopQA rows with log10(s_pop) < T; each
  row's demonstrations drawn as tasks/helmet/kilt.py's `choose_demos` draws them.
- Re-ranking (`load_msmarco_rerank`): rows drawn the same way; the demonstration file
  without the test set's queries when it holds more than twice as many rows.

Rows are read as `datasets` reads a JSON file: every row has every column of the file
(a missing one is None, which str.format writes "None"), and every passage every key
any passage of the file has. What HELMET's own code would fail on is a problem of that
row (`ItemProblem`), never a guess.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from lctui.core.types import JSONValue, Span
from lctui.tasks.base import UUID_PATTERN
from lctui.tasks.bounded_read import shown
from lctui.tasks.datasets import JsonLines
from lctui.tasks.helmet.kilt import choose_demos, shuffled
from lctui.tasks.inputs.helmet_templates import LoaderTemplates
from lctui.tasks.inputs.prompts import answer_rule

PASSAGE_JOINER = "\n\n"
SENTINEL = "\ufdd0lctui-context\ufdd0"


# load_icl's branches in its order: (the dataset name's word, lctui's task).
ICL_TASKS = (
    ("trec_fine", "icl_trec_fine"),
    ("trec_coarse", "icl_trec_coarse"),
    ("banking77", "icl_banking77"),
    ("clinic150", "icl_clinc150"),
    ("nlu", "icl_nlu"),
)


@dataclass(frozen=True)
class Family:
    """Which loader of HELMET's a dataset name goes to, and lctui's task for it."""

    loader: str
    task: str


def family_of(dataset: str) -> Family | None:
    """HELMET's load_data dispatch, for the loaders this module follows."""
    if "popqa" in dataset:
        return Family("load_qa", "kilt_popqa")
    if any(name in dataset for name in ("nq", "hotpotqa", "triviaqa")):
        for name in ("hotpotqa", "triviaqa", "nq"):
            if name in dataset:
                return Family("load_qa", f"kilt_{name}")
    if dataset == "json_kv":
        return Family("load_json_kv", "json_kv")
    if "msmarco" in dataset:
        return Family("load_msmarco_rerank", "msmarco_rerank")
    if "alce" in dataset:
        for name in ("asqa", "qampari"):
            if name in dataset:
                return Family("load_alce", f"alce_{name}")
        return None
    if "icl" in dataset:
        for word, task in ICL_TASKS:
            if word in dataset.lower():
                return Family("load_icl", task)
        return None
    if "multi_lexsum" in dataset or "ruler" in dataset:
        return None
    if "infbench" in dataset:
        for part, task in (("qa_eng", "infbench_qa"), ("choice_eng", "infbench_mc")):
            if part in dataset:
                return Family("load_infbench", task)
        if "sum_eng" in dataset:
            return Family("load_infbench", "infbench_sum")
    return None


@dataclass(frozen=True)
class HelmetItem:
    """One test item: the fields HELMET formats its templates with, the gold answers,
    what the scorer reads, and the passages its context lists (for spans)."""

    line: int
    fields: dict[str, Any]
    gold: tuple[str, ...]
    metadata: dict[str, JSONValue]
    passages: tuple[tuple[str, str], ...] = ()  # (passage as the context shows it, label)


@dataclass(frozen=True)
class ItemProblem:
    line: int
    why: str


@dataclass(frozen=True)
class Sampling:
    """The settings of eval.py's run that pick and build the items."""

    dataset: str
    shots: int
    max_test_samples: int | None
    seed: int


@dataclass
class Rows:
    rows: list[dict[str, Any]]
    lines: list[int]
    problems: list[ItemProblem] = field(default_factory=list)


def unified(loaded: JsonLines, passages: str = "ctxs") -> Rows:
    """The rows with every column of the file, and every passage (the list `passages`)
    with every key any passage of the file has (None where missing), as `datasets`
    gives them."""
    columns = dict.fromkeys(key for row in loaded.rows for key in row)
    passage_keys = dict.fromkeys(
        key
        for row in loaded.rows
        if isinstance(row.get(passages), list)
        for ctx in row[passages]
        if isinstance(ctx, Mapping)
        for key in ctx
    )
    rows = []
    for row in loaded.rows:
        whole = {key: row.get(key) for key in columns}
        ctxs = whole.get(passages)
        if isinstance(ctxs, list):
            whole[passages] = [
                {key: c.get(key) for key in passage_keys} if isinstance(c, Mapping) else c
                for c in ctxs
            ]
        rows.append(whole)
    return Rows(rows, list(loaded.lines))


def filled(template: str, values: Mapping[str, Any], what: str) -> str:
    try:
        return template.format(**values)
    except (KeyError, IndexError, TypeError, ValueError, AttributeError) as err:
        raise RowFails(
            f"{what}: HELMET's template cannot be filled ({type(err).__name__}: {err})"
        ) from None


class RowFails(ValueError):
    """Why HELMET's loader would fail on one row."""


def _passages(template: str, ctxs: Any, what: str) -> list[str]:
    if not isinstance(ctxs, list) or not all(isinstance(c, Mapping) for c in ctxs):
        raise RowFails(f"{what}: 'ctxs' is not a list of passages: {shown(ctxs)}")
    return [filled(template, c, what) for c in ctxs]


def _answers(value: Any) -> tuple[str, ...]:
    """Gold answers as HELMET's metrics take them (a text, a list, or lists of them)."""
    if isinstance(value, str):
        golds = [value]
    elif isinstance(value, list) and value and isinstance(value[0], list):
        golds = [a for group in value if isinstance(group, list) for a in group]
    elif isinstance(value, list):
        golds = list(value)
    else:
        raise RowFails(f"the answers are no text or list: {shown(value)}")
    if not golds or not all(isinstance(a, str) and a.strip() for a in golds):
        raise RowFails(f"the answers hold no text or a blank one: {shown(value)}")
    return tuple(golds)


def _draw_keys(rows: Rows, key: str, sampling: Sampling) -> list[int]:
    """Positions of the rows of `max_test_samples` keys drawn as HELMET draws them:
    `random.sample(sorted(keys), n)` after `random.seed(seed)`, every row of a drawn
    key in the file's order."""
    if sampling.max_test_samples is None:
        return list(range(len(rows.rows)))
    keys = {row[key] for row in rows.rows if isinstance(row.get(key), (str, int, float))}
    try:
        ordered = sorted(keys)
    except TypeError:
        raise RowFails(f"the rows' {key!r} values mix kinds, which HELMET cannot sort") from None
    drawn = set(
        random.Random(sampling.seed).sample(ordered, min(sampling.max_test_samples, len(keys)))
    )
    return [i for i, row in enumerate(rows.rows) if row.get(key) in drawn]


@dataclass(frozen=True)
class _Keyed:
    key: str
    row: dict[str, Any]


def json_kv_items(
    loaded: JsonLines, templates: LoaderTemplates, sampling: Sampling
) -> list[HelmetItem | ItemProblem]:
    demo_template = templates.text("demo_template")
    rows = unified(loaded)
    count = len(rows.rows)
    order = list(range(count))
    if sampling.max_test_samples is not None:
        # Dataset.shuffle(seed).select(range(n)), after the map.
        order = list(shuffled(count, sampling.seed))[: min(sampling.max_test_samples, count)]
    found: list[HelmetItem | ItemProblem] = []
    for index in order:
        row, line = rows.rows[index], rows.lines[index]
        try:
            demos = row.get("demos")
            if not isinstance(demos, list) or not all(
                isinstance(d, list) and len(d) == 2 and isinstance(d[1], str) for d in demos
            ):
                raise RowFails(f"'demos' is not a list of key-value pairs: {shown(demos)}")
            if row.get("num_kvs") is None:
                raise RowFails("no 'num_kvs'")
            shown_demos = "\n\n".join(
                filled(demo_template, {"key": k, "value": " " + v}, "a demonstration")
                for k, v in demos[: sampling.shots]
            ) + ("\n\n" if sampling.shots > 0 else "")
            gold = _answers(row.get("answer"))
        except RowFails as err:
            found.append(ItemProblem(line, str(err)))
            continue
        fields = {**row, "demos": shown_demos, "k": row["num_kvs"]}
        found.append(
            HelmetItem(
                line,
                fields,
                gold,
                {
                    "scorer": "recall",
                    "metric": "subem",
                    "value_pattern": UUID_PATTERN,
                    "asked_text": str(row.get("question")),
                },
            )
        )
    return found


def qa_items(
    loaded: JsonLines,
    demo_loaded: JsonLines | None,
    templates: LoaderTemplates,
    sampling: Sampling,
) -> list[HelmetItem | ItemProblem]:
    demo_template = templates.text("demo_template")
    passage_template = templates.text("passage_template")
    rows = unified(loaded)
    demos = unified(demo_loaded) if demo_loaded is not None else Rows([], [])
    key = "id" if any("id" in row for row in loaded.rows) else "question"
    popqa = "popqa" in sampling.dataset
    if popqa:
        threshold = float(sampling.dataset.split("_")[-1])
        rows, demos = _popular(rows, threshold), _popular(demos, threshold)
    found: list[HelmetItem | ItemProblem] = list(rows.problems)
    try:
        chosen = _draw_keys(rows, key, sampling)
    except RowFails as err:
        return [*found, ItemProblem(rows.lines[0] if rows.lines else 1, str(err))]
    pool = [_Keyed(str(d.get(key)), d) for d in demos.rows]
    for index in chosen:
        row, line = rows.rows[index], rows.lines[index]
        try:
            demo_text = ""
            if sampling.shots > 0:
                asked = _Keyed(str(row.get(key)), row)
                picked = choose_demos(asked, pool, sampling.shots, exclude_same_key=popqa)
                if len(picked) < sampling.shots:
                    raise RowFails(
                        f"the demonstration file has {len(picked)} distinct questions for "
                        f"{sampling.shots} shots"
                    )
                demo_text = "\n\n".join(
                    _demo(demo_template, passage_template, d.row) for d in picked
                )
                demo_text += "\n\n"
            ctxs = row.get("ctxs")
            shown_passages = _passages(passage_template, ctxs, "a passage") if ctxs else []
            gold = _answers(row.get("answers"))
        except RowFails as err:
            found.append(ItemProblem(line, str(err)))
            continue
        fields = {
            **row,
            "demos": demo_text,
            "context": PASSAGE_JOINER.join(shown_passages),
            "answer": row.get("answers"),
        }
        titles = [str(c.get("title")) for c in ctxs] if isinstance(ctxs, list) else []
        found.append(
            HelmetItem(
                line,
                fields,
                gold,
                {
                    "scorer": "recall",
                    "metric": "subem",
                    "gold_mode": "any",
                    "asked_text": str(row.get("question")),
                    **answer_rule(gold),
                },
                tuple(zip(shown_passages, titles, strict=True)),
            )
        )
    return found


def _popular(rows: Rows, threshold: float) -> Rows:
    """PopQA's rows whose subject is less popular than 10**threshold page views."""
    kept = Rows([], [], list(rows.problems))
    for row, line in zip(rows.rows, rows.lines, strict=True):
        views = row.get("s_pop")
        if isinstance(views, bool) or not isinstance(views, (int, float)) or views <= 0:
            kept.problems.append(
                ItemProblem(line, f"'s_pop' is no positive number: {shown(views)}")
            )
        elif math.log10(views) < threshold:
            kept.rows.append(row)
            kept.lines.append(line)
    return kept


def _demo(demo_template: str, passage_template: str, demo: dict[str, Any]) -> str:
    documents = "\n\n".join(_passages(passage_template, demo.get("ctxs"), "a demonstration"))
    answers = demo.get("answers")
    if not isinstance(answers, list) or not answers:
        raise RowFails(f"a demonstration has no answers: {shown(answers)}")
    if "documents" in demo or "answer" in demo:
        raise RowFails("a demonstration has its own 'documents' or 'answer' (HELMET fails)")
    return filled(
        demo_template, {**demo, "documents": documents, "answer": answers[0]}, "a demonstration"
    )


def rerank_items(
    loaded: JsonLines,
    demo_loaded: JsonLines | None,
    templates: LoaderTemplates,
    sampling: Sampling,
) -> list[HelmetItem | ItemProblem]:
    titled, untitled = templates.choice("passage_template", "title")
    query_template = templates.added_text("demo_text")
    rows = unified(loaded)
    demos = unified(demo_loaded) if demo_loaded is not None else Rows([], [])
    key = "qid" if any("qid" in row for row in loaded.rows) else "query"
    try:
        chosen = _draw_keys(rows, key, sampling)
    except RowFails as err:
        return [ItemProblem(rows.lines[0] if rows.lines else 1, str(err))]
    pool_rows = demos.rows
    filtered = len(pool_rows) > 2 * len(chosen)
    if filtered:
        asked = {rows.rows[i].get("qid") for i in chosen}
        pool_rows = [d for d in pool_rows if d.get("qid") not in asked]
    pool = [_Keyed(str(d.get("qid")), d) for d in pool_rows]
    found: list[HelmetItem | ItemProblem] = []
    for index in chosen:
        row, line = rows.rows[index], rows.lines[index]
        try:
            ctxs = row.get("ctxs")
            if not isinstance(ctxs, list) or not ctxs or not isinstance(ctxs[0], Mapping):
                raise RowFails(f"'ctxs' is not a list of passages: {shown(ctxs)}")
            template = titled if "title" in ctxs[0] else untitled
            shown_passages = _passages(template, ctxs, "a passage")
            ranking, qrels = _ranking(ctxs)
            demo_text = ""
            if sampling.shots > 0:
                qid = row.get("qid")
                if not isinstance(qid, str):
                    raise RowFails(f"'qid' is not text: {shown(qid)} (HELMET hashes it)")
                picked = choose_demos(
                    _Keyed(qid, row), pool, sampling.shots, exclude_same_key=not filtered
                )
                if len(picked) < sampling.shots:
                    raise RowFails(
                        f"the demonstration file has {len(picked)} other queries for "
                        f"{sampling.shots} shots"
                    )
                for demo in picked:
                    listed = "\n\n".join(
                        _passages(template, demo.row.get("ctxs"), "a demonstration")
                    )
                    demo_ranking, _ = _ranking(demo.row.get("ctxs"))
                    values = {"query": demo.row.get("query"), "ranking": demo_ranking}
                    demo_text += listed + filled(query_template, values, "a demonstration")
                    demo_text += "\n\n"
        except RowFails as err:
            found.append(ItemProblem(line, str(err)))
            continue
        fields = {key: value for key, value in row.items() if key not in ("query", "ctxs")}
        fields.update(
            context=PASSAGE_JOINER.join(shown_passages),
            question=row.get("query"),
            demos=demo_text,
            answer=ranking,
        )
        found.append(
            HelmetItem(
                line,
                fields,
                (ranking,),
                {"scorer": "helmet_rerank", "metric": "ndcg@10", "qrels": qrels},
                tuple(zip(shown_passages, [f"ID {c.get('id')}" for c in ctxs], strict=True)),
            )
        )
    return found


def _ranking(ctxs: Any) -> tuple[str, dict[str, JSONValue]]:
    """The ideal ranking (ids by label, highest first, ties in the file's order) and the
    graded labels, as HELMET's loader writes them."""
    if not isinstance(ctxs, list) or not all(isinstance(c, Mapping) for c in ctxs):
        raise RowFails(f"'ctxs' is not a list of passages: {shown(ctxs)}")
    qrels: dict[str, JSONValue] = {}
    for c in ctxs:
        doc, label = c.get("id"), c.get("label")
        if isinstance(label, bool) or not isinstance(label, int):
            raise RowFails(f"passage {shown(doc)} has no integer 'label'")
        if not str(doc).isdigit():
            raise RowFails(f"passage id {shown(doc)} is not a whole number")
        qrels[str(doc)] = label
    ranked = sorted(ctxs, key=lambda c: c["label"], reverse=True)
    return " > ".join(str(c["id"]) for c in ranked), qrels


def passage_spans(
    user: str, fields: dict[str, Any], passages: tuple[tuple[str, str], ...]
) -> tuple[Span, ...]:
    """Where each passage the (maybe cut) context shows whole lies in the user text."""
    context = fields.get("context")
    if not passages or not isinstance(context, str):
        return ()
    probe = user.format(**{**fields, "context": SENTINEL})
    if probe.count(SENTINEL) != 1:
        return ()
    start = probe.index(SENTINEL)
    spans = []
    for passage, label in passages:
        end = start + len(passage)
        if end > probe.index(SENTINEL) + len(context):
            break
        spans.append(Span(start, end, "passage", label))
        start = end + len(PASSAGE_JOINER)
    return tuple(spans)
