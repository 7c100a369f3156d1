"""The suite registry (core/suites.py): lctui's own suites by name, a plugin package's
suite through its `lctui.suites` entry point, and the generic paths over both:
`lctui report --suite` and the run report. The plugin is a real installed
distribution (a dist-info folder on the path of the `lctui` processes started here)."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from helpers.suite_plugin import run_lctui, write_plugin
from lctui.cli import main
from lctui.core.errors import UserInputError
from lctui.core.suites import BUILTIN, get_suite, suite_names
from lctui.store import open_store

ROOT = Path(__file__).resolve().parents[2]

# A suite from outside lctui: a table of every task's mean per model, from the store's
# generic cell read, under a name and title of its own.
PLUGIN = """
from lctui.analysis.harness_import import ImportSummary
from lctui.core.suites import Importer, ImportOption, ReportTable, Suite, SuiteReport
from lctui.store.read.cells import cell_scores


def report(src, models, run_id):
    cells = [c for c in cell_scores(src, models=models) if c.mean_score is not None]
    if not cells:
        return None
    rows = tuple((c.model, c.task, f"{c.mean_score:.2f}") for c in cells)
    table = ReportTable("Plugged-in means", ("model", "task", "mean"), rows)
    records = tuple({"model": c.model, "task": c.task, "mean": c.mean_score} for c in cells)
    return SuiteReport((table,), ("a plugin's note",), records)


def read(store, source, model, options, progress):
    # Reads nothing: says what it was given, as a problem line of the summary.
    given = f"{source} as {model} at {options['length']}"
    return ImportSummary(files=1, imported=0, examples=0, added=0, models=(), problems=(given,))


SUITE = Suite(
    name="plugged",
    title="A plugged-in suite",
    about="Means per task, from a package of its own.",
    report=report,
    empty="{db} holds nothing the plugged suite reads{wanted}",
    importers=(
        Importer(
            kind="plugged-results",
            help="a plugged-in harness's files",
            description="Reads nothing.",
            source="FOLDER",
            what="plugged file(s)",
            model_key="plugged",
            run=read,
            options=(ImportOption("--length", "TOKENS", "their length"),),
        ),
    ),
)
"""


@pytest.fixture(scope="module")
def plugin_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding the module `plugged_suite` and its distribution's metadata."""
    return write_plugin(tmp_path_factory.mktemp("plugin"), "plugged_suite", PLUGIN, "plugged")


def test_the_parser_reads_suites_declarations_but_loads_none_of_their_parts() -> None:
    """`lctui`'s parser lists every suite's importers, so it imports the suites' light
    declarations; their reports and importers load only when they run."""
    code = (
        "import sys; from lctui.cli import build_parser; build_parser(); "
        "from lctui.core.suites import suite_names; print(suite_names()); "
        "print(sorted(m for m in sys.modules if m.startswith('lctui.suites.')))"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    ).stdout.splitlines()
    assert out[0] == str(list(BUILTIN))
    loaded = set(ast.literal_eval(out[1]))
    assert loaded >= set(BUILTIN.values())
    # No module inside them, but RULER's, LongBench v2's and LIFBench's tasks: the input
    # kinds of tasks/inputs import them (pyproject.toml's one exception to the registry rule).
    inside = loaded - set(BUILTIN.values())
    kinds = (
        "lctui.suites.ruler.tasks",
        "lctui.suites.longbench.tasks",
        "lctui.suites.lifbench.tasks",
    )
    assert all(m.startswith(kinds) for m in inside), inside


def test_a_suite_is_found_by_its_name_or_alias_and_an_unknown_one_is_named() -> None:
    assert get_suite("lifeval") is get_suite("lifbench")
    assert get_suite("helmet").name == "helmet"
    with pytest.raises(UserInputError, match="unknown suite 'nope'; known suites: ruler, helmet"):
        get_suite("nope")
    assert "plugged" not in suite_names()  # not installed in this process


def test_report_names_an_unknown_suite_and_one_without_a_report(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["report", "--suite", "nope"]) == 2
    assert "unknown suite 'nope'" in capsys.readouterr().err
    assert main(["report", "--suite", "ruler"]) == 2
    err = capsys.readouterr().err
    assert "the suite ruler has no report of its own" in err and "helmet, longbench" in err


def test_a_plugin_suite_reports_through_the_generic_paths(
    plugin_path: Path, tmp_path: Path
) -> None:
    db = tmp_path / "r.duckdb"
    open_store(db).close()
    listed = run_lctui(["report", "--help"], plugin_path, tmp_path)
    assert listed.returncode == 0 and "plugged" in listed.stdout
    empty = run_lctui(["report", "--suite", "plugged", "--db", str(db)], plugin_path, tmp_path)
    assert empty.returncode == 2
    assert "holds nothing the plugged suite reads" in empty.stderr

    run = ["run", "--model", "gold", "--tasks", "niah_single_1,vt", "--lengths", "1k"]
    assert run_lctui([*run, "--n", "2", "--db", str(db)], plugin_path, tmp_path).returncode == 0
    shown = run_lctui(["report", "--suite", "plugged", "--db", str(db)], plugin_path, tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert "Plugged-in means" in shown.stdout and "a plugin's note" in shown.stdout
    rows = [line.split() for line in shown.stdout.splitlines() if line.startswith(" gold")]
    assert rows == [["gold", "niah_single_1", "1.00"], ["gold", "vt", "1.00"]]
    as_json = run_lctui(
        ["report", "--suite", "plugged", "--format", "json", "--db", str(db)],
        plugin_path,
        tmp_path,
    )
    assert [r["task"] for r in json.loads(as_json.stdout)] == ["niah_single_1", "vt"]

    # The run's report has a section of every suite with scores, the plugin's included.
    out = tmp_path / "run.md"
    exported = run_lctui(
        ["export-report", "--db", str(db), "--out", str(out)], plugin_path, tmp_path
    )
    assert exported.returncode == 0, exported.stderr
    page = out.read_text(encoding="utf-8")
    assert "### A plugged-in suite" in page and "| gold | vt | 1.00 |" in page
    assert "HELMET categories" not in page  # no HELMET score in this run

    # Its importer is a kind of `lctui import`, with its options checked as lctui's are.
    imported = run_lctui(
        ["import", "plugged-results", "somewhere", "--model", "m", "--length", "4096",
         "--db", str(db)],
        plugin_path,
        tmp_path,
    )  # fmt: skip
    assert imported.returncode == 0, imported.stderr
    assert "skipped or doubtful: somewhere as m at 4096" in imported.stdout
    assert "from 0 of 1 plugged file(s) in somewhere" in imported.stdout
    refused = ["import", "plugged-results", "x", "--length", "-3", "--db", str(db)]
    bad = run_lctui(refused, plugin_path, tmp_path)
    assert bad.returncode == 2 and "not a whole number of tokens" in bad.stderr
