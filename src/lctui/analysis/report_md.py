"""Markdown and HTML reports of a comparison, a correlation matrix or a run, for pasting
into a paper draft or an issue.

A report is a list of blocks (headings, paragraphs, tables) rendered either way; a
table may carry a heat scale, shown in HTML as inline background colours and in
markdown by the cell values themselves.
"""

from __future__ import annotations

import html
import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from lctui.analysis.compare import CompareResult
from lctui.analysis.correlation import CorrelationMatrix
from lctui.analysis.outdated import find_outdated, outdated_line
from lctui.core.errors import UserInputError
from lctui.core.formatting import fixed, interval, p_value
from lctui.core.lengths import format_length
from lctui.store.db import Store
from lctui.store.read import cells as cell_reads
from lctui.store.read import runs

FORMATS = ("md", "html")
CHANGED_SHOWN = 20
WARNING = "Warning: "  # starts the paragraphs that say the report mixes scorer versions

# Colour stops (RGB) of the heat scales: scores 0..1, and signed values -1..1.
_SEQUENTIAL = ((0.0, (230, 124, 115)), (0.5, (255, 214, 102)), (1.0, (87, 187, 138)))
_DIVERGING = ((-1.0, (230, 124, 115)), (0.0, (255, 255, 255)), (1.0, (109, 158, 235)))


@dataclass(frozen=True)
class Heading:
    text: str
    level: int = 2


@dataclass(frozen=True)
class Paragraph:
    text: str


@dataclass(frozen=True)
class Table:
    headers: Sequence[str]
    rows: Sequence[Sequence[str]]
    # Per-cell values that colour the HTML cells (None: no colour), and their scale.
    heat: Sequence[Sequence[float | None]] | None = None
    diverging: bool = False


Block = Heading | Paragraph | Table


def warning_blocks(lines: Sequence[str]) -> list[Block]:
    """A paragraph per warning line (analysis/outdated.py)."""
    return [Paragraph(WARNING + line) for line in lines]


def warnings_of(blocks: Sequence[Block]) -> list[str]:
    """The warning lines a report carries, for the CLI to repeat on stderr."""
    return [
        b.text.removeprefix(WARNING)
        for b in blocks
        if isinstance(b, Paragraph) and b.text.startswith(WARNING)
    ]


def render(blocks: Sequence[Block], fmt: str) -> str:
    """The blocks as markdown (`md`) or a standalone HTML fragment (`html`)."""
    if fmt == "md":
        return "\n\n".join(_markdown(b) for b in blocks) + "\n"
    if fmt == "html":
        return "\n".join(_html(b) for b in blocks) + "\n"
    raise UserInputError(f"unknown report format {fmt!r}: use one of {', '.join(FORMATS)}")


def _escape_md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _markdown(block: Block) -> str:
    if isinstance(block, Heading):
        return f"{'#' * block.level} {block.text}"
    if isinstance(block, Paragraph):
        return block.text
    lines = [
        "| " + " | ".join(_escape_md(h) for h in block.headers) + " |",
        "|"
        + "|".join("---:" if _numeric(block, j) else "---" for j in range(len(block.headers)))
        + "|",
    ]
    lines += ["| " + " | ".join(_escape_md(c) for c in row) + " |" for row in block.rows]
    return "\n".join(lines)


def _numeric(table: Table, column: int) -> bool:
    """Whether a column holds numbers (right-aligned), judged by its first character."""
    cells = [row[column] for row in table.rows if row[column] not in ("", "-")]
    return column > 0 and bool(cells) and all(c[0] in "0123456789+-.[" for c in cells)


def _html(block: Block) -> str:
    if isinstance(block, Heading):
        return f"<h{block.level}>{html.escape(block.text)}</h{block.level}>"
    if isinstance(block, Paragraph):
        return f"<p>{html.escape(block.text)}</p>"
    stops = _DIVERGING if block.diverging else _SEQUENTIAL
    head = "".join(f"<th>{html.escape(h)}</th>" for h in block.headers)
    body = []
    for i, row in enumerate(block.rows):
        cells = []
        for j, text in enumerate(row):
            value = block.heat[i][j] if block.heat is not None else None
            style = "padding:2px 6px;" + ("" if j == 0 else "text-align:right;")
            if value is not None:
                style += f"background:{_colour(value, stops)};"
            cells.append(f'<td style="{style}">{html.escape(text)}</td>')
        body.append("<tr>" + "".join(cells) + "</tr>")
    return (
        '<table style="border-collapse:collapse;font-family:monospace">'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    )


def _colour(value: float, stops: Sequence[tuple[float, tuple[int, int, int]]]) -> str:
    value = min(max(value, stops[0][0]), stops[-1][0])
    for (x0, c0), (x1, c1) in itertools.pairwise(stops):
        if value <= x1:
            t = (value - x0) / (x1 - x0)
            r, g, b = (round(a + (z - a) * t) for a, z in zip(c0, c1, strict=True))
            return f"#{r:02x}{g:02x}{b:02x}"
    raise AssertionError("unreachable: value is clamped to the last stop")


def compare_blocks(result: CompareResult, db: str | None = None) -> list[Block]:
    """A comparison: one row per task x length, then the changed examples; a warning
    first for a side scored by an older scorer version (`db` goes into its fix)."""
    a, b = result.a.spec, result.b.spec
    rows, heat = [], []
    for c in result.cells:
        rows.append(
            [c.label, format_length(c.length), str(c.n), fixed(c.mean_a), fixed(c.mean_b),
             fixed(c.diff, signed=True), interval(c.ci.low, c.ci.high), c.test, p_value(c.p)]
        )  # fmt: skip
        heat.append([None, None, None, c.mean_a, c.mean_b, c.diff, None, None, None])
    headers = ["task", "length", "n", "A", "B", "A - B", "95% CI", "test", "p"]
    blocks: list[Block] = [
        Heading(f"{a} (A) vs {b} (B)"),
        Paragraph(
            f"Paired by example: {result.only_a} example(s) only A has and {result.only_b} "
            f"only B has are left out, as are {result.errors_a} pair(s) where A failed and "
            f"{result.errors_b} where B failed{_unscored_pairs(result)}. Pass/fail cells: "
            "exact McNemar and a t interval; graded cells: Wilcoxon signed-rank and a paired "
            "bootstrap interval."
        ),
        *warning_blocks(outdated_sides(result, db)),
        Table(headers, rows, heat, diverging=True),
        Paragraph(
            f"Changed examples (|A - B| >= {result.threshold:g}): {result.a_better} where A "
            f"is better, {result.b_better} where B is better."
        ),
    ]
    if result.changed:
        shown = result.changed[:CHANGED_SHOWN]
        blocks.append(
            Table(
                ["task", "length", "example", "A", "B", "generation A", "generation B"],
                [
                    [
                        ch.task,
                        format_length(ch.length),
                        ch.example_id,
                        fixed(ch.score_a),
                        fixed(ch.score_b),
                        ch.generation_a,
                        ch.generation_b,
                    ]
                    for ch in shown
                ],
            )
        )
    return blocks


def outdated_sides(result: CompareResult, db: str | None = None) -> list[str]:
    """A line per side with scores an older scorer version made (compared all the same)."""
    lines = []
    for name, spec, found in (
        ("A", result.a.spec, result.outdated_a),
        ("B", result.b.spec, result.outdated_b),
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


def correlation_blocks(matrix: CorrelationMatrix) -> list[Block]:
    """The rho matrix as a heatmap table, then p and n of every pair."""
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
    return [
        Heading(f"Spearman rho across {len(matrix.models)} models by {d['by']} @ {at}"),
        Table(["", *labels], rho_rows, heat, diverging=True),
        Table(["pair", "rho", "p", "n", "note"], pairs),
        Paragraph("Models: " + ", ".join(matrix.models) + "."),
    ]


def run_blocks(store: Store, run_id: str | None = None) -> list[Block]:
    """A run (the latest if None): its summary and the model x task x length heatmap."""
    summary = runs.run_summary(store, run_id)
    if summary is None:
        raise UserInputError(
            f"no run {run_id!r} in {store.where}" if run_id else f"{store.where} holds no run"
        )
    cells = cell_reads.cell_scores(store, run_id=summary.run_id)
    lengths = sorted({c.length for c in cells})
    grid: dict[tuple[str, str], dict[int, cell_reads.CellScore]] = {}
    for c in cells:
        grid.setdefault((c.model, c.task), {})[c.length] = c
    rows, heat = [], []
    for (model, task), by_length in sorted(grid.items()):
        row: list[str] = [f"{model} / {task}"]
        values: list[float | None] = [None]
        for n in lengths:
            cell = by_length.get(n)
            text = "" if cell is None else _cell_text(cell)
            row.append(text)
            values.append(None if cell is None else cell.mean_score)
        rows.append(row)
        heat.append(values)
    mean = fixed(summary.mean_score)
    # A missing score is counted apart, never as a 0 (store/views.py: `unscored`).
    missing = f", {summary.unscored} not scored" if summary.unscored else ""
    outdated = outdated_line(find_outdated(store, run_id=summary.run_id), store.where)
    return [
        Heading(f"Run {summary.run_id}"),
        Paragraph(
            f"Status {summary.status}, started {summary.started_at}; models "
            f"{', '.join(summary.models)}; {summary.generations} generations: {summary.ok} ok, "
            f"{summary.unparsed} unparsed, {summary.errors} errors, {summary.cancelled} "
            f"cancelled{missing}; mean score {mean} (errors and missing scores excluded)."
        ),
        *warning_blocks([outdated] if outdated else []),
        Table(["model / task", *(format_length(n) for n in lengths)], rows, heat),
    ]


def _cell_text(cell: cell_reads.CellScore) -> str:
    """'0.67 n=3', with the errors and the missing scores counted apart."""
    text = f"{fixed(cell.mean_score, 2)} n={cell.n_scored}"
    if cell.n_error:
        text += f" err={cell.n_error}"
    if cell.n_unscored:
        text += f" not scored={cell.n_unscored}"
    return text
