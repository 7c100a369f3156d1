"""The focused generation, streaming: its question, its text so far, then its verdict.

The panel redraws only when the focused stream's version moved, and only from the
screen's timer (or a key press), so a fast stream costs one redraw per frame, not one
per token. It wraps the text itself and shows the last lines that fit, like a
terminal: a redraw repaints this widget alone, with no layout pass of the screen
(that pass was most of the cost of a frame under 16 streams).
"""

from __future__ import annotations

from textual import events
from textual.content import Content
from textual.geometry import Region
from textual.widget import Widget

from lctui.core.lengths import format_length
from lctui.core.text import abbreviate, cell_width, control_pictures, escape_unprintable, shorten
from lctui.tui.state.run_progress import StreamView

CURSOR = "▌"
QUESTION_CHARS = 240  # the question, for context; the prompt is the inspector's job
MAX_CHARS = 8000  # the tail kept; outputs are short, but a runaway one must not slow drawing


def stream_text(view: StreamView | None) -> Content:
    """The body of the panel for one generation (theme colours, so themes apply)."""
    if view is None:
        return Content.styled("waiting for the first example…", "$text-muted italic")
    parts: list[str | tuple[str, str]] = [
        (escape_unprintable(shorten(view.question, QUESTION_CHARS)) + "\n", "$text-muted italic"),
        # The output as it streams: its lines, any other control character one cell.
        control_pictures(view.text[-MAX_CHARS:]),
    ]
    if not view.finished:
        # A paused run still finishes what it started: this stream goes on.
        parts.append((CURSOR, "bold"))
        return Content.assemble(*parts)
    parts.append("\n\n")
    if view.status == "error":
        parts += [("error: ", "bold $text-error"), escape_unprintable(view.error or "unknown")]
        return Content.assemble(*parts)
    score = "—" if view.score is None else f"{view.score:.2f}"
    parts.append((f"score {score}", "bold $text-success" if view.score == 1.0 else "bold"))
    parts.append((f" ({view.status})", "$text-muted"))
    if view.gold:
        parts += [("  gold: ", "$text-muted"), escape_unprintable(", ".join(view.gold))]
    return Content.assemble(*parts)


NO_STREAM_TITLE = "focused: —"
SHORTEST_TASK = 8  # a task is shortened down to this before its model is


def stream_title(view: StreamView | None, width: int) -> str:
    """The panel's title within `width` cells: the example (task, index, length) and its
    model, whole where they fit; else the task, then the model, shortened in their
    middle (`abbreviate`: `niah_m…ikey_1`), never both cut at the end."""
    if view is None:
        return NO_STREAM_TITLE
    task, model = view.cell.task, view.cell.model
    where = f" #{view.index} @{format_length(view.cell.length)}"
    full = f"{task}{where} · {model}"
    if width <= 0 or cell_width(full) <= width:
        return full
    room = width - cell_width(where) - len(" · ")
    over = cell_width(task) + cell_width(model) - room
    task_w = max(min(cell_width(task), SHORTEST_TASK), cell_width(task) - over)
    model_w = max(3, room - task_w)
    return f"{abbreviate([task], task_w)[0]}{where} · {abbreviate([model], model_w)[0]}"


class StreamPanel(Widget):
    """Shows the end of the focused stream; the inspector shows all of it."""

    DEFAULT_CSS = """
    StreamPanel { border: round $primary; padding: 0 1; height: 1fr; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.border_title = NO_STREAM_TITLE
        self._view: StreamView | None = None  # the stream shown, titled again on resize
        self._shown: tuple[str | None, int, bool] = (None, -1, False)
        self._body = stream_text(None)
        self._lines: list[Content] = []  # the wrapped tail on screen
        self._wrapped_for: tuple[int, int] = (0, 0)
        self.text = self._body.plain  # the text last drawn, for tests and benchmarks

    def show(self, view: StreamView | None, *, follow: bool, paused: bool = False) -> bool:
        """Redraw if the focused stream changed; returns whether it did."""
        key = (view.generation_id if view else None, view.version if view else -1, paused)
        if key == self._shown:
            return False
        same_stream = key[0] == self._shown[0] and paused == self._shown[2]
        self._shown, self._view = key, view
        title = self._title()
        subtitle = "following the newest (f: pick)" if follow else "l: follow newest"
        if paused and view is not None and not view.finished:
            subtitle = "paused: this one finishes, no new one starts"
        if (title, subtitle) != (self.border_title, self.border_subtitle):
            self.border_title, self.border_subtitle = title, subtitle
            same_stream = False
        self._body = stream_text(view)
        self.text = self._body.plain
        old, self._lines = self._lines, self._wrap()
        if not same_stream or len(old) != len(self._lines):
            self.refresh()
            return True
        # A token usually changes the last line only: repaint just the lines that
        # differ (a frame of a 40-line panel was ~9 ms on a busy 2-core machine).
        first = next(
            (
                i
                for i, (a, b) in enumerate(zip(old, self._lines, strict=True))
                # Content's == compares the text only; styles matter here too.
                if a.plain != b.plain or a.spans != b.spans
            ),
            None,
        )
        if first is not None:
            top = self.styles.gutter.top + first
            self.refresh(Region(0, top, self.size.width, len(self._lines) - first))
        return True

    def _title(self) -> str:
        # The border's corners and the spaces around the title take 4 cells.
        return stream_title(self._view, self.size.width - 4)

    def on_resize(self, event: events.Resize) -> None:
        self.border_title = self._title()

    def _wrap(self) -> list[Content]:
        """The last lines of the body that fit the content area."""
        width, height = self.content_size.width, self.content_size.height
        self._wrapped_for = (width, height)
        if width <= 0 or height <= 0:
            return []
        lines = self._body.wrap(width)
        return lines[len(lines) - height :] if len(lines) > height else lines

    def render(self) -> Content:
        if self._wrapped_for != (self.content_size.width, self.content_size.height):
            self._lines = self._wrap()  # resized since the last show()
        # Textual's own Content, not a Rich Text: converting Rich renderables was most
        # of the panel's frame time.
        return Content("\n").join(self._lines)
