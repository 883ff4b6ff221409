"""The tool-call log: one row per call (tool, short args, status, duration).

Enter on a row opens the full arguments and result in a modal (the app does that; this
widget only keeps the records and draws the table).

The table holds rows for a window of the calls, not for every call of the session: a table's
rows cost layout, offsets and caches on every repaint, and a day-long session makes thousands
of calls. While the newest call is shown the window is the newest :data:`WINDOW` calls (older
rows go in batches of :data:`TRIM_SLACK`); moving the cursor past either end of the window
(↑/↓, Page Up/Down, Ctrl+Home/End) or scrolling to its top brings in the calls beyond it.
``records`` keeps every call, so a selected row always opens its own call.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from rich.text import Text
from textual.events import MouseScrollUp

from aiq_tui.terminal_text import for_terminal
from aiq_tui.ui.badges import badge_style, redraw_on_theme_change, table_grounds
from aiq_tui.ui.plain import plain
from aiq_tui.ui.plain_table import PlainDataTable
from aiq_tui.ui.textual_compat import bound_table_caches
from aiq_tui.ui.widgets.own_virtual_size import OwnVirtualSize

STATUS_BADGE = {
    "pending": "warning",
    "asking": "warning",
    "running": "primary",
    "ok": "success",
    "failed": "error",
    "denied": "error",
    "cancelled": "warning",
}
"""Each status's colour (:data:`aiq_tui.ui.badges.BADGES`): readable on the table in every theme."""
WINDOW = 100
"""Rows the table holds while it follows the newest call (at most twice this while browsing)."""
TRIM_SLACK = 20
"""Rows past :data:`WINDOW` before the oldest are removed: removing rows one by one per call
would re-lay the table out on every call."""
RENDER_CACHE_ROWS = 250
"""Rows (and lines) whose rendering the table keeps: a few screens of them. Textual's DataTable
keeps 1,000 rows, 1,000 lines and 10,000 cells, and every update or cursor move renders new
ones: a long session filled those caches over its first two hundred turns, about 10 MB
of rendered segments for rows long gone from the screen."""


@dataclass(frozen=True)
class ToolRecord:
    call_id: str
    name: str
    arguments: Mapping[str, Any]
    permission: str
    status: str = "pending"
    summary: str = ""
    duration_s: float | None = None
    result: Any = None
    progress: str = ""

    def short_args(self, limit: int = 48) -> str:
        text = ", ".join(f"{k}={_short(v)}" for k, v in self.arguments.items())
        return text if len(text) <= limit else text[: limit - 1] + "…"

    def full_text(self) -> str:
        args = json.dumps(
            dict(self.arguments), indent=2, ensure_ascii=False, default=str
        )
        result = (
            self.result
            if isinstance(self.result, str)
            else json.dumps(self.result, indent=2, ensure_ascii=False, default=str)
        )
        duration = f"{self.duration_s:.3f} s" if self.duration_s is not None else "–"
        return (
            f"## {self.name}\n\n- status: **{self.status}** ({self.permission})\n- duration: {duration}\n"
            f"- summary: {self.summary or '–'}\n\n### Arguments\n\n```json\n{args}\n```\n\n"
            f"### Result\n\n```\n{result}\n```\n"
        )


def _duration(record: ToolRecord) -> str:
    """The time column: milliseconds once the call finished, empty while it runs."""
    return f"{record.duration_s * 1000:.0f} ms" if record.duration_s is not None else ""


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return " ".join(text.split())


class ToolLog(OwnVirtualSize, PlainDataTable):
    """Newest call at the bottom; the cursor follows it."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self.records: dict[str, ToolRecord] = {}
        self._order: list[str] = []  # the records' ids in call order
        self._first = (
            0  # the table's rows are the calls _order[_first:_first + row_count]
        )
        self._drawn: tuple[Any, ...] = ()  # the rows show() drew last
        bound_table_caches(self, RENDER_CACHE_ROWS)

    def on_mount(self) -> None:
        # Fixed widths: a column that grows as results arrive would reflow the table
        # mid-turn (and make pictures of it depend on timing).
        # Labels as Text: a str label is parsed as markup, whose emoji table (≈ 2 ms) the
        # first frame would load for four plain words.
        self.add_column(Text("tool"), key="tool", width=18)
        self.add_column(Text("status"), key="status", width=7)
        self.add_column(Text("time"), key="time", width=7)
        self.add_column(Text("args"), key="args", width=48)
        redraw_on_theme_change(self, self._retheme)  # the status colours

    def _retheme(self) -> None:
        for call_id in self._shown():
            self.update_cell(call_id, "status", self._status(self.records[call_id]))

    @property
    def window(self) -> tuple[int, int]:
        """The calls that have rows: ``(first, end)`` indices into the calls in order."""
        return self._first, self._first + self.row_count

    def _shown(self) -> list[str]:
        first, end = self.window
        return self._order[first:end]

    def _add(self, record: ToolRecord) -> None:
        self.add_row(
            plain(record.name),
            self._status(record),
            _duration(record),
            plain(record.short_args()),
            key=record.call_id,
        )

    def _place(
        self, first: int, end: int, call_id: str | None, *, scroll: bool = True
    ) -> None:
        """Rows for the calls ``first:end`` (a rebuild: DataTable adds rows only at its end),
        the cursor on ``call_id``'s row."""
        self.clear()
        self._first = first
        for key in self._order[first:end]:
            self._add(self.records[key])
        at = self._order.index(call_id) if call_id is not None else -1
        if first <= at < end:
            self.move_cursor(row=at - first, scroll=scroll)

    def _cursor_id(self) -> str | None:
        shown = self._shown()
        row = self.cursor_row
        return shown[row] if 0 <= row < len(shown) else None

    def _earlier(self) -> None:
        """Rows for up to :data:`WINDOW` earlier calls, the cursor staying on its call."""
        first, end = self.window
        if first > 0:
            start = max(0, first - WINDOW)
            self._place(start, min(end, start + 2 * WINDOW), self._cursor_id())

    def _later(self) -> None:
        first, end = self.window
        if end < len(self._order):
            stop = min(len(self._order), end + WINDOW)
            self._place(max(first, stop - 2 * WINDOW), stop, self._cursor_id())

    def action_cursor_up(self) -> None:
        if self.cursor_row <= 0:
            self._earlier()
        super().action_cursor_up()

    def action_cursor_down(self) -> None:
        if self.cursor_row >= self.row_count - 1:
            self._later()
        super().action_cursor_down()

    def action_page_up(self) -> None:
        if self.cursor_row < self.scrollable_content_region.height:
            self._earlier()
        super().action_page_up()

    def action_page_down(self) -> None:
        if self.row_count - self.cursor_row <= self.scrollable_content_region.height:
            self._later()
        super().action_page_down()

    def action_scroll_top(self) -> None:
        if self._first:
            self._place(0, min(len(self._order), WINDOW), None)
        super().action_scroll_top()

    def action_scroll_bottom(self) -> None:
        if self.window[1] < len(self._order):
            self._place(max(0, len(self._order) - WINDOW), len(self._order), None)
        super().action_scroll_bottom()

    def _on_mouse_scroll_up(self, event: MouseScrollUp) -> None:
        if self.scroll_y <= 0 and self._first and not (event.ctrl or event.shift):
            # The wheel at the window's top: the earlier calls come in above, the view stays put.
            first, end = self.window
            start = max(0, first - WINDOW)
            self._place(
                start, min(end, start + 2 * WINDOW), self._cursor_id(), scroll=False
            )
            self.scroll_to(y=first - start, animate=False, immediate=True)
            event.stop()
            return
        super()._on_mouse_scroll_up(event)

    def _status(self, record: ToolRecord) -> Text:
        # A running MCP call that reports progress shows it (``2/4``) in place of "running".
        label = (
            record.progress
            if record.status == "running" and record.progress
            else record.status
        )
        self._fit_status(label)
        badge = STATUS_BADGE.get(record.status)
        if badge is None or not self.is_attached:
            return Text(label)
        return Text(label, style=badge_style(self.app, badge, *table_grounds(self)))

    def _fit_status(self, label: str) -> None:
        """A status wider than its column ("cancelled") widens it, from then on: the column is
        sized for the usual ones so that the arguments keep their room."""
        column = self.columns.get("status")  # type: ignore[call-overload]
        if column is not None and len(label) > column.width:
            column.width = len(label)
            self.refresh(layout=True)

    def upsert(self, call_id: str, **changes: Any) -> ToolRecord:
        changes = for_terminal(
            changes
        )  # names, arguments, results: shown escaped, never obeyed
        old = self.records.get(call_id)
        record = (
            replace(old, **changes) if old else ToolRecord(call_id=call_id, **changes)
        )
        self.records[call_id] = record
        if old is None:
            following = self.window[1] == len(self._order)
            self._order.append(call_id)
            if (
                following
            ):  # the newest call is shown: its row is added and the cursor follows
                self._add(record)
                if self.row_count > WINDOW + TRIM_SLACK:
                    for key in self._order[
                        self._first : self._first + self.row_count - WINDOW
                    ]:
                        self.remove_row(key)
                    self._first = len(self._order) - self.row_count
                self.move_cursor(row=self.row_count - 1)
        elif call_id in self.rows:
            self.update_cell(call_id, "status", self._status(record))
            self.update_cell(call_id, "time", _duration(record))
        return record

    def show(self, rows: Any) -> None:
        """Draw the view state's tool calls (:class:`~aiq_tui.replay.state.ToolRow`): changed rows
        are updated in place, new ones appended, rows past the state's (a step back) removed;
        another session's calls start the table afresh. The fold's rows are immutable, so a row
        that is the one drawn last time is skipped without a look: a draw costs the rows that
        changed, not every call of the session."""
        rows = tuple(rows)
        drawn = self._drawn
        if rows is drawn:
            return
        ids = self._order
        if len(ids) > len(rows) and all(
            row.call_id == key for row, key in zip(rows, ids)
        ):
            for key in ids[
                len(rows) :
            ]:  # a step back: the later calls go, the rest stay
                self.records.pop(key)
                if key in self.rows:
                    self.remove_row(key)
            del ids[len(rows) :]
            if not self.row_count:  # the window was all later calls: show the newest
                self._place(
                    max(0, len(ids) - WINDOW), len(ids), ids[-1] if ids else None
                )
        if len(ids) > len(rows) or any(
            row.call_id != key for row, key in zip(rows, ids)
        ):
            self.clear_records()
            drawn = ()
        for index, row in enumerate(rows):
            if index < len(drawn) and drawn[index] is row:
                continue
            record = self.records.get(row.call_id)
            wanted = {
                "name": row.name,
                "arguments": dict(row.arguments),
                "permission": row.permission or "–",
                "status": row.status,
                "summary": row.summary,
                "duration_s": row.duration_s,
                "result": row.result,
                "progress": row.progress,
            }
            if record is None or any(
                getattr(record, key) != value for key, value in wanted.items()
            ):
                self.upsert(row.call_id, **wanted)
        self._drawn = rows

    def clear_records(self) -> None:
        self._drawn = ()
        self.records.clear()
        self._order.clear()
        self._first = 0
        self.clear()
