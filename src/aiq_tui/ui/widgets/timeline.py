"""The event timeline: skill loads, evictions, compressions and reloads, oldest first.

Rows wrap at the pane's width and are re-wrapped whenever that width changes (terminal
resize, the tab becoming visible), so a long row never loses its middle. A timeline drawn
afresh (Replay opening a long session, a step back) writes its newest :data:`TAIL_ROWS` rows
under a line counting the earlier ones: each row costs a rendering, and a session of
thousands of events would otherwise hold the screen for seconds. A live timeline that follows
its newest row is bounded the same way: once more than :data:`KEEP_ROWS` rows are written it
is drawn afresh with its newest :data:`TAIL_ROWS`, so a day-long session keeps a few hundred
rendered lines, not the thousand RichLog would (each line is strips and caches held in memory).
"""

from __future__ import annotations

from typing import Callable, Sequence

from rich.console import Group
from rich.style import Style
from rich.table import Table
from rich.text import Text
from textual.events import Resize
from textual.widgets import RichLog

from aiq_tui.terminal_text import printable
from aiq_tui.ui.badges import badge_style, redraw_on_theme_change

KIND_BADGE = {"load": "success", "unload": "warning", "demote": "warning", "evict": "evict", "compress": "accent",
              "reload": "primary", "warn": "error", "tool": "primary", "info": "muted"}
"""Each kind's colour (:data:`aiq_tui.ui.badges.BADGES`): readable on the pane in every theme."""
KIND_WIDTH = 9
TAIL_ROWS = 100
KEEP_ROWS = 2 * TAIL_ROWS
"""Rows written before a timeline that follows its newest row is drawn afresh with its tail:
twice the tail, so the redraw (about a hundred rows) comes once per hundred rows added."""


class Timeline(RichLog):
    """The view state's timeline: rows ``(time, kind, text)`` with their times as recorded."""

    def __init__(self, *, id: str | None = None) -> None:
        # min_width=1: RichLog otherwise renders at 78 columns and the pane crops each row.
        super().__init__(id=id, wrap=True, markup=False, max_lines=1000, auto_scroll=True, min_width=1)
        self.entries: list[tuple[str, str]] = []
        self._times: list[str] = []
        self._width = 0
        self._stale = False  # rows arrived while hidden: written when the pane has a width again
        self._rows: tuple[tuple[str, str, str], ...] = ()
        self._hidden = 0  # the first entries, not written (a timeline drawn afresh shows its tail)

    def show(self, rows: tuple[tuple[str, str, str], ...]) -> None:
        """Draw the view state's timeline ``(time, kind, text)``: new rows are appended; a
        timeline that is not a continuation of the one shown (or adds more than
        :data:`TAIL_ROWS` rows at once) is drawn afresh."""
        shown = self._rows
        if rows is shown:  # the fold's tuples are immutable: the same rows, nothing to draw
            return
        if rows[:len(shown)] == shown and len(rows) - len(shown) <= TAIL_ROWS:
            new = rows[len(shown):]
        else:
            self.clear()
            self.entries.clear()
            self._times.clear()
            self._hidden = max(0, len(rows) - TAIL_ROWS)
            for time, kind, text in rows[:self._hidden]:
                self.entries.append((kind, printable(text)))
                self._times.append(time)
            if self._hidden:
                self._write_hidden()
            new = rows[self._hidden:]
        self._add_rows(new)
        self._rows = rows

    def _add_rows(self, rows: tuple[tuple[str, str, str], ...]) -> None:
        """Rows appended, written in one go: RichLog measures, lays out and scrolls once per
        write, which cost more than rendering a row when a step redrew a hundred of them."""
        start = len(self.entries)
        for time, kind, text in rows:
            self.entries.append((kind, printable(text)))  # shown escaped, never obeyed by the terminal
            self._times.append(time)
        if not rows:
            return
        if len(self.entries) - self._hidden > KEEP_ROWS and (not self._width or self.is_vertical_scroll_end):
            # Following the newest rows: the earlier ones are counted, no longer kept drawn.
            self._hidden = len(self.entries) - TAIL_ROWS
            self._stale = True
        if not self._width or not self.scrollable_content_region.width:
            # Behind the Tools tab (never shown yet, or not now): written when it has a width.
            # RichLog would keep every write until then, and a day-long session never shown
            # its timeline would hold thousands of renderables and draw them all at once.
            self._stale = True
            return
        if self._stale and self._width:
            self._rewrite()
            return
        self._write_rows(self._times[start:], self.entries[start:])

    def _write_rows(self, times: Sequence[str], entries: Sequence[tuple[str, str]]) -> None:
        if entries:
            self.write(Group(*(self.row(time, kind, text, self._badge) for time, (kind, text) in zip(times, entries))))

    def _write_hidden(self) -> None:
        self.write(Text(f"⋯ {self._hidden:,} earlier row{'s' if self._hidden != 1 else ''} "
                        f"not drawn (the newest {TAIL_ROWS} are)", style=self._badge("muted") + Style(italic=True)))

    def on_mount(self) -> None:
        redraw_on_theme_change(self, self._retheme)  # rows are drawn in the theme's colours when written

    def _retheme(self) -> None:
        self._stale = True
        if self.scrollable_content_region.width:
            self._rewrite()

    def _badge(self, name: str) -> Style:
        return badge_style(self.app, name, self.rich_style.bgcolor)

    @staticmethod
    def row(time: str, kind: str, text: str, badge: Callable[[str], Style | str] = lambda name: "") -> Table:
        """One entry: time and kind in a fixed column, the text beside them wrapping under
        itself (a hanging indent), so a long entry never runs back to column 0. ``badge``
        styles the time and the kind by badge name (unstyled by default)."""
        prefix = Text(time + " ", style=badge("muted"))
        prefix.append(f"{kind:<{KIND_WIDTH}}", style=badge(KIND_BADGE[kind]) if kind in KIND_BADGE else "")
        grid = Table.grid(expand=True)
        grid.add_column(width=prefix.cell_len, no_wrap=True)
        grid.add_column(ratio=1)
        grid.add_row(prefix, Text(text))
        return grid

    def on_resize(self, event: Resize) -> None:
        width = self.scrollable_content_region.width
        if not width or (width == self._width and not self._stale):
            return
        self._width = width
        self._rewrite()

    def _rewrite(self) -> None:
        self._stale = False
        self.clear()
        if self._hidden:
            self._write_hidden()
        times, entries = self._times[self._hidden:], self.entries[self._hidden:]
        self._write_rows(times[-self.max_lines:] if self.max_lines else times,
                         entries[-self.max_lines:] if self.max_lines else entries)
