"""Names and outputs from data never act on the terminal in the TUI: the heatmap's
model and task names, the examples table, the inspector's header, prompt and output,
notifications and a run's live output draw a newline, a colour, a bell, a right-to-left
override and rich markup as visible escapes (issue 25 item 2).

A real results file written through the store (tests/helpers/store_factories.py), the
real app through Pilot; what is checked is the text of the segments Textual writes.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from helpers.hostile_names import GOLD_TAIL, OUT_TAIL, RAW, TASK_TAIL, hostile
from helpers.pilot import open_inspector, rendered, settle, until
from helpers.store_factories import make_example, make_generation, make_score
from lctui.core.config import Config
from lctui.core.types import ModelSpec
from lctui.store import open_store
from lctui.tui.app import LctuiApp
from lctui.tui.screens.inspector import InspectorScreen
from lctui.tui.widgets.examples_table import ExamplesTable
from lctui.tui.widgets.heatmap import Heatmap
from lctui.tui.widgets.prompt_output import OutputPanel
from lctui.tui.widgets.prompt_view import PromptView

MODEL = hostile("m2", GOLD_TAIL)
TASK = hostile("t2", TASK_TAIL)
OUTPUT = "The answer\n" + hostile("is", OUT_TAIL) + "\ttabbed\rback"
GID = "g-hostile-0"


@pytest.fixture
def hostile_db(tmp_path: Path) -> Path:
    db = tmp_path / "hostile.duckdb"
    spec = ModelSpec(name=MODEL, backend="hf", path="/models/m2")
    with open_store(db) as store:
        store.add_model(spec, "fp-m2", "o200k_base", 8192)
        store.start_run("run-1", {"argv": ["run"]})
        for i in range(2):
            example = make_example(i, task=TASK, length=4096)
            example = dataclasses.replace(example, question=hostile("\nWhat is it?", OUT_TAIL))
            generation = make_generation(
                example, f"k-{i}", f"g-hostile-{i}", run_id="run-1", model_id="fp-m2"
            )
            store.add_example(example)
            store.add_generation(dataclasses.replace(generation, output=OUTPUT), {})
            store.add_score(f"g-hostile-{i}", make_score(1.0))
        store.finish_run("run-1", "finished")
    return db


def _drawn(lines: list[str]) -> str:
    """What the widget's segments hold, checked for any raw control character."""
    text = "\n".join(lines)
    leaked = [repr(raw) for raw in RAW if raw in text]
    assert not leaked, f"raw {', '.join(leaked)} drawn: {text!r}"
    return text


async def test_heatmap_examples_and_inspector_show_hostile_text_inert(hostile_db: Path) -> None:
    app = LctuiApp(hostile_db, Config(), import_samples=False)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        heatmap = app.screen.query_one(Heatmap)
        height = heatmap.scrollable_content_region.height
        grid = _drawn([heatmap.render_line(y).text for y in range(height)])
        # The model's heading and the task's label each on its own line, escaped.
        assert f"m2\\n\\r\\x1b[31m{GOLD_TAIL}\\x07[bold]x\\u202e" in grid
        assert f"t2\\n\\r\\x1b[31m{TASK_TAIL}" in grid
        _drawn(rendered(heatmap))  # with its border title

        await pilot.press("enter")
        await settle(pilot)
        table = app.screen.query_one(ExamplesTable)
        await until(pilot, lambda: table.row_count == 2)
        listed = _drawn(rendered(table))
        assert f"\\x1b[31m{OUT_TAIL}\\x07[bold]x" in listed  # the output's head, one line

        screen = await open_inspector(pilot, GID)
        assert isinstance(screen, InspectorScreen)
        await settle(pilot)
        header = _drawn(rendered(screen.query_one("#inspector-header")))
        assert f"\\x1b[31m{GOLD_TAIL}" in header and f"\\x1b[31m{TASK_TAIL}" in header
        prompt = _drawn(rendered(screen.query_one(PromptView)))
        assert f"␛[31m{OUT_TAIL}␇[bold]x" in prompt  # the question's controls, one cell each
        output = _drawn(rendered(screen.query_one(OutputPanel).query_one("#output-text")))
        # The output's own lines stay; its colour, bell, tab and carriage return show.
        assert f"␛[31m{OUT_TAIL}␇[bold]x" in output and "→tabbed␍back" in output

        app.notify(f"model {MODEL} failed", title=TASK)
        await pilot.pause()
        told = app._notifications
        last = list(told)[-1]
        assert not any(raw in str(last.message) + last.title for raw in RAW)
        assert f"\\x1b[31m{GOLD_TAIL}\\x07[bold]x" in str(last.message)
