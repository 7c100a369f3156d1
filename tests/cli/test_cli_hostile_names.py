"""Names and outputs from data never act on the terminal: every command that prints
tables or messages shows a newline, a carriage return, a colour, a bell, a right-to-left
override and rich markup in a model, task, run or file name, an output or a server's
message as visible escapes (issue 25 item 2).

Real `lctui` processes, piped (as a terminal would receive them, less the colours), over
a results file written by real runs (tests/helpers/hostile_names.py).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from helpers.hostile_names import (
    ERR_TAIL,
    FAKE_MODEL,
    FAKE_TAIL,
    FILE_TAIL,
    GOLD_MODEL,
    GOLD_TAIL,
    NOTE_TAIL,
    OUT_TAIL,
    RUN_TAIL,
    TASK_TAIL,
    HostileFiles,
    make_hostile_files,
    shown_inert,
)


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> HostileFiles:
    return make_hostile_files(tmp_path_factory.mktemp("hostile"))


def _db(f: HostileFiles) -> list[str]:
    return ["--db", str(f.db)]


def _sides(f: HostileFiles) -> list[str]:
    """The two gold runs, each of the hostile model (the sides' names are shown)."""
    return [f"run:{run}@{GOLD_MODEL}" for run in f.gold_runs]


QUERY = "SELECT run_id, model, task, output, error, explanation FROM results ORDER BY 1, 2, 3"
# Each command, how it is run, and the hostile values it must show (inert).
COMMANDS: dict[str, tuple[Callable[[HostileFiles], list[str]], set[str]]] = {
    "query": (
        lambda f: ["query", QUERY, *_db(f)],
        {GOLD_TAIL, FAKE_TAIL, TASK_TAIL, RUN_TAIL, OUT_TAIL, NOTE_TAIL},  # cut at 80
    ),
    "report": (lambda f: ["report", "--suite", "helmet", *_db(f)], {FAKE_TAIL}),
    "stats table": (
        lambda f: ["stats", "--format", "table", *_db(f)],
        {GOLD_TAIL, FAKE_TAIL, RUN_TAIL},
    ),
    "stats tsv": (
        lambda f: ["stats", "--format", "tsv", *_db(f)],
        {GOLD_TAIL, FAKE_TAIL, RUN_TAIL},
    ),
    "runs table": (lambda f: ["runs", "--all", "--format", "table"], {RUN_TAIL, NOTE_TAIL}),
    "runs tsv": (lambda f: ["runs", "--all", "--format", "tsv"], {RUN_TAIL, NOTE_TAIL, FILE_TAIL}),
    "show output": (lambda f: ["show", f.generation, *_db(f)], {FAKE_TAIL, OUT_TAIL}),
    "show error": (lambda f: ["show", f.failed, *_db(f)], {FAKE_TAIL, ERR_TAIL}),
    "show task": (
        lambda f: ["show", "g-hostile", *_db(f)],
        {GOLD_TAIL, TASK_TAIL, NOTE_TAIL},
    ),
    "compare": (lambda f: ["compare", *_sides(f), *_db(f)], {GOLD_TAIL}),
    "compare md": (lambda f: ["compare", "--format", "md", *_sides(f), *_db(f)], {GOLD_TAIL}),
    "tasks": (lambda f: ["tasks", "--data", str(f.data_folder), "--format", "table"], {FILE_TAIL}),
    "models": (lambda f: ["models", "--config", str(f.config)], {GOLD_TAIL, FAKE_TAIL}),
    "data list": (
        lambda f: ["data", "list", "--data", str(f.data_folder), "--format", "table"],
        {FILE_TAIL},
    ),
    "data list tsv": (
        lambda f: ["data", "list", "--data", str(f.data_folder), "--format", "tsv"],
        {FILE_TAIL},
    ),
    "data check": (
        lambda f: ["data", "check", str(f.data_folder), "--lengths", "2k", "--format", "table"],
        {FILE_TAIL},
    ),
    "data check tsv": (
        lambda f: ["data", "check", str(f.data_folder), "--lengths", "2k", "--format", "tsv"],
        {FILE_TAIL},
    ),
    "import summary": (
        lambda f: ["import", "helmet-results", str(f.imports), "--db", str(f.root / "i.duckdb")],
        {FILE_TAIL},
    ),
    "error message": (lambda f: ["show", "nope", "--db", str(f.data_folder / "x.duckdb")], set()),
}


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_command_shows_hostile_values_inert(files: HostileFiles, name: str) -> None:
    argv, expected = COMMANDS[name]
    out = files.lctui(*argv(files))
    # `lctui show` prints an output as it was written, its own lines kept.
    shown = set(shown_inert(out, documents=(OUT_TAIL,) if name == "show output" else ()))
    assert expected <= shown, f"{name}: {sorted(expected - shown)} not shown in\n{out}"


def test_tsv_values_keep_every_character_and_one_line_per_row(files: HostileFiles) -> None:
    out = files.lctui("stats", "--format", "tsv", *_db(files))
    lines = out.splitlines()
    header = lines[0].split("\t")
    rows = [line.split("\t") for line in lines[1:] if line]
    assert all(len(row) == len(header) for row in rows)  # a tab in a value stays in it
    models = {_unescape(row[header.index("model")]) for row in rows}
    assert {GOLD_MODEL, FAKE_MODEL} <= {m.removesuffix(" (reference)") for m in models}


def _unescape(field: str) -> str:
    """What the README says reads a TSV value back: Python's unicode_escape."""
    return field.encode("latin-1", "backslashreplace").decode("unicode_escape")


def test_lctui_run_shows_hostile_model_names_and_server_messages_inert(
    files: HostileFiles,
) -> None:
    """The runs that made the file: their progress rows, tables and messages; then a run
    again, which finds all stored and says so."""
    gold, again, fake = files.run_outputs
    assert GOLD_TAIL in shown_inert(gold) and GOLD_TAIL in shown_inert(again)
    assert FAKE_TAIL in shown_inert(fake)
    argv = ["run", "--config", str(files.config), "--model", GOLD_MODEL, "--tasks", "json_kv"]
    out = files.lctui(*argv, "--lengths", "1k", "--n", "2", *_db(files))
    assert GOLD_TAIL in shown_inert(out)
