"""One `lctui run` reads its request into a plan once (issue 27, item 3): the request
enters engine/plan.py when it is built (its bounds checked) and when it is planned
(`plan_run`), and never again; the CLI's notes, the engine's loading, window checks,
counts and work items all read the plan. A real gold run, every call into the module
from outside it recorded (in every thread: items are planned in worker threads)."""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from types import FrameType
from typing import Any

from lctui.cli import main
from lctui.engine import plan as plan_module
from lctui.engine.plan import RunRequest
from lctui.store import open_store

PLAN_FILE = plan_module.__file__


def _carries_a_request(frame: FrameType) -> bool:
    return any(isinstance(value, RunRequest) for value in frame.f_locals.values())


def test_one_lctui_run_reads_its_request_into_a_plan_once(tmp_path: Path) -> None:
    entries: list[str] = []
    lock = threading.Lock()

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        if event != "call" or frame.f_code.co_filename != PLAN_FILE:
            return
        caller = frame.f_back
        if caller is not None and caller.f_code.co_filename == PLAN_FILE:
            return  # within the planner
        if _carries_a_request(frame):
            with lock:
                entries.append(frame.f_code.co_name)

    db = tmp_path / "once.duckdb"
    argv = ["run", "-m", "gold", "--tasks", "niah_single_1,vt", "--lengths", "1k,2k"]
    threading.setprofile(profile)
    sys.setprofile(profile)
    try:
        code = main([*argv, "--n", "3", "--db", str(db)])
    finally:
        sys.setprofile(None)
        threading.setprofile(None)
    assert code == 0
    with open_store(db, read_only=True) as store:
        assert store.cursor().execute("SELECT count(*) FROM generations").fetchone() == (12,)
    # Built (RunRequest.__post_init__ checks its bounds), then planned once.
    assert entries == ["__post_init__", "plan_run"]
