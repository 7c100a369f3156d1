"""Which lctui task each HELMET result file belongs to: the table the importer reads.

HELMET names a result file by its dataset (`kilt_nq`, `icl_trec_coarse_6600shot_balance`,
`narrativeqa_130772`, ...: eval.py's `--datasets`, stored in the file as
`args["datasets"]`). Each pattern below maps such a name to lctui's task and category
(the names of issue 12's plan), to the scorer and metric lctui's own runs of that task
record, and to the per-example key HELMET's post-processing wrote the same metric under.
HELMET's per-example values are on lctui's 0-1 scale already (booleans for the match
metrics, fractions for ROUGE and NDCG); only its `averaged_metrics` are x100.

The table names tasks as strings, not through the task registry: it has to know tasks
that this installation may not have (the importer reads numbers, it builds no prompt).
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class HelmetDataset:
    """One row of the mapping from HELMET's dataset names to lctui's tasks."""

    pattern: re.Pattern[str]  # matches HELMET's whole dataset name
    task: str  # lctui task name
    category: str  # lctui category (the synthetic recall tasks stay "synthetic")
    suite: str  # the lctui suite of the task
    scorer: str  # the scorer lctui's own runs of the task record
    metric: str  # the metric lctui's own runs of the task record
    helmet_metric: str | None  # HELMET's per-example key of that metric; None: none stored
    judge: str | None = None  # "qa" | "summ": HELMET's GPT-4 judge scores, if it ran
    # ALCE: HELMET keeps only the means (eval_alce.py's .json.score), so lctui's scorer,
    # equal to ALCE's on every parity row, scores each stored output; the mean of those
    # is checked against the file's `mean_key`.
    mean_key: str | None = None

    @property
    def checked_mean(self) -> str | None:
        """The key of HELMET's mean (x100) that the imported values must average to."""
        return self.helmet_metric or self.mean_key


def _row(
    pattern: str,
    task: str,
    category: str,
    scorer: str,
    metric: str,
    helmet_metric: str | None,
    *,
    suite: str = "helmet",
    judge: str | None = None,
    mean_key: str | None = None,
) -> HelmetDataset:
    return HelmetDataset(
        re.compile(pattern),
        task,
        category,
        suite,
        scorer,
        metric,
        helmet_metric,
        judge,
        mean_key,
    )


_ICL = r"_\d+shot(?:_balance)?"
_LEN = r"_\d+"

HELMET_DATASETS: tuple[HelmetDataset, ...] = (
    # Synthetic recall (HELMET's "Recall" column)
    _row("json_kv", "json_kv", "synthetic", "recall", "subem", "substring_exact_match"),
    _row(
        "ruler_niah_mk_2", "niah_multikey_2", "synthetic", "recall", "string_match_all",
        "ruler_recall", suite="ruler",
    ),
    _row(
        "ruler_niah_mk_3", "niah_multikey_3", "synthetic", "recall", "string_match_all",
        "ruler_recall", suite="ruler",
    ),
    _row(
        "ruler_niah_mv", "niah_multivalue", "synthetic", "recall", "string_match_all",
        "ruler_recall", suite="ruler",
    ),
    # RAG
    _row("kilt_nq", "kilt_nq", "rag", "recall", "subem", "substring_exact_match"),
    _row("kilt_triviaqa", "kilt_triviaqa", "rag", "recall", "subem", "substring_exact_match"),
    _row("kilt_hotpotqa", "kilt_hotpotqa", "rag", "recall", "subem", "substring_exact_match"),
    _row(r"kilt_popqa(?:_\d+)?", "kilt_popqa", "rag", "recall", "subem", "substring_exact_match"),
    # Generation with citations: ALCE's scores are means only (the .score file)
    _row(
        r"alce_asqa" + _LEN, "alce_asqa", "cite", "helmet_alce_asqa", "str_em", None,
        mean_key="str_em",
    ),
    _row(
        r"alce_qampari" + _LEN, "alce_qampari", "cite", "helmet_alce_qampari",
        "qampari_rec_top5", None, mean_key="qampari_rec_top5",
    ),
    # Passage re-ranking
    _row("msmarco_rerank_psg", "msmarco_rerank", "rerank", "helmet_rerank", "ndcg@10", "NDCG@10"),
    # In-context learning
    _row("icl_trec_coarse" + _ICL, "icl_trec_coarse", "icl", "helmet_icl", "em", "exact_match"),
    _row("icl_trec_fine" + _ICL, "icl_trec_fine", "icl", "helmet_icl", "em", "exact_match"),
    _row("icl_banking77" + _ICL, "icl_banking77", "icl", "helmet_icl", "em", "exact_match"),
    _row("icl_clinic150" + _ICL, "icl_clinc150", "icl", "helmet_icl", "em", "exact_match"),
    _row("icl_nlu" + _ICL, "icl_nlu", "icl", "helmet_icl", "em", "exact_match"),
    # Long-document QA
    _row(
        "narrativeqa" + _LEN, "narrativeqa", "longqa", "helmet_rouge", "rougeL_f1", "rougeL_f1",
        judge="qa",
    ),
    _row(
        "infbench_qa_eng" + _LEN, "infbench_qa", "longqa", "helmet_rouge", "rougeL_f1",
        "rougeL_f1",
    ),
    _row("infbench_choice_eng" + _LEN, "infbench_mc", "longqa", "helmet_mc", "em", "exact_match"),
    # Summarization: the category's score is the judge's; ROUGE-L is what HELMET's
    # post-processing stored per example.
    _row(
        "infbench_sum_eng" + _LEN, "infbench_sum", "summ", "helmet_rouge", "rougeL_f1",
        "rougeL_f1", judge="summ",
    ),
    _row(
        "multi_lexsum" + _LEN, "multi_lexsum", "summ", "helmet_rouge", "rougeL_f1", "rougeL_f1",
        judge="summ",
    ),
)  # fmt: skip


def helmet_dataset(name: str) -> HelmetDataset | None:
    """The row for HELMET dataset `name`, or None for a dataset lctui has no task for."""
    for row in HELMET_DATASETS:
        if row.pattern.fullmatch(name):
            return row
    return None
