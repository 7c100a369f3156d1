"""The one reducer of a run's events (core/run_state.py): every event type has its branch
there and nowhere else reads event types to count them, so a new event is one edit."""

from __future__ import annotations

import ast
import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import get_args

import pytest

import lctui
from helpers.store_factories import make_example, make_generation, make_score
from lctui.core import run_state
from lctui.core.events import (
    CellKey,
    CellTally,
    ChunkReceived,
    EarlierResults,
    Event,
    ExampleFailed,
    ExampleScored,
    ExampleStarted,
    GenerationFinished,
    ItemsSkipped,
    RunFinished,
    RunPaused,
    RunPlanned,
    ServersReported,
    StoreRecovered,
    StoreStalled,
)
from lctui.core.run_state import RunProgress
from lctui.core.types import GenerationStatus, ServerShare

CELL = CellKey("gold", "niah_single", 4096)
SRC = Path(lctui.__file__).parent
EVENT_NAMES = {t.__name__ for t in get_args(Event)}
# Besides the reducer, what reads an event's type, and why: none of it counts a run.
# A new event type needs none of these; core/wire.py gives it its line form.
REACTIONS = {
    # Chunks of a generation merge into one line per batch.
    ("engine/publish.py", "ChunkReceived"),
    # The run's record file says it is running, then how it ended.
    ("engine/publish.py", "RunPlanned"),
    ("engine/publish.py", "RunFinished"),
    # `lctui attach --pause` waits for the run to say it paused.
    ("cli/attach.py", "RunPaused"),
    # A viewer's connection ends with the run's end.
    ("engine/attach.py", "RunFinished"),
}


def _one_of_each() -> list[Event]:
    """One event of every type, in an order a run sends them."""
    ok = make_generation(make_example(0), generation_id="g0")
    shares = (ServerShare("http://a:8000/v1", 2, 1, 1, 0, 0.5, 0.1),)
    failed = make_generation(make_example(1), generation_id="g1", status=GenerationStatus.ERROR)
    return [
        RunPlanned("r", {CELL: 5}, {CELL: 1}),
        ItemsSkipped({CELL: 1}),
        EarlierResults({CELL: CellTally(1, 0, 1.0, 1, 3, 1.25, 0.25, 1)}, None),
        ExampleStarted(CELL, make_example(0), "g0"),
        ChunkReceived(CELL, "g0", "4217.", 3),
        GenerationFinished(CELL, ok),
        ExampleScored(CELL, ok, make_score(0.5)),
        ExampleStarted(CELL, make_example(1), "g1"),
        ExampleFailed(CELL, failed, "TimeoutError: server did not answer"),
        StoreStalled("disk full", 2, 9, 3.0, True),
        StoreRecovered(3.0, 9),
        ServersReported("gold", shares),
        RunPaused(True),
        RunFinished("r", 1, 1, False, 10.0),
    ]


def test_every_event_type_has_its_branch_in_the_reducer() -> None:
    events = _one_of_each()
    assert {type(e).__name__ for e in events} == EVENT_NAMES  # a new type belongs here
    state = RunProgress()
    for at, event in enumerate(events):
        run_state.apply(state, float(at), event)
    cell = state.cells[CELL]
    assert (state.to_do, state.skipped, state.started, state.done, state.errors) == (4, 2, 3, 2, 1)
    assert (cell.to_do, cell.stored, cell.running, cell.scored, cell.mean) == (4, 2, 0, 2, 0.75)
    assert state.last_error == "TimeoutError: server did not answer"
    assert state.streams["g0"].text == "4217." and state.streams["g0"].ttft_s == 0.25
    assert state.stalled is None and state.recovered == StoreRecovered(3.0, 9)
    assert state.servers == {"gold": (ServerShare("http://a:8000/v1", 2, 1, 1, 0, 0.5, 0.1),)}
    assert state.paused and state.finished == events[-1]


@dataclass(frozen=True)
class NewEventFake:
    """An event type the reducer has no branch for (mypy refuses it; a test can pass it)."""

    cell: CellKey


def test_an_event_without_a_branch_is_refused_by_name() -> None:
    with pytest.raises(TypeError, match=r"NewEventFake in core/run_state\.apply"):
        run_state.apply(RunProgress(), 0.0, NewEventFake(CELL))  # type: ignore[arg-type]


def _event_types_read(tree: ast.AST) -> list[str]:
    """The event types `tree` tests for (isinstance, match cases), once per test."""
    read: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "isinstance":
            names = {n.id for n in ast.walk(node.args[1]) if isinstance(n, ast.Name)}
            read += sorted(names & EVENT_NAMES)
        elif isinstance(node, ast.match_case):
            for pattern in ast.walk(node.pattern):
                if isinstance(pattern, ast.MatchClass) and isinstance(pattern.cls, ast.Name):
                    read += [pattern.cls.id] if pattern.cls.id in EVENT_NAMES else []
    return read


def test_only_the_reducer_counts_by_event_type() -> None:
    reducer: list[str] = []
    elsewhere: set[tuple[str, str]] = set()
    for path in sorted(SRC.rglob("*.py")):
        module = path.relative_to(SRC).as_posix()
        read = _event_types_read(ast.parse(path.read_text(encoding="utf-8")))
        if module == "core/run_state.py":
            reducer = read
        elif module != "core/wire.py":  # each event's line form, not a count
            elsewhere |= {(module, name) for name in read}
    assert sorted(reducer) == sorted(EVENT_NAMES)  # one branch each, in one place
    assert elsewhere <= REACTIONS, elsewhere - REACTIONS


def test_a_replay_with_few_finished_kept_whole_counts_the_same() -> None:
    """What a publisher keeps (two finished generations whole, the rest as counts)
    brings a new viewer to the same counts, the last earlier error included."""
    own = RunProgress(keep_finished=2)
    events: list[Event] = [RunPlanned("r", {CELL: 6}, {})]
    for i in range(6):
        failed = i in (1, 4)
        gid = f"g{i}"
        generation = make_generation(
            make_example(i),
            generation_id=gid,
            status=GenerationStatus.ERROR if failed else GenerationStatus.OK,
        )
        tokens = generation.output_tokens
        events.append(ExampleStarted(CELL, make_example(i), gid))
        events.append(ChunkReceived(CELL, gid, generation.output, tokens))
        events.append(GenerationFinished(CELL, generation))
        if failed:
            events.append(ExampleFailed(CELL, generation, f"error {i}"))
        else:
            events.append(ExampleScored(CELL, generation, make_score(1.0 if i % 2 else 0.0)))
    events.append(ItemsSkipped({CELL: 1}))
    for at, event in enumerate(events):
        run_state.apply(own, float(at), event)
    assert len(own.streams) == 2 and own.earlier_error == "error 1"
    viewer = RunProgress()
    run_state.replay(viewer, 0.0, run_state.replay_events(own))

    def counts(state: RunProgress) -> tuple[object, ...]:
        cells = {k: dataclasses.astuple(c) for k, c in state.cells.items()}
        totals = (state.to_do, state.skipped, state.started, state.done, state.errors)
        return cells, totals, state.output_tokens, state.last_error

    assert counts(viewer) == counts(own)
    assert [s.generation_id for s in viewer.kept_finished()] == ["g4", "g5"]
    assert viewer.earlier_error == "error 1"
