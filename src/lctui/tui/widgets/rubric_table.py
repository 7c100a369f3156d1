"""The rubric panel of the inspector: every score's points, and a summary per score.

Every suite's scorer yields the same shape (points with capabilities, weight, earned
fraction and explanation), so one table serves all of them. The point column wraps
and carries the explanation under the point's name, as the inspector's first sketch drew it.

A score whose points name two or more capabilities (LIFEval's) is grouped by
capability: a heading row per capability with its earned / total weight, then its
points. A point with several capabilities is listed under each of them, as IFP counts
it for each, with the others named in its caps column ("+Fmt"). Scores whose points
share one capability (RULER's, all Recog) stay a flat list.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from lctui.scoring.relation import score_relation
from lctui.scoring.rubric import CAPABILITIES
from lctui.store.read.generations import GenerationRecord, RubricPointRecord, ScoreRecord
from lctui.tui.widgets.fitted_table import FittedTable


def capability_groups(
    points: Sequence[RubricPointRecord],
) -> list[tuple[str, list[RubricPointRecord]]] | None:
    """(capability, its points) in the canonical capability order, or None when the
    points name fewer than two capabilities (a grouping would only repeat the score)."""
    groups: dict[str, list[RubricPointRecord]] = {}
    for point in points:
        for capability in point.capabilities:
            groups.setdefault(str(capability), []).append(point)
    if len(groups) < 2:
        return None
    order = {name: i for i, name in enumerate(CAPABILITIES)}
    return sorted(groups.items(), key=lambda item: (order.get(item[0], len(order)), item[0]))


class RubricTable(FittedTable):
    """One row per rubric point; a heading row per score when there are several."""

    DEFAULT_CSS = """
    RubricTable { width: 1fr; height: auto; max-height: 100%; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, show_cursor=False)
        self.scores: list[ScoreRecord] = []

    def show_scores(self, scores: Sequence[ScoreRecord]) -> None:
        self.scores = list(scores)
        self._populate()

    def point_names(self) -> list[str]:
        return [p.name for s in self.scores for p in s.points]

    def _populate(self) -> None:
        self._width = self.size.width
        cursor_row = self.cursor_row
        self.clear(columns=True)
        points = [p for s in self.scores for p in s.points]
        caps = [", ".join(p.capabilities) for p in points]
        cap_width = min(16, max([4, *map(len, caps)]))
        weight_width = max([1, *(len(f"{p.weight:g}") for p in points)])
        # Four columns of padding 1 + 1, and a cell for the scrollbar.
        fixed = cap_width + weight_width + len("earned") + 4 * 2 + 1
        point_width = max(12, (self._width or 60) - fixed)
        self.add_column("point", width=point_width, key="point")
        self.add_column("caps", width=cap_width, key="capabilities")
        self.add_column("w", width=weight_width, key="weight")
        self.add_column("earned", width=len("earned"), key="earned")
        colours = self.app.theme_variables
        several = len(self.scores) > 1
        for score in self.scores:
            if several:
                heading = Text(f"{score.scorer} / {score.metric}", style="bold")
                self.add_row(heading, Text(""), Text(""), Text(""))
            score_points = score.points
            if not score_points:
                self.add_row(Text("no rubric points", style="italic dim"), *[Text("")] * 3)
            groups = capability_groups(score_points)
            if groups is None:
                for point in score_points:
                    self._add_point(point, colours)
                continue
            for capability, members in groups:
                total = sum(p.weight for p in members)
                earned = sum(p.weight * p.earned for p in members)
                fraction = earned / total if total else 0.0
                heading = Text(capability, style=f"bold {colours.get('primary', 'blue')}")
                heading.append(f"  {earned:.3g} of {total:g} earned", style="dim")
                self.add_row(
                    heading,
                    Text(""),
                    Text(f"{total:g}", justify="right", style="bold"),
                    _earned_cell(fraction, colours, bold=True),
                )
                for point in members:
                    self._add_point(point, colours, group=capability)
        if self.row_count:
            self.move_cursor(row=min(cursor_row, self.row_count - 1))

    def _add_point(
        self, point: RubricPointRecord, colours: Mapping[str, str], group: str = ""
    ) -> None:
        """One point's row; under a capability heading it is indented and its caps cell
        names only its other capabilities."""
        indent = "  " if group else ""
        cell = Text(indent + point.name, style="bold")
        if point.explanation:
            cell.append(f"\n{indent}{point.explanation}", style="italic dim")
        capabilities = list(point.capabilities)
        if group:
            caps = " ".join(f"+{c}" for c in capabilities if c != group)
        else:
            caps = ", ".join(capabilities) or "-"
        self.add_row(
            cell,
            Text(caps, style="dim" if group else ""),
            Text(f"{point.weight:g}", justify="right"),
            _earned_cell(point.earned, colours),
            height=None,
        )


def _earned_cell(earned: float, colours: Mapping[str, str], bold: bool = False) -> Text:
    style = _earned_style(earned, colours) + (" bold" if bold else "")
    return Text(f"{earned:.2f}", style=style, justify="right")


def _earned_style(earned: float, colours: Mapping[str, str]) -> str:
    if earned >= 0.999:
        return colours.get("success", "green")
    if earned <= 0.0:
        return colours.get("error", "red")
    return colours.get("warning", "yellow")


def score_summary(scores: Sequence[ScoreRecord], generation_error: str | None) -> Content:
    """One line per score: metric, value and status; errors in the error colour, never as 0."""
    if generation_error is not None:
        return Content.assemble(
            ("error", "bold $error"),
            (f": the request failed ({generation_error}); excluded from means", "$error"),
        )
    if not scores:
        return Content.styled("not scored yet (s scores it)", "italic $text-muted")
    parts: list[Content] = []
    for score in scores:
        status = score.status
        metric = score.metric or score.scorer
        explanation = score.explanation or ""
        if status == "error" or score.value is None:
            parts.append(
                Content.assemble(
                    (f"{metric} ", "bold"),
                    ("error", "bold $error"),
                    (f": {explanation} (excluded from means)", "$error"),
                )
            )
            continue
        style = "$success" if status == "ok" else "$warning"
        note = "  (no answer extracted: scores 0, counted apart)" if status == "unparsed" else ""
        parts.append(
            Content.assemble(
                (f"{metric} ", "bold"),
                (f"{score.value:.2f}", "bold"),
                "  status ",
                (status, f"bold {style}"),
                (note, style),
                ("\n" + explanation, "italic $text-muted"),
            )
        )
    return Content("\n").join(parts)


def score_relations(scores: Sequence[ScoreRecord], gold_count: int | None) -> Content:
    """Per score with a value: how the value relates to the rubric points above it
    (the metric's rule; whether the points are the score or diagnostics beside it)."""
    lines = [
        score_relation(score.scorer or "", score.metric or "", gold_count)
        for score in scores
        if score.value is not None and score.status != "error"
    ]
    return Content.styled("\n".join(lines), "$text-muted")


def lifbench_levels(record: GenerationRecord) -> Content | None:
    """The LIFBench levels of the record's example (scenario, task, expression and
    variable), or None for other suites. Imported published rows keep LIFBench's
    ins_id and param_id as their expression and variable."""
    metadata = record.metadata
    if "scenario" not in metadata or "expression" not in metadata:
        return None
    params = record.params or {}
    imported = isinstance(params, Mapping) and "ins_id" in params
    task = metadata.get("lifeval_task") or record.task
    fields = [
        ("scenario", metadata["scenario"]),
        ("task", task),
        ("expression (ins_id)" if imported else "expression", metadata["expression"]),
        ("variable (param_id)" if imported else "variable", metadata.get("variable", "?")),
    ]
    parts = [Content.assemble((f"{name} ", "$text-muted"), (str(v), "bold")) for name, v in fields]
    return Content("  ·  ").join(parts)


class RubricPanel(VerticalScroll):
    """The rubric table with the score lines under it and, last, how each score relates
    to its points, for one generation's record; LIFBench examples get a line with their
    scenario, expression and variable on top."""

    DEFAULT_CSS = """
    RubricPanel #score-lines { margin-top: 1; }
    RubricPanel #score-relation { margin-top: 1; }
    RubricPanel #example-levels { display: none; margin-bottom: 1; }
    RubricPanel.-levels #example-levels { display: block; }
    """

    def compose(self) -> ComposeResult:
        yield Static(id="example-levels")
        yield RubricTable(id="rubric")
        yield Static(id="score-lines")
        yield Static(id="score-relation")

    def on_mount(self) -> None:
        self.border_title = "Rubric"

    def show(self, record: GenerationRecord) -> None:
        levels = lifbench_levels(record)
        self.set_class(levels is not None, "-levels")
        self.query_one("#example-levels", Static).update(levels or "")
        scores = record.scores
        self.query_one(RubricTable).show_scores(scores)
        error = str(record.error) if record.status == "error" else None
        self.query_one("#score-lines", Static).update(score_summary(scores, error))
        gold_count = len(record.gold)
        self.query_one("#score-relation", Static).update(score_relations(scores, gold_count))
