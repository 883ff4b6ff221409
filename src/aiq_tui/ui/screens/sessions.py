"""The sessions picker: resume (Enter), replay (r), rename (n), delete (d, press twice).

Listing the sessions reads and parses every session file (up to 64 MB each), so it runs in a
thread worker: the dialog opens at once saying "reading sessions…" and its keys work while the
read runs; the rows arrive as a :class:`SessionsScreen.Listed` message. Renaming loads and saves
one such file, so it too runs in a worker ("renaming…" meanwhile), and so does deleting; their
outcome arrives as a :class:`SessionsScreen.Written` message."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import DataTable, Footer, Input, Label

from aiq_tui.terminal_text import printable
from aiq_tui.ui.messages import SessionDeleted
from aiq_tui.ui.plain import PlainLabel, plain
from aiq_tui.ui.plain_table import PlainDataTable
from aiq_tui.ui.text_fit import fit

if TYPE_CHECKING:
    from aiq_tui.ui.engine_protocol import UiEngine

UPDATED = "2025-01-02 10:00"  # the updated column's shape: minutes are enough to tell them apart
READING = "reading sessions…"


class SessionsScreen(ModalScreen[str | None]):
    """Dismisses with the id of the session to resume, or None."""

    BINDINGS = [
        Binding("escape", "close", "Close"),
        Binding("r", "replay", "Replay"),
        Binding("n", "rename", "Rename"),
        Binding("d", "delete", "Delete"),
    ]

    class Listed(Message):
        """A read of the sessions folder finished: its listing, or why it failed."""

        def __init__(
            self, read: int, listing: Any = None, error: str | None = None
        ) -> None:
            super().__init__()
            self.read = read
            self.listing = listing
            self.error = error

    class Written(Message):
        """A rename or delete finished: ``error`` says why it failed, or is None."""

        def __init__(
            self,
            action: str,
            session_id: str,
            title: str = "",
            error: str | None = None,
        ) -> None:
            super().__init__()
            self.action = action  # "rename" or "delete"
            self.session_id = session_id
            self.title = title
            self.error = error

    def __init__(self, engine: UiEngine) -> None:
        super().__init__(classes="modal")
        self.engine = engine
        self._armed_delete: str | None = None
        self._reads = 0  # numbers each read: only the latest one's listing is shown
        self.reading = False
        """True from a read's start until its listing is shown (tests wait on it)."""
        self._titles: dict[
            str, str
        ] = {}  # id → stored title, from the last listing (n edits it)
        self.writing = False
        """True from a rename's or delete's start until its outcome is shown (tests wait on it);
        meanwhile n and d do nothing (one write at a time: the row they act on may be going)."""

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog wide", id="sessions-dialog"):
            yield PlainLabel(
                "Sessions — Enter resume · r replay · n rename · d delete (twice)",
                classes="dialog-title",
            )
            yield PlainDataTable(id="sessions", cursor_type="row", zebra_stripes=True)
            yield PlainLabel("", id="rename-label")
            yield Input(placeholder="New title, Enter to save", id="rename")
            yield PlainLabel("", id="sessions-status")
        yield Footer()  # this dialog's own keys (the main screen's are off while it is open)

    def on_mount(self) -> None:
        self._show_rename(False)
        self.query_one(DataTable).focus()
        self.reload()

    def reload(self) -> None:
        """Read the sessions again, off the UI thread; the rows are replaced when it finishes."""
        self._reads += 1
        self.reading = True
        status = self.query_one("#sessions-status", Label)
        if not str(
            status.render()
        ):  # a message already there (why a rename failed) stays
            status.update(READING)
        self._read_sessions(self._reads)

    @work(thread=True, group="sessions-read", exit_on_error=False)
    def _read_sessions(self, read: int) -> None:
        try:
            listing = self.engine.sessions.scan()
        except (
            Exception
        ) as exc:  # the folder itself unreadable: say so in the dialog, never crash
            self.post_message(
                self.Listed(read, error=f"cannot read the sessions: {exc}")
            )
        else:
            self.post_message(self.Listed(read, listing))

    @on(Listed)
    def _listed(self, event: Listed) -> None:
        if (
            event.read != self._reads
        ):  # an earlier read finished after a later one started
            return
        self.reading = False
        status = self.query_one("#sessions-status", Label)
        if str(status.render()) == READING:
            status.update("")
        if event.error is not None:
            status.update(plain(event.error))
            return
        self._fill(event.listing)
        problems = event.listing.problems
        if (
            problems and event.read == 1
        ):  # session files are input: one that cannot be read is named, not listed
            # (once, when the dialog opens: a read again after a failed rename would repeat it)
            shown = "\n".join(printable(str(problem)) for problem in problems[:3])
            more = len(problems) - 3
            self.app.notify(
                shown
                + (
                    f"\n… and {more} more (aiq-tui sessions list names them)"
                    if more > 0
                    else ""
                ),
                title=f"{len(problems)} session file(s) skipped",
                severity="warning",
                markup=False,
                timeout=15,
            )

    def _add_columns(self, listing: Any) -> None:
        # Fixed widths from the dialog's: a long title is cut ("…", the whole title is what n
        # renames), never the `updated` and `messages` columns after it.
        table = self.query_one(DataTable)
        inner = (
            min(100, self.app.size.width * 95 // 100) - 8
        )  # border, padding, scrollbar
        ids = max([len(s.id) for s in listing.sessions] + [2])
        self._title_width = max(
            10, inner - ids - len(UPDATED) - len("messages") - 8
        )  # 2 a column
        table.add_column("id", width=ids)
        table.add_column("title", width=self._title_width)
        table.add_column("updated", width=len(UPDATED))
        table.add_column("messages", width=len("messages"))

    def _fill(self, listing: Any) -> None:
        table = self.query_one(DataTable)
        if not table.columns:
            self._add_columns(listing)
        selected = self._selected()
        table.clear()
        self._titles = {summary.id: summary.title or "" for summary in listing.sessions}
        for summary in listing.sessions:
            table.add_row(
                plain(summary.id),
                self._title_cell(summary.id, summary.title),
                plain(summary.updated_at[:16].replace("T", " ")),
                str(summary.messages),
                key=summary.id,
            )
        if (
            selected is not None and selected in self._titles
        ):  # the cursor stays on its session
            table.move_cursor(row=table.get_row_index(selected))

    def _title_cell(self, session_id: str, title: str) -> Any:
        marker = (
            " (current)"
            if session_id == getattr(self.engine.session, "id", None)
            else ""
        )
        return plain(
            fit(
                printable((title or "(untitled)") + marker, one_line=True),
                self._title_width,
            )
        )

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
        if session_id is None or self.writing:
            return
        title = self._titles.get(
            session_id, ""
        )  # from the listing: no second read of every file
        self.query_one("#rename-label", Label).update(
            f"Rename session {session_id} (Enter saves, Esc cancels):"
        )
        field = self.query_one("#rename", Input)
        self._show_rename(True)
        field.value = title  # edit the title, not retype it
        field.cursor_position = len(title)
        field.focus()

    @on(Input.Submitted, "#rename")
    def _renamed(self, event: Input.Submitted) -> None:
        session_id = self._selected()
        if session_id and event.value.strip() and not self.writing:
            self._start_write(f"renaming {session_id}…")
            self._write(self.app, "rename", session_id, event.value.strip())
        self._show_rename(False)
        self.query_one(DataTable).focus()

    def action_delete(self) -> None:
        session_id = self._selected()
        if session_id is None or self.writing:
            return
        status = self.query_one("#sessions-status", Label)
        if self._armed_delete != session_id:
            self._armed_delete = session_id
            status.update(f"press d again to delete {session_id}")
            return
        if session_id == getattr(self.engine.session, "id", None) and getattr(
            self.app, "busy", False
        ):
            self._armed_delete = None
            status.update(
                "a turn is running in this session — cancel it first (Esc), then delete"
            )
            return
        self._armed_delete = None
        self._start_write(f"deleting {session_id}…")
        self._write(self.app, "delete", session_id)

    def _start_write(self, doing: str) -> None:
        self.writing = True
        self.query_one("#sessions-status", Label).update(doing)

    @work(thread=True, group="sessions-write", exit_on_error=False)
    def _write(self, app: Any, action: str, session_id: str, title: str = "") -> None:
        from aiq_tui.agent.sessions import SessionError

        try:
            if action == "rename":
                self.engine.sessions.rename(session_id, title)
            else:
                self.engine.sessions.delete(session_id)
        except (
            SessionError,
            OSError,
        ) as exc:  # changed, gone or unreachable since the list was read
            self.post_message(self.Written(action, session_id, title, error=str(exc)))
            return
        if action == "delete":
            # To the app itself, not through this dialog: if it was closed meanwhile, the app
            # must still learn that its session's file is gone (or its next turn writes it back).
            app.post_message(SessionDeleted(session_id))
        self.post_message(self.Written(action, session_id, title))

    @on(Written)
    def _written(self, event: Written) -> None:
        self.writing = False
        status = self.query_one("#sessions-status", Label)
        if event.error is not None:
            status.update(plain(f"not {event.action}d: {event.error}"))
            self.reload()  # read again: the file may have changed or gone meanwhile
            return
        status.update(f"{event.action}d {event.session_id}")
        table = self.query_one(DataTable)
        if (
            event.session_id not in self._titles
        ):  # a listing read meanwhile no longer has it
            return
        # One row changed or gone: no need to read every file again.
        if event.action == "rename":
            self._titles[event.session_id] = event.title
            table.update_cell(
                event.session_id,
                table.ordered_columns[1].key,
                self._title_cell(event.session_id, event.title),
            )
        else:
            table.remove_row(event.session_id)
            self._titles.pop(event.session_id, None)

    def action_close(self) -> None:
        field = self.query_one("#rename", Input)
        if field.display:
            self._show_rename(False)
            self.query_one(DataTable).focus()
        else:
            self.dismiss(None)
