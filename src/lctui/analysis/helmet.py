"""HELMET's table: per model and length, the seven category means and the overall mean.

Computed as HELMET's collect script does: each dataset contributes the metric(s) its
table names (`ENTRIES`; ALCE contributes three each: correctness, citation recall and
citation precision), a category is the plain mean of its entries, and the overall
score is the plain mean of the seven categories. Numbers are on HELMET's 0-100 scale
(a stored score is a share in [0, 1]; the judge's long-QA score is already
fluency x correctness / 3, which HELMET multiplies by 100/3 from its 0-3 scale).

Unlike the original, which averages whatever columns it found, a missing entry is
never averaged away silently: its category is `partial` (the mean of the entries
present), a category with no entry at all is missing (None), and the overall is marked
partial whenever any entry is missing. Nothing missing is ever counted as 0.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from lctui.store.read.helmet import MetricMean, metric_means
from lctui.store.read.source import Source
from lctui.tasks.groups import HELMET_CATEGORIES, HELMET_RECALL

SCALE = 100.0  # HELMET's tables are in percent

# The seven categories in HELMET's order, with the heading its tables use.
CATEGORIES: tuple[str, ...] = HELMET_CATEGORIES
HEADINGS: dict[str, str] = {
    "recall": "Recall",
    "rag": "RAG",
    "cite": "Cite",
    "rerank": "Re-rank",
    "icl": "ICL",
    "longqa": "LongQA",
    "summ": "Summ",
}

# Metric names as the scorers store them (tests check them against the scorers'
# constants; the analysis layer does not import the scorers' heavy dependencies).
SUBEM, RULER_RECALL, EM = "subem", "string_match_all", "em"
STR_EM, REC_TOP5, NDCG, ROUGE_L = "str_em", "qampari_rec_top5", "ndcg@10", "rougeL_f1"
JUDGE_QA, JUDGE_SUMM = "judge_qa", "judge_summ"
# ALCE's citation recall and precision (HELMET's names), scored with an NLI model.
CITATION_REC, CITATION_PREC = "citation_rec", "citation_prec"


@dataclass(frozen=True)
class Entry:
    """One column HELMET averages into a category: a task's metric."""

    category: str
    task: str
    metric: str

    @property
    def name(self) -> str:
        return f"{self.task} {self.metric}"


def _entries(category: str, tasks: Iterable[str], *metrics: str) -> list[Entry]:
    return [Entry(category, t, m) for t in tasks for m in metrics]


ENTRIES: tuple[Entry, ...] = (
    Entry("recall", HELMET_RECALL[0], SUBEM),  # json_kv
    *_entries("recall", HELMET_RECALL[1:], RULER_RECALL),
    *_entries("rag", ("kilt_nq", "kilt_triviaqa", "kilt_hotpotqa", "kilt_popqa"), SUBEM),
    *_entries("cite", ("alce_asqa",), STR_EM, CITATION_REC, CITATION_PREC),
    *_entries("cite", ("alce_qampari",), REC_TOP5, CITATION_REC, CITATION_PREC),
    Entry("rerank", "msmarco_rerank", NDCG),
    *_entries(
        "icl",
        ("icl_trec_coarse", "icl_trec_fine", "icl_banking77", "icl_clinc150", "icl_nlu"),
        EM,
    ),
    Entry("longqa", "narrativeqa", JUDGE_QA),
    Entry("longqa", "infbench_qa", ROUGE_L),
    Entry("longqa", "infbench_mc", EM),
    *_entries("summ", ("infbench_sum", "multi_lexsum"), JUDGE_SUMM),
)


PARTIAL = "*"  # after a mean: some of its datasets have no score


def shown(value: float | None, partial: bool) -> str:
    """A mean as the report and the TUI show it: one decimal, `*` when partial, `-` none."""
    return "-" if value is None else f"{value:.1f}{PARTIAL if partial else ''}"


def tasks_of(category: str) -> list[str]:
    """The lctui tasks of one HELMET category, in HELMET's order."""
    return list(dict.fromkeys(e.task for e in ENTRIES if e.category == category))


def helmet_category(task: str) -> str | None:
    """The HELMET category `task` is averaged into, or None when it is in none."""
    return next((e.category for e in ENTRIES if e.task == task), None)


@dataclass(frozen=True)
class CategoryMean:
    """One category of one row: the mean of the entries present (0-100), what is missing."""

    value: float | None  # None when none of its entries has a score
    missing: tuple[str, ...]  # entries without a score ("task metric")

    @property
    def partial(self) -> bool:
        return bool(self.missing) and self.value is not None


@dataclass(frozen=True)
class HelmetRow:
    """HELMET's table row of one model at one length."""

    model: str
    length: int
    categories: dict[str, CategoryMean]
    overall: float | None  # mean of the categories present; None when none is
    entries: dict[str, float] = field(default_factory=dict)  # "task metric" -> 0-100

    @property
    def partial(self) -> bool:
        """Whether any entry of any category is missing (the overall then is not HELMET's)."""
        return any(c.missing for c in self.categories.values())

    def as_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "length": self.length,
            "categories": {
                k: {"value": c.value, "partial": c.partial, "missing": list(c.missing)}
                for k, c in self.categories.items()
            },
            "overall": self.overall,
            "overall_partial": self.partial,
            "entries": self.entries,
        }


def helmet_rows(means: Sequence[MetricMean]) -> list[HelmetRow]:
    """HELMET's table from per-metric means: one row per model and length that has a
    score on at least one entry, ordered by model, then length."""
    wanted = {(e.task, e.metric) for e in ENTRIES}
    found: dict[tuple[str, int], dict[str, float]] = defaultdict(dict)
    for m in means:
        if (m.task, m.metric) in wanted and m.mean is not None:
            found[m.model, m.length][f"{m.task} {m.metric}"] = m.mean * SCALE
    return [_row(model, length, found[model, length]) for model, length in sorted(found)]


def _row(model: str, length: int, entries: dict[str, float]) -> HelmetRow:
    categories: dict[str, CategoryMean] = {}
    for category in CATEGORIES:
        names = [e.name for e in ENTRIES if e.category == category]
        values = [entries[n] for n in names if n in entries]
        missing = tuple(n for n in names if n not in entries)
        categories[category] = CategoryMean(_mean(values), missing)
    present = [c.value for c in categories.values() if c.value is not None]
    return HelmetRow(model, length, categories, _mean(present), entries)


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def helmet_table(
    src: Source, models: Sequence[str] | None = None, *, run_id: str | None = None
) -> list[HelmetRow]:
    """HELMET's table of the latest scores of `models` (all when None); with `run_id`,
    of that run's results alone."""
    return helmet_rows(metric_means(src, models, run_id=run_id))


def category_scores(
    src: Source, length: int | None = None, models: Sequence[str] | None = None
) -> dict[str, dict[str, float]]:
    """model -> HELMET category -> its mean as a share (0-1), at `length` or, without one,
    the mean of the category over the lengths the model has it at (as the correlation
    takes a task's score over lengths); categories without a score are left out."""
    values: dict[tuple[str, str], list[float]] = defaultdict(list)
    for row in helmet_table(src, models):
        if length is not None and row.length != length:
            continue
        for category, mean in row.categories.items():
            if mean.value is not None:
                values[row.model, category].append(mean.value / SCALE)
    out: dict[str, dict[str, float]] = defaultdict(dict)
    for (model, category), found in values.items():
        out[model][category] = sum(found) / len(found)
    return {m: {c: out[m][c] for c in CATEGORIES if c in out[m]} for m in sorted(out)}
