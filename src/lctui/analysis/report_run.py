"""The report of one run: what the TUI shows of it. Its summary, the model x task x
length heatmap, a per-task table of the counts (scored, unparsed, errors, not scored),
score-vs-length curves with RULER's effective length, and the suites' own tables
(HELMET's categories, LongBench v2's accuracy, LIFEval's ARS/IFP/IFS) where the run's
models have them. The analysis functions are the TUI's and `lctui report`'s."""

from __future__ import annotations

import math
from collections.abc import Sequence

from lctui.analysis import helmet, longbench
from lctui.analysis.curves import LengthCurve, curves_of, effective_lengths
from lctui.analysis.lifbench import lifbench_reports
from lctui.analysis.outdated import find_outdated, outdated_line
from lctui.analysis.report_blocks import Block, Figure, Heading, Paragraph, Table, warning_blocks
from lctui.analysis.svg_plots import Series, line_chart, style_of
from lctui.core.errors import UserInputError
from lctui.core.formatting import fixed
from lctui.core.lengths import format_length
from lctui.scoring.rubric import CAPABILITIES
from lctui.scoring.versions import current_versions
from lctui.store.db import Store
from lctui.store.lifeval_views import PERSPECTIVES
from lctui.store.read import cells as cell_reads
from lctui.store.read import runs

REFERENCE = " (reference)"  # after a reference pseudo-model's name (gold), as in the TUI


def model_label(model: str, reference: bool) -> str:
    return model + REFERENCE if reference else model


def run_blocks(store: Store, run_id: str | None = None) -> list[Block]:
    """A run (the latest if None): everything the report says of it."""
    summary = runs.run_summary(store, run_id)
    if summary is None:
        raise UserInputError(
            f"no run {run_id!r} in {store.where}" if run_id else f"{store.where} holds no run"
        )
    cells = cell_reads.cell_scores(store, run_id=summary.run_id, versions=current_versions())
    mean = fixed(summary.mean_score)
    # A missing score is counted apart, never as a 0 (store/views.py: `unscored`).
    missing = f", {summary.unscored} not scored" if summary.unscored else ""
    outdated = outdated_line(find_outdated(store, run_id=summary.run_id), store.where)
    blocks: list[Block] = [
        Heading(f"Run {summary.run_id}"),
        Paragraph(
            f"Status {summary.status}, started {summary.started_at}; models "
            f"{', '.join(summary.models)}; {summary.generations} generations: {summary.ok} ok, "
            f"{summary.unparsed} unparsed, {summary.errors} errors, {summary.cancelled} "
            f"cancelled{missing}; mean score {mean} (errors and missing scores excluded)."
        ),
        *warning_blocks([outdated] if outdated else []),
        *heatmap_blocks(cells),
        *per_task_blocks(cells),
        *curve_blocks(curves_of(cells)),
    ]
    models = list(summary.models)
    blocks += suite_blocks(store, models)
    return blocks


def _cell_text(cell: cell_reads.CellScore) -> str:
    """'0.67 n=3', with the errors and the missing scores counted apart."""
    text = f"{fixed(cell.mean_score, 2)} n={cell.n_scored}"
    if cell.n_error:
        text += f" err={cell.n_error}"
    if cell.n_unscored:
        text += f" not scored={cell.n_unscored}"
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
            "(not scored) are counted apart and left out of the mean. Colour: 0 red, 0.5 "
            "amber, 1 green. A reference model (gold) streams the expected answer: it "
            "checks tasks and scorers and is no model's result."
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
                fixed(total / scored if scored else None),
            ]
        )
    headers = ["model", "task", "lengths", "n", "ok", "unparsed", "errors", "cancelled",
               "not scored", "mean"]  # fmt: skip
    return [
        Heading("Per task", 3),
        Paragraph("n: scored examples (ok + unparsed) over all lengths; the mean is over them."),
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


def suite_blocks(store: Store, models: Sequence[str]) -> list[Block]:
    """HELMET's, LongBench v2's and LIFEval's tables of `models`, where they have scores
    (over every stored result of those models, as `lctui report --suite` computes)."""
    blocks: list[Block] = []
    rows = helmet.helmet_table(store, models)
    if rows:
        blocks += [
            Heading("HELMET categories (0-100)", 3),
            Paragraph(
                f"Over every stored result of these models. {helmet.PARTIAL} after a mean: "
                "some of its datasets have no score (never counted as 0); -: none scored."
            ),
            Table(
                ["model", "length", *(helmet.HEADINGS[c] for c in helmet.CATEGORIES), "Overall"],
                [
                    [r.model, format_length(r.length)]
                    + [
                        helmet.shown(r.categories[c].value, r.categories[c].partial)
                        for c in helmet.CATEGORIES
                    ]
                    + [helmet.shown(r.overall, r.partial)]
                    for r in rows
                ],
            ),
        ]
    blocks += _longbench(store, models)
    reports = lifbench_reports(store, list(models))
    if reports:
        blocks += [
            Heading("LIFEval", 3),
            Paragraph(
                "ARS and IFP per capability (higher is better); IFS per perspective (lower "
                "is more stable). Over every stored lifeval score of these models."
            ),
            Table(
                ["model", "ARS", *CAPABILITIES, *PERSPECTIVES, "IFS mean"],
                [
                    [r.model, fixed(r.ars)]
                    + [fixed(r.ifp.get(c.lower())) for c in CAPABILITIES]
                    + [fixed(r.ifs.get(p)) for p in (*PERSPECTIVES, "mean")]
                    for r in reports
                ],
            ),
        ]
    return blocks


def _longbench(store: Store, models: Sequence[str]) -> list[Block]:
    rows = longbench.longbench_table(store, models)
    if not rows:
        return []
    groups = (longbench.OVERALL, *longbench.DIFFICULTY_GROUPS, *longbench.BUCKET_GROUPS)
    table = []
    for r in rows:
        cells = [longbench.shown(r.groups[g].accuracy) if g in r.groups else "-" for g in groups]
        cells.insert(1, longbench.shown(r.overall.compensated))
        table.append(
            [r.model, longbench.MODES.get(r.task, r.task), format_length(r.length), *cells,
             str(r.overall.n), str(r.overall.unparsed), str(r.left_out)]
        )  # fmt: skip
    headers = ["model", "mode", "length", longbench.HEADINGS[longbench.OVERALL], "Comp."]
    headers += [longbench.HEADINGS[g] for g in groups[1:]]
    return [
        Heading("LongBench v2 accuracy (%)", 3),
        Paragraph(
            "Comp.: compensated, an answer naming no option counts 0.25; unparsed: answers "
            "naming no option; left out: errors and answers without a score."
        ),
        Table([*headers, "n", "unparsed", "left out"], table),
    ]
