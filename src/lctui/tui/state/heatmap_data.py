"""The SQL aggregates behind the results heatmap, turned into `HeatGrid`s.

Everything is grouped in DuckDB (one row per cell comes back, never one per generation),
so the heatmap costs the same for 100 or 100K stored generations. Means follow the
store's rule: over scored examples (ok and unparsed, unparsed counting 0); errors and
generations without a score (missing, never a 0) excluded and counted apart. Scores an
older version of their scorer made are counted per cell and marked (`3old`), and the
grid lists the runs they come from (analysis/outdated.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import duckdb

from lctui.analysis.outdated import find_outdated
from lctui.core.lengths import format_length
from lctui.core.text import plural
from lctui.scoring.versions import current_versions
from lctui.store.outdated import OutdatedScores
from lctui.store.read.cells import DepthCellCounts, depth_cells
from lctui.store.read.heat import HeatCellCounts, heat_cells
from lctui.store.read.runs import sample_only_models
from lctui.store.samples import SAMPLE_NOTE
from lctui.tui.widgets.heatmap import HeatCell, HeatGrid, HeatRow


@dataclass(frozen=True)
class CellStats:
    """The counts of one cell; `mean` is None when nothing in it was scored."""

    mean: float | None
    stderr: float | None
    n_scored: int
    n_unparsed: int
    n_error: int
    n_cancelled: int
    n_unscored: int  # succeeded but has no score: shown as missing, `s` scores them
    n_outdated: int = 0  # scored by an older version of its scorer: `s` re-scores them

    @property
    def n_total(self) -> int:
        return self.n_scored + self.n_error + self.n_cancelled + self.n_unscored


@dataclass(frozen=True)
class CellKey:
    """Which generations a cell stands for (`depth` is a bucket, or None for all)."""

    model: str
    task: str
    length: int
    depth: float | None = None

    def describe(self, reference: bool = False) -> str:
        model = f"{self.model} (reference)" if reference else self.model
        parts = [model, self.task]
        if self.depth is not None:
            parts.append(f"depth {self.depth:.0f} %")
        parts.append(format_length(self.length))
        return " · ".join(parts)


@dataclass(frozen=True)
class RowKey:
    model: str
    task: str
    depth: float | None = None


@dataclass(frozen=True)
class ResultsGrid:
    """A HeatGrid plus what each of its rows, columns and cells means."""

    grid: HeatGrid
    rows: tuple[RowKey, ...]
    lengths: tuple[int, ...]
    stats: Mapping[tuple[int, int], CellStats] = field(default_factory=dict)
    references: frozenset[str] = frozenset()
    # The outdated scores of the grid per run and cell (empty when there are none).
    outdated: tuple[OutdatedScores, ...] = ()

    @property
    def is_empty(self) -> bool:
        return not self.rows

    @property
    def is_depth(self) -> bool:
        return bool(self.rows) and self.rows[0].depth is not None

    def key(self, row: int, column: int) -> CellKey:
        r = self.rows[row]
        return CellKey(r.model, r.task, self.lengths[column], r.depth)

    def find(self, key: CellKey | None) -> tuple[int, int] | None:
        """Position of `key`'s cell, or None when this grid does not have it."""
        if key is None:
            return None
        row = RowKey(key.model, key.task, key.depth)
        if row not in self.rows or key.length not in self.lengths:
            return None
        return self.rows.index(row), self.lengths.index(key.length)

    def find_row(self, model: str, task: str) -> int | None:
        for i, r in enumerate(self.rows):
            if (r.model, r.task) == (model, task):
                return i
        return None

    def describe(self, row: int, column: int) -> str:
        """The status line for a cell: where it is, its mean and every count."""
        key = self.key(row, column)
        # The grid already marks reference models; the line stays within 80 columns.
        where = key.describe()
        stats = self.stats.get((row, column))
        if stats is None:
            return f"{where}: not run"
        mean = "mean —" if stats.mean is None else f"mean {stats.mean:.2f}"
        if stats.stderr:  # None for n=1, 0.0 when all scores agree: both say nothing
            mean += f" ±{stats.stderr:.2f}"
        parts = [
            mean,
            f"{stats.n_scored} scored",
            f"{stats.n_unparsed} unparsed",
            plural(stats.n_error, "error"),
        ]
        if stats.n_cancelled:
            parts.append(f"{stats.n_cancelled} cancelled")
        if stats.n_unscored:
            parts.append(f"{stats.n_unscored} not scored (s scores them)")
        if stats.n_outdated:
            parts.append(f"{stats.n_outdated} by an older scorer (s re-scores them)")
        return f"{where}  " + "  ".join(parts)

    @property
    def n_unscored(self) -> int:
        """Generations of the grid that succeeded but have no score."""
        return sum(s.n_unscored for s in self.stats.values())

    @property
    def n_outdated(self) -> int:
        """Results of the grid whose score an older version of its scorer made."""
        return sum(s.n_outdated for s in self.stats.values())

    def totals(self) -> str:
        """One line about the whole grid, for the title."""
        generations = sum(s.n_total for s in self.stats.values())
        models = len({r.model for r in self.rows})
        tasks = len({r.task for r in self.rows})
        missing = f" · {self.n_unscored} not scored (s)" if self.n_unscored else ""
        outdated = f" · {self.n_outdated} outdated (s)" if self.n_outdated else ""
        return (
            f"{plural(models, 'model')} · {plural(tasks, 'task')} · "
            f"{plural(len(self.lengths), 'length')} · {plural(generations, 'generation')}"
            f"{missing}{outdated}"
        )


def heat_cell(stats: CellStats) -> HeatCell:
    """'0.67', '0.67 2err', '0.67 3miss', '0.67 3old' (scored by an older version of the
    scorer), or '2err' in the error colour (or '3miss' uncoloured) when nothing was
    scored: an error or a missing score is never drawn as a zero score."""
    errors = f" {stats.n_error}err" if stats.n_error else ""
    missing = f" {stats.n_unscored}miss" if stats.n_unscored else ""
    old = f" {stats.n_outdated}old" if stats.n_outdated else ""
    if stats.mean is not None:
        return HeatCell(stats.mean, f"{stats.mean:.2f}{errors}{missing}{old}")
    if stats.n_error:
        return HeatCell(None, f"{stats.n_error}err{missing}", alert=True)
    if stats.n_unscored:
        return HeatCell(None, f"{stats.n_unscored}miss")
    return HeatCell(None, "—")  # only cancelled generations


def _cell_stats(c: HeatCellCounts | DepthCellCounts) -> CellStats:
    """A cell's counts as the heatmap keeps them (reference left out)."""
    return CellStats(
        c.mean_score,
        c.stderr,
        c.n_scored,
        c.n_unparsed,
        c.n_error,
        c.n_cancelled,
        c.n_unscored,
        c.n_outdated,
    )


def model_grid(cur: duckdb.DuckDBPyConnection) -> ResultsGrid:
    """Model x task rows, one column per length: one aggregate row per cell."""
    found = heat_cells(cur, current_versions())
    references = frozenset(c.model for c in found if c.reference)
    # Models under evaluation first, reference pseudo-models (gold) after them.
    models = sorted({c.model for c in found}, key=lambda m: (m in references, m))
    lengths = tuple(sorted({c.length for c in found}))
    tasks_of: dict[str, set[str]] = {}
    for c in found:
        tasks_of.setdefault(c.model, set()).add(c.task)
    rows = tuple(RowKey(model, task) for model in models for task in sorted(tasks_of[model]))
    row_index = {(r.model, r.task): i for i, r in enumerate(rows)}
    column_index = {n: i for i, n in enumerate(lengths)}
    stats = {(row_index[(c.model, c.task)], column_index[c.length]): _cell_stats(c) for c in found}
    samples = sample_only_models(cur)
    heat_rows = tuple(HeatRow(_model_label(r.model, references, samples), r.task) for r in rows)
    grid = HeatGrid(
        corner="task \\ length",
        columns=tuple(format_length(n) for n in lengths),
        rows=heat_rows,
        cells={position: heat_cell(s) for position, s in stats.items()},
    )
    outdated = find_outdated(cur) if any(s.n_outdated for s in stats.values()) else []
    return ResultsGrid(grid, rows, lengths, stats, references, tuple(outdated))


def _model_label(model: str, references: frozenset[str], samples: frozenset[str]) -> str:
    """A model's heading: gold says it is the reference, a model known only from the
    shipped sample runs says so (issue 24: samples are labelled wherever they appear)."""
    if model in references:
        return f"{model} (reference)"
    return f"{model} ({SAMPLE_NOTE}s)" if model in samples else model


def depth_grid(cur: duckdb.DuckDBPyConnection, model: str, task: str) -> ResultsGrid:
    """Needle depth (bucketed) x length for one model and task; empty if no depths."""
    found = depth_cells(cur, models=[model], tasks=[task], versions=current_versions())
    buckets = tuple(sorted({c.depth_bucket for c in found}))
    lengths = tuple(sorted({c.length for c in found}))
    references = frozenset({model} if any(c.reference for c in found) else ())
    rows = tuple(RowKey(model, task, b) for b in buckets)
    stats = {
        (buckets.index(c.depth_bucket), lengths.index(c.length)): _cell_stats(c) for c in found
    }
    grid = HeatGrid(
        corner="depth \\ length",
        columns=tuple(format_length(n) for n in lengths),
        rows=tuple(HeatRow(task, f"{b:.0f} %") for b in buckets),
        cells={position: heat_cell(s) for position, s in stats.items()},
    )
    old = any(s.n_outdated for s in stats.values())
    outdated = find_outdated(cur, models=[model], tasks=[task]) if old else []
    return ResultsGrid(grid, rows, lengths, stats, references, tuple(outdated))
