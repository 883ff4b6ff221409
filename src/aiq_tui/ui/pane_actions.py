"""Keys that act on the main screen's panes: the Tools / Timeline / MCP tabs (Ctrl+O, F7 full
screen), the conversation's scrolling from the prompt (PgUp / PgDn, Ctrl+Home / Ctrl+End), copying
the last answer (Ctrl+Y), and Enter on a tool-log or MCP row (its details in a modal).

:class:`PaneActions` (``app.pane_actions``) only moves focus and opens modals: the panes' content
comes from the folded state.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from aiq_tui.ui.main_screen import MainScreen
from aiq_tui.ui.widgets.conversation import Conversation

if TYPE_CHECKING:
    from textual.widgets import DataTable

    from aiq_tui.ui.app import AiqApp


class PaneActions:
    """Tabs, full-screen, scrolling, copying and row details."""

    def __init__(self, app: AiqApp) -> None:
        self.app = app

    def scroll_conversation(self, where: str) -> None:
        conversation = self.app.query_one(Conversation)
        {
            "page_up": lambda: conversation.page(-1),
            "page_down": lambda: conversation.page(1),
            "top": conversation.to_top,
            "end": conversation.to_end,
        }[where]()

    def copy_answer(self) -> None:
        app = self.app
        answer = app.query_one(Conversation).last_answer
        if not answer:
            app.notify("No answer to copy yet.", severity="warning")
            return
        app.copy_to_clipboard(answer)
        app.notify("Copied the last answer.")

    def toggle_activity(self) -> None:
        app = self.app
        found = app.query("#activity")
        if not found:  # a deferred start's first moments: the tabs are being mounted
            return
        tabs: Any = found.first()
        order = ["tab-tools", "tab-timeline"] + (
            ["tab-mcp"] if app.query("#tab-mcp") else []
        )
        tabs.active = (
            order[(order.index(tabs.active) + 1) % len(order)]
            if tabs.active in order
            else order[0]
        )

    def maximize_activity(self) -> None:
        """F7: the Tools / Timeline pane fills the screen (F7 or Esc gives the layout back)."""
        screen = self.app.screen_stack[0]
        found = screen.query("#activity")
        if not found:  # a deferred start's first moments: the tabs are being mounted
            return
        activity = found.first()
        if screen.maximized is activity:
            screen.minimize()
            return
        screen.maximized = activity
        focus = screen.entry_of(activity) if isinstance(screen, MainScreen) else None
        if focus is not None:
            focus.focus()

    def row_selected(self, event: DataTable.RowSelected) -> None:
        # By the table's id, not @on(DataTable.RowSelected, …): that would import DataTable
        # with this module, before the first frame (the tabs are mounted after it).
        table = getattr(event.control, "id", None)
        if table == "mcp-pane":
            self._mcp_row_selected(event)
        elif table == "tool-log":
            self._tool_selected(event)

    def _mcp_row_selected(self, event: DataTable.RowSelected) -> None:
        from aiq_tui.ui.screens.text_modal import TextModal
        from aiq_tui.ui.widgets.mcp_pane import McpPane

        app = self.app

        def describe(tool: str) -> str:
            found = app.engine.tools.get(tool) if app.engine is not None else None
            return found.spec.description if found is not None else ""

        details = app.query_one("#mcp-pane", McpPane).details(
            str(event.row_key.value), describe
        )
        if details is not None:
            app.push_screen(TextModal(*details))

    def _tool_selected(self, event: DataTable.RowSelected) -> None:
        from aiq_tui.ui.screens.text_modal import TextModal

        record = self.app.query_one("#tool-log").records.get(str(event.row_key.value))  # type: ignore[attr-defined]
        if record is not None:
            self.app.push_screen(
                TextModal(f"Tool call {record.call_id}", record.full_text())
            )
