"""What the inspector's fourth panel reads from a record, without a terminal: passage
headings and titles, citations (two in one bracket, unlisted numbers, the text each
closes), gold marks from needles or qrels, and the ICL label map read as the scorer
reads the answer."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

from helpers.example_factory import make_test_example
from lctui.core.types import Example, Generation, GenerationStatus, Span
from lctui.scoring import score_example
from lctui.store import open_store
from lctui.store.read.generations import GenerationRecord, get_generation
from lctui.tasks import get_task
from lctui.tasks.tokenizers import reference_tokenizer
from lctui.tui.state.example_context import label_map, listed_passages, output_citations


def stored_record(
    tmp_path: Path, example: Example, output: str, score: bool = False
) -> GenerationRecord:
    """The record the inspector reads for `example` answered with `output` (a real store)."""
    with open_store(tmp_path / "r.duckdb") as store:
        run_id = "run-1"
        store.start_run(run_id, {"test": True})
        store.add_example(example)
        store.add_generation(
            Generation(
                generation_id="g",
                gen_key="k",
                run_id=run_id,
                model_id="gold",
                example_id=example.example_id,
                config_hash="c",
                status=GenerationStatus.OK,
                output=output,
                prompt_tokens=1,
                output_tokens=1,
                ttft_s=None,
                latency_s=0.1,
                finish_reason="stop",
                error=None,
                started_at=time.time(),
            ),
            {},
        )
        if score:
            store.add_score("g", score_example(example, output))
        store.flush(force=True)
        record = get_generation(store, "g")
    assert record is not None
    return record


def documents(*docs: str) -> tuple[str, tuple[Span, ...]]:
    spans, start = [], 0
    for number, doc in enumerate(docs, 1):
        spans.append(Span(start, start + len(doc), "passage", str(number)))
        start += len(doc) + 2
    return "\n\n".join(docs), tuple(spans)


def test_citations_two_in_a_bracket_unlisted_numbers_and_titles_with_brackets(
    tmp_path: Path,
) -> None:
    context, spans = documents(
        "Document [1](Title: Paris (city)): Paris is the capital.",
        "Document [2](Title: Seine): The Seine runs through Paris.",
    )
    example = make_test_example(category="cite", context=context, spans=spans)
    output = "Paris is the capital [1, 2]. It has a river [02]; the river is long [9].\nEnd [2]"
    record = stored_record(tmp_path, example, output)
    passages = listed_passages(record)
    assert [p.title for p in passages] == ["Paris (city)", "Seine"]
    assert [p.preview for p in passages] == [
        "Paris is the capital.",
        "The Seine runs through Paris.",
    ]
    assert [p.cited for p in passages] == [1, 3]
    found = [
        (c.number, c.passage.label if c.passage else None, c.sentence)
        for c in output_citations(record)
    ]
    assert found == [
        ("1", "1", "Paris is the capital"),
        ("2", "2", "Paris is the capital"),
        ("2", "2", "It has a river"),
        ("9", None, "It has a river ; the river is long"),
        ("2", "2", "End"),
    ]
    # Another category never reads brackets as citations.
    assert output_citations(replace(record, category="rag")) == []


def test_gold_from_a_needle_or_from_qrels(tmp_path: Path) -> None:
    context, spans = documents("[ID: 11] Document: first", "[ID: 12] Document: second")
    spans = (replace(spans[0], label="11"), replace(spans[1], label="12"))
    rag = make_test_example(
        context=context, spans=(*spans, Span(0, spans[0].end, "needle", "gold passage"))
    )
    assert [p.gold for p in listed_passages(stored_record(tmp_path / "a", rag, ""))] == ["gold", ""]
    rerank = make_test_example(context=context, spans=spans, metadata={"qrels": {"11": 0, "12": 2}})
    record = stored_record(tmp_path / "b", rerank, "Ranking: 12 > 11")
    assert [(p.gold, p.ranked) for p in listed_passages(record)] == [("", 2), ("relevance 2", 1)]
    assert [p.preview for p in listed_passages(record)] == ["first", "second"]


def test_ruler_qa_documents_are_listed_by_number_with_the_answers_marked(
    tmp_path: Path,
) -> None:
    """A real qa_2 example (the invented HotpotQA fixture): every document listed by its
    number, the two that hold the answer marked gold, the preview after the heading."""
    example = get_task("qa_2").generate(2048, 0, 0, reference_tokenizer("o200k_base"))
    passages = listed_passages(stored_record(tmp_path, example, ""))
    assert [p.label for p in passages] == [str(n) for n in range(1, len(passages) + 1)]
    assert len(passages) == example.metadata["num_documents"]
    gold = [p.position for p in passages if p.gold == "gold"]
    assert gold == example.metadata["gold_documents"]
    assert all(not p.preview.startswith("Document") for p in passages)


def test_label_map_reads_the_answer_as_the_scorer_does(tmp_path: Path) -> None:
    names = {"10": "money", "2": "person", "0": "location"}
    example = make_test_example(
        gold=("10",),
        answer_prefix="label:",
        metadata={"scorer": "helmet_icl", "label_names": names},
    )
    labels = label_map(stored_record(tmp_path / "a", example, " 2.", score=True))
    assert labels is not None
    assert [label for label, _ in labels.names] == ["0", "2", "10"]  # numeric order
    assert (labels.gold, labels.answered) == ("10", "2")
    assert labels.named("10") == "10 (money)" and labels.named("7") == "7 (not a label of the task)"
    unscored = label_map(stored_record(tmp_path / "b", example, " 2"))
    assert unscored is not None and unscored.answered is None
