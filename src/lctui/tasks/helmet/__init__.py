"""HELMET's real-data categories (princeton-nlp/HELMET), read from the user's copy of its data."""

from __future__ import annotations

from lctui.tasks.base import Task
from lctui.tasks.helmet.alce import alce_tasks
from lctui.tasks.helmet.icl import icl_tasks
from lctui.tasks.helmet.longqa import longqa_tasks
from lctui.tasks.helmet.rag import rag_tasks
from lctui.tasks.helmet.rerank import rerank_tasks
from lctui.tasks.helmet.summ import summ_tasks


def helmet_data_tasks() -> list[Task]:
    """HELMET's real-data categories: RAG (NQ, TriviaQA, HotpotQA, PopQA), generation
    with citations (ALCE ASQA, QAMPARI), passage re-ranking (MS MARCO), in-context
    learning (TREC coarse and fine, BANKING77, CLINC150, NLU), long-document QA
    (NarrativeQA, InfiniteBench) and summarization (InfiniteBench Sum, Multi-LexSum)."""
    return [
        *rag_tasks(),
        *alce_tasks(),
        *rerank_tasks(),
        *icl_tasks(),
        *longqa_tasks(),
        *summ_tasks(),
    ]


__all__ = ["helmet_data_tasks"]
