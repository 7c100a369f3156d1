"""The inspector's prompt says what it marks: `n`/`N` walk every needle, distractors
included ("needle 2 of 4"); an example without needles says what it holds instead and
why `n` does nothing; `g` on cwe marks the gold words in the list; a LIFBench example
names its depth and its marks by what they are (the expected list entry, tagged
sentences), never "needle". Gold runs of real examples in a real DuckDB file, at
80x24 and 120x40."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import duckdb
import pytest
from textual.pilot import Pilot

from helpers.pilot import open_inspector
from lctui.cli import main as cli_main
from lctui.core.config import Config
from lctui.tui.app import LctuiApp
from lctui.tui.widgets.prompt_view import PromptView

SIZES = [(80, 24), (120, 40)]
SIZE_IDS = ["80x24", "120x40"]
TASKS = "niah_multikey_1,cwe,lifbench_single_query_id,lifbench_qa"
_BUILT: dict[str, Path] = {}


@pytest.fixture
def marks_db(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Gold runs of a needle task with distractors, cwe and two LIFBench tasks at 2K,
    built once per session and copied."""
    if "db" not in _BUILT:
        db = tmp_path_factory.mktemp("marks") / "marks.duckdb"
        args = ["run", "--model", "gold", "--tasks", TASKS, "--lengths", "2k", "--n", "1"]
        assert cli_main([*args, "--db", str(db)]) == 0
        _BUILT["db"] = db
    copy = tmp_path / "marks.duckdb"
    shutil.copy(_BUILT["db"], copy)
    return copy


def _generation(db: Path, task: str) -> str:
    with duckdb.connect(str(db), read_only=True) as con:
        row = con.execute(
            "SELECT generation_id FROM results WHERE task = ? AND model = 'gold'", [task]
        ).fetchone()
    assert row is not None
    return str(row[0])


async def _open(pilot: Pilot[Any], gid: str) -> PromptView:
    screen = await open_inspector(pilot, gid)
    await pilot.press("1")  # the prompt's tab, where the panels are tabs
    await pilot.pause()
    return screen.query_one(PromptView)


def _warnings(app: LctuiApp) -> str:
    return " ".join(f"{n.title}: {n.message}" for n in app._notifications)


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
async def test_n_walks_the_asked_needle_and_its_distractors(
    marks_db: Path, size: tuple[int, int]
) -> None:
    gid = _generation(marks_db, "niah_multikey_1")  # read before the app holds the file
    app = LctuiApp(marks_db, Config(), import_samples=False)
    async with app.run_test(size=size) as pilot:
        view = await _open(pilot, gid)
        assert [t.kind for t in view.targets].count("distractor") == 3
        seen = []
        for _ in range(4):
            await pilot.press("n")
            seen.append(str(view.border_subtitle))
        assert all(re.fullmatch(r"needle [1-4] of 4 · .+", s) for s in seen), seen
        assert len(set(seen)) == 4, "each press goes to another needle"
        assert sum("· asked" in s for s in seen) == 1
        assert sum("· distractor " in s for s in seen) == 3
        await pilot.press("n")  # wraps around
        assert view.border_subtitle == seen[0]
        await pilot.press("N")
        assert view.border_subtitle == seen[3]


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
async def test_g_on_cwe_marks_the_gold_words_and_n_says_why_nothing_happens(
    marks_db: Path, size: tuple[int, int]
) -> None:
    gid = _generation(marks_db, "cwe")
    app = LctuiApp(marks_db, Config(), import_samples=False)
    async with app.run_test(size=size) as pilot:
        view = await _open(pilot, gid)
        assert not view.spans and not view.targets
        frame = str(view.border_subtitle)
        assert frame.startswith("no needle; g marks where the gold values occur"), frame
        await pilot.press("n")
        await pilot.pause()
        assert "No needle here: Nothing marked to jump to: no needle; g marks" in _warnings(app)
        await pilot.press("g")
        await pilot.pause()
        screen = app.screen
        gold = {g.lower() for g in screen.record.gold}  # type: ignore[attr-defined]
        marked = [view.text[s.start : s.end].lower() for s in view.spans]
        assert marked and set(marked) == gold, "every gold word, and only gold words"
        assert view.selected == 0
        assert re.fullmatch(rf"gold 1 of {len(marked)} · \w+", str(view.border_subtitle))
        await pilot.press("n")
        assert str(view.border_subtitle).startswith(f"gold 2 of {len(marked)}")


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
async def test_lifbench_examples_name_what_their_depth_and_marks_are(
    marks_db: Path, size: tuple[int, int]
) -> None:
    listed, onedoc = (_generation(marks_db, t) for t in ("lifbench_single_query_id", "lifbench_qa"))
    app = LctuiApp(marks_db, Config(), import_samples=False)
    async with app.run_test(size=size) as pilot:
        view = await _open(pilot, listed)
        assert "needle" not in str(view.border_title)
        assert re.search(r"expected entry at \d+ %\)$", str(view.border_title)), view.border_title
        frame = str(view.border_subtitle)
        assert re.fullmatch(r"a numbered list of \d+ entries; g marks the expected one", frame)
        await pilot.press("g")
        await pilot.pause()
        record = app.screen.record  # type: ignore[attr-defined]
        assert [view.text[s.start : s.end] for s in view.spans] == list(record.gold)
        app.pop_screen()
        await pilot.pause()

        view = await _open(pilot, onedoc)
        assert "needle" not in str(view.border_title)
        await pilot.press("n")
        first = str(view.border_subtitle)
        assert re.fullmatch(
            r"(tagged sentence \d+ of \d+ · #\d+|asked sentence 1 of \d+ · \w+)", first
        )
        assert "needle" not in first
