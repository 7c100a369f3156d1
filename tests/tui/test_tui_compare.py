"""The compare screen on two real gold runs with rows altered to differ (the fixtures of
tests/analysis/test_compare.py): the table shows `compare`'s numbers, the changed list
opens the side-by-side view with both rubrics, and `e` writes the markdown report."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.content import Content
from textual.pilot import Pilot
from textual.widgets import DataTable, Select, Static

from helpers.gold_runs import alter, two_gold_runs, unpairable_runs
from helpers.pilot import rendered, settle, until
from lctui.analysis.compare import CompareResult, compare
from lctui.core.formatting import p_value
from lctui.core.lengths import format_length
from lctui.resources import sample_runs_dir
from lctui.store import open_store
from lctui.store.samples import sample_run_ids
from lctui.store.transfer import import_parquet
from lctui.tui.app import LctuiApp
from lctui.tui.screens.compare import CompareScreen
from lctui.tui.screens.inspector import InspectorScreen
from lctui.tui.screens.side_by_side import SideBySideScreen
from lctui.tui.widgets.rubric_table import RubricPanel, RubricTable

MakeApp = Callable[..., LctuiApp]


@pytest.fixture
def ab_db(
    two_gold_runs_db: tuple[Path, str, str],
    tmp_path: Path,
) -> tuple[Path, str, str, list[str]]:
    db, run_a, run_b = two_gold_runs_db
    copy = tmp_path / "ab.duckdb"
    shutil.copy(db, copy)
    examples = alter(copy, run_a, run_b)
    return copy, f"run:{run_a}", f"run:{run_b}", examples


def expected(db: Path, a: str, b: str) -> CompareResult:
    with open_store(db, read_only=True) as store:
        return compare(store, a, b)


def table_rows(table: DataTable[Any]) -> list[list[str]]:
    return [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]


async def open_compare(pilot: Pilot[Any], a: str, b: str) -> CompareScreen:
    await settle(pilot)
    pilot.app.push_screen(CompareScreen(a, b))
    # Under load the comparison's worker may outlast settle's rounds: wait for its result.
    await until(
        pilot,
        lambda: isinstance(pilot.app.screen, CompareScreen) and pilot.app.screen.result is not None,
    )
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, CompareScreen) and screen.result is not None
    return screen


async def test_cells_show_the_analysis_numbers_and_unmatched_counts(
    make_app: MakeApp, ab_db: tuple[Path, str, str, list[str]]
) -> None:
    db, a, b, _ = ab_db
    want = expected(db, a, b)
    async with make_app(db).run_test(size=(120, 40)) as pilot:
        screen = await open_compare(pilot, a, b)
        rows = table_rows(screen.query_one("#compare-cells", DataTable))
        assert len(rows) == len(want.cells) == 1
        cell = want.cells[0]
        assert rows[0][:9] == [
            cell.label, format_length(cell.length), str(cell.n), f"{cell.mean_a:.3f}",
            f"{cell.mean_b:.3f}", f"{cell.diff:+.3f}", cell.ci.shown(),
            cell.test, p_value(cell.p),
        ]  # fmt: skip
        assert rows[0][9:] == [str(cell.a_better), str(cell.b_better)]
        header = str(screen.query_one("#compare-header", Static).render())
        assert f"{want.only_a} only A, {want.only_b} only B" in header
        assert f"{want.errors_a} of A, {want.errors_b} of B" in header
        # Both pickers list the runs and show the chosen sides.
        values = [s.value for s in screen.query(Select)]
        assert values == [a, b]


async def test_changed_example_opens_side_by_side_with_both_rubrics(
    make_app: MakeApp, ab_db: tuple[Path, str, str, list[str]]
) -> None:
    db, a, b, examples = ab_db
    want = expected(db, a, b)
    async with make_app(db).run_test(size=(120, 40)) as pilot:
        screen = await open_compare(pilot, a, b)
        changed = screen.query_one("#compare-changed", DataTable)
        listed = [row[2] for row in table_rows(changed)]
        assert listed == [c.example_id for c in want.changed]
        assert sorted(listed) == sorted(examples[3:7])
        assert f"{want.a_better} better in A, {want.b_better} better in B" in str(
            changed.border_title
        )
        # The example whose B output was replaced by "no idea at all".
        changed.focus()
        changed.move_cursor(row=listed.index(examples[3]))
        await pilot.press("enter")
        await settle(pilot)
        view = pilot.app.screen
        assert isinstance(view, SideBySideScreen) and view.view is not None
        text_b = "\n".join(rendered(view.query_one("#sbs-text-b")))
        assert "no idea at all" in text_b
        text_a = "\n".join(rendered(view.query_one("#sbs-text-a")))
        assert (view.view.a.output or "").split()[0] in text_a
        for side in ("a", "b"):
            panel = view.query_one(f"#sbs-rubric-{side}", RubricPanel)
            record = view.view.a if side == "a" else view.view.b
            names = [p.name for s in record.scores for p in s.points]
            assert names and panel.query_one(RubricTable).point_names() == names
        # B's own words are styled apart from the words both share.
        content = view.query_one("#sbs-text-b", Static).render()
        assert isinstance(content, Content)
        assert any("no idea" in content.plain[s.start : s.end] for s in content.spans)
        await pilot.press("b")
        await settle(pilot)
        inspector = pilot.app.screen
        assert isinstance(inspector, InspectorScreen)
        assert inspector.generation_id == want.changed[listed.index(examples[3])].generation_b


async def test_export_writes_the_markdown_report(
    make_app: MakeApp,
    ab_db: tuple[Path, str, str, list[str]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("LCTUI_DATA_DIR", str(tmp_path / "data"))
    db, a, b, _ = ab_db
    want = expected(db, a, b)
    async with make_app(db).run_test(size=(120, 40)) as pilot:
        screen = await open_compare(pilot, a, b)
        await pilot.press("e")
        await pilot.pause()
        path = screen.last_export
        # Every export goes to the exports folder of the data folder (core/paths.py).
        assert path is not None and path.parent == tmp_path / "data" / "exports"
        text = path.read_text(encoding="utf-8")
        assert text.startswith(f"## {a} (A) vs {b} (B)")
        cell = want.cells[0]
        assert f"| {cell.label} | {format_length(cell.length)} | {cell.n} |" in text
        await pilot.press("E")
        await pilot.pause()
        assert screen.last_export is not None and screen.last_export.suffix == ".html"
        page = screen.last_export.read_text(encoding="utf-8")
        assert page.startswith("<!DOCTYPE html>") and f"<title>{a} (A) vs {b} (B)</title>" in page


async def test_swap_and_picking_a_side_rerun_the_comparison(
    make_app: MakeApp, ab_db: tuple[Path, str, str, list[str]]
) -> None:
    db, a, b, _ = ab_db
    diff = expected(db, a, b).cells[0].diff
    async with make_app(db).run_test(size=(120, 40)) as pilot:
        screen = await open_compare(pilot, a, b)
        await pilot.press("x")
        await settle(pilot)
        assert screen.result is not None
        assert (screen.result.a.spec, screen.result.b.spec) == (b, a)
        assert screen.result.cells[0].diff == pytest.approx(-diff)
        # The same run on both sides is refused with the analysis's message.
        screen.query_one("#pick-a", Select).value = a
        await settle(pilot)
        header = str(screen.query_one("#compare-header", Static).render())
        assert "are the same generations" in header
        assert screen.result is None


async def test_app_key_opens_the_compare_screen_on_the_first_two_sides(
    make_app: MakeApp,
) -> None:
    async with make_app().run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("C")
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, CompareScreen)
        # The conftest database holds one model (gold) in one run: two sides exist.
        assert screen.a is not None and screen.b is not None and screen.a != screen.b


@pytest.fixture
def unpairable(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    return unpairable_runs(tmp_path)


async def test_sides_that_cannot_pair_open_no_comparison_and_say_why(
    make_app: MakeApp, unpairable: tuple[Path, dict[str, str]]
) -> None:
    db, runs = unpairable
    a, b = f"run:{runs['base']}", f"run:{runs['tokenizer']}"
    async with make_app(db).run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = CompareScreen(a, b)
        pilot.app.push_screen(screen)
        await settle(pilot)
        header = " ".join(" ".join(rendered(screen.query_one("#compare-header", Static))).split())
        assert "share no example" in header and "different tokenizers" in header
        assert "o200k_base" in header and "cl100k_base" in header
        assert screen.result is None
        assert screen.query_one("#compare-cells", DataTable).row_count == 0
        assert not screen.check_action("export", ("md",))


async def test_a_sample_run_is_labelled_and_its_own_model_is_not_pitted_against_it(
    make_app: MakeApp, tmp_path: Path
) -> None:
    """A fresh database holds the sample run alone: the one model and its one run are
    the same generations, which the header says instead of 48 rows of +0.000."""
    db = tmp_path / "samples.duckdb"
    with open_store(db) as store:
        assert import_parquet(store, sample_runs_dir() / "smollm2-synthetic") > 0
    (run,) = sample_run_ids()
    async with make_app(db).run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = CompareScreen()
        pilot.app.push_screen(screen)
        await settle(pilot)
        assert screen.sides == [
            ("model smollm2-135m", "smollm2-135m"),
            (f"run:{run} (smollm2-135m, sample run)", f"run:{run}"),
        ]
        header = " ".join(" ".join(rendered(screen.query_one("#compare-header", Static))).split())
        assert f"run:{run} (sample run) are the same generations" in header
        assert screen.result is None
        assert screen.query_one("#compare-cells", DataTable).row_count == 0


@pytest.fixture
def two_pairs(tmp_path: Path) -> tuple[Path, str, str]:
    """Two gold runs of 2 examples (built before the app's event loop runs)."""
    return two_gold_runs(tmp_path, 2)


async def test_cells_under_five_pairs_show_too_few_pairs(
    make_app: MakeApp, two_pairs: tuple[Path, str, str]
) -> None:
    db, run_a, run_b = two_pairs
    a, b = f"run:{run_a}", f"run:{run_b}"
    async with make_app(db).run_test(size=(120, 40)) as pilot:
        screen = await open_compare(pilot, a, b)
        (row,) = table_rows(screen.query_one("#compare-cells", DataTable))
        assert row[2] == "2" and row[6] == "too few pairs"
        header = " ".join(" ".join(rendered(screen.query_one("#compare-header", Static))).split())
        assert "both sides are gold" in header
        assert "1 cell under 5 pairs: no interval (too few pairs)" in header
