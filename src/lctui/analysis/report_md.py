"""Markdown and HTML reports of a comparison, a correlation matrix or a run, for pasting
into a paper draft or an issue, or sending as one file.

A report is a list of blocks (analysis/report_blocks.py) rendered either way: markdown
shows the tables (a heat scale by the cell values themselves), the HTML page
(analysis/report_html.py) colours them and draws the figures. The run's sections are
built in analysis/report_run.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from lctui import __version__
from lctui.analysis.compare import CompareResult, interval_notes, side_notes
from lctui.analysis.correlation import CorrelationMatrix, SyntheticDownstream
from lctui.analysis.outdated import outdated_line
from lctui.analysis.report_blocks import (
    Block,
    Figure,
    Heading,
    Paragraph,
    Table,
    numeric_column,
    warning_blocks,
)
from lctui.analysis.report_html import page
from lctui.analysis.stats import MIN_INTERVAL_PAIRS, TOO_FEW_PAIRS
from lctui.analysis.svg_plots import Estimate, interval_chart, scatter_chart
from lctui.core.errors import UserInputError
from lctui.core.formatting import fixed, p_value
from lctui.core.lengths import format_length
from lctui.core.text import escape_unprintable

FORMATS = ("md", "html")
CHANGED_SHOWN = 50  # changed examples listed (the counts above the list cover all)
SCATTERS_SHOWN = 12  # pairs of a correlation drawn as scatters
SIGNIFICANT = 0.05


def render(
    blocks: Sequence[Block], fmt: str, *, title: str | None = None, source: str | None = None
) -> str:
    """The blocks as markdown (`md`) or a standalone HTML page (`html`). The page's title
    is `title`, else its first heading's text (which it then replaces); `source` (the
    database) is named under it with lctui's version and the time."""
    if fmt == "md":
        return "\n\n".join(text for b in blocks if (text := _markdown(b))) + "\n"
    if fmt != "html":
        raise UserInputError(f"unknown report format {fmt!r}: use one of {', '.join(FORMATS)}")
    body = list(blocks)
    if title is None:
        first = body[0] if body else None
        title = first.text if isinstance(first, Heading) else "lctui report"
        if isinstance(first, Heading):
            body = body[1:]
    when = datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    meta = f"Written by lctui {__version__} on {when}" + (f" from {source}" if source else "")
    return page(body, title, meta + ".")


def _escape_md(text: str) -> str:
    return escape_unprintable(text.replace("|", "\\|").replace("\n", " "))


def _markdown(block: Block) -> str:
    # A heading or a paragraph is one line of text: a name in it (a model's, a task's)
    # shows its control characters as escapes rather than breaking or colouring it.
    if isinstance(block, Heading):
        return f"{'#' * block.level} {escape_unprintable(block.text)}"
    if isinstance(block, Paragraph):
        return escape_unprintable(block.text)
    if isinstance(block, Figure):
        return ""  # the tables beside it hold its numbers
    lines = [
        "| " + " | ".join(_escape_md(h) for h in block.headers) + " |",
        "|"
        + "|".join("---:" if numeric_column(block, j) else "---" for j in range(len(block.headers)))
        + "|",
    ]
    lines += ["| " + " | ".join(_escape_md(c) for c in row) + " |" for row in block.rows]
    return "\n".join(lines)


def compare_blocks(result: CompareResult, db: str | None = None) -> list[Block]:
    """A comparison: one row per task x length with its interval (a table and, in HTML,
    a picture), then the changed examples; a warning first for a side scored by an
    older scorer version (`db` goes into its fix)."""
    a, b = result.a.label, result.b.label
    rows, heat = [], []
    for c in result.cells:
        rows.append(
            [c.label, format_length(c.length), str(c.n), fixed(c.mean_a), fixed(c.mean_b),
             fixed(c.diff, signed=True), c.ci.shown(), c.test, p_value(c.p),
             str(c.a_better), str(c.b_better)]
        )  # fmt: skip
        heat.append([*[None] * 5, c.diff, *[None] * 5])  # A - B on the signed scale
    headers = ["task", "length", "n", "A", "B", "A - B", "95% CI", "test", "p", "A>B", "B>A"]
    blocks: list[Block] = [
        Heading(f"{a} (A) vs {b} (B)"),
        Paragraph(
            f"Paired by example: {result.only_a} example(s) only A has and {result.only_b} "
            f"only B has are left out, as are {result.errors_a} pair(s) where A failed and "
            f"{result.errors_b} where B failed{_unscored_pairs(result)}. Pass/fail cells: "
            "exact McNemar and Newcombe's interval for paired proportions (Newcombe 1998, "
            "method 10); graded cells: Wilcoxon signed-rank and a paired bootstrap "
            "percentile interval. Both lie within [-1, 1], the range of a difference of "
            f"scores; below {MIN_INTERVAL_PAIRS} pairs a cell has none ({TOO_FEW_PAIRS}). "
            "A>B and B>A count the changed pairs of each cell."
        ),
        *[Paragraph(note) for note in (*side_notes(result), *interval_notes(result))],
        *warning_blocks(outdated_sides(result, db)),
        Table(headers, rows, heat, diverging=True),
    ]
    if result.cells:
        blocks.append(_interval_figure(result))
    blocks.append(
        Paragraph(
            f"Changed examples (|A - B| >= {result.threshold:g}): {result.a_better} where A "
            f"is better, {result.b_better} where B is better"
            + (
                f"; the first {CHANGED_SHOWN} are listed."
                if result.a_better + result.b_better > CHANGED_SHOWN
                else "."
            )
        )
    )
    if result.changed:
        blocks.append(
            Table(
                ["task", "length", "example", "A", "B", "better", "generation A", "generation B"],
                [
                    [
                        ch.task,
                        format_length(ch.length),
                        ch.example_id,
                        fixed(ch.score_a),
                        fixed(ch.score_b),
                        "A" if ch.a_better else "B",
                        ch.generation_a,
                        ch.generation_b,
                    ]
                    for ch in result.changed[:CHANGED_SHOWN]
                ],
            )
        )
    return blocks


def _interval_figure(result: CompareResult) -> Figure:
    rows = [
        Estimate(
            f"{c.label} @ {format_length(c.length)}",
            c.diff,
            c.ci.low,
            c.ci.high,
            marked=c.p is not None and c.p < SIGNIFICANT,
        )
        for c in result.cells
    ]
    chart = interval_chart(rows, title="A - B with its 95% interval", x_label="A - B")
    return Figure(
        f"Each cell's mean difference (dot) and interval (bar; none with {TOO_FEW_PAIRS}); "
        f"blue where p < {SIGNIFICANT}, grey where not. Right of the line A scores higher.",
        [chart],
    )


def outdated_sides(result: CompareResult, db: str | None = None) -> list[str]:
    """A line per side with scores an older scorer version made (compared all the same)."""
    lines = []
    for name, spec, found in (
        ("A", result.a.label, result.outdated_a),
        ("B", result.b.label, result.outdated_b),
    ):
        line = outdated_line(found, db)
        if line is not None:
            lines.append(f"side {name} ({spec}): {line}")
    return lines


def _unscored_pairs(result: CompareResult) -> str:
    """The pairs left out for a missing score (never paired as a 0), if any."""
    if not (result.unscored_a or result.unscored_b):
        return ""
    return (
        f", and {result.unscored_a} where A's score is missing and {result.unscored_b} where B's is"
    )


def correlation_blocks(
    matrix: CorrelationMatrix, synthetic: SyntheticDownstream | None = None
) -> list[Block]:
    """The rho matrix as a heatmap table, p and n of every pair, and (drawn in HTML) the
    scatter behind each coefficient and synthetic against downstream when given."""
    d = matrix.as_dict()
    at = format_length(d["length"]) if d["length"] is not None else "all lengths"
    labels = matrix.labels
    rho_rows = [[x, *(fixed(v, 2) for v in row)] for x, row in zip(labels, d["rho"], strict=True)]
    heat = [[None, *row] for row in d["rho"]]
    pairs = [
        [f"{x} / {y}", fixed(matrix.cells[i][j].rho, 2), p_value(matrix.cells[i][j].p),
         str(matrix.cells[i][j].n), matrix.cells[i][j].reason or ""]
        for i, x in enumerate(labels) for j, y in enumerate(labels) if j > i
    ]  # fmt: skip
    blocks: list[Block] = [
        Heading(f"Spearman rho across {len(matrix.models)} models by {d['by']} @ {at}"),
        Table(["", *labels], rho_rows, heat, diverging=True),
        Table(["pair", "rho", "p", "n", "note"], pairs),
        Paragraph("Models: " + ", ".join(matrix.models) + "."),
    ]
    scatters = [
        scatter_chart(
            [(p.model, p.x, p.y) for p in matrix.scatter(x, y)],
            title=f"rho {fixed(matrix.cells[i][j].rho, 2)}",
            x_label=x,
            y_label=y,
            width=330,
            height=280,
        )
        for i, x in enumerate(labels)
        for j, y in enumerate(labels)
        if j > i and matrix.cells[i][j].rho is not None
    ]
    if scatters:
        more = len(scatters) - SCATTERS_SHOWN
        blocks.append(
            Figure(
                "Each model's two scores behind a coefficient"
                + (
                    f" (the first {SCATTERS_SHOWN}; {more} more pairs in the table)."
                    if more > 0
                    else "."
                ),
                scatters[:SCATTERS_SHOWN],
            )
        )
    if synthetic is not None and synthetic.points:
        blocks += [
            Heading("Synthetic vs downstream", 3),
            Paragraph(
                f"Each model's synthetic score against its mean over {synthetic.downstream}: "
                f"rho {fixed(synthetic.overall.rho, 2)}, p {p_value(synthetic.overall.p)}, "
                f"n {synthetic.overall.n}"
                + (f" ({synthetic.overall.reason})." if synthetic.overall.reason else ".")
            ),
            Figure(
                "One dot per model.",
                [
                    scatter_chart(
                        [(p.model, p.x, p.y) for p in synthetic.points],
                        title="synthetic vs downstream",
                        x_label="synthetic",
                        y_label="downstream mean",
                    )
                ],
            ),
        ]
    return blocks
