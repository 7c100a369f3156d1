"""The launch screen helps: its defaults finish in minutes on the embedded model (the
estimate, measured from the shipped sample runs, leads with the duration and names a
smaller run when the choices would take long); it opens on the last run's choices;
a message in the error line goes once it no longer holds, an empty n says so; task
parameters are edited and checked as `--set` checks them; and messages are titled by
what happened. Real app, real DuckDB files, at 80x24 and 120x40."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import duckdb
import pytest
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Input, Select, SelectionList, Static

from helpers.pilot import open_launch, settle
from lctui.backends.embedded import EMBEDDED_NAME
from lctui.cli.run_args import parse_overrides
from lctui.core.config import Config
from lctui.core.errors import UserInputError
from lctui.core.paths import data_dir, machine_id
from lctui.core.types import RUN_TIMING
from lctui.resources import sample_runs_dir
from lctui.store import open_store
from lctui.store.transfer import import_parquet
from lctui.tasks import select_tasks
from lctui.tui.app import LctuiApp
from lctui.tui.screens.param_editor import ParamEditor
from lctui.tui.screens.run import RunScreen
from lctui.tui.state.estimate import LONG_S
from lctui.tui.state.launch_choices import (
    DEFAULT_LENGTH,
    DEFAULT_N,
    LaunchChoices,
    keep_choices,
)
from lctui.tui.widgets.run_task_tree import TaskTree

SIZES = [(80, 24), (120, 40)]
SIZE_IDS = ["80x24", "120x40"]


pytestmark = pytest.mark.usefixtures("blank_home")  # a blank home screen


def _flat(screen: Screen[Any], selector: str) -> str:
    widget = screen.query_one(selector, Static)
    return " ".join(str(widget.render()).split())


def _notices(app: LctuiApp) -> list[tuple[str, str]]:
    return [(str(n.title), str(n.message)) for n in app._notifications]


async def _enter_on(pilot: Pilot[Any], tree: TaskTree, node: Any) -> None:
    tree.focus()
    tree.move_cursor(node)
    await pilot.pause()
    await pilot.press("enter")
    await pilot.pause()


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
async def test_the_defaults_finish_in_minutes_and_a_long_run_gets_a_smaller_one(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    # The sample runs' timings of the embedded model, as if they had been made here
    # (made elsewhere, they measure nothing here: tests/tui/test_estimate.py).
    db = tmp_path / "measured.duckdb"
    with open_store(db) as store:
        import_parquet(store, sample_runs_dir() / "smollm2-synthetic")
    timing = json.dumps({"machine": machine_id(), "load_s": {EMBEDDED_NAME: 5.0}})
    with duckdb.connect(str(db)) as con:
        con.execute(
            "UPDATE runs SET command = json_merge_patch(command, json_object(?, ?::JSON))",
            [RUN_TIMING, timing],
        )
    app = LctuiApp(db, Config())
    async with app.run_test(size=size) as pilot:
        screen = await open_launch(pilot)
        assert screen.chosen_lengths() == [DEFAULT_LENGTH]
        assert screen.query_one("#n", Input).value == str(DEFAULT_N)
        screen.query_one("#models", SelectionList).select(EMBEDDED_NAME)
        tree = screen.query_one(TaskTree)
        await _enter_on(pilot, tree, tree._task_nodes["niah_single_1"].parent)  # synthetic
        assert len(tree.checked) == 11  # RULER's synthetic tasks
        await settle(pilot)
        line = _flat(screen, "#estimate")
        found = re.match(r"Estimate ~(\d+) (s|min) \(.*\) 33 examples \(1 model x 11 tasks", line)
        assert found, line
        minutes = int(found[1]) / (60 if found[2] == "s" else 1)
        assert 1 <= minutes <= 10, "the defaults take minutes on the embedded model"
        assert "to finish in minutes" not in line

        screen.query_one("#n", Input).value = "10"
        for length in (4096, 8192):
            screen.query_one("#lengths", SelectionList).select(length)
        await pilot.pause()
        line = _flat(screen, "#estimate")
        found = re.match(r"Estimate ~(\d+(?:\.\d)?) (min|h) \(.*\) 330 examples", line)
        assert found and float(found[1]) * (60 if found[2] == "h" else 1) * 60 > LONG_S, line
        advice = re.search(r"to finish in minutes: n (\d+)(.*) would take ~(\d+) (s|min)$", line)
        assert advice, line
        smaller = int(advice[1]) < 10 and (advice[2] == "" or advice[1] == "1")
        assert smaller and (advice[4] == "s" or int(advice[3]) <= 5), line


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
async def test_the_last_run_started_sets_the_screen_next_time(
    make_app: Any, size: tuple[int, int]
) -> None:
    app = make_app()
    async with app.run_test(size=size) as pilot:
        screen = await open_launch(pilot)
        screen.query_one("#models", SelectionList).select("gold")
        lengths = screen.query_one("#lengths", SelectionList)
        lengths.deselect(DEFAULT_LENGTH)
        lengths.select(1024)
        tree = screen.query_one(TaskTree)
        await _enter_on(pilot, tree, tree._task_nodes["niah_single_2"])
        await _enter_on(pilot, tree, tree._task_nodes["fwe"])
        tree.set_param("fwe", "alpha", 3.0)
        screen.query_one("#n", Input).value = "1"
        screen.query_one("#seed", Input).value = "7"
        screen.query_one("#tokenizer", Select).value = "o200k_base"
        await pilot.press("ctrl+t")  # the theme is remembered in the same file
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, RunScreen)
        run = app.screen.run
        assert run.request is not None
        argv = run.request.command["argv"]
        assert isinstance(argv, list) and "fwe.alpha=3.0" in argv
        await pilot.press("escape")  # the live view, then the launch screen under it
        assert app.screen is screen
        await pilot.press("escape")
        again = await open_launch(pilot)
        assert again is not screen
        assert again.query_one("#models", SelectionList).selected == ["gold"]
        again_tree = again.query_one(TaskTree)
        assert again_tree.checked == ["niah_single_2", "fwe"]
        assert again_tree.overrides == {"fwe": {"alpha": 3.0}}
        assert again.chosen_lengths() == [1024]
        assert (again.query_one("#n", Input).value, again.query_one("#seed", Input).value) == (
            "1",
            "7",
        )
        assert again.chosen_tokenizer() == "o200k_base"
    state = json.loads((data_dir() / "tui-state.json").read_text())
    assert state["theme"] == app.theme and state["launch"]["tasks"] == ["niah_single_2", "fwe"]


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
async def test_remembered_choices_that_no_longer_apply_are_said_not_guessed(
    make_app: Any, size: tuple[int, int]
) -> None:
    keep_choices(
        LaunchChoices(
            models=("gold", "retired-model"),
            tasks=("vt", "kilt_nq", "gone_task"),  # kilt_nq: no data here
            params={"vt": {"num_hops": 3, "num_chains": 10**9}, "gone_task": {"x": 1}},
        )
    )
    app = make_app()
    async with app.run_test(size=size) as pilot:
        screen = await open_launch(pilot)
        assert screen.query_one("#models", SelectionList).selected == ["gold"]
        tree = screen.query_one(TaskTree)
        assert tree.checked == ["vt"] and tree.overrides == {"vt": {"num_hops": 3}}
        title, text = _notices(app)[-1]
        assert title == "Last choices changed"
        for gone in ("model retired-model: unknown model", "task kilt_nq:", "task gone_task:"):
            assert gone in text, text
        assert "vt.num_chains must be within" in text and "gone_task.x:" in text


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
async def test_a_message_goes_once_it_no_longer_holds_and_an_empty_n_says_so(
    make_app: Any, size: tuple[int, int]
) -> None:
    app = make_app()
    async with app.run_test(size=size) as pilot:
        screen = await open_launch(pilot)
        await pilot.press("ctrl+s")
        errors = _flat(screen, "#launch-error")
        assert "choose at least one model" in errors and "choose at least one task" in errors
        both = "choose at least one model (space ticks it)\nchoose at least one task"
        title, text = _notices(app)[-1]
        assert title == "No model chosen (+1 more)" and text.startswith(both)
        screen.query_one("#models", SelectionList).select("gold")
        await pilot.pause()
        errors = _flat(screen, "#launch-error")
        assert "choose at least one model" not in errors, "ticking a model answers it"
        assert "choose at least one task" in errors, "the other still holds"

        tree = screen.query_one(TaskTree)
        await _enter_on(pilot, tree, tree._task_nodes["vt"])
        assert _flat(screen, "#launch-error") == ""
        screen.query_one("#n", Input).value = ""
        await pilot.pause()
        empty = "n per cell is empty: type a whole number, e.g. 3"
        assert _flat(screen, "#estimate") == f"! {empty}"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert _flat(screen, "#launch-error") == f"✗ {empty}"
        assert ("n per cell is empty", empty) in _notices(app)
        assert app.screen is screen, "nothing may start"
        screen.query_one("#n", Input).value = "2"
        await pilot.pause()
        assert _flat(screen, "#launch-error") == ""


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
async def test_task_parameters_are_edited_and_checked_as_set_checks_them(
    make_app: Any, size: tuple[int, int]
) -> None:
    with pytest.raises(UserInputError) as refused:  # what `--set` says of the same value
        select_tasks("niah_single_1", parse_overrides(["niah_single_1.num_keys=50000"]))
    app = make_app()
    async with app.run_test(size=size) as pilot:
        screen = await open_launch(pilot)
        screen.query_one("#models", SelectionList).select("gold")
        tree = screen.query_one(TaskTree)
        task = tree._task_nodes["niah_single_1"]
        await _enter_on(pilot, tree, task)  # ticked
        await pilot.press("space")  # unfolds its parameters
        param = next(c for c in task.children if c.data and c.data.name == "num_keys")
        await _enter_on(pilot, tree, param)
        editor = app.screen
        assert isinstance(editor, ParamEditor)
        field = editor.query_one("#param-value", Input)
        assert field.value == "1"
        field.value = "50000"
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is editor, "a refused value keeps the editor open"
        error = " ".join(str(editor.query_one("#param-error", Static).render()).split())
        assert error == f"✗ {refused.value}"
        field.value = "2"
        await pilot.pause()
        assert str(editor.query_one("#param-error", Static).render()).strip() == ""
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is screen
        assert "num_keys = 2  default 1" in str(param.label)
        request = await screen.validate()
        assert request is not None and request.tasks[0].params["num_keys"] == 2
        argv = request.command["argv"]
        assert isinstance(argv, list)
        assert argv[argv.index("--set") + 1] == "niah_single_1.num_keys=2"

        await _enter_on(pilot, tree, param)  # an empty field is the default again
        editor = app.screen
        assert isinstance(editor, ParamEditor)
        editor.query_one("#param-value", Input).value = ""
        await pilot.press("enter")
        await pilot.pause()
        assert tree.overrides == {} and "default" not in str(param.label)
        await _enter_on(pilot, tree, param)
        await pilot.press("escape")  # leaves it as it was
        assert app.screen is screen and tree.overrides == {}


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
async def test_messages_are_titled_by_what_happened(
    make_app: Any, tmp_path: Path, size: tuple[int, int]
) -> None:
    not_a_checkpoint = tmp_path / "folder"
    not_a_checkpoint.mkdir()
    app = make_app()
    async with app.run_test(size=size) as pilot:
        screen = await open_launch(pilot)
        add = screen.query_one("#add-model", Input)
        add.focus()
        for typed, title in [
            ("no-such-model", "Model not found"),
            (str(not_a_checkpoint), "Not a model checkpoint"),
            ("ftp://example.org", "Invalid endpoint URL"),
        ]:
            add.value = typed
            await pilot.press("enter")
            await pilot.pause()
            titles = [t for t, _ in _notices(app)]
            assert titles[-1] == title and "Cannot start" not in titles
            assert _flat(screen, "#launch-error").startswith("✗ ")
        add.value = "something else"  # what was said of the last text no longer holds
        await pilot.pause()
        assert _flat(screen, "#launch-error") == ""
