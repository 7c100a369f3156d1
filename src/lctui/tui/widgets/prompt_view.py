"""PromptView: a virtual-scrolling viewer for a very long prompt with marked spans.

Modelled on Toolong's log view: a `ScrollView` whose `render_line` paints only the
visible lines, from an LRU cache of strips. Soft-wrapping is incremental (see
`prompt_wrap.WrapIndex`): the first screen needs only its own lines, and the rest
of a 128K-token prompt is wrapped in slices by a worker that yields between them.
Needles, gold values and distractors are coloured from the theme's `needle` and
`gold` variables; `select_next` / `select_previous` / `select_first_gold` move
between them (needles and distractors alike: "needle 2 of 4") and scroll the chosen
one into view. Gold values found in a context that marks none (cwe's words) are
marked on the first `select_first_gold`; until then the frame says what the prompt
holds. A span with no width (start == end)
is a marker: a line of its own before the text at its offset (a LongBench v2 prompt's
middle cut), painted with its label, never part of the text; jumps stop at it too.
"""

from __future__ import annotations

import asyncio
import time
from bisect import bisect_right
from collections.abc import Sequence

from rich.cells import cell_len
from rich.color import Color as RichColor
from rich.segment import Segment
from rich.style import Style
from textual import work
from textual.cache import LRUCache
from textual.color import Color, ColorParseError
from textual.events import Resize
from textual.geometry import Region, Size
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.theme import Theme

from lctui.core.text import cell_width, control_pictures, shorten
from lctui.tui.state.prompt_marks import MarkedSpan, target_title
from lctui.tui.state.prompt_wrap import WrapIndex

# Prompts up to this size are wrapped at once (a few ms); longer ones lazily.
SYNC_WRAP_CHARS = 200_000
# Higher rank wins where spans overlap (a gold value sits inside its needle).
KIND_RANK = {"gold": 3, "needle": 2, "distractor": 1}
MARKER_EDGE = "─"


class PromptView(ScrollView, can_focus=True):
    """The exact prompt text, soft-wrapped, with needle / gold spans highlighted."""

    DEFAULT_CSS = """
    PromptView {
        overflow-x: hidden;
        overflow-y: scroll;
        scrollbar-size-vertical: 1;
    }
    """

    def __init__(
        self, *, name: str | None = None, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.text = ""
        self._display = ""
        self.spans: list[MarkedSpan] = []
        self.markers: list[MarkedSpan] = []  # zero-width spans, each shown as a line
        self.targets: list[MarkedSpan] = []  # where n / N / g jump to, in text order
        self.selected: int | None = None  # index into targets
        self.shown: MarkedSpan | None = None  # a span shown by `show_span` (a passage)
        self.found: tuple[MarkedSpan, ...] = ()  # gold found in the text, marked by `g`
        self.unmarked = "nothing marked"  # what the prompt holds when it marks nothing
        self._bounds: list[int] = [0]  # elementary intervals of the span overlay
        self._ranks: list[int] = [-1]
        self._index: WrapIndex | None = None
        self._cache: LRUCache[int, Strip] = LRUCache(1024)
        self._styles: dict[int, Style] = {}
        self._marker_style = Style(bold=True)
        self.first_paint: float | None = None  # perf_counter of the first paint after load

    # -- content ---------------------------------------------------------------------

    def load(
        self,
        text: str,
        spans: Sequence[MarkedSpan],
        *,
        found: Sequence[MarkedSpan] = (),
        unmarked: str = "nothing marked",
    ) -> None:
        """Show `text` with `spans` marked, from the top; `found`: gold values found in
        the text, marked by the first `select_first_gold`; `unmarked`: what the frame
        says while nothing is marked."""
        self.text = text
        # What would act on the terminal (ESC, a bell, a bidi override) shows as one
        # visible cell each (␛, ␇, �): offsets and widths stay those of the prompt.
        self._display = control_pictures(text)
        size = len(text)
        self.found = tuple(s for s in found if 0 <= s.start < s.end <= size)
        self.unmarked = unmarked
        self.markers = sorted((s for s in spans if 0 <= s.start == s.end < size), key=_at)
        self._set_spans([s for s in spans if 0 <= s.start < s.end <= size])
        self.selected = None
        self.shown = None
        self.first_paint = None
        self._index = None
        self._rewrap(keep_offset=0)
        self.scroll_to(y=0, animate=False, immediate=True)
        self._update_subtitle()

    def _set_spans(self, spans: Sequence[MarkedSpan]) -> None:
        self.spans = sorted(spans, key=lambda s: (s.start, -s.end))
        self.targets = sorted([*_jump_targets(self.spans), *self.markers], key=_at)
        self._bounds, self._ranks = _overlay(self.spans, len(self.text))

    def on_mount(self) -> None:
        self._styles = self._span_styles()
        self._marker_style = self._marker_colour()
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)

    def _theme_changed(self, theme: Theme) -> None:
        self._styles = self._span_styles()
        self._marker_style = self._marker_colour()
        self._cache.clear()
        self.refresh()

    def on_resize(self, event: Resize) -> None:
        width = self._wrap_width()
        if self._index is None or self._index.width != width:
            top = self._top_offset()
            self._rewrap(keep_offset=top)
            self._keep_selected_in_view()

    def _keep_selected_in_view(self) -> None:
        """A re-wrap keeps the top line, which can push the selected needle off screen
        (or, after the view was hidden, lose the top line): bring the needle back."""
        current = self._current()
        if current is None or self._index is None:
            return
        line = self._index.line_of(current.start)
        top = round(self.scroll_y)
        if not top <= line < top + self.size.height:
            self.scroll_to(y=max(0, line - self.size.height // 3), animate=False, immediate=True)

    @property
    def wrapped_at(self) -> int:
        """The width the prompt's lines are wrapped at (0 before the view has a size)."""
        return self._index.width if self._index is not None else 0

    def _wrap_width(self) -> int:
        return self.scrollable_content_region.width

    def _top_offset(self) -> int:
        index = self._index
        y = round(self.scroll_y)
        if index is None or y >= index.wrapped_lines:
            return 0
        return index.starts[y]

    def _rewrap(self, keep_offset: int) -> None:
        width = self._wrap_width()
        self._cache.clear()
        if width <= 0:  # hidden (another tab): wrap when it gets a size
            self._index = None
            return
        index = WrapIndex(self._display, width, [m.start for m in self.markers])
        self._index = index
        if len(self._display) <= SYNC_WRAP_CHARS:
            while not index.wrap_some():
                pass
        else:
            index.ensure_line(round(self.scroll_y) + self.size.height)
            self._finish_wrap(index)
        self._set_virtual_size()
        if keep_offset:
            self.scroll_to(y=index.line_of(keep_offset), animate=False, immediate=True)
        self.refresh()

    @work(exclusive=True, group="prompt-wrap")
    async def _finish_wrap(self, index: WrapIndex) -> None:
        """Wrap the rest in slices, yielding to the event loop between them."""
        while not index.wrap_some():
            await asyncio.sleep(0)
            if index is not self._index:
                return  # a resize started another pass
        if index is self._index:
            self._set_virtual_size()

    def _set_virtual_size(self) -> None:
        lines = self._index.estimated_lines() if self._index else 0
        self.virtual_size = Size(self._wrap_width(), lines)

    # -- navigation ------------------------------------------------------------------

    def line_of(self, offset: int) -> int:
        """The screen line showing `offset` at the current width."""
        if self._index is None:
            self._rewrap(keep_offset=0)
        return self._index.line_of(offset) if self._index else 0

    def select_next(self) -> MarkedSpan | None:
        if not self.targets:
            return None
        if self.selected is None:
            top = self._top_offset()
            after = [i for i, t in enumerate(self.targets) if t.start >= top]
            return self._select(after[0] if after else 0)
        return self._select((self.selected + 1) % len(self.targets))

    def select_previous(self) -> MarkedSpan | None:
        if not self.targets:
            return None
        if self.selected is None:
            top = self._top_offset()
            before = [i for i, t in enumerate(self.targets) if t.start < top]
            return self._select(before[-1] if before else len(self.targets) - 1)
        return self._select((self.selected - 1) % len(self.targets))

    def select_first_gold(self) -> MarkedSpan | None:
        golds = [s for s in self.spans if s.kind == "gold"]
        if not golds and self.found:
            # The example marks no gold but its values are in the text: mark them now.
            self._set_spans([*self.spans, *self.found])
            self._cache.clear()
            golds = [s for s in self.spans if s.kind == "gold"]
        if not golds:
            return None
        gold = golds[0]
        inside = [i for i, t in enumerate(self.targets) if t.start <= gold.start < t.end]
        return self._select(inside[0], show=gold.start) if inside else None

    def show_span(self, span: MarkedSpan) -> MarkedSpan:
        """Select `span` (a passage the inspector lists) and scroll it into view."""
        self.selected = None
        self.shown = span
        self._scroll_to_offset(span.start)
        return span

    def _current(self) -> MarkedSpan | None:
        """The span painted as selected: a jump target, or a span shown by `show_span`."""
        return self.targets[self.selected] if self.selected is not None else self.shown

    def _select(self, i: int, show: int | None = None) -> MarkedSpan:
        """Select target `i` and scroll so that offset `show` (default: its start) is seen."""
        self.selected = i
        self.shown = None
        target = self.targets[i]
        self._scroll_to_offset(target.start if show is None else show)
        return target

    def _scroll_to_offset(self, offset: int) -> None:
        line = self.line_of(offset)
        self._set_virtual_size()
        # A third down the view, so the text before the needle is visible too.
        self.scroll_to(y=max(0, line - self.size.height // 3), animate=False, immediate=True)
        self._cache.clear()
        self.refresh()
        self._update_subtitle()

    def _update_subtitle(self) -> None:
        if self.shown is not None:
            self.border_subtitle = f"{self.shown.kind} {self.shown.label}".rstrip()
        elif not self.targets:
            self.border_subtitle = self.unmarked
        elif self.selected is None:
            self.border_subtitle = "n next  N previous  g gold"
        else:
            self.border_subtitle = target_title(self.targets, self.selected)

    def nothing_to_jump(self, to: str) -> str:
        """Why `n`/`N` (to: "needle") or `g` (to: "gold") found nothing to go to."""
        if to == "gold":
            return f"No gold value is marked or found in this prompt: {self.unmarked}."
        return f"Nothing marked to jump to: {self.unmarked}."

    # -- painting --------------------------------------------------------------------

    def render_lines(self, crop: Region) -> list[Strip]:
        strips = super().render_lines(crop)
        if self.first_paint is None and self._index is not None:
            self.first_paint = time.perf_counter()
        return strips

    def render_line(self, y: int) -> Strip:
        line = round(self.scroll_y) + y
        strip = self._cache.get(line)
        if strip is None:
            strip = self._render_text_line(line)
            self._cache[line] = strip
        return strip

    def _render_text_line(self, line: int) -> Strip:
        base = self.rich_style
        width = self.scrollable_content_region.width
        extent = self._index.line_range(line) if self._index else None
        if extent is None:
            return Strip.blank(width, base)
        start, end = extent
        selected = self._current()
        marker = self._index.marker_of(line) if self._index else None
        if marker is not None:
            return self._render_marker(marker, width, base, selected)
        bounds, ranks, text = self._bounds, self._ranks, self._display
        segments: list[Segment] = []
        i = bisect_right(bounds, start) - 1
        pos = start
        while pos < end:
            stop = min(end, bounds[i + 1]) if i + 1 < len(bounds) else end
            style = base + self._styles[ranks[i]] if ranks[i] >= 0 else base
            if selected is not None and selected.start <= pos and stop <= selected.end:
                style += Style(reverse=True)
            segments.append(Segment(text[pos:stop], style))
            pos = stop
            i += 1
        chunk = text[start:end]
        cells = len(chunk) if chunk.isascii() else cell_len(chunk)
        if cells > width:  # a trailing space past the edge (see WrapIndex._break)
            return Strip(segments).crop(0, width)
        # One Strip per line, built at its final width: Strip objects are not cheap.
        segments.append(Segment(" " * (width - cells), base))
        return Strip(segments, width)

    def _render_marker(
        self, offset: int, width: int, base: Style, selected: MarkedSpan | None
    ) -> Strip:
        """A marker's own line: its label between rules, reversed when it is selected."""
        label = next((m.label for m in self.markers if m.start == offset), "")
        style = base + self._marker_style
        if selected is not None and selected.start == selected.end == offset:
            style += Style(reverse=True)
        text = shorten(f"{MARKER_EDGE * 2} ✂ {label} ", width, cells=True)
        fill = MARKER_EDGE * max(0, width - cell_width(text))
        return Strip([Segment(text + fill, style)], width)

    def _marker_colour(self) -> Style:
        variables = self.app.theme_variables
        colour = _color(variables.get("warning") or variables.get("accent"), "yellow")
        return Style(color=colour, bold=True)

    def _span_styles(self) -> dict[int, Style]:
        variables = self.app.theme_variables
        background = _color(variables.get("background"), "black")
        needle = _color(variables.get("needle") or variables.get("accent"), "yellow")
        gold = _color(variables.get("gold") or variables.get("success"), "green")
        other = _color(variables.get("secondary"), "magenta")
        return {
            KIND_RANK["gold"]: Style(color=background, bgcolor=gold, bold=True),
            KIND_RANK["needle"]: Style(color=needle, bold=True, underline=True),
            KIND_RANK["distractor"]: Style(color=other, italic=True),
            0: Style(italic=True, dim=True),  # other kinds (demonstrations)
        }


def _color(value: str | None, fallback: str) -> RichColor:
    """A Rich colour from a theme variable; the fallback when it is missing or invalid."""
    if value:
        try:
            return Color.parse(value).rich_color
        except ColorParseError:
            pass
    return RichColor.parse(fallback)


def _at(span: MarkedSpan) -> tuple[int, int]:
    return span.start, -span.end


def _jump_targets(spans: Sequence[MarkedSpan]) -> list[MarkedSpan]:
    """Needles and distractors, and gold spans not already inside one: one stop per
    marked place."""
    needles = [s for s in spans if s.kind in ("needle", "distractor")]
    out = list(needles)
    for span in spans:
        if span.kind == "gold" and not any(n.start <= span.start < n.end for n in needles):
            out.append(span)
    return sorted(out, key=lambda s: (s.start, -s.end))


def _overlay(spans: Sequence[MarkedSpan], size: int) -> tuple[list[int], list[int]]:
    """Cut [0, size) at every span edge; each piece gets the rank of its strongest span."""
    edges = sorted({0, size, *(s.start for s in spans), *(s.end for s in spans)})
    events: dict[int, list[tuple[int, int]]] = {}
    for span in spans:
        rank = KIND_RANK.get(span.kind, 0)
        events.setdefault(span.start, []).append((rank, 1))
        events.setdefault(span.end, []).append((rank, -1))
    open_counts = [0, 0, 0, 0]
    ranks: list[int] = []
    for edge in edges:
        for rank, delta in events.get(edge, ()):
            open_counts[rank] += delta
        ranks.append(max((r for r in range(4) if open_counts[r] > 0), default=-1))
    return edges, ranks
