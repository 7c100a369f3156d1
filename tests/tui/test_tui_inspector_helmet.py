"""The inspector on HELMET's real-data examples: the passages of the asked question with
the gold ones marked (RAG and re-ranking examples built by the real tasks on the fixture
data), a citation task's citations linked to the documents they cite, the ICL label
map, and the LLM judge's reasoning per rubric point (hand-built examples), at 80x24."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import duckdb
import pytest
from textual.content import Content
from textual.widgets import Static, Tabs
from textual.widgets._footer import FooterKey

from helpers.example_factory import make_test_example
from helpers.helmet_data import HELMET_FIXTURES
from helpers.pilot import open_inspector, rendered, settle, until
from lctui.cli import main as cli_main
from lctui.core.types import Example, Generation, GenerationStatus, Score, Span
from lctui.scoring import score_example
from lctui.scoring.judge import QA, SUMM, JudgeTask, judge_prompts, judge_score, parse_reply
from lctui.store import open_store
from lctui.tui.app import LctuiApp
from lctui.tui.screens.inspector import InspectorScreen
from lctui.tui.widgets.label_map import LabelTable
from lctui.tui.widgets.passage_list import GOLD_MARK, CitationTable, PassageTable
from lctui.tui.widgets.prompt_view import PromptView
from lctui.tui.widgets.rubric_table import RubricTable

MakeApp = Callable[..., LctuiApp]
_TEMPLATE: dict[str, Path] = {}


def _helmet_template(root: Path) -> Path:
    """Gold runs of kilt_nq and msmarco_rerank on the fixture release, built once."""
    if "db" not in _TEMPLATE:
        db = root / "helmet.duckdb"
        args = ["run", "-m", "gold", "-t", "kilt_nq,msmarco_rerank", "-l", "2k", "-n", "2"]
        assert cli_main([*args, "--data", str(HELMET_FIXTURES), "--db", str(db)]) == 0
        _TEMPLATE["db"] = db
    return _TEMPLATE["db"]


@pytest.fixture
def helmet_db(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path / "helmet.duckdb"
    target.write_bytes(_helmet_template(tmp_path_factory.mktemp("helmet")).read_bytes())
    return target


def generation_of(db: Path, task: str, idx: int = 0) -> str:
    with duckdb.connect(str(db), read_only=True) as con:
        row = con.execute(
            "SELECT g.generation_id FROM generations AS g JOIN examples AS e USING (example_id) "
            "WHERE e.task = ? AND e.idx = ? AND g.status = 'ok'",
            [task, idx],
        ).fetchone()
    assert row is not None
    return str(row[0])


def store_generation(db: Path, example: Example, output: str, scores: Sequence[Score]) -> str:
    """Store a hand-built example, its output and its scores in a run of the file."""
    gid = f"gen-{example.example_id}"
    with open_store(db) as store:
        found = store.cursor().execute("SELECT run_id FROM runs LIMIT 1").fetchone()
        assert found is not None
        store.add_example(example)
        generation = Generation(
            generation_id=gid,
            gen_key=f"key-{example.example_id}",
            run_id=found[0],
            model_id="gold",
            example_id=example.example_id,
            config_hash="c",
            status=GenerationStatus.OK,
            output=output,
            prompt_tokens=example.prompt_tokens,
            output_tokens=len(output.split()),
            ttft_s=0.1,
            latency_s=0.2,
            finish_reason="stop",
            error=None,
            started_at=time.time(),
        )
        store.add_generation(generation, {"max_new_tokens": example.max_new_tokens})
        for score in scores:
            store.add_score(gid, score)
        store.flush(force=True)
    return gid


def lines_of(widget: Any) -> str:
    return "\n".join(rendered(widget))


def prompt_shows(view: PromptView, text: str) -> bool:
    height = view.scrollable_content_region.height
    shown = "".join("".join(seg.text for seg in view.render_line(y)) for y in range(height))
    return text in shown


async def test_rag_passages_list_the_gold_one_and_enter_shows_it_in_the_prompt(
    make_app: MakeApp, helmet_db: Path
) -> None:
    gid = generation_of(helmet_db, "kilt_nq")
    app = make_app(helmet_db)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_inspector(pilot, gid)
        record = screen.record
        assert record is not None and record.metadata is not None
        assert screen.query_one(Tabs).query_one("#tab-context").display
        await pilot.press("4")
        table = screen.query_one(PassageTable)
        passages = table.passages
        assert len(passages) == record.metadata["num_passages"] == table.row_count
        at = record.metadata["gold_position"]
        (gold,) = [p for p in passages if p.gold]
        assert gold.position == at + 1 and gold.gold == "gold"
        context = record.context or ""
        assert context[gold.start : gold.end].startswith(f"Document (Title: {gold.label}): ")
        shown = lines_of(table)
        assert f"{GOLD_MARK} gold" in shown
        for passage in passages[: table.size.height - 1]:
            assert f" {passage.label} " in shown  # names are never cut at 80 columns
        keys = {key.description for key in screen.query(FooterKey)}
        assert {"Next", "Rescore", "Back"} <= keys

        # A passage far from the top: enter shows the prompt, scrolled to it, selected.
        last = passages[-1]
        table.move_cursor(row=last.position - 1)
        await pilot.press("enter")
        await settle(pilot)
        view = screen.query_one(PromptView)
        assert screen.has_class("-show-prompt")
        assert view.shown is not None and view.shown.label == last.label
        assert view.border_subtitle == f"passage {last.label}"
        top = view.scroll_offset.y
        assert top > 0
        shift = len(record.prompt_head or "") + len(record.preamble or "")
        assert top <= view.line_of(last.start + shift) < top + view.size.height
        assert prompt_shows(view, f"Document (Title: {last.label})")


async def test_rerank_marks_the_passages_with_a_positive_grade(
    make_app: MakeApp, helmet_db: Path
) -> None:
    gid = generation_of(helmet_db, "msmarco_rerank")
    app = make_app(helmet_db)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_inspector(pilot, gid)
        record = screen.record
        assert record is not None and record.metadata is not None
        qrels = record.metadata["qrels"]
        panel = screen.query_one("#context-panel")
        assert panel.display and screen.query_one("#rubric-panel").display  # side by side
        table = screen.query_one(PassageTable)
        assert [p.label for p in table.passages] == list(qrels)
        marks = {p.label: p.gold for p in table.passages}
        assert marks == {d: f"relevance {g}" if g > 0 else "" for d, g in qrels.items()}
        assert any(marks.values()) and not all(marks.values())
        # Where the output (the gold ranking) put each passage.
        ranking = (record.output or "").split(" > ")
        assert {p.label: p.ranked for p in table.passages} == {
            d: ranking.index(d) + 1 for d in qrels
        }
        assert "ranked" in lines_of(table)
        shown = lines_of(table)
        for label in qrels:
            assert label in shown

        table.focus()
        table.move_cursor(row=len(qrels) - 1)
        await pilot.press("enter")
        await settle(pilot)
        view = screen.query_one(PromptView)
        wanted = table.passages[-1]
        assert view.shown is not None and view.shown.label == wanted.label
        assert prompt_shows(view, f"[ID: {wanted.label}]")
        assert table.has_focus  # wide: the list keeps the focus for the next passage


CITE_DOCS = (
    ("Harbour Mills", "The harbour mills closed in 1911 after the river silted up."),
    ("North Cape", "The lighthouse of the north cape was kept by Zorbel Quandt."),
    ("River Vel", "The river Vel floods every spring since the dam broke."),
)


def cite_example() -> tuple[Example, str]:
    parts, spans, start = [], [], 0
    for number, (title, text) in enumerate(CITE_DOCS, 1):
        doc = f"Document [{number}](Title: {title}): {text}"
        parts.append(doc)
        spans.append(Span(start, start + len(doc), "passage", str(number)))
        start += len(doc) + 2
    example = make_test_example(
        example_id="cite-1",
        task="alce_asqa",
        category="cite",
        suite="helmet",
        preamble="Answer with citations [n] to the documents.\n\n",
        context="\n\n".join(parts),
        question="\n\nQuestion: Who kept the lighthouse, and when did the mills close?",
        answer_prefix="Answer:",
        gold=("Zorbel Quandt",),
        spans=tuple(spans),
        metadata={"scorer": "recall", "metric": "subem", "value_pattern": "(?i)zorbel quandt"},
    )
    output = (
        "Zorbel Quandt kept the lighthouse [2]. The mills closed in 1911 [1][2]. "
        "The town had a ferry [7]."
    )
    return example, output


async def test_citations_link_to_the_documents_they_cite_and_unlisted_ones_are_flagged(
    make_app: MakeApp, results_db: Path
) -> None:
    example, output = cite_example()
    gid = store_generation(results_db, example, output, [score_example(example, output)])
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_inspector(pilot, gid)
        await pilot.press("4")
        citations = screen.query_one(CitationTable)
        found = [(c.number, c.passage.label if c.passage else None) for c in citations.citations]
        assert found == [("2", "2"), ("1", "1"), ("2", "2"), ("7", None)]
        assert citations.citations[0].sentence == "Zorbel Quandt kept the lighthouse"
        passages = screen.query_one(PassageTable)
        assert [p.cited for p in passages.passages] == [1, 2, 0]
        assert [p.title for p in passages.passages] == [t for t, _ in CITE_DOCS]
        panel = screen.query_one("#passage-panel")
        panel.scroll_end(animate=False)
        await pilot.pause()
        heading = str(screen.query_one("#citations-heading", Static).content)
        assert heading == "4 citations in the output, 1 to a document not in the prompt"
        shown = lines_of(citations)
        assert "#2 North Cape" in shown and "not in the prompt" in shown

        # [7]: flagged, and selecting it jumps nowhere.
        citations.focus()
        citations.move_cursor(row=3)
        await pilot.press("enter")
        await settle(pilot)
        assert screen.has_class("-show-context")
        assert any("does not list" in str(n.message) for n in app._notifications)

        # [1]: the prompt shows document 1.
        citations.move_cursor(row=1)
        await pilot.press("enter")
        await settle(pilot)
        view = screen.query_one(PromptView)
        assert screen.has_class("-show-prompt")
        assert view.shown is not None and view.shown.label == "1"
        assert view.text[view.shown.start :].startswith("Document [1](Title: Harbour Mills)")

        # In the output, the linked citations and the flagged one are styled apart.
        output_text = screen.query_one("#output-text", Static).content
        assert isinstance(output_text, Content)
        styles = {output[s.start : s.end]: str(s.style) for s in output_text.spans}
        assert "$error" in styles["[7]"] and "$accent" in styles["[1]"]


def icl_example() -> Example:
    names = {"0": "location", "1": "money", "2": "person", "3": "abbreviation"}
    shots = "\n\n".join(f"{q}\nlabel: {label}" for q, label in [("Where is Oslo?", 0)])
    return make_test_example(
        example_id="icl-1",
        task="icl_trec_coarse",
        category="icl",
        suite="helmet",
        context=shots,
        question="\n\nHow much does a ferry ticket cost?",
        answer_prefix="label:",
        gold=("1",),
        metadata={"scorer": "helmet_icl", "metric": "em", "label_names": names},
    )


async def test_icl_shows_the_label_map_with_gold_and_answer_named(
    make_app: MakeApp, results_db: Path
) -> None:
    example = icl_example()
    output = " 2"
    gid = store_generation(results_db, example, output, [score_example(example, output)])
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_inspector(pilot, gid)
        tab = screen.query_one(Tabs).query_one("#tab-context")
        assert tab.display and "4 Labels" in str(tab.render())
        await pilot.press("4")
        summary = str(screen.query_one("#label-summary", Static).content)
        assert summary == "gold 1 (money)\nanswer 2 (person)"
        table = screen.query_one(LabelTable)
        shown = lines_of(table)
        assert table.row_count == 4
        assert "abbreviation" in shown and "money" in shown
        money = next(line for line in rendered(table) if "money" in line)
        person = next(line for line in rendered(table) if "person" in line)
        assert "gold" in money and "answer" in person
        await pilot.press("2")
        gold = str(screen.query_one("#output-gold", Static).content)
        assert gold == "Gold: 1 (money)"


def judged(example: Example, output: str, replies: dict[str, str]) -> Score:
    """The judge's score of `output` from the judge's reply texts, read as lctui reads them."""
    meta = example.metadata
    if meta["judge"] == QA:
        task = JudgeTask(QA, example.question.strip(), answers=example.gold, output=output)
    else:
        points = tuple(meta["key_points"])
        task = JudgeTask(SUMM, example.question.strip(), (), points, example.gold[0], output)
    prompts = judge_prompts(task)
    parsed = {p.role: parse_reply(p, replies[p.role]) for p in prompts}
    return judge_score(task, parsed, replies)


async def test_the_judges_reasoning_is_shown_under_each_rubric_point_and_no_fourth_panel(
    make_app: MakeApp, results_db: Path
) -> None:
    key_points = ["The mills closed in 1911.", "The river silted up."]
    example = make_test_example(
        example_id="summ-1",
        task="infbench_sum",
        category="summ",
        suite="helmet",
        context="A long history of the harbour town.",
        question="\n\nSummarize the history.",
        gold=("The mills closed in 1911 when the river silted up.",),
        metadata={"scorer": "recall", "judge": SUMM, "key_points": key_points},
    )
    output = "The mills closed in 1911. The town built a ferry."
    replies = {
        "recall": '{"points": [{"id": 1, "reason": "states the closing year", "supported": true},'
        ' {"id": 2, "reason": "never mentions the silt", "supported": false}]}',
        "precision": '{"fluency": 1, "sentences": [{"id": 1, "reason": "matches the '
        'reference", "supported": true}, {"id": 2, "reason": "no ferry in the reference", '
        '"supported": false}]}',
    }
    score = judged(example, output, replies)
    gid = store_generation(results_db, example, output, [score])
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_inspector(pilot, gid)
        await pilot.press("3")
        table = screen.query_one(RubricTable)
        names = table.point_names()
        assert names == ["fluency", "recall 1", "recall 2", "precision 1", "precision 2"]
        shown = " ".join(" ".join(rendered(table)).split())
        for reason in (
            "states the closing year",
            "never mentions the silt",
            "matches the reference",
            "no ferry in the reference",
        ):
            assert reason in shown
        for name in names:
            assert name in shown
        # No passages and no labels: no fourth tab, and 4 says so instead of a blank panel.
        assert not screen.query_one(Tabs).query_one("#tab-context").display
        await pilot.press("4")
        await until(pilot, lambda: any("no passages" in str(n.message) for n in app._notifications))
        assert screen.has_class("-show-rubric") and not screen.query_one("#context-panel").display
        assert isinstance(app.screen, InspectorScreen)
