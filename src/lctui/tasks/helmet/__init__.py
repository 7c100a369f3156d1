"""HELMET's real-data categories (princeton-nlp/HELMET), read from the user's copy of its data."""

from __future__ import annotations

from lctui.tasks.base import Task
from lctui.tasks.helmet.alce import alce_tasks
from lctui.tasks.helmet.rag import rag_tasks
from lctui.tasks.helmet.rerank import rerank_tasks


def helmet_data_tasks() -> list[Task]:
    """The real-data tasks implemented so far: RAG (NQ, TriviaQA, HotpotQA, PopQA) and
    passage re-ranking (MS MARCO), generation with citations (ALCE ASQA, QAMPARI)."""
    return [*rag_tasks(), *rerank_tasks(), *alce_tasks()]


__all__ = ["helmet_data_tasks"]
