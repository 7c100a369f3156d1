"""HELMET's real-data categories (princeton-nlp/HELMET), read from the user's copy of its data."""

from __future__ import annotations

from lctui.tasks.base import Task
from lctui.tasks.helmet.icl import icl_tasks
from lctui.tasks.helmet.rag import rag_tasks
from lctui.tasks.helmet.rerank import rerank_tasks


def helmet_data_tasks() -> list[Task]:
    """The real-data tasks implemented so far: RAG (NQ, TriviaQA, HotpotQA, PopQA) and
    passage re-ranking (MS MARCO), in-context learning (TREC, BANKING77, CLINC150, NLU)."""
    return [*rag_tasks(), *rerank_tasks(), *icl_tasks()]


__all__ = ["helmet_data_tasks"]
