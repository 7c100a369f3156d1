"""The example inspector: prompt with marked spans and jumps, output, rubric, re-score,
re-run requests, copy, export, failed requests shown as errors, a 550K-character
prompt, and SVG snapshots at 80x24 and 120x40."""

from __future__ import annotations

import contextlib
import json
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import pytest
from rich.cells import cell_len
from textual.pilot import Pilot
from textual.widgets import Static
from textual.widgets._footer import FooterKey

from helpers.issue15_outputs import add_issue15_generation
from helpers.pilot import open_inspector, rendered, settle, until
from lctui.analysis.compare import compare
from lctui.backends import load_backend
from lctui.backends.embedded import EMBEDDED_NAME
from lctui.cli import main as cli_main
from lctui.core.paths import exports_dir
from lctui.core.types import Example, Generation, GenerationStatus, Span
from lctui.engine import Engine, RunRequest
from lctui.engine.plan import plan_run
from lctui.scoring import error_score, score_example, score_relation
from lctui.store import open_store
from lctui.store.transfer import import_parquet
from lctui.tui.app import SAMPLE_RUNS, LctuiApp
from lctui.tui.screens.inspector import InspectorCommands
from lctui.tui.screens.model_picker import ModelPicker
from lctui.tui.state.prompt_wrap import WrapIndex
from lctui.tui.widgets.prompt_view import PromptView
from lctui.tui.widgets.rubric_table import RubricTable

MakeApp = Callable[..., LctuiApp]
ERROR_MESSAGE = "APIConnectionError: endpoint 2 refused the connection (HTTP 503)"


def generation_id(db: Path, task: str = "vt", length: int = 2048, idx: int = 0) -> str:
    """The gold generation of one example (vt 2K #0 has its first needle off-screen)."""
    with duckdb.connect(str(db), read_only=True) as con:
        row = con.execute(
            "SELECT g.generation_id FROM generations AS g JOIN examples AS e USING (example_id) "
            "WHERE e.task = ? AND e.length = ? AND e.idx = ? AND g.status = 'ok'",
            [task, length, idx],
        ).fetchone()
    assert row is not None
    return str(row[0])


def add_failed_generation(db: Path, of: str) -> str:
    """Store a failed attempt at the example of generation `of` (its own gen_key)."""
    store = open_store(db)
    try:
        row = (
            store.cursor()
            .execute(
                "SELECT example_id, model_id, run_id, config_hash FROM generations "
                "WHERE generation_id = ?",
                [of],
            )
            .fetchone()
        )
        assert row is not None
        example_id, model_id, run_id, config_hash = row
        generation = Generation(
            generation_id="failed-attempt",
            gen_key="failed-attempt-key",
            run_id=run_id,
            model_id=model_id,
            example_id=example_id,
            config_hash=config_hash,
            status=GenerationStatus.ERROR,
            output="",
            prompt_tokens=0,
            output_tokens=0,
            ttft_s=None,
            latency_s=30.0,
            finish_reason=None,
            error=ERROR_MESSAGE,
            started_at=time.time(),
        )
        store.add_generation(generation, {"max_new_tokens": 128, "temperature": 0.0})
        store.add_score("failed-attempt", error_score(ERROR_MESSAGE, metric="string_match_all"))
        store.flush(force=True)
    finally:
        store.close()
    return "failed-attempt"


def add_long_generation(db: Path, chars: int = 550_000) -> tuple[str, Span]:
    """A ~128K-token example (prose without newlines) with a needle at 41 %, answered."""
    rng = random.Random(7)
    words = ["harbour", "winter", "committee", "reported", "closed", "river", "mill", "path"]
    filler = " ".join(rng.choice(words) for _ in range(chars // 7))
    needle = "One of the special codes for brave-otter is: 4718293."
    cut = filler.index(" ", int(len(filler) * 0.41)) + 1
    context = filler[:cut] + needle + " " + filler[cut:]
    spans = (
        Span(cut, cut + len(needle), "needle", "brave-otter"),
        Span(cut + len(needle) - 8, cut + len(needle) - 1, "gold", "brave-otter"),
    )
    example = Example(
        example_id="long-example",
        task="niah_single_2",
        category="synthetic",
        suite="ruler",
        length=131072,
        seed=0,
        index=0,
        tokenizer="o200k_base",
        params={},
        preamble="Some special codes are hidden in the text below.\n\n",
        context=context,
        question="\n\nWhat is the special code for brave-otter?",
        answer_prefix="Answer:",
        gold=("4718293",),
        max_new_tokens=32,
        prompt_tokens=128_000,
        depth=41.0,
        spans=spans,
        metadata={"metric": "string_match_all", "scorer": "recall", "value_pattern": r"\d{7}"},
    )
    store = open_store(db)
    try:
        found = store.cursor().execute("SELECT run_id FROM runs LIMIT 1").fetchone()
        assert found is not None
        run_id = found[0]
        store.add_example(example)
        generation = Generation(
            generation_id="long-generation",
            gen_key="long-key",
            run_id=run_id,
            model_id="gold",
            example_id=example.example_id,
            config_hash="c",
            status=GenerationStatus.OK,
            output="4718293",
            prompt_tokens=128_000,
            output_tokens=3,
            ttft_s=0.1,
            latency_s=0.2,
            finish_reason="stop",
            error=None,
            started_at=time.time(),
        )
        store.add_generation(generation, {"max_new_tokens": 32})
        store.add_score("long-generation", score_example(example, "4718293"))
        store.flush(force=True)
    finally:
        store.close()
    return "long-generation", spans[0]


def prompt_lines(view: PromptView) -> list[str]:
    """The prompt's text lines on screen, without border or scrollbar."""
    height = view.scrollable_content_region.height
    return ["".join(seg.text for seg in view.render_line(y)) for y in range(height)]


def fetch_one(app: LctuiApp, sql: str, params: list[Any]) -> Any:
    cur = app.store.cursor()
    try:
        row = cur.execute(sql, params).fetchone()
    finally:
        cur.close()
    assert row is not None
    return row[0]


def score_rows(app: LctuiApp, gid: str) -> int:
    return int(fetch_one(app, "SELECT count(*) FROM scores WHERE generation_id = ?", [gid]))


async def test_opens_with_title_output_and_rubric(make_app: MakeApp, results_db: Path) -> None:
    gid = generation_id(results_db)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_inspector(pilot, gid)
        view = screen.query_one(PromptView)
        assert view.border_title == "Prompt (1,945 tokens, needle at 3 %)"
        assert view.text == screen.record.prompt if screen.record else False
        assert prompt_lines(view)[0].startswith("First, a solved example.")
        header = str(screen.query_one("#inspector-header", Static).content)
        assert header.startswith("vt  ·  2k  ·  example 0") and gid not in header
        assert header.endswith(
            "gold (reference)  ·  plain prompt"
        )  # the format its prompt was framed in

        await pilot.press("3")
        table = screen.query_one(RubricTable)
        assert table.point_names() == [
            "all requested values present",
            "no values that were not asked for",
            "each value given once",
        ]
        shown = "\n".join(rendered(table))
        assert "all requested values present" in shown and "Recog" in shown
        assert "found all 5 requested values" in shown  # the explanation under the point
        summary = str(screen.query_one("#score-lines", Static).content)
        assert summary.startswith("string_match_all 1.00  status ok")
        relation = str(screen.query_one("#score-relation", Static).content)
        assert relation == score_relation("recall", "string_match_all", 5)

        await pilot.press("2")
        output = str(screen.query_one("#output-text", Static).content)
        assert output == "LGRIV, BBYSK, AZEOV, BBRUX, WHALV"
        gold = str(screen.query_one("#output-gold", Static).content)
        assert gold == "Gold: LGRIV, BBYSK, AZEOV, BBRUX, WHALV"
        assert screen.query_one("#output-panel").border_title == "Output: ok"
        keys = {key.description for key in screen.query(FooterKey)}
        assert {"Next", "Gold", "Rescore", "Rerun", "Model", "Copy", "Export", "Back"} <= keys


async def test_n_and_g_scroll_to_the_marked_spans(make_app: MakeApp, results_db: Path) -> None:
    gid = generation_id(results_db)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_inspector(pilot, gid)
        view = screen.query_one(PromptView)
        assert [t.kind for t in view.targets] == ["needle"] * 5  # gold values sit inside
        first = view.targets[0]
        first_line = view.line_of(first.start)
        assert view.scroll_offset.y == 0 and first_line >= view.size.height  # off-screen

        await pilot.press("3", "n")  # from another tab: n shows the prompt first
        await pilot.pause()
        assert screen.has_class("-show-prompt") and view.selected == 0
        top = view.scroll_offset.y
        assert top > 0 and top <= first_line < top + view.size.height
        row = prompt_lines(view)[first_line - top].rstrip()
        # The needle is painted there (its words after the row's end wrap to the next).
        words = view.text[first.start : first.start + 12].split(" ")
        assert any(row.endswith(" ".join(words[:k])) for k in range(1, len(words))) or (
            " ".join(words) in row
        )

        await pilot.press("n")
        second_line = view.line_of(view.targets[1].start)
        assert view.selected == 1
        assert view.scroll_offset.y <= second_line < view.scroll_offset.y + view.size.height
        await pilot.press("N")
        assert view.selected == 0 and view.scroll_offset.y == top
        await pilot.press("N")  # wraps around to the last needle
        assert view.selected == len(view.targets) - 1

        assert view.selected is not None
        selected = view.targets[view.selected]
        await pilot.resize_terminal(120, 40)
        await pilot.pause()
        assert screen.has_class("-wide") and screen.query_one("#rubric-panel").display
        line = view.line_of(selected.start)  # re-wrapped at the new width, still in view
        assert view.scroll_offset.y <= line < view.scroll_offset.y + view.size.height

        await pilot.press("g")
        assert view.selected == 0
        gold = next(s for s in view.spans if s.kind == "gold")
        assert view.text[gold.start : gold.end] == "LGRIV"
        assert view.border_subtitle == "needle 1 of 5 · asked"


@pytest.mark.parametrize("width", [1, 7, 30])
def test_wrap_index_covers_the_text_once(width: int) -> None:
    rng = random.Random(width)
    alphabet = "ab  cd\n e\u00e9\u4e2d\u0301xyz" + "longwordwithoutspaces"
    for _ in range(300):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 300)))
        index = WrapIndex(text, width)
        index.ensure_line(3)  # lazily first, then in slices
        while not index.wrap_some(50):
            pass
        lines = list(zip(index.starts, index.ends, strict=True))
        shown = []
        for (start, end), following in zip(lines, [*index.starts[1:], None], strict=True):
            piece = text[start:end]
            assert "\n" not in piece
            visible = piece.rstrip(" ")
            assert cell_len(visible) <= width or len(visible) == 1  # one wide character
            if following is not None:
                assert text[end:following] in ("", "\n")  # nothing skipped but newlines
            shown.append(piece)
        assert "".join(shown) == text.replace("\n", "")
        assert index.estimated_lines() == len(lines)


async def test_palette_and_theme(make_app: MakeApp, results_db: Path) -> None:
    gid = generation_id(results_db)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_inspector(pilot, gid)
        provider = InspectorCommands(screen)
        titles = [str(hit.text) async for hit in provider.search("export")]
        assert "Inspector: Export as JSON" in titles
        titles = [str(hit.text) async for hit in provider.discover()]
        assert "Inspector: Re-run on another model" in titles

        view = screen.query_one(PromptView)
        await pilot.press("n")
        row = view.line_of(view.targets[0].start) - view.scroll_offset.y

        def needle_colour() -> str | None:
            # The selected needle "Set LGRIV to ..." is painted "Set " + gold + rest.
            segments = [s for s in view.render_line(row) if s.text == "Set "]
            colour = segments[0].style.color if segments and segments[0].style else None
            return colour.name if colour else None

        assert needle_colour() == "#ffaf5f"  # lctui-dark's `needle`
        app.theme = "lctui-light"
        await pilot.pause()
        assert needle_colour() == "#af5f00"


async def test_rescore_stores_a_new_score(make_app: MakeApp, results_db: Path) -> None:
    gid = generation_id(results_db, "niah_single_1", 1024, 1)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_inspector(pilot, gid)
        before = score_rows(app, gid)
        first_scored = screen.record.scores[0].scored_at if screen.record else None
        await pilot.press("s")
        await settle(pilot)
        assert score_rows(app, gid) == before + 1
        assert screen.record is not None
        assert screen.record.scores[0].scored_at != first_scored  # shows the new one
        assert screen.query_one(RubricTable).row_count == 3


async def test_export_writes_the_example(
    make_app: MakeApp, results_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gid = generation_id(results_db, "json_kv", 1024, 0)
    (tmp_path / "cwd").mkdir()
    monkeypatch.chdir(tmp_path / "cwd")
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_inspector(pilot, gid)
        await pilot.press("e")
        await settle(pilot)
        # The exports folder of the data folder, as every export (not the working folder).
        assert list((tmp_path / "cwd").iterdir()) == []
        files = list(exports_dir().glob("lctui-json_kv-1024-0-gold-*.json"))
        assert len(files) == 1 and exports_dir() == tmp_path / "data" / "exports"
        data = json.loads(files[0].read_text(encoding="utf-8"))
        assert screen.record is not None
        assert data["prompt"] == screen.record.prompt
        assert data["output"] == data["gold"][0]
        assert {"generation_id", "model", "task", "length", "index", "spans"} <= set(data)
        (score,) = data["scores"]
        assert score["status"] == "ok" and score["value"] == 1.0
        assert score["points"][0]["name"] == "all requested values present"
        assert set(score["points"][0]) == {
            "name",
            "capabilities",
            "weight",
            "earned",
            "explanation",
        }

        await pilot.press("y")
        assert app.clipboard == screen.record.prompt


async def test_failed_request_shows_the_error_never_a_zero(
    make_app: MakeApp, results_db: Path
) -> None:
    failed = add_failed_generation(results_db, generation_id(results_db))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_inspector(pilot, failed)
        await pilot.press("2")
        output = str(screen.query_one("#output-text", Static).content)
        assert output == f"The request failed: {ERROR_MESSAGE}"
        shown = " ".join(" ".join(rendered(screen.query_one("#output-text"))).split())
        assert ERROR_MESSAGE in shown  # on screen, not only in the widget's content
        assert screen.query_one("#output-panel").border_title == "Output: error"
        summary = str(screen.query_one("#score-lines", Static).content)
        assert summary.startswith("error: the request failed") and "0.00" not in summary

        before = score_rows(app, failed)
        await pilot.press("s")  # nothing to score: refused, nothing stored
        await settle(pilot)
        assert score_rows(app, failed) == before


async def test_rerun_requests_reproduce_the_example(
    make_app: MakeApp, results_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ok = generation_id(results_db)
    failed = add_failed_generation(results_db, ok)
    app = make_app()
    started: list[RunRequest] = []
    monkeypatch.setattr(app, "start_run", started.append)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_inspector(pilot, ok)
        await pilot.press("r")  # stored already: a deliberate new attempt under the same key
        await settle(pilot)
        (again,) = started
        assert screen.record is not None
        assert again.retry_stored and list(again.example_indices()) == [screen.record.idx]

        app.pop_screen()
        screen = await open_inspector(pilot, failed)
        await pilot.press("r")  # every attempt failed: an ordinary resume retries it
        await settle(pilot)
        request = started[-1]
        assert not request.retry_stored
        record = screen.record
        assert record is not None
        assert [m.name for m in request.models] == ["gold"] and request.n == 1
        assert request.lengths == [2048] and request.seed == 0
        spec = request.models[0]
        (item,) = list(plan_run(request).model(spec, load_backend(spec, request.tokenizer)).items())
        assert item.example_id == record.example_id
        stored_key = fetch_one(app, "SELECT gen_key FROM generations WHERE generation_id = ?", [ok])
        assert item.gen_key == stored_key  # so the engine would skip or retry that very key
        # The stored example itself, never rebuilt.
        assert item.prebuilt is not None and item.prebuilt.context == record.context

        await pilot.press("m")
        await pilot.pause()
        assert isinstance(app.screen, ModelPicker)
        assert "gold" not in [m.name for m in app.screen.models]
        await pilot.press("enter")  # the first choice: the embedded model
        await settle(pilot)
        assert [m.name for m in started[-1].models] == [EMBEDDED_NAME]
        (example,) = started[-1].examples
        assert example.example_id == record.example_id
        assert example.context == record.context and example.gold == tuple(record.gold)


@pytest.fixture
def samples_db(tmp_path: Path) -> Path:
    """The shipped sample runs of SmolLM2, imported as the app does on first launch."""
    db = tmp_path / "samples.duckdb"
    with open_store(db) as store:
        assert import_parquet(store, SAMPLE_RUNS / "smollm2-synthetic") > 0
    return db


async def test_rerun_on_another_model_reads_the_stored_example(
    make_app: MakeApp, samples_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`m` on a SmolLM2 sample, then gold: gold answers that very example (never one
    rebuilt for its own prompt format), so the two generations pair in a comparison."""
    sample = generation_id(samples_db, "niah_single_1", 1024)
    app = make_app(samples_db)
    started: list[RunRequest] = []
    monkeypatch.setattr(app, "start_run", started.append)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_inspector(pilot, sample)
        record = screen.record
        assert record is not None and record.model == EMBEDDED_NAME
        await pilot.press("m")
        await pilot.pause()
        assert isinstance(app.screen, ModelPicker)
        assert app.screen.models[0].name == "gold"
        await pilot.press("enter")
        await settle(pilot)
    (request,) = started
    with open_store(samples_db) as store:
        examples_before = fetch_count(store, "SELECT count(*) FROM examples")
        outcome = await Engine(store, load_backend, lambda event: None).run(request)
        assert outcome.done == 1 and outcome.errors == 0
        gold_example = fetch_count(
            store, "SELECT example_id FROM results WHERE model = 'gold'", value=str
        )
        assert gold_example == record.example_id
        assert fetch_count(store, "SELECT count(*) FROM examples") == examples_before
        result = compare(store, EMBEDDED_NAME, "gold")
    assert sum(c.n for c in result.cells) == 1 and result.cells[0].mean_b == 1.0


def fetch_count(store: Any, sql: str, value: Callable[[Any], Any] = int) -> Any:
    cur = store.cursor()
    try:
        row = cur.execute(sql).fetchone()
    finally:
        cur.close()
    assert row is not None
    return value(row[0])


async def test_a_550k_character_prompt_opens_and_jumps(make_app: MakeApp, results_db: Path) -> None:
    gid, needle = add_long_generation(results_db)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_inspector(pilot, gid)
        view = screen.query_one(PromptView)
        assert len(view.text) > 550_000 and view.first_paint is not None
        assert prompt_lines(view)[0].startswith("Some special codes are hidden")
        assert view.border_title == "Prompt (128,000 tokens, needle at 41 %)"

        await pilot.press("n")
        await pilot.pause()
        line = view.line_of(
            needle.start + len(screen.record.preamble or "") if screen.record else 0
        )
        top = view.scroll_offset.y
        assert top <= line < top + view.size.height
        assert line > view.virtual_size.height * 0.35  # about 41 % down the prompt
        assert "brave-otter" in "".join(prompt_lines(view))
        await settle(pilot)  # the background pass wraps the rest
        assert view.virtual_size.height == view.line_of(len(view.text) - 1) + 1


@pytest.fixture
def issue15_generation(results_db: Path) -> str:
    """A gold cwe run added to the results file, and issue 15's output beside it."""
    run = ["run", "--model", "gold", "--tasks", "cwe", "--lengths", "1k", "--n", "1"]
    assert cli_main([*run, "--db", str(results_db)]) == 0
    return add_issue15_generation(results_db, generation_id(results_db, "cwe", 1024))


async def test_rubric_says_how_the_score_relates_to_points_that_are_true(
    make_app: MakeApp, issue15_generation: str
) -> None:
    """Issue 15's cwe output: unasked words named, and the score's rule said."""
    gid = issue15_generation
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_inspector(pilot, gid)
        table = screen.query_one(RubricTable)

        def shown_text() -> str:
            return " ".join(" ".join(rendered(table)).split())

        # Under load the table's rows can be drawn a layout pass after the inspector opens.
        with contextlib.suppress(AssertionError):
            await until(pilot, lambda: "not asked for" in shown_text())
        shown = shown_text()
        assert "output lists 3 words that were not asked for" in shown
        assert "pursuit, fliers" in shown and "fliers (38 times)" in shown
        assert "every word" not in shown
        summary = str(screen.query_one("#score-lines", Static).content)
        assert summary.startswith("string_match_all 0.10  status ok")

        relation = screen.query_one("#score-relation", Static)
        panel = screen.query_one("#rubric-panel")
        panel.scroll_end(animate=False)
        await pilot.pause()
        assert panel.region.contains_region(relation.region)  # on screen, not only stored
        on_screen = " ".join(" ".join(rendered(relation)).split())
        assert on_screen == (
            "score = RULER's string_match_all, the share of the 10 gold answers that occur in "
            "the output (case-insensitive substrings); the rubric points are diagnostics and "
            "do not add up to the score"
        )


def _snapshot_app(make_app: MakeApp, monkeypatch: pytest.MonkeyPatch) -> LctuiApp:
    # The starting theme depends on the terminal (256 colours or truecolor): pin it.
    monkeypatch.setenv("COLORTERM", "truecolor")
    return make_app()


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_snapshot_inspector(
    snap_compare: Any,
    make_app: MakeApp,
    results_db: Path,
    monkeypatch: pytest.MonkeyPatch,
    size: tuple[int, int],
) -> None:
    gid = generation_id(results_db)
    app = _snapshot_app(make_app, monkeypatch)

    async def run_before(pilot: Pilot[Any]) -> None:
        await open_inspector(pilot, gid)
        await pilot.press("n")
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=run_before)
