"""The launch screen's choices without the screen: remembered choices read back whatever
the file holds, the problems an empty or bad field gives, which shown problems still
hold, the command line a run records, and the smaller run a long estimate names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lctui.backends import resolve_model
from lctui.cli.run_args import parse_overrides, request_argv
from lctui.core.errors import UserInputError
from lctui.engine import RunRequest
from lctui.tasks import get_task, select_tasks
from lctui.tui.state.estimate import TARGET_S, ModelCost, estimate_line, smaller_run
from lctui.tui.state.launch_choices import (
    DEFAULT_N,
    LaunchChoices,
    Problem,
    check_param,
    choices_from,
    keep_choices,
    last_choices,
    read_number,
    still_holding,
)
from lctui.tui.state.ui_state import remember, state_path


def test_choices_survive_the_file_and_a_damaged_one_reads_as_the_defaults() -> None:
    assert last_choices() == LaunchChoices()  # nothing remembered yet
    chosen = LaunchChoices(("gold",), ("vt", "fwe"), {"fwe": {"alpha": 3.0}}, (1024,), 1, 7, "x")
    keep_choices(chosen)
    assert last_choices() == chosen
    remember("theme", "lctui-light")  # another key of the same file keeps both
    assert last_choices() == chosen
    remember("launch", {"models": "gold", "n": "ten", "lengths": [1024, -5, "2k"], "seed": True})
    assert last_choices() == LaunchChoices(models=(), lengths=(1024,), n=DEFAULT_N)
    state_path().write_text("{not json", encoding="utf-8")
    assert last_choices() == LaunchChoices()
    assert choices_from([1, 2]) == LaunchChoices()


@pytest.mark.parametrize(
    ("raw", "title", "text"),
    [
        ("", "n per cell is empty", "n per cell is empty: type a whole number, e.g. 3"),
        ("  ", "n per cell is empty", "n per cell is empty: type a whole number, e.g. 3"),
        ("-", "n per cell is not a number", "n per cell must be a whole number, not '-'"),
        ("0", "n per cell out of bounds", "n per cell must be at least 1"),
    ],
)
def test_a_bad_n_says_what_happened(raw: str, title: str, text: str) -> None:
    problem = read_number("n", raw)
    assert isinstance(problem, Problem)
    assert (problem.about, problem.title) == ("n", title) and problem.text.startswith(text)
    assert read_number("n", " 12 ") == 12


def test_shown_problems_stay_only_while_they_hold() -> None:
    model = Problem("models", "No model chosen", "choose at least one model")
    task = Problem("tasks", "No task chosen", "choose at least one task")
    endpoint = Problem("endpoint:http://h/v1", "Endpoint unreachable", "http://h/v1: unreachable")
    typed = Problem("add:x", "Model not found", "unknown model 'x'")
    shown = [model, task, endpoint, typed]
    assert still_holding(shown, [task], {"http://h/v1"}) == [task, endpoint, typed]
    assert still_holding(shown, [], set()) == [typed]


def test_the_command_line_names_every_parameter_set(tmp_path: Path) -> None:
    tasks = [get_task("vt"), get_task("fwe").with_params({"alpha": 3.0})]
    request = RunRequest(
        models=[resolve_model("gold", {})], tasks=tasks, lengths=[1024, 2048], n=2, seed=5
    )
    argv = request_argv(request, tmp_path / "r.duckdb")
    assert argv == [
        "run", "--model", "gold", "--tasks", "vt,fwe", "--lengths", "1k,2k",
        "--n", "2", "--seed", "5", "--set", "fwe.alpha=3.0", "--db", str(tmp_path / "r.duckdb"),
    ]  # fmt: skip
    # What the command line says is what it runs: --set reads it back to the same value.
    assert parse_overrides(["fwe.alpha=3.0"]) == {"fwe": {"alpha": 3.0}}


def test_a_parameter_is_checked_as_set_checks_it() -> None:
    task = get_task("niah_single_1")
    assert check_param(task, {}, "num_keys", " 3 ") == 3
    assert check_param(task, {}, "num_keys", "") == task.params["num_keys"]  # the default
    assert check_param(task, {}, "haystack", "essay") == "essay"  # plain text for a choice
    assert check_param(task, {}, "depths", "[0, 50]") == [0, 50]
    for bad in ("true", "0", "[1, 2]", "lots"):
        with pytest.raises(UserInputError) as ours:
            check_param(task, {}, "num_keys", bad)
        with pytest.raises(UserInputError) as theirs:
            select_tasks("niah_single_1", parse_overrides([f"niah_single_1.num_keys={bad}"]))
        assert str(ours.value) == str(theirs.value)


def test_a_long_estimate_names_a_smaller_run_that_takes_minutes() -> None:
    m = ("m", "hf")
    cost = {m: ModelCost(0.0, 0.001, 1.0, 0.0, 0.0, 0.0, 0.0, 2, 10)}  # 1000 tokens a second
    short = estimate_line([m], 2, [2048], 3, cost)
    assert (short.duration, short.level, short.advice) == ("~13 s", "short", "")
    long = estimate_line([m], 10, [4096, 8192], 10, cost)
    assert long.level == "long" and long.duration == "~21 min"
    assert long.advice == "n 2 would take ~5 min"
    # Even n 1 is long: the longest lengths go.
    assert smaller_run([m], 40, [1024, 8192, 16384], 3, cost) == "n 1 at 1k would take ~41 s"
    assert smaller_run([m], 400, [16384], 3, cost) == ""  # nothing that small exists
    assert estimate_line([m], 40, [16384], 10, cost).level == "very long"  # ~109 min
    unknown = estimate_line([m, ("new", "hf")], 1, [1024], 1, {})
    assert unknown.level == "unknown" and unknown.duration == "duration unknown"
    assert TARGET_S == 300
    assert json.dumps(LaunchChoices().to_json())  # what is remembered is plain JSON
