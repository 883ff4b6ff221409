"""The tool-call log: one row per call (tool, short args, status, duration).

Enter on a row opens the full arguments and result in a modal (the app does that; this
widget only keeps the records and draws the table).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any, Mapping

from rich.text import Text
from textual.widgets import DataTable

from aiq_tui.terminal_text import for_terminal
from aiq_tui.ui.badges import badge_style, redraw_on_theme_change, table_grounds
from aiq_tui.ui.plain import plain

STATUS_BADGE = {"pending": "warning", "asking": "warning", "running": "primary", "ok": "success",
                "failed": "error", "denied": "error"}
"""Each status's colour (:data:`aiq_tui.ui.badges.BADGES`): readable on the table in every theme."""


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
        args = json.dumps(dict(self.arguments), indent=2, ensure_ascii=False, default=str)
        result = self.result if isinstance(self.result, str) else json.dumps(
            self.result, indent=2, ensure_ascii=False, default=str)
        duration = f"{self.duration_s:.3f} s" if self.duration_s is not None else "–"
        return (f"## {self.name}\n\n- status: **{self.status}** ({self.permission})\n- duration: {duration}\n"
                f"- summary: {self.summary or '–'}\n\n### Arguments\n\n```json\n{args}\n```\n\n"
                f"### Result\n\n```\n{result}\n```\n")


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return " ".join(text.split())


class ToolLog(DataTable):
    """Newest call at the bottom; the cursor follows it."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self.records: dict[str, ToolRecord] = {}
        self._drawn: tuple[Any, ...] = ()  # the rows show() drew last

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
        for call_id, record in self.records.items():
            self.update_cell(call_id, "status", self._status(record))

    def _status(self, record: ToolRecord) -> Text:
        # A running MCP call that reports progress shows it (``2/4``) in place of "running".
        label = record.progress if record.status == "running" and record.progress else record.status
        badge = STATUS_BADGE.get(record.status)
        if badge is None or not self.is_attached:
            return Text(label)
        return Text(label, style=badge_style(self.app, badge, *table_grounds(self)))

    def upsert(self, call_id: str, **changes: Any) -> ToolRecord:
        changes = for_terminal(changes)  # names, arguments, results: shown escaped, never obeyed
        old = self.records.get(call_id)
        record = replace(old, **changes) if old else ToolRecord(call_id=call_id, **changes)
        self.records[call_id] = record
        status = self._status(record)
        duration = f"{record.duration_s * 1000:.0f} ms" if record.duration_s is not None else ""
        if old is None:
            self.add_row(plain(record.name), status, duration, plain(record.short_args()), key=call_id)
            self.move_cursor(row=self.row_count - 1)
        else:
            self.update_cell(call_id, "status", status)
            self.update_cell(call_id, "time", duration)
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
        ids = list(self.records)
        if len(ids) > len(rows) and all(row.call_id == key for row, key in zip(rows, ids)):
            for key in ids[len(rows):]:  # a step back: the later calls go, the rest stay
                self.records.pop(key)
                self.remove_row(key)
            ids = ids[:len(rows)]
        if len(ids) > len(rows) or any(row.call_id != key for row, key in zip(rows, ids)):
            self.clear_records()
            drawn = ()
        for index, row in enumerate(rows):
            if index < len(drawn) and drawn[index] is row:
                continue
            record = self.records.get(row.call_id)
            wanted = {"name": row.name, "arguments": dict(row.arguments), "permission": row.permission or "–",
                      "status": row.status, "summary": row.summary, "duration_s": row.duration_s,
                      "result": row.result, "progress": row.progress}
            if record is None or any(getattr(record, key) != value for key, value in wanted.items()):
                self.upsert(row.call_id, **wanted)
        self._drawn = rows

    def clear_records(self) -> None:
        self._drawn = ()
        self.records.clear()
        self.clear()
