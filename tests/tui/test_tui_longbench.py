"""LongBench v2 on the generic suite screen (key B): the original's columns and the
domains per model, mode and length, equal to `lctui report --suite longbench`, at 80x24
and 120x40; the highlighted row or domain described under the tables; enter lists a
row's examples and opens one in the inspector; R reads newly written answers; an empty
file says how to get scores. The results file holds gold runs (a reference: never in the table) and
an answerer's right, wrong, unparsed and failed answers (helpers/longbench_runs.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable, Static

from helpers.longbench_data import write_answered_run
from helpers.longbench_runs import COT_ANSWERS, RIGHT, UNPARSED, answer, longbench_examples
from helpers.pilot import rendered, settle
from lctui.cli import main
from lctui.core.config import Config
from lctui.suites.longbench.analysis import DOMAIN_HEADINGS
from lctui.tui.app import LctuiApp
from lctui.tui.screens.help import HelpScreen
from lctui.tui.screens.inspector import InspectorScreen
from lctui.tui.screens.suite import SuiteScreen, empty_message
from lctui.tui.widgets.examples_table import ExamplesTable
from lctui.tui.widgets.report_table import ReportTableView

SIZES = [(80, 24), (120, 40)]


def _report(db: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert main(["report", "--suite", "longbench", "--db", str(db), "--format", "json"]) == 0
    return {r["task"]: r for r in json.loads(capsys.readouterr().out)}


def _cells(table: ReportTableView) -> list[list[str]]:
    return [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]


async def _open(pilot: Any) -> SuiteScreen:
    await settle(pilot)
    await pilot.press("B")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, SuiteScreen) and screen.suite.name == "longbench"
    return screen


def _table(screen: SuiteScreen, index: int) -> ReportTableView:
    """Table `index` of the report: per mode, its accuracy, then its domains."""
    return screen.query_one(f"#suite-table-{index}", ReportTableView)


def _tasks(screen: SuiteScreen) -> list[tuple[str, str]]:
    tables = screen.report.tables if screen.report else ()
    return [(c.model, c.task) for t in tables[::2] for c in t.cells if c is not None]


def _flat(widget: Any) -> str:
    return " ".join(str(widget.render()).split())


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
async def test_tables_equal_the_report_and_fit_the_screen(
    longbench_db: Path, capsys: pytest.CaptureFixture[str], size: tuple[int, int]
) -> None:
    report = _report(longbench_db, capsys)
    app = LctuiApp(longbench_db, Config(), import_samples=False)
    async with app.run_test(size=size) as pilot:
        screen = await _open(pilot)
        # The answerer in two modes; gold is a reference and never in the table.
        assert _tasks(screen) == [("answerer", "longbench_v2"), ("answerer", "longbench_v2_cot")]
        rows = [_cells(_table(screen, 0))[0], _cells(_table(screen, 2))[0]]
        assert [r[:2] for r in rows] == [["answerer", "4k"], ["answerer", "4k"]]
        for row, task in zip(rows, ("longbench_v2", "longbench_v2_cot"), strict=True):
            groups = report[task]["groups"]
            numbers = [groups[g]["accuracy"] for g in ("overall", "easy", "hard")]
            numbers += [groups[g]["accuracy"] for g in ("short", "medium", "long")]
            numbers.insert(1, groups["overall"]["compensated"])
            assert row[2:9] == [f"{v:.1f}" for v in numbers]
            left = f" +{report[task]['left_out']} err" if report[task]["left_out"] else ""
            n, unparsed = groups["overall"]["n"], groups["overall"]["unparsed"]
            assert row[9:] == [f"{n}{left}", str(unparsed)]
        # 5 right, 3 wrong, 2 naming no option of 10 answered (2 failed, left out).
        assert rows[0][2:4] == ["50.0", "55.0"] and rows[0][9:] == ["10 +2 err", "2"]
        assert len(COT_ANSWERS) == 6 and rows[1][9:] == ["6", "2"]
        domain_rows = [_cells(_table(screen, 1))[0], _cells(_table(screen, 3))[0]]
        for row, task in zip(domain_rows, ("longbench_v2", "longbench_v2_cot"), strict=True):
            groups = report[task]["groups"]
            want = [f"{groups[d]['accuracy']:.1f}" if d in groups else "-" for d in DOMAIN_HEADINGS]
            assert row[2:] == want
        width = size[0]
        for widget in map(lambda i: _table(screen, i), range(4)):
            lines = rendered(widget)
            assert all(len(line) <= width for line in lines)
            heading = lines[1]  # under the border: every column is on screen, none scrolled
            assert widget.scroll_x == 0 and widget.virtual_size.width <= widget.size.width
            for column in widget.table.narrow_columns():
                assert column in heading
        heading = rendered(_table(screen, 0))[1]
        assert "Overall" in heading and "unparsed" in heading
        detail = _flat(screen.query_one("#suite-detail", Static))
        assert detail == (
            "answerer · direct answer · 4k: 10 answered, 2 name no option, "
            "2 failed or unscored left out"
        )


async def test_domains_are_named_under_the_table_and_enter_opens_the_examples(
    longbench_db: Path,
) -> None:
    app = LctuiApp(longbench_db, Config(), import_samples=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _open(pilot)
        await pilot.press("tab", "tab", "tab")  # the chain of thought's domain table
        domains = _table(screen, 3)
        assert domains.has_focus
        await pilot.press("right", "right", "right")  # model, len, 1-Doc, M-Doc
        await pilot.pause()
        assert screen.report is not None
        (record,) = [r for r in screen.report.records if r["task"] == "longbench_v2_cot"]
        group = record["groups"]["Multi-Document QA"]
        detail = _flat(screen.query_one("#suite-detail", Static))
        assert detail.startswith("answerer · CoT · 4k · Multi-Document QA: ")
        assert f"% of {group['n']} " in detail

        await pilot.press("enter")
        await settle(pilot)
        examples = screen.query_one(ExamplesTable)
        assert screen.has_class("-examples") and examples.has_focus
        assert not domains.display and _table(screen, 2).display
        assert examples.row_count == len(COT_ANSWERS)
        assert str(examples.border_title).startswith("answerer · longbench_v2_cot · 4k")
        statuses = [str(examples.get_row_at(i)[2]) for i in range(examples.row_count)]
        assert statuses.count("unparsed") == COT_ANSWERS.count(UNPARSED)
        await pilot.press("down", "down")
        gid = examples.highlighted_generation
        await pilot.press("enter")
        await settle(pilot)
        inspector = app.screen
        assert isinstance(inspector, InspectorScreen) and inspector.generation_id == gid
        await pilot.press("escape")  # the inspector: nothing changed, nothing read again
        await settle(pilot)
        assert app.screen is screen and screen.has_class("-examples")
        assert examples.highlighted_generation == gid
        stamp = screen._stamp
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("s")  # a re-score in the inspector writes a score
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert screen._stamp != stamp and examples.row_count == len(COT_ANSWERS)
        await pilot.press("escape")  # the examples
        # The tables were read again (and made anew) after the re-score.
        assert not screen.has_class("-examples") and _table(screen, 3).display
        await pilot.press("escape")  # the screen
        assert not isinstance(app.screen, SuiteScreen)


async def test_reload_reads_answers_written_meanwhile_and_the_key_is_listed(
    longbench_db: Path,
) -> None:
    app = LctuiApp(longbench_db, Config(), import_samples=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open(pilot)
        assert len(_tasks(screen)) == 2
        # Another model's answers to the same questions, written through the app's store.
        examples = longbench_examples("longbench_v2", 4)
        outputs = [answer(e, RIGHT) for e in examples]
        with app.store.writing():  # the idle app lends its file: it takes it back to write
            write_answered_run(app.store, examples, outputs, model="second", run_id="run-2")
            app.store.flush(force=True)
        await pilot.press("R")
        await settle(pilot)
        assert [m for m, _ in _tasks(screen)] == ["answerer", "second", "answerer"]
        assert _cells(_table(screen, 0))[1][2] == "100.0"

        commands = [c.title for c in app.get_system_commands(screen)]
        assert "LongBench v2" in commands
        await pilot.press("f1")
        await pilot.pause()
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        table = help_screen.query_one(DataTable)
        keys = {(str(r[0]), str(r[1])) for r in map(table.get_row_at, range(table.row_count))}
        assert ("B", "LongBench v2") in keys and ("R", "Reload") in keys


async def test_without_longbench_scores_it_says_how_to_get_them(results_db: Path) -> None:
    app = LctuiApp(results_db, Config(), import_samples=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _open(pilot)
        assert screen.has_class("-empty") and screen.report is None
        want = empty_message(screen.suite)
        assert str(screen.query_one("#suite-empty", Static).render()) == want


def test_snapshot_longbench_screen(
    snap_compare: Any, longbench_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLORTERM", "truecolor")  # the starting theme depends on it

    async def run_before(pilot: Any) -> None:
        await _open(pilot)
        await pilot.press("down")

    app = LctuiApp(longbench_db, Config(), import_samples=False)
    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)
