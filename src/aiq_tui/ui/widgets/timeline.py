"""The event timeline: skill loads, evictions, compressions and reloads, oldest first.

Every row of the view state's timeline is kept and reachable, but only a window of them is
rendered (a rendered row is strips held in memory, and a day-long session has thousands of
rows; toolong and harlequin render only what can be seen, for the same reason). While the
view follows the newest row the window is the newest :data:`TAIL_ROWS`, trimmed back once it
passes :data:`KEEP_ROWS`, so a live row costs its own rendering, not the timeline's length.
Scrolling to the window's top (↑, Page Up, the wheel, the scrollbar) brings earlier rows in
above, scrolling to its bottom later ones below, the view staying on the row being read;
Home shows the first rows, End the newest (followed again). A line above the window counts
the earlier rows, one below it the later ones — the conversation and the tool log work alike.

Rows wrap at the pane's width under their text and are rendered again when that width or the
theme changes; rows that arrive while the pane is hidden (the Tools tab in front) are rendered
once it has a width again.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.style import Style
from rich.table import Table
from rich.text import Text
from textual.events import Resize
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from aiq_tui.terminal_text import printable
from aiq_tui.ui.badges import badge_style, redraw_on_theme_change
from aiq_tui.ui.widgets.own_virtual_size import OwnVirtualSize

KIND_BADGE = {
    "load": "success",
    "unload": "warning",
    "demote": "warning",
    "evict": "evict",
    "compress": "accent",
    "reload": "primary",
    "warn": "error",
    "tool": "primary",
    "info": "muted",
}
"""Each kind's colour (:data:`aiq_tui.ui.badges.BADGES`): readable on the pane in every theme."""
KIND_WIDTH = 9
TAIL_ROWS = 100
"""Rows rendered while the view follows the newest row; also how far one step of scrolling
past the window's edge moves it."""
KEEP_ROWS = 2 * TAIL_ROWS
"""The most rows rendered at once: a followed window is trimmed back to :data:`TAIL_ROWS` past
it (the trim is cheap, it drops rendered rows), and a window being browsed never grows past it."""

Row = tuple[str, str, str]


class Timeline(OwnVirtualSize, ScrollView, can_focus=True):
    """The view state's timeline: rows ``(time, kind, text)`` with their times as recorded."""

    DEFAULT_CSS = """
    Timeline {
        background: $surface;
        color: $foreground;
        overflow-y: scroll;
        overflow-x: hidden;
        &:focus { background-tint: $foreground 5%; }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.entries: list[
            tuple[str, str]
        ] = []  # every row: (kind, text made printable)
        self._times: list[str] = []
        self._rows: tuple[Row, ...] = ()  # the view state's timeline, as last shown
        self._first = self._end = 0  # the window: rows _first:_end are rendered
        self._body: list[
            Strip
        ] = []  # the window's rows rendered, _heights[i] lines for row _first + i
        self._heights: list[int] = []
        self._above: list[Strip] = []  # "⋯ N earlier rows" while _first > 0
        self._below: list[Strip] = []  # "⋯ N later rows" while _end < len(entries)
        self._width = 0  # what the rows are rendered at
        self._stale = True  # the window must be rendered afresh (no width yet, hidden, a new theme)
        self._redraw_asked = (
            False  # a draw found the rows stale: a redraw is on its way
        )
        self._following = (
            True  # the view sits at the newest row: new rows are drawn and followed
        )

    @property
    def window(self) -> tuple[int, int]:
        """The rows rendered: ``(first, end)`` indices into :attr:`entries`."""
        return self._first, self._end

    @property
    def lines(self) -> list[Strip]:
        """The rendered lines, top to bottom: the earlier rows' count, the window, the later rows' count."""
        return [*self._above, *self._body, *self._below]

    # -- the view state in ---------------------------------------------------------------
    def show(self, rows: tuple[Row, ...]) -> None:
        """Draw the view state's timeline ``(time, kind, text)``: new rows are appended (drawn
        if the window reaches the newest row); a step back removes the later rows, the rest
        staying rendered; a timeline that is neither (another session) is drawn afresh at its
        newest rows."""
        shown = self._rows
        if (
            rows is shown
        ):  # the fold's tuples are immutable: the same rows, nothing to draw
            return
        # The fold only appends rows, so the last row of the shorter timeline (the same object)
        # at its place in the longer means the rest is the same too: a draw does not compare
        # the whole timeline.
        if len(rows) >= len(shown) and (
            not shown
            or rows[len(shown) - 1] is shown[-1]
            or rows[: len(shown)] == shown
        ):
            if len(rows) > len(shown):
                self._add_rows(rows[len(shown) :])
        elif rows and (rows[-1] is shown[len(rows) - 1] or shown[: len(rows)] == rows):
            self._cut(len(rows))
        else:
            self.entries.clear()
            self._times.clear()
            self._first = self._end = 0
            self._body, self._heights = [], []
            self._following = True
            self._add_rows(rows)
        self._rows = rows

    def _add_rows(self, rows: tuple[Row, ...]) -> None:
        start = len(self.entries)
        for time, kind, text in rows:
            self.entries.append(
                (kind, printable(text))
            )  # shown escaped, never obeyed by the terminal
            self._times.append(time)
        total = len(self.entries)
        first = self._first
        if self._end < start or (not self._following and total - first > KEEP_ROWS):
            self._move(
                first, self._end
            )  # browsing earlier rows: the new ones are counted below
            return
        if self._following and total - first > KEEP_ROWS:
            first = (
                total - TAIL_ROWS
            )  # the earlier rows are counted, no longer kept rendered
        self._move(first, total)
        if self._following:
            self._to_bottom()

    def _cut(self, count: int) -> None:
        """A step back: rows past ``count`` go. A view that follows the newest row keeps
        following it (the window extended back to :data:`TAIL_ROWS` rows); one reading earlier
        rows stays on them."""
        del self.entries[count:], self._times[count:]
        first, end = self._first, min(self._end, count)
        if first >= count:  # the rows being read are gone: the newest are shown
            self._following = True
        if self._following:
            first, end = min(first, max(0, count - TAIL_ROWS)), count
        self._move(first, end)
        if self._following:
            self._to_bottom()

    # -- the window ----------------------------------------------------------------------
    def _ready(self) -> bool:
        """Rows can be rendered now: the pane has the width they were rendered at."""
        width = self.scrollable_content_region.width
        if width and width == self._width and not self._stale:
            return True
        self._stale = True  # rendered when the pane has a width again (on_resize)
        return False

    def _move(self, first: int, end: int) -> int:
        """The window becomes rows ``first:end``, rendering only the rows not rendered yet.
        Returns how many lines the rows that stay rendered moved down (up when negative), so
        the caller can keep the view on them."""
        old_first, old_end = self._first, self._end
        self._first, self._end = first, end
        if not self._ready():
            return 0
        body, heights, above = self._body, self._heights, len(self._above)
        shift = 0
        if first >= old_end or end <= old_first:  # nothing in common: rendered afresh
            self._body, self._heights = self._rows_as_lines(first, end)
        else:
            if first > old_first:
                count = sum(heights[: first - old_first])
                del body[:count], heights[: first - old_first]
                shift -= count
            if end < old_end:
                count = sum(heights[end - old_end :])
                del body[len(body) - count :], heights[end - old_end :]
            if first < old_first:
                lines, sizes = self._rows_as_lines(first, old_first)
                body[:0], heights[:0] = lines, sizes
                shift += len(lines)
            if end > old_end:
                lines, sizes = self._rows_as_lines(old_end, end)
                body += lines
                heights += sizes
        self._count()
        return shift + len(self._above) - above

    def _earlier(self) -> None:
        """The window moves back by up to :data:`TAIL_ROWS` rows, the view staying on its row."""
        if self._first:
            first = max(0, self._first - TAIL_ROWS)
            self._scroll(
                self.scroll_y + self._move(first, min(self._end, first + KEEP_ROWS))
            )

    def _later(self) -> None:
        """The window moves on by up to :data:`TAIL_ROWS` rows, the view staying on its row."""
        if self._end < len(self.entries):
            end = min(len(self.entries), self._end + TAIL_ROWS)
            self._scroll(
                self.scroll_y + self._move(max(self._first, end - KEEP_ROWS), end)
            )

    # -- rendering -----------------------------------------------------------------------
    def _rows_as_lines(self, first: int, end: int) -> tuple[list[Strip], list[int]]:
        """Rows ``first:end`` as lines of the pane's width, and how many lines each row took."""
        console, width = self.app.console, self._width
        options = console.options.update_width(width)
        lines: list[Strip] = []
        heights: list[int] = []
        for time, (kind, text) in zip(self._times[first:end], self.entries[first:end]):
            rendered = console.render_lines(
                self.row(time, kind, text, self._badge), options
            )
            lines += (Strip(line, width) for line in rendered)
            heights.append(len(rendered))
        return lines, heights

    def _count(self) -> None:
        """The lines counting the rows outside the window, and the scrollable size."""
        earlier, later = self._first, len(self.entries) - self._end
        self._above = (
            self._note(
                f"⋯ {earlier:,} earlier row{'s' if earlier != 1 else ''} — "
                "scroll up to show them"
            )
            if earlier
            else []
        )
        self._below = (
            self._note(
                f"⋯ {later:,} later row{'s' if later != 1 else ''} — "
                "scroll down to show them"
            )
            if later
            else []
        )
        self.virtual_size = Size(
            self._width, len(self._above) + len(self._body) + len(self._below)
        )
        self.refresh()

    def _note(self, text: str) -> list[Strip]:
        console = self.app.console
        note = Text(text, style=self._badge("muted") + Style(italic=True))
        return [
            Strip(line, self._width)
            for line in console.render_lines(
                note, console.options.update_width(self._width)
            )
        ]

    def _redraw(self) -> None:
        """Every rendered row again (a new width or theme), the view on the row it was on."""
        width = self.scrollable_content_region.width
        if not width:
            self._stale = True
            return
        top = (
            None
            if self._stale or self._following
            else self._row_at(round(self.scroll_y))
        )
        self._width, self._stale = width, False
        self._body, self._heights = self._rows_as_lines(self._first, self._end)
        self._count()
        if self._following:
            self._to_bottom()
        elif top is not None:
            self._scroll(len(self._above) + sum(self._heights[: top - self._first]))

    def _row_at(self, y: int) -> int:
        """The row drawn on line ``y`` (the window's first row for the line above it)."""
        y -= len(self._above)
        for index, height in enumerate(self._heights):
            if y < height:
                return self._first + index
            y -= height
        return self._end

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        if width and (width != self._width or self._stale) and not self._redraw_asked:
            # Drawn with rows not rendered at this width: the pane was hidden when they came and
            # no Resize told it it is shown (Ctrl+O after PgUp laid the screen out without
            # one): they are rendered now, after this frame, instead of staying blank.
            self._redraw_asked = True
            self.call_later(self._redraw_when_asked)
        index = round(self.scroll_y) + y
        for part in (self._above, self._body, self._below):
            if index < len(part):
                return (
                    part[index]
                    .crop_extend(0, width, self.rich_style)
                    .apply_style(self.rich_style)
                )
            index -= len(part)
        return Strip.blank(width, self.rich_style)

    def _badge(self, name: str) -> Style:
        return badge_style(self.app, name, self.rich_style.bgcolor)

    @staticmethod
    def row(
        time: str,
        kind: str,
        text: str,
        badge: Callable[[str], Style | str] = lambda name: "",
    ) -> Table:
        """One entry: time and kind in a fixed column, the text beside them wrapping under
        itself (a hanging indent), so a long entry never runs back to column 0. ``badge``
        styles the time and the kind by badge name (unstyled by default)."""
        prefix = Text(time + " ", style=badge("muted"))
        prefix.append(
            f"{kind:<{KIND_WIDTH}}",
            style=badge(KIND_BADGE[kind]) if kind in KIND_BADGE else "",
        )
        grid = Table.grid(expand=True)
        grid.add_column(width=prefix.cell_len, no_wrap=True)
        grid.add_column(ratio=1)
        grid.add_row(prefix, Text(text))
        return grid

    def on_mount(self) -> None:
        redraw_on_theme_change(
            self, self._retheme
        )  # rows are rendered in the theme's colours

    def _retheme(self) -> None:
        self._stale = True
        self._redraw()

    def on_resize(self, event: Resize) -> None:
        self._redraw_if_needed()

    def _redraw_when_asked(self) -> None:
        self._redraw_asked = False
        self._redraw_if_needed()

    def _redraw_if_needed(self) -> None:
        width = self.scrollable_content_region.width
        if width and (width != self._width or self._stale):
            self._redraw()

    # -- scrolling: past the window's edges, Home and End --------------------------------
    def _scroll(self, y: float) -> None:
        self.scroll_to(y=y, animate=False, immediate=True)

    def _to_bottom(self) -> None:
        self._following = True
        if self._ready():
            self.scroll_end(animate=False, immediate=True, x_axis=False)

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        at_bottom = new_value >= self.max_scroll_y
        self._following = at_bottom and self._end == len(self.entries)
        if (new_value < 1 and self._first) or (at_bottom and not self._following):
            self.call_later(
                self._at_edge
            )  # after this scroll: the window moves the view again

    def _at_edge(self) -> None:
        if self.scroll_y < 1:
            self._earlier()
        elif self.scroll_y >= self.max_scroll_y:
            self._later()

    def _scroll_lines(self, lines: int) -> None:
        if lines < 0 and self.scroll_y < 1:
            self._earlier()
        elif lines > 0 and self.scroll_y >= self.max_scroll_y:
            self._later()
        self._scroll(self.scroll_y + lines)

    def action_scroll_up(self) -> None:
        self._scroll_lines(-1)

    def action_scroll_down(self) -> None:
        self._scroll_lines(1)

    def action_page_up(self) -> None:
        self._scroll_lines(-self.scrollable_content_region.height)

    def action_page_down(self) -> None:
        self._scroll_lines(self.scrollable_content_region.height)

    def action_scroll_home(self) -> None:
        """Home: the first rows of the timeline."""
        if self._first:
            self._move(0, min(len(self.entries), TAIL_ROWS))
        self._scroll(0)

    def action_scroll_end(self) -> None:
        """End: the newest rows, followed again; the window is the newest :data:`TAIL_ROWS` again."""
        total = len(self.entries)
        self._move(max(0, total - TAIL_ROWS), total)
        self._to_bottom()
