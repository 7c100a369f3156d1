"""Citation recall and precision of stored generations (`lctui cite-score`).

The generations of examples that cite documents (metadata "citations": "asqa" |
"qampari", the ALCE tasks) are read back with their examples; the documents each
citation may point at are recovered from the example's context (metadata
"documents": per document number, the offsets of its title and text), and ALCE's
rules (scoring/citations.py) run with entailment decided by an NLI model
(backends/nli.py) or an LLM judge (one call per check, through scoring/judge_call.py,
cached and stored in judge_calls as `lctui judge` does).
Each output gets one score row (scorer "alce_citations", value = recall, precision in
extras, one rubric point per sentence) beside its answer-correctness score; a failure
leaves an error score for that generation, never a crashed pass.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import duckdb

from lctui.core.protocols import Backend
from lctui.core.types import Example, Score
from lctui.scoring.base import error_score
from lctui.scoring.citations import (
    CITATION_SCORER,
    RECALL_METRIC,
    CitedDoc,
    Entailment,
    citation_result,
    citation_score,
    entailment_prompt,
    read_entailment,
)
from lctui.scoring.judge_call import ask_judge
from lctui.scoring.versions import with_version
from lctui.store.judge_calls import (
    JudgeCall,
    add_judge_calls,
    generations_asking,
    lookup_judge_calls,
)
from lctui.store.read.generations import load_example


@runtime_checkable
class ScoreStore(Protocol):
    """What citation scoring needs from the store: reading, and scores through the writer."""

    def add_score(self, generation_id: str, score: Score) -> None: ...

    def cursor(self) -> duckdb.DuckDBPyConnection: ...


@dataclass
class CiteSummary:
    """What one pass did: outputs scored, left out (no sentence), failed; checks asked."""

    scored: int = 0
    unparsed: int = 0
    errors: int = 0
    checks: int = 0
    messages: list[str] = field(default_factory=list)


def example_docs(example: Example) -> list[CitedDoc]:
    """The documents of the prompt by number (index 0 = document 1), from the context."""
    spans = example.metadata.get("documents")
    if not isinstance(spans, list) or not spans:
        raise ValueError(f"example {example.example_id} lists no documents (metadata 'documents')")
    docs = []
    for entry in spans:
        if not (
            isinstance(entry, list) and len(entry) == 4 and all(isinstance(i, int) for i in entry)
        ):
            raise ValueError(
                f"example {example.example_id}: metadata 'documents' holds {entry!r}, not "
                "[title start, title end, text start, text end]"
            )
        t0, t1, x0, x1 = entry
        docs.append(CitedDoc(example.context[t0:t1], example.context[x0:x1]))
    return docs


def _question(example: Example) -> str:
    asked = example.metadata.get("asked_text")
    return asked if isinstance(asked, str) else example.question.strip()


class _Counted:
    """An entailment callable that counts the checks and keeps each verdict of one
    output (ALCE asks some pairs again within an output; `forget` between outputs, so
    the premises, documents of up to several KB, are not kept for the whole pass)."""

    def __init__(self, entails: Entailment) -> None:
        self._entails = entails
        self._known: dict[tuple[str, str], bool] = {}
        self.checks = 0

    def forget(self) -> None:
        self._known.clear()

    def __call__(self, premise: str, hypothesis: str) -> bool:
        key = (premise, hypothesis)
        if key not in self._known:
            self.checks += 1
            self._known[key] = self._entails(premise, hypothesis)
        return self._known[key]


class JudgeEntailment:
    """Entailment asked of an LLM judge, callable from a worker thread (the rules run in
    one). Each call goes through the judge_calls cache first (keyed by the judge's
    fingerprint and the prompt's hash) and is stored there, under the generation being
    scored (`generation_id`, set by `cite_stored`). A reply without a verdict counts as
    not entailed."""

    def __init__(self, backend: Backend, loop: asyncio.AbstractEventLoop, store: Any) -> None:
        self.backend = backend
        self.loop = loop
        self.store = store
        self.generation_id = ""
        self.calls = 0
        self.cached = 0

    def __call__(self, premise: str, hypothesis: str) -> bool:
        prompt = entailment_prompt(premise, hypothesis)
        fingerprint = self.backend.fingerprint
        known = lookup_judge_calls(self.store, fingerprint, {prompt.key}).get(prompt.key)
        if known is not None:
            self.cached += 1
            return read_entailment(known.response) is True
        reply = asyncio.run_coroutine_threadsafe(ask_judge(self.backend, prompt), self.loop)
        answer = reply.result()
        verdict = read_entailment(answer.text)
        call = JudgeCall(
            call_id=uuid.uuid4().hex,
            generation_id=self.generation_id,
            judge_model=fingerprint,
            prompt_hash=prompt.key,
            prompt=prompt.text,
            response=answer.text,
            parsed={
                "role": prompt.role,
                "verdict": None if verdict is None else {"entailed": verdict},
                "prompt_tokens": answer.prompt_tokens,
                "output_tokens": answer.output_tokens,
                "latency_s": round(answer.latency_s, 4),
                "batch": False,
            },
            created_at=time.time(),
        )
        add_judge_calls(self.store, [call])
        self.calls += 1
        return verdict is True


def score_citations(example: Example, output: str, entails: Entailment, decider: str) -> Score:
    """The citation score of one output of `example` (blocking: run it in a thread)."""
    docs = example_docs(example)
    qampari = example.metadata.get("citations") == "qampari"
    result = citation_result(output, _question(example), docs, entails, qampari)
    return with_version(citation_score(result, len(docs), decider), CITATION_SCORER)


async def cite_stored(
    store: Any, entails: Entailment, decider: str, run_id: str | None = None
) -> tuple[int, CiteSummary]:
    """Score the citations of the latest stored generations (of one run) that cite
    documents. Returns how many were found and what scoring them did."""
    if not isinstance(store, ScoreStore):
        raise TypeError("citation scoring needs a store that can write scores")
    found = await asyncio.to_thread(generations_asking, store, "citations", run_id)
    counted = _Counted(entails)
    summary = CiteSummary()
    # The example of the previous generation is kept (a model's answers to one example
    # are often next to each other), never all of them: an example holds its context.
    loaded: tuple[str, Example | None] | None = None
    for generation_id, example_id, output in found:
        if loaded is None or loaded[0] != example_id:
            loaded = (example_id, await asyncio.to_thread(load_example, store, example_id))
        example = loaded[1]
        if example is None:
            continue
        counted.forget()
        if isinstance(entails, JudgeEntailment):
            entails.generation_id = generation_id  # the judge's calls are stored under it
        try:
            score = await asyncio.to_thread(score_citations, example, output, counted, decider)
        except Exception as exc:  # one bad example or a failing decider fails only itself
            message = f"citation scoring failed: {type(exc).__name__}: {exc}"
            _note(summary, message)
            score = error_score(message, scorer=CITATION_SCORER, metric=RECALL_METRIC)
        else:
            summary.scored += 1
            summary.unparsed += score.status.value == "unparsed"
        store.add_score(generation_id, score)
    summary.checks = counted.checks
    return len(found), summary


def _note(summary: CiteSummary, message: str) -> None:
    summary.errors += 1
    if message not in summary.messages:
        summary.messages.append(message)


__all__: Sequence[str] = (
    "CiteSummary",
    "JudgeEntailment",
    "cite_stored",
    "example_docs",
    "score_citations",
)
