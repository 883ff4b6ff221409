"""The sessions picker: resume (Enter), replay (r), rename (n), delete (d, press twice)."""

from __future__ import annotations

from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Footer, Input, Label

from aiq_tui.terminal_text import printable
from aiq_tui.ui.messages import SessionDeleted
from aiq_tui.ui.plain import plain
from aiq_tui.ui.text_fit import fit

UPDATED = "2025-01-02 10:00"  # the updated column's shape: minutes are enough to tell them apart


class SessionsScreen(ModalScreen[str | None]):
    """Dismisses with the id of the session to resume, or None."""

    BINDINGS = [
        Binding("escape", "close", "Close"),
        Binding("r", "replay", "Replay"),
        Binding("n", "rename", "Rename"),
        Binding("d", "delete", "Delete"),
    ]

    def __init__(self, engine: Any) -> None:
        super().__init__(classes="modal")
        self.engine = engine
        self._armed_delete: str | None = None

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog wide", id="sessions-dialog"):
            yield Label("Sessions — Enter resume · r replay · n rename · d delete (twice)", classes="dialog-title")
            yield DataTable(id="sessions", cursor_type="row", zebra_stripes=True)
            yield Label("", id="rename-label")
            yield Input(placeholder="New title, Enter to save", id="rename")
            yield Label("", id="sessions-status")
        yield Footer()  # this dialog's own keys (the main screen's are off while it is open)

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        # Fixed widths from the dialog's: a long title is cut ("…", the whole title is what n
        # renames), never the `updated` and `messages` columns after it.
        inner = min(100, self.app.size.width * 95 // 100) - 8  # border, padding, scrollbar
        listing = self.engine.sessions.scan()
        ids = max([len(s.id) for s in listing.sessions] + [2])
        self._title_width = max(10, inner - ids - len(UPDATED) - len("messages") - 8)  # 2 a column
        table.add_column("id", width=ids)
        table.add_column("title", width=self._title_width)
        table.add_column("updated", width=len(UPDATED))
        table.add_column("messages", width=len("messages"))
        self._show_rename(False)
        self.reload(listing)
        table.focus()
        if listing.problems:  # session files are input: one that cannot be read is named, not listed
            shown = "\n".join(printable(str(problem)) for problem in listing.problems[:3])
            more = len(listing.problems) - 3
            self.app.notify(shown + (f"\n… and {more} more (aiq-tui sessions list names them)" if more > 0 else ""),
                            title=f"{len(listing.problems)} session file(s) skipped", severity="warning",
                            markup=False, timeout=15)

    def reload(self, listing: Any = None) -> None:
        table = self.query_one(DataTable)
        table.clear()
        current = getattr(self.engine.session, "id", None)
        for summary in (listing or self.engine.sessions.scan()).sessions:
            marker = " (current)" if summary.id == current else ""
            title = fit(printable((summary.title or "(untitled)") + marker, one_line=True), self._title_width)
            table.add_row(plain(summary.id), plain(title),
                          plain(summary.updated_at[:16].replace("T", " ")),
                          str(summary.messages),
                          key=summary.id)

    def _selected(self) -> str | None:
        table = self.query_one(DataTable)
        if table.row_count == 0:
            return None
        return table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value

    @on(DataTable.RowSelected)
    def _resume(self, event: DataTable.RowSelected) -> None:
        self.dismiss(event.row_key.value)

    def action_replay(self) -> None:
        from aiq_tui.ui.messages import ReplayRequested

        session_id = self._selected()
        if session_id is None:
            return
        self.app.post_message(ReplayRequested(session_id))
        self.dismiss(None)

    def _show_rename(self, shown: bool) -> None:
        self.query_one("#rename", Input).display = shown
        self.query_one("#rename-label", Label).display = shown

    def action_rename(self) -> None:
        session_id = self._selected()
        if session_id is None:
            return
        title = next((s.title for s in self.engine.sessions.list() if s.id == session_id), "") or ""
        self.query_one("#rename-label", Label).update(f"Rename session {session_id} (Enter saves, Esc cancels):")
        field = self.query_one("#rename", Input)
        self._show_rename(True)
        field.value = title  # edit the title, not retype it
        field.cursor_position = len(title)
        field.focus()

    @on(Input.Submitted, "#rename")
    def _renamed(self, event: Input.Submitted) -> None:
        session_id = self._selected()
        if session_id and event.value.strip():
            from aiq_tui.agent.sessions import SessionError

            status = self.query_one("#sessions-status", Label)
            try:
                self.engine.sessions.rename(session_id, event.value.strip())
            except SessionError as exc:  # read again to rename: it may have changed meanwhile
                status.update(plain(f"not renamed: {exc}"))
            else:
                status.update(f"renamed {session_id}")
        self._show_rename(False)
        self.reload()
        self.query_one(DataTable).focus()

    def action_delete(self) -> None:
        session_id = self._selected()
        if session_id is None:
            return
        status = self.query_one("#sessions-status", Label)
        if self._armed_delete != session_id:
            self._armed_delete = session_id
            status.update(f"press d again to delete {session_id}")
            return
        if session_id == getattr(self.engine.session, "id", None) and getattr(self.app, "busy", False):
            self._armed_delete = None
            status.update("a turn is running in this session — cancel it first (Esc), then delete")
            return
        from aiq_tui.agent.sessions import SessionError

        self._armed_delete = None
        try:
            self.engine.sessions.delete(session_id)
        except (SessionError, OSError) as exc:  # gone or unreachable since the list was read
            status.update(plain(f"not deleted: {exc}"))
            self.reload()
            return
        status.update(f"deleted {session_id}")
        self.post_message(SessionDeleted(session_id))
        self.reload()

    def action_close(self) -> None:
        field = self.query_one("#rename", Input)
        if field.display:
            self._show_rename(False)
            self.query_one(DataTable).focus()
        else:
            self.dismiss(None)
