"""`lctui run`'s and `lctui attach`'s progress rows at 80 and 120 columns: each row's
time stays whole (issue 24 saw `0:…` at 120 columns); the speed gives way first.

A real engine runs gold under two names (one as long as an endpoint's, URL#MODEL) and
feeds `lctui attach`'s view, which holds `lctui run`'s progress rows; what it renders
is read from a console of each width."""

from __future__ import annotations

import asyncio
import io
import re
from pathlib import Path

import pytest
from rich.console import Console

from lctui.backends import load_backend
from lctui.cli.attach import AttachView
from lctui.core.types import ModelSpec
from lctui.engine import Engine, RunRequest
from lctui.store import open_store
from lctui.tasks import select_tasks

ENDPOINT = "http://localhost:8000/v1"
MODELS = [
    ModelSpec(name="gold", backend="gold", reference=True),
    ModelSpec(name=f"{ENDPOINT}#meta-llama/Llama-3.1-8B-Instruct", backend="gold", reference=True),
]
NAMES = {m.name for m in MODELS}
# What a row's time column shows: h:mm:ss, or -:--:-- while unknown.
WHOLE_TIME = re.compile(r"(\d+:\d\d:\d\d|-:--:--)$")


@pytest.fixture(scope="module")
def finished_view(tmp_path_factory: pytest.TempPathFactory) -> AttachView:
    db = tmp_path_factory.mktemp("widths") / "runs.duckdb"
    view = AttachView(Console(file=io.StringIO()), live=False)
    tasks = select_tasks("niah_single_1,niah_multikey_1")
    with open_store(db) as store:
        request = RunRequest(MODELS, tasks, [2048], n=2)
        asyncio.run(Engine(store, load_backend, view).run(request))
    return view


@pytest.mark.parametrize("width", [80, 120])
def test_each_rows_time_and_name_stay_whole(finished_view: AttachView, width: int) -> None:
    console = Console(file=io.StringIO(), width=width)
    console.print(finished_view.render())
    text = console.file.getvalue()  # type: ignore[attr-defined]
    rows = [line.rstrip() for line in text.splitlines() if "score 1.00" in line]
    assert len(rows) == 4
    for row in rows:
        assert WHOLE_TIME.search(row), row
        model, task, length = row.split()[:3]
        assert model in NAMES or _shortened(model), row
        assert task in {"niah_single_1", "niah_multikey_1"} and length == "2k", row
        assert " 2/2 " in row, row


def _shortened(shown: str) -> bool:
    """`shown` is one of the names cut in its middle (the one way a name gives way)."""
    head, cut, tail = shown.partition("…")
    return bool(cut) and any(n.startswith(head) and n.endswith(tail) for n in NAMES)


def test_rows_keep_the_time_whole_in_lctui_run_too(tmp_path: Path) -> None:
    """The same rows as `lctui run` prints them (RichProgressSink), at 120 columns."""
    console = Console(file=io.StringIO(), width=120)
    view = AttachView(console, live=False)
    with open_store(tmp_path / "run.duckdb") as store:
        request = RunRequest(MODELS, select_tasks("niah_single_1"), [1024], n=1)
        asyncio.run(Engine(store, load_backend, view.sink).run(request))
    out = Console(file=io.StringIO(), width=120)
    out.print(view.sink.progress)
    rows = [line.rstrip() for line in out.file.getvalue().splitlines() if line.strip()]  # type: ignore[attr-defined]
    assert len(rows) == 2 and all(WHOLE_TIME.search(row) for row in rows), rows
