"""Launching and watching runs: the launch screen refuses bad choices with the reason,
the live view streams a run into its grid and panel, pauses, cancels and keeps
finished work, and the real embedded model streams tokens before it finishes.
Several runs, leaving and coming back, and quitting: test_tui_runs.py."""

from __future__ import annotations

import socket
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import duckdb
import pytest
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Input, SelectionList, Static
from textual.widgets.selection_list import Selection

from helpers.fake_openai_server import FakeOpenAIServer
from helpers.pilot import open_launch, settle, until
from helpers.slow_run import FRESH_TASKS, SlowGold, gold_request, loader_of, start_slow_run
from lctui.backends import builtin_models, load_backend
from lctui.core.types import ModelSpec
from lctui.engine import RunRequest
from lctui.tasks import select_tasks
from lctui.tui.app import LctuiApp
from lctui.tui.screens.launch import LaunchScreen
from lctui.tui.screens.run import RunScreen
from lctui.tui.state.launch_choices import DEFAULT_LENGTH
from lctui.tui.state.run_options import LENGTH_CHOICES
from lctui.tui.widgets.run_task_tree import TaskTree
from lctui.tui.widgets.stream_panel import StreamPanel

SMOLLM = next(m for m in builtin_models() if m.name == "smollm2-135m")


pytestmark = pytest.mark.usefixtures("blank_home")  # a blank home screen


def _text(widget: Widget) -> str:
    """What a widget shows on the terminal, as plain text."""
    return "\n".join(strip.text for strip in widget.render_lines(widget.size.region))


def _flat(widget: Widget) -> str:
    """The text of a widget with its line wrapping undone."""
    return " ".join(_text(widget).split())


def _errors(screen: Screen[Any]) -> str:
    return _flat(screen.query_one("#launch-error"))


async def _live(pilot: Pilot[Any], request: RunRequest, backend: Any = None) -> RunScreen:
    """Start `request` through the app (its run manager) and return its live view.
    `backend`: what every model loads as (None: the real backends)."""
    app = pilot.app
    assert isinstance(app, LctuiApp)
    loader = load_backend if backend is None else loader_of(backend)
    run = app.start_run(request, loader=loader)
    await until(pilot, lambda: isinstance(app.screen, RunScreen) and app.screen.run is run)
    screen = app.screen
    assert isinstance(screen, RunScreen)
    return screen


def _notified(app: LctuiApp, severity: str = "error") -> str:
    return " ".join(str(n.message) for n in app._notifications if n.severity == severity)


async def _tick_tasks(pilot: Pilot[Any], screen: LaunchScreen, names: list[str]) -> None:
    """Tick tasks the way a user does: move the tree's cursor to each, press enter."""
    tree = screen.query_one(TaskTree)
    tree.focus()
    for name in names:
        tree.move_cursor(tree._task_nodes[name])
        await pilot.press("enter")


# -- launch screen -------------------------------------------------------------------------


async def test_start_with_nothing_chosen_says_what_is_missing(make_app: Any) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_launch(pilot)
        await pilot.press("ctrl+s")
        assert "choose at least one model" in _errors(screen)
        assert "choose at least one task" in _errors(screen)
        assert "choose at least one model" in _notified(app)
        assert app.screen is screen, "nothing may start"


async def test_lengths_above_the_smollm2_window_are_disabled_and_refused(make_app: Any) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_launch(pilot)
        models = screen.query_one("#models", SelectionList)
        assert models.get_option_at_index(models.highlighted or 0).value == SMOLLM.name
        await pilot.press("space")  # tick the highlighted model: smollm2-135m
        lengths = screen.query_one("#lengths", SelectionList)
        for index in range(lengths.option_count):
            option = lengths.get_option_at_index(index)
            assert option.disabled == (option.value > 8192), option.value
            if option.value > 8192:
                assert "> 8k window" in str(option.prompt)
        assert "window of smollm2-135m" in _flat(screen.query_one("#length-note"))
        # Forced past the disabled option (as a config change could), Start refuses it.
        lengths.select(16384)
        await _tick_tasks(pilot, screen, ["niah_single_1"])
        await pilot.press("ctrl+s")
        assert "16k is above the 8k window of smollm2-135m" in _errors(screen)
        assert app.screen is screen


async def test_bad_numbers_and_an_unreachable_url_are_refused(make_app: Any) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_launch(pilot)
        screen.query_one("#models", SelectionList).select("gold")
        await _tick_tasks(pilot, screen, ["vt"])
        screen.query_one("#n", Input).value = "0"
        await pilot.press("ctrl+s")
        assert "n per cell must be at least 1" in _errors(screen)
        screen.query_one("#n", Input).value = "2"
        add = screen.query_one("#add-model", Input)
        add.focus()
        add.value = "ftp://example.org"
        await pilot.press("enter")
        assert "not a valid endpoint URL" in _errors(screen)
        add.value = f"http://127.0.0.1:{port}/v1"
        await pilot.press("enter")
        await until(pilot, lambda: "unreachable" in _errors(screen), timeout=5)
        await pilot.press("ctrl+s")
        assert "unreachable" in _errors(screen) and "unreachable" in _notified(app)
        assert app.screen is screen


async def test_the_tokenizer_choice_goes_into_the_run(make_app: Any) -> None:
    """F7 picks what examples count with: the tasks' default unless a reference tokenizer
    (every model reads the same examples) or each model's own is chosen."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_launch(pilot)
        screen.query_one("#models", SelectionList).select("gold")
        await _tick_tasks(pilot, screen, ["vt"])
        request = await screen.validate()
        assert request is not None and request.tokenizer is None
        argv = request.command["argv"]
        assert isinstance(argv, list) and "--tokenizer" not in argv
        await pilot.press("f7")
        assert screen.focused is screen.query_one("#tokenizer")
        await pilot.press("enter", "down", "enter")  # the first reference tokenizer
        await pilot.pause()
        request = await screen.validate()
        assert request is not None and request.tokenizer == "o200k_base"
        argv = request.command["argv"]
        assert isinstance(argv, list) and argv[argv.index("--tokenizer") + 1] == "o200k_base"


async def test_two_models_ticked_read_the_same_examples_by_default(make_app: Any) -> None:
    """Issue 24: smollm2-135m and gold ticked with the tokenizer left at its default
    count every example with o200k_base (as `--tokenizer o200k_base` does), so their
    results pair; the screen says so, and says what each model's own tokenizer costs."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_launch(pilot)
        note = screen.query_one("#tokenizer-note", Static)
        models = screen.query_one("#models", SelectionList)
        models.select("smollm2-135m")
        await _tick_tasks(pilot, screen, ["niah_single_1", "niah_multikey_1"])
        await pilot.pause()
        assert not note.display  # one model: nothing to pair
        models.select("gold")
        await pilot.pause()
        request = await screen.validate()
        assert request is not None and request.tokenizer is None
        assert request.counts_with == request.reference_tokenizer == "o200k_base"
        assert note.display and "2 models read the same examples" in _flat(note)
        assert "pair in Compare" in _flat(note)
        await pilot.press("f7", "enter", "end", "enter")  # each model's own
        await pilot.pause()
        request = await screen.validate()
        assert request is not None and request.counts_with == "model"
        shown = _flat(note)
        assert note.has_class("warning") and shown.startswith("! each model's own tokenizer")
        assert "nothing pairs across models in Compare" in shown


@pytest.mark.parametrize(
    ("n", "seed", "message"),
    [
        ("3000000000", "0", "n per cell must be at most 2,147,483,647 examples per task x"),
        ("2", str(10**26), "seed must be an integer from 0 to 2**63 - 1"),
        ("2", "-1", "seed must be an integer from 0 to 2**63 - 1"),
    ],
)
async def test_numbers_out_of_bounds_are_refused_with_the_reason(
    make_app: Any, n: str, seed: str, message: str
) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_launch(pilot)
        screen.query_one("#models", SelectionList).select("gold")
        screen.query_one("#lengths", SelectionList).select(2048)
        await _tick_tasks(pilot, screen, ["vt"])
        screen.query_one("#n", Input).value = n
        screen.query_one("#seed", Input).value = seed
        await pilot.pause()
        if n == "3000000000":  # the estimate line says it as soon as n is typed
            assert "! n per cell must be at most 2,147,483,647" in _flat(
                screen.query_one("#estimate")
            )
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert message in _errors(screen) and message in _notified(app)
        assert app.screen is screen, "nothing may start"


async def test_a_length_out_of_bounds_is_refused_by_the_run_request(make_app: Any) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_launch(pilot)
        screen.query_one("#models", SelectionList).select("gold")
        lengths = screen.query_one("#lengths", SelectionList)
        # Not one of the offered lengths: added the way a later list of choices could be.
        lengths.add_option(Selection("4096k", 4 * 2**20))
        lengths.select(4 * 2**20)
        await _tick_tasks(pilot, screen, ["vt"])
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "length 4194304 is too long" in _errors(screen)
        assert app.screen is screen


async def test_a_checkpoint_added_by_path_limits_lengths_by_its_config(
    make_app: Any, tmp_path: Path
) -> None:
    checkpoint = tmp_path / "tiny-ckpt"
    checkpoint.mkdir()
    (checkpoint / "config.json").write_text('{"max_position_embeddings": 4096}')
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_launch(pilot)
        add = screen.query_one("#add-model", Input)
        add.focus()
        add.value = str(checkpoint)
        await pilot.press("enter")
        await pilot.pause()
        assert str(checkpoint) in screen.query_one("#models", SelectionList).selected
        lengths = screen.query_one("#lengths", SelectionList)
        options = [lengths.get_option_at_index(i) for i in range(lengths.option_count)]
        disabled = [o.value for o in options if o.disabled]
        assert disabled == [n for n in LENGTH_CHOICES if n > 4096]
        assert 6144 in disabled and 4096 not in disabled


async def test_the_estimate_counts_examples_and_tokens(make_app: Any) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_launch(pilot)
        screen.query_one("#models", SelectionList).select(SMOLLM.name)
        await _tick_tasks(pilot, screen, ["niah_single_1", "vt"])
        await pilot.pause()
        line = _flat(screen.query_one("#estimate"))
        # 2 tasks x the default 2048 tokens x the default n 3
        assert line.startswith("Estimate duration unknown 6 examples (1 model x 2 tasks")
        assert "x 1 length x n 3), 12K prompt tokens; no run measured on" in line
        # The template's gold runs were made by another installation (its data folder):
        # they measure nothing here (tests/tui/test_estimate.py measures runs made here).
        screen.query_one("#models", SelectionList).select("gold")
        await settle(pilot)
        line = _flat(screen.query_one("#estimate"))
        assert "12 examples" in line and "duration unknown" in line


# -- live screen ---------------------------------------------------------------------------


async def test_gold_run_started_from_the_launch_screen_completes(
    make_app: Any, results_db: Path
) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_launch(pilot)
        screen.query_one("#models", SelectionList).select("gold")
        lengths = screen.query_one("#lengths", SelectionList)
        lengths.deselect(DEFAULT_LENGTH)
        lengths.select(1024)
        await _tick_tasks(pilot, screen, FRESH_TASKS.split(","))
        screen.query_one("#n", Input).value = "2"
        await pilot.click("#start")
        await until(pilot, lambda: isinstance(app.screen, RunScreen))
        run = app.screen
        assert isinstance(run, RunScreen)
        await until(pilot, lambda: not run.run.running)
        await pilot.pause(0.1)
        grid = _text(run.query_one("#run-grid"))
        assert grid.count("2/2 1.00") == 2, grid
        assert run.state.output_tokens > 0, "chunks must reach the screen"
        focused = run.state.streams[run.run.focus_id or ""]
        assert focused.gold[0] in run.query_one(StreamPanel).text
        assert "Finished: 4 scored, 0 error(s)" in run.status_line()
    con = duckdb.connect(str(results_db), read_only=True)
    rows = con.execute(
        "SELECT count(*), avg(score) FROM results WHERE task IN ('niah_single_2', "
        "'niah_multikey_1')"
    ).fetchone()
    con.close()
    assert rows == (4, 1.0)


async def test_an_endpoint_added_by_url_runs_against_a_loopback_stand_in_server(
    make_app: Any, results_db: Path
) -> None:
    """An OpenAI-compatible endpoint typed into the launch screen is a model that runs
    (the server is a loopback stand-in answering one fixed reply)."""
    app = make_app()
    with FakeOpenAIServer("served", ["The answer ", "is 42."]) as server:
        async with app.run_test(size=(100, 30)) as pilot:
            screen = await open_launch(pilot)
            add = screen.query_one("#add-model", Input)
            add.focus()
            add.value = server.base_url
            await pilot.press("enter")
            await pilot.pause(0.3)
            assert _errors(screen) == "" and server.base_url in screen.specs
            models = screen.query_one("#models", SelectionList)
            assert server.base_url in models.selected
            lengths = screen.query_one("#lengths", SelectionList)
            lengths.deselect(DEFAULT_LENGTH)
            lengths.select(1024)
            await _tick_tasks(pilot, screen, ["vt"])
            screen.query_one("#n", Input).value = "2"
            await pilot.press("ctrl+s")
            await until(pilot, lambda: isinstance(app.screen, RunScreen), timeout=10)
            run = app.screen
            assert isinstance(run, RunScreen)
            await until(pilot, lambda: not run.run.running, timeout=30)
    with duckdb.connect(str(results_db), read_only=True) as con:
        rows = con.execute(
            "SELECT status, output FROM results WHERE model = ? AND task = 'vt'",
            [server.base_url],
        ).fetchall()
    assert [output for _, output in rows] == ["The answer is 42."] * 2
    assert {status for status, _ in rows} <= {"ok", "unparsed"}


async def test_errors_show_as_errors_not_zeros(make_app: Any) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        run = await _live(pilot, gold_request(n=3), SlowGold(0.0, fail_every=2))
        await until(pilot, lambda: not run.run.running)
        await pilot.pause(0.1)
        assert (run.state.done, run.state.errors) == (3, 3)
        grid = _text(run.query_one("#run-grid"))
        assert "err" in grid and "0.00" not in grid, grid
        assert "connection dropped" in _flat(run.query_one("#run-error"))


async def test_a_run_the_engine_refuses_shows_why_and_the_app_stays(make_app: Any) -> None:
    small = ModelSpec(name="gold-2k", backend="gold", params={"max_context": 2048}, reference=True)
    request = RunRequest(models=[small], tasks=select_tasks("vt"), lengths=[4096], n=1)
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        run = await _live(pilot, request)
        await until(pilot, lambda: not run.run.running)
        await pilot.pause(0.1)
        assert run.run.failure and "window of 2048 tokens" in run.run.failure
        assert "window of 2048" in _flat(run.query_one("#run-error"))
        assert run.status_line().startswith("Failed")
        await pilot.press("escape")
        assert app.screen is not run


async def test_focus_cycles_and_enter_opens_the_inspector(
    make_app: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[str] = []
    monkeypatch.setattr(LctuiApp, "open_generation", lambda self, gid: opened.append(gid))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        run = await _live(pilot, gold_request())
        await until(pilot, lambda: not run.run.running)
        order = run.state.order
        assert run.run.follow and run.run.focus_id == order[-1]
        await pilot.press("f")
        assert not run.run.follow and run.run.focus_id == order[0]
        await pilot.press("tab")
        assert run.run.focus_id == order[1]
        await pilot.press("shift+tab", "enter")
        assert opened == [order[0]]
        assert run.state.streams[order[0]].gold[0] in run.query_one(StreamPanel).text


async def test_pause_stops_new_examples_and_cancel_keeps_finished_ones(
    make_app: Any, results_db: Path
) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        run = await start_slow_run(app, pilot, delay=0.03)
        await pilot.press("p")
        assert "Paused" in run.status_line()
        await until(pilot, lambda: run.state.in_flight == 0)  # the in-flight one ends
        started = run.state.started
        await pilot.pause(0.8)
        assert run.state.started == started and run.state.in_flight == 0
        await pilot.press("p")
        await until(pilot, lambda: run.state.started > started)
        await pilot.press("c")
        await until(pilot, lambda: not run.run.running)
        await pilot.pause(0.1)
        assert run.state.finished is not None and run.state.finished.cancelled
        kept = run.state.done + run.state.errors
        assert 0 < kept < 8
        assert f"Cancelled: kept {kept}" in run.status_line()
    con = duckdb.connect(str(results_db), read_only=True)
    status = con.execute(
        "SELECT count(*) FROM results WHERE run_id = ?", [run.state.run_id]
    ).fetchone()
    run_row = con.execute("SELECT status FROM runs WHERE run_id = ?", [run.state.run_id])
    assert status == (kept,) and run_row.fetchone() == ("cancelled",)
    con.close()


@pytest.mark.slow
@pytest.mark.model
async def test_the_embedded_model_streams_tokens_before_it_finishes(
    make_app: Any, results_db: Path
) -> None:
    # SmolLM2 answers fwe with its whole 50-token budget (about 3 s, word by word), so a
    # 0.2 s poll sees an answer half written; on some prompts it stops at once, so three
    # examples are run and one streamed answer is enough.
    task = select_tasks("fwe")
    request = RunRequest(models=[SMOLLM], tasks=task, lengths=[1024], n=3)
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        run = await _live(pilot, request, None)
        seen_streaming: list[str] = []
        for _ in range(900):  # 3 minutes at most
            await pilot.pause(0.2)
            # The app also reads the run's events (once a second): draw what it read.
            run.tick()
            view = run.state.streams.get(run.run.focus_id or "")
            shown = run.query_one(StreamPanel).text
            if view is not None and not view.finished and view.text.strip():
                assert view.text in shown, (shown, view.text)
                seen_streaming.append(view.text)
            if not run.run.running:
                break
        assert seen_streaming, "tokens must show in the panel while the model generates"
        assert not run.run.running and run.state.done + run.state.errors == 3
        assert run.state.errors == 0, run.state.last_error
    con = duckdb.connect(str(results_db), read_only=True)
    rows = con.execute(
        "SELECT count(*), max(output_tokens) FROM results WHERE model = 'smollm2-135m'"
    ).fetchone()
    con.close()
    assert rows is not None and rows[0] == 3 and rows[1] > 0


# -- snapshots -----------------------------------------------------------------------------


def _launch_setup() -> Callable[[Pilot[Any]], Awaitable[None]]:
    async def run_before(pilot: Pilot[Any]) -> None:
        screen = await open_launch(pilot)
        await pilot.press("space")  # smollm2-135m: lengths over 8k disabled
        await _tick_tasks(pilot, screen, ["niah_single_1", "vt"])
        screen.query_one("#models").focus()
        await pilot.pause()

    return run_before


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_launch_screen_snapshot(make_app: Any, snap_compare: Any, size: tuple[int, int]) -> None:
    assert snap_compare(make_app(), terminal_size=size, run_before=_launch_setup())


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_finished_run_snapshot(make_app: Any, snap_compare: Any, size: tuple[int, int]) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        app = pilot.app
        assert isinstance(app, LctuiApp)
        app.start_run(gold_request())
        await until(pilot, lambda: isinstance(app.screen, RunScreen))
        run = app.screen
        assert isinstance(run, RunScreen)
        await until(pilot, lambda: not run.run.running)
        await pilot.pause(0.1)
        # Rates and durations differ run to run; everything else is deterministic.
        run.query_one("#run-timings", Static).update("tok/s, ttft, elapsed: hidden in snapshots")
        await pilot.pause()

    assert snap_compare(make_app(), terminal_size=size, run_before=run_before)
