"""The report of one run: what the TUI shows of it. Its summary, the model x task x
length heatmap, a per-task table of the counts (scored, unparsed, errors, not scored),
score-vs-length curves with RULER's effective length, and every registered suite's own
report (core/suites.py: HELMET's categories, LongBench v2's accuracy, LIFEval's
ARS/IFP/IFS, ...) where the run's models have it, as `lctui report --suite` prints it.

Everything is of the run's results alone (store/read/run_results.py): the latest result
of every example its plan covered, those it generated and those already stored that it
reused instead of generating again (counted in each cell and listed with the run that
made them); other runs' results of the same models are not in it."""

from __future__ import annotations

import math
from collections.abc import Sequence

from lctui.analysis.curves import LengthCurve, curves_of, effective_lengths
from lctui.analysis.outdated import find_outdated, outdated_line
from lctui.analysis.report_blocks import Block, Figure, Heading, Paragraph, Table, warning_blocks
from lctui.analysis.svg_plots import Series, line_chart, style_of
from lctui.core.errors import UserInputError
from lctui.core.formatting import fixed
from lctui.core.lengths import format_length
from lctui.core.suites import reporting_suites
from lctui.scoring.versions import current_versions
from lctui.store.db import Store
from lctui.store.read import cells as cell_reads
from lctui.store.read import run_results, runs
from lctui.store.read.run_results import Reused, RunCell
from lctui.store.samples import SAMPLE_NOTE, run_label

REFERENCE = " (reference)"  # after a reference pseudo-model's name (gold), as in the TUI
REUSED_SHOWN = 100  # reused results listed one by one (the counts above cover all)


def model_label(model: str, reference: bool) -> str:
    return model + REFERENCE if reference else model


def run_blocks(store: Store, run_id: str | None = None) -> list[Block]:
    """A run (the latest if None): everything the report says of it."""
    summary = runs.run_summary(store, run_id)
    if summary is None:
        raise UserInputError(
            f"no run {run_id!r} in {store.where}" if run_id else f"{store.where} holds no run"
        )
    cells = run_results.run_cells(store, summary.run_id, versions=current_versions())
    reused = run_results.reused_generations(store, summary.run_id, limit=REUSED_SHOWN)
    mean = fixed(summary.mean_score)
    # A missing score is counted apart, never as a 0 (store/views.py: `unscored`).
    missing = f", {summary.unscored} not scored" if summary.unscored else ""
    outdated = outdated_line(find_outdated(store, run_id=summary.run_id), store.where)
    blocks: list[Block] = [
        Heading(f"Run {summary.run_id}"),
        *(
            [Paragraph(f"A {SAMPLE_NOTE} shipped with lctui (imported on first launch).")]
            if summary.sample
            else []
        ),
        Paragraph(
            f"Status {summary.status}, started {summary.started_at}; models "
            f"{', '.join(summary.models)}; {summary.generations} generations made by this "
            f"run: {summary.ok} ok, {summary.unparsed} unparsed, {summary.errors} errors, "
            f"{summary.cancelled} cancelled{missing}; mean score {mean} (errors and missing "
            "scores excluded)."
        ),
        *_results_paragraph(cells, reused),
        *warning_blocks([outdated] if outdated else []),
        *heatmap_blocks(cells),
        *per_task_blocks(cells),
        *curve_blocks(curves_of(cells)),
    ]
    models = sorted({c.model for c in cells})  # the reference (gold) too: a sanity row
    blocks += suite_blocks(store, models, summary.run_id)
    blocks += reused_blocks(reused)
    return blocks


def _results_paragraph(cells: Sequence[RunCell], reused: Reused) -> list[Block]:
    """What the tables below count, when the run reused stored results."""
    if not reused.total:
        return []
    scored = sum(c.n_scored for c in cells)
    total = sum((c.mean_score or 0.0) * c.n_scored for c in cells)
    sources = ", ".join(f"{s.generations} from run {run_label(s.run_id)}" for s in reused.sources)
    return [
        Paragraph(
            f"Its plan also covered {reused.total} example(s) already stored ({sources}): "
            "it did not generate them again and counts their stored results as its own "
            "(reused=N in a cell; listed under Reused results). Over all its results the "
            f"mean score is {fixed(total / scored if scored else None)} ({scored} scored)."
        )
    ]


def _cell_text(cell: cell_reads.CellScore) -> str:
    """'0.67 n=3', with the errors, the missing scores and the reused results counted."""
    text = f"{fixed(cell.mean_score, 2)} n={cell.n_scored}"
    if cell.n_error:
        text += f" err={cell.n_error}"
    if cell.n_unscored:
        text += f" not scored={cell.n_unscored}"
    if isinstance(cell, RunCell) and cell.n_reused:
        text += f" reused={cell.n_reused}"
    return text


def _cell_tip(cell: cell_reads.CellScore) -> str:
    """Every count of a cell, as the TUI's status line says them."""
    stderr = f" ±{cell.stderr:.3f}" if cell.stderr else ""
    parts = [
        f"mean {fixed(cell.mean_score)}{stderr}",
        f"{cell.n_scored} scored",
        f"{cell.n_unparsed} unparsed",
        f"{cell.n_error} errors",
    ]
    if cell.n_cancelled:
        parts.append(f"{cell.n_cancelled} cancelled")
    if cell.n_unscored:
        parts.append(f"{cell.n_unscored} not scored")
    if cell.n_outdated:
        parts.append(f"{cell.n_outdated} by an older scorer version")
    if isinstance(cell, RunCell) and cell.n_reused:
        parts.append(f"{cell.n_reused} reused from earlier runs")
    return ", ".join(parts)


def _ordered(cells: Sequence[cell_reads.CellScore]) -> list[tuple[str, str, bool]]:
    """(model, task, reference) rows: models under evaluation first, as the TUI orders."""
    keys = {(c.model, c.task, c.reference) for c in cells}
    return sorted(keys, key=lambda k: (k[2], k[0], k[1]))


def heatmap_blocks(cells: Sequence[cell_reads.CellScore]) -> list[Block]:
    """The TUI's heatmap: a row per model and task, a column per length."""
    lengths = sorted({c.length for c in cells})
    by_key = {(c.model, c.task, c.length): c for c in cells}
    rows, heat, tips = [], [], []
    for model, task, reference in _ordered(cells):
        row = [model_label(model, reference), task]
        values: list[float | None] = [None, None]
        notes: list[str | None] = [None, None]
        for n in lengths:
            cell = by_key.get((model, task, n))
            row.append("" if cell is None else _cell_text(cell))
            values.append(None if cell is None else cell.mean_score)
            notes.append(None if cell is None else _cell_tip(cell))
        rows.append(row)
        heat.append(values)
        tips.append(notes)
    return [
        Heading("Mean score by model, task and length", 3),
        Paragraph(
            "Each cell: the mean score over scored examples (an unparsed answer counts 0) "
            "and n, how many were scored; failed requests (err) and answers without a score "
            "(not scored) are counted apart and left out of the mean; reused: results an "
            "earlier run stored, which this run counted instead of generating them again. "
            "Colour: 0 red, 0.5 amber, 1 green. A reference model (gold) streams the "
            "expected answer: it checks tasks and scorers and is no model's result."
        ),
        Table(["model", "task", *(format_length(n) for n in lengths)], rows, heat, tips=tips),
    ]


def per_task_blocks(cells: Sequence[cell_reads.CellScore]) -> list[Block]:
    """A row per model and task over all its lengths: every count and the mean."""
    rows = []
    for model, task, reference in _ordered(cells):
        mine = [c for c in cells if (c.model, c.task) == (model, task)]
        scored = sum(c.n_scored for c in mine)
        total = sum((c.mean_score or 0.0) * c.n_scored for c in mine)
        rows.append(
            [
                model_label(model, reference),
                task,
                str(len(mine)),
                str(scored),
                str(sum(c.n_ok for c in mine)),
                str(sum(c.n_unparsed for c in mine)),
                str(sum(c.n_error for c in mine)),
                str(sum(c.n_cancelled for c in mine)),
                str(sum(c.n_unscored for c in mine)),
                str(sum(c.n_reused for c in mine if isinstance(c, RunCell))),
                fixed(total / scored if scored else None),
            ]
        )
    headers = ["model", "task", "lengths", "n", "ok", "unparsed", "errors", "cancelled",
               "not scored", "reused", "mean"]  # fmt: skip
    return [
        Heading("Per task", 3),
        Paragraph(
            "n: scored examples (ok + unparsed) over all lengths; the mean is over them. "
            "reused: results of earlier runs this run counted instead of generating them."
        ),
        Table(headers, rows),
    ]


def curve_blocks(curves: Sequence[LengthCurve]) -> list[Block]:
    """Score vs length, one picture per task with a line per model, and RULER's
    effective length per model; nothing when every curve has one length."""
    if not any(len(c.points) > 1 for c in curves):
        return []
    models = sorted({(c.model, c.reference) for c in curves}, key=lambda m: (m[1], m[0]))
    styles = {m: style_of(i) for i, (m, _) in enumerate(models)}
    lengths = sorted({p.length for c in curves for p in c.points})
    ticks = [(math.log2(n), format_length(n)) for n in lengths]
    panels = []
    for task in sorted({c.task for c in curves}):
        series = [
            Series(
                model_label(c.model, c.reference),
                [(math.log2(p.length), p.mean) for p in c.points],
                styles[c.model],
            )
            for c in curves
            if c.task == task
        ]
        panels.append(line_chart(series, title=task, x_ticks=ticks, x_label="context length"))
    legend = [(model_label(m, ref), styles[m].colour) for m, ref in models]
    blocks: list[Block] = [
        Heading("Score vs length", 3),
        Figure(
            "Mean score per task at each length (log scale), one line per model; a gap "
            "where a length has no scored example.",
            panels,
            legend,
        ),
    ]
    effective = effective_lengths(curves)
    if effective:
        shown = sorted({n for e in effective for n in e.means})
        blocks += [
            Paragraph(
                f"RULER's effective length: the longest length up to which the model's mean "
                f"over RULER's tasks stays above {effective[0].threshold:g} at every length "
                "(reference models left out). tasks: RULER's tasks in that mean, of all of "
                "RULER's; other suites' tasks have their curves above and are not in it."
            ),
            Table(
                ["model", "effective", "tasks", *(format_length(n) for n in shown)],
                [
                    [e.model, format_length(e.length) if e.length else "none", e.tasks_shown]
                    + [fixed(e.means.get(n)) if n in e.means else "" for n in shown]
                    for e in effective
                ],
            ),
        ]
    return blocks


def suite_blocks(store: Store, models: Sequence[str], run_id: str) -> list[Block]:
    """Every registered suite's report (core/suites.py) of `models`, where they have
    scores, over the run's results (those it reused included), as `lctui report --suite`
    computes it over every stored result: a section per suite, its tables (each titled
    when it has several) and its notes."""
    if not models:
        return []
    blocks: list[Block] = []
    for suite in reporting_suites():
        report = suite.report(store, models, run_id) if suite.report else None
        if report is None or not report.tables:
            continue
        blocks += [Heading(suite.title, 3), Paragraph(f"Over this run's results. {suite.about}")]
        for table in report.tables:
            if len(report.tables) > 1:
                blocks.append(Heading(table.title, 4))
            blocks.append(Table(list(table.columns), [list(row) for row in table.rows]))
        blocks += [Paragraph(note) for note in report.notes]
    return blocks


def reused_blocks(reused: Reused) -> list[Block]:
    """The stored results the run counted instead of generating them, by earlier run,
    and the first REUSED_SHOWN of them by example."""
    if not reused.total:
        return []
    shown = (
        f"; the first {len(reused.listed)} are listed" if reused.total > len(reused.listed) else ""
    )
    return [
        Heading("Reused results", 3),
        Paragraph(
            f"{reused.total} result(s) this run's plan covered were already stored, so it "
            "did not generate them again (lctui skips an example a model has answered with "
            "the same settings) and counts them as its own"
            f"{shown}."
        ),
        Table(
            ["from run", "started", "results"],
            [
                [run_label(s.run_id), str(s.started_at or "-"), str(s.generations)]
                for s in reused.sources
            ],
        ),
        Table(
            ["model", "task", "length", "example", "generation", "from run"],
            [
                [
                    g.model,
                    g.task,
                    format_length(g.length),
                    g.example_id,
                    g.generation_id,
                    run_label(g.run_id),
                ]
                for g in reused.listed
            ],
        ),
    ]
