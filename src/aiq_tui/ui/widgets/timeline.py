"""The event timeline: skill loads, evictions, compressions and reloads, oldest first.

Rows wrap at the pane's width and are re-wrapped whenever that width changes (terminal
resize, the tab becoming visible), so a long row never loses its middle.
"""

from __future__ import annotations

from datetime import datetime
from typing import Callable

from rich.style import Style
from rich.table import Table
from rich.text import Text
from textual.events import Resize
from textual.widgets import RichLog

from aiq_tui.terminal_text import printable
from aiq_tui.ui.badges import badge_style

KIND_BADGE = {"load": "success", "unload": "warning", "demote": "warning", "evict": "evict", "compress": "accent",
              "reload": "primary", "warn": "error", "tool": "primary", "info": "muted"}
"""Each kind's colour (:data:`aiq_tui.ui.badges.BADGES`): readable on the pane in every theme."""
KIND_WIDTH = 9


class Timeline(RichLog):
    """Append-only; times come from the injected clock so snapshots are stable."""

    def __init__(self, clock: Callable[[], datetime], *, id: str | None = None) -> None:
        # min_width=1: RichLog otherwise renders at 78 columns and the pane crops each row.
        super().__init__(id=id, wrap=True, markup=False, max_lines=1000, auto_scroll=True, min_width=1)
        self.clock = clock
        self.entries: list[tuple[str, str]] = []
        self._times: list[str] = []
        self._width = 0
        self._stale = False  # rows arrived while hidden: written when the pane has a width again
        self._rows: tuple[tuple[str, str, str], ...] = ()

    def show(self, rows: tuple[tuple[str, str, str], ...]) -> None:
        """Draw the view state's timeline ``(time, kind, text)``: new rows are appended; a
        timeline that is not a continuation of the one shown is drawn afresh."""
        shown = self._rows
        if rows[:len(shown)] == shown:
            new = rows[len(shown):]
        else:
            self.clear()
            self.entries.clear()
            self._times.clear()
            new = rows
        for time, kind, text in new:
            self._add(time, kind, text)
        self._rows = rows

    def on_mount(self) -> None:
        # Rows are drawn when written: a new theme draws them again in its colours.
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self.call_after_refresh(self._retheme))

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

    def add(self, kind: str, text: str) -> None:
        self._add(self.clock().strftime("%H:%M:%S"), kind, text)

    def _add(self, time: str, kind: str, text: str) -> None:
        text = printable(text)  # shown escaped, never obeyed by the terminal
        self.entries.append((kind, text))
        self._times.append(time)
        if self._width and not self.scrollable_content_region.width:
            # Hidden behind the Tools tab: RichLog would render this row one cell wide.
            self._stale = True
            return
        self.write(self.row(time, kind, text, self._badge))

    def on_resize(self, event: Resize) -> None:
        width = self.scrollable_content_region.width
        if not width or (width == self._width and not self._stale):
            return
        first = not self._width
        self._width = width
        if first and not self.lines:
            return  # RichLog writes what was deferred until the size was known
        self._rewrite()

    def _rewrite(self) -> None:
        self._stale = False
        self.clear()
        for time, (kind, text) in zip(self._times[-self.max_lines:] if self.max_lines else self._times,
                                      self.entries[-self.max_lines:] if self.max_lines else self.entries):
            self.write(self.row(time, kind, text, self._badge))
