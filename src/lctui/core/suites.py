"""The registry of benchmark suites, and what a suite's report is made of.

A suite lives in a folder of its own (`lctui/suites/<name>/`, or a plugin package) and
registers one `Suite` here. The generic layers (`lctui report --suite`, the run report)
read the registry and never import a particular suite: lctui's own suites are named by
module in `BUILTIN`, a plugin by an entry point in the group `lctui.suites` (its value a
`Suite` or a module that calls `register` when imported), and each is imported the
first time it is asked for. A suite's package is light: it declares its `Suite` with
functions that import its heavy parts (analysis, store reads) only when they run, so
building `lctui`'s parser from every suite's importers costs no database import.

A report is declarative: titled tables of text cells (the first names the row's
model; the others are as the suite shows them),
notes under them, and the records `--format json` prints. Whoever renders it (rich
in the terminal, markdown or HTML in a run's report) escapes every cell and note: they
hold names from data.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib.metadata import entry_points
from typing import Any

from lctui.core.errors import UserInputError

ENTRY_POINT_GROUP = "lctui.suites"
# name -> module, in the order the run report shows them.
BUILTIN: dict[str, str] = {
    "ruler": "lctui.suites.ruler",
    "helmet": "lctui.suites.helmet",
    "longbench": "lctui.suites.longbench",
    "lifbench": "lctui.suites.lifbench",
}

# The suites task lists name first, in this order (RULER's tasks lead `lctui tasks`, the
# launch screen and `--tasks` selections); then the others by name.
LEADING: tuple[str, ...] = ("ruler", "helmet")


def listing_order(name: str) -> tuple[int, str]:
    """Where the suite `name`'s tasks come in a list of every suite's tasks."""
    if name in LEADING:
        return LEADING.index(name), ""
    return len(LEADING), name


NARROW = {"length": "len"}  # headings a terminal table shortens: eleven columns fit 80


@dataclass(frozen=True)
class RowCell:
    """The results a row of a report summarises: one model's answers to one task at one
    length (what the TUI's suite screen lists, and opens, on `enter`)."""

    model: str
    task: str
    length: int


@dataclass(frozen=True)
class ReportTable:
    """One table of a suite's report; every cell is text as shown."""

    title: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    details: tuple[str, ...] = ()  # per row: what it holds, said when it is highlighted
    cells: tuple[RowCell | None, ...] = ()  # per row: the results it summarises
    # Per row, per column: what that cell holds when it says more than its row ("" for
    # the row's own details); a table with them is browsed cell by cell.
    cell_details: tuple[tuple[str, ...], ...] = ()
    # Per row: the tables it drills into (LIFEval's per-level tables behind a model's
    # IFS), shown in place of the report's own on `enter`;
    # `lctui report` prints only the report's own tables.
    opens: tuple[tuple[ReportTable, ...], ...] = ()

    def detail(self, row: int, column: int | None = None) -> str:
        """What the screen says under the table of row `row` (its cell `column`)."""
        if column is not None and 0 <= row < len(self.cell_details):
            by_column = self.cell_details[row]
            if 0 <= column < len(by_column) and by_column[column]:
                return by_column[column]
        return self.details[row] if 0 <= row < len(self.details) else ""

    def cell(self, row: int) -> RowCell | None:
        """The results row `row` summarises (None: none of one cell)."""
        return self.cells[row] if 0 <= row < len(self.cells) else None

    def opened(self, row: int) -> tuple[ReportTable, ...]:
        """The tables row `row` drills into (none: it opens no tables)."""
        return self.opens[row] if 0 <= row < len(self.opens) else ()

    def narrow_columns(self) -> tuple[str, ...]:
        """The headings for a terminal, where the length column is narrow ("len")."""
        return tuple(NARROW.get(heading, heading) for heading in self.columns)


@dataclass(frozen=True)
class SuiteReport:
    """What a suite shows of some models' results."""

    tables: tuple[ReportTable, ...]
    notes: tuple[str, ...] = ()  # under the tables: what is partial, missing, unscored
    records: tuple[Mapping[str, Any], ...] = ()  # `--format json`, one per row
    # Which stored scores it read, for the warning about scores of outdated scorers.
    scorers: tuple[str, ...] = ()
    tasks: tuple[str, ...] = ()


@dataclass(frozen=True)
class ImportOption:
    """An option of an import command: a positive number of tokens (`--length`)."""

    flag: str
    metavar: str
    help: str

    @property
    def dest(self) -> str:
        """Its name among the options an `ImportRunner` gets: `--length` -> length."""
        return self.flag.lstrip("-").replace("-", "_")


# (a Store, the file or folder given, the model name given or None, the options by
# their `dest`, a progress callback (done, total, path)) -> an ImportSummary
ImportRunner = Callable[[Any, str, str | None, Mapping[str, Any], Any], Any]


@dataclass(frozen=True)
class Importer:
    """`lctui import KIND SOURCE`: results an original harness wrote, as runs."""

    kind: str  # the command's name: "helmet-results"
    help: str
    description: str
    source: str  # the positional argument's name: "folder", "FILE_OR_FOLDER"
    what: str  # the files counted in the summary line: "HELMET result file(s)"
    model_key: str  # the prefix of model names by default: "helmet" -> helmet:NAME
    run: ImportRunner
    options: tuple[ImportOption, ...] = ()
    names_model: bool = True  # False: the files name their models (no --model)


@dataclass(frozen=True)
class SuiteScorer:
    """A scorer a suite adds: examples whose metadata names `name` are scored by it."""

    name: str
    # The version of its rules, recorded on every score it makes (scoring/versions.py
    # says when to bump it); declared here so that flagging older scores imports nothing.
    version: int
    load: Callable[[], Any]  # -> the scorer, (Example, output) -> Score; imported when first used
    # How its value relates to its rubric points, in one sentence (scoring/relation.py).
    relation: str = ""


@dataclass(frozen=True)
class ExampleView:
    """What the inspector adds for an example of one of the suite's scorers."""

    # (the example's metadata, short) -> its facts for the header ("" for none);
    # short: for a narrow header.
    facts: Callable[[Mapping[str, Any], bool], str]
    # an output -> the offsets of what its answer was read from (None: nothing)
    answer_span: Callable[[str], tuple[int, int] | None]


# (a Store or cursor, models or None for all, a run id or None for every result)
ReportBuilder = Callable[[Any, Sequence[str] | None, str | None], SuiteReport | None]


@dataclass(frozen=True)
class Suite:
    """A benchmark suite as the generic layers see it."""

    name: str
    title: str  # the heading of its section in a run's report
    about: str  # what its numbers are, under that heading and in `lctui report --help`
    # None (or no tables) when the models have no score of it; None: the suite has no
    # report of its own (RULER's tasks show in the heatmap and the curves).
    report: ReportBuilder | None = None
    empty: str = ""  # why there is nothing to show and how to get some: "{db} holds no ..."
    aliases: tuple[str, ...] = ()  # other names `--suite` accepts
    importers: tuple[Importer, ...] = ()
    # Its tasks (lctui.tasks.base.Task), imported when the task registry first asks.
    tasks: Callable[[], Sequence[Any]] | None = None
    scorers: tuple[SuiteScorer, ...] = ()
    # Its datasets (lctui.tasks.catalog.Dataset) for `lctui data`, imported when asked.
    datasets: Callable[[], Sequence[Any]] | None = None
    example_view: ExampleView | None = None  # for examples scored by one of `scorers`


_registered: dict[str, Suite] = {}


def register(suite: Suite) -> Suite:
    """Add `suite` (a decorator's return value may be kept); a name taken twice is a bug."""
    known = _registered.get(suite.name)
    if known is not None and known is not suite:
        raise ValueError(f"two suites are named {suite.name!r}")
    _registered[suite.name] = suite
    _by_scorer.cache_clear()
    return suite


def _plugins() -> dict[str, Any]:
    return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}


def suite_names() -> list[str]:
    """Every suite's name, lctui's own first (nothing is imported)."""
    names = [*BUILTIN, *(n for n in _registered if n not in BUILTIN)]
    return names + sorted(n for n in _plugins() if n not in names)


def get_suite(name: str) -> Suite:
    """The suite named `name` (or one of its aliases), imported on first use."""
    for candidate in suite_names():
        found = _load(candidate)
        if found is not None and name in (found.name, *found.aliases):
            return found
    raise UserInputError(f"unknown suite {name!r}; known suites: {', '.join(suite_names())}")


def reporting_suites() -> list[Suite]:
    """The suites with a report of their own, in `suite_names` order."""
    return [s for s in all_suites() if s.report is not None]


def report_names() -> list[str]:
    """What `lctui report --suite` accepts: each reporting suite's name and aliases."""
    return [n for s in reporting_suites() for n in (s.name, *s.aliases)]


def all_suites() -> list[Suite]:
    """Every suite, in `suite_names` order."""
    found = (_load(name) for name in suite_names())
    return [s for s in found if s is not None]


def suite_of_scorer(scorer: object) -> Suite | None:
    """The suite that adds the scorer named `scorer` (None: a generic scorer or none)."""
    if not isinstance(scorer, str):
        return None
    return _by_scorer().get(scorer)


def declared_scorer(name: object) -> SuiteScorer | None:
    """The declaration of the scorer `name` a suite adds (None: none adds it)."""
    suite = suite_of_scorer(name)
    return None if suite is None else next(s for s in suite.scorers if s.name == name)


@cache
def _by_scorer() -> dict[str, Suite]:
    return {s.name: suite for suite in all_suites() for s in suite.scorers}


def _load(name: str) -> Suite | None:
    if name in _registered:
        return _registered[name]
    if name in BUILTIN:
        importlib.import_module(BUILTIN[name])
    else:
        plugin = _plugins().get(name)
        if plugin is None:
            return None
        loaded = plugin.load()
        if isinstance(loaded, Suite):
            register(loaded)
    suite = _registered.get(name)
    if suite is None:
        raise RuntimeError(f"the suite module of {name!r} registered no suite of that name")
    return suite
