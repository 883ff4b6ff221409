"""Asking once before a project's MCP server starts (a trusted project's ``.mcp.json``).

Shows exactly what would run — the command line or the URL, the environment variables it
sets and the ones of yours it reads, its working directory — because starting it is running
a program a cloned repository chose. The answer is remembered for this definition.
"""

from __future__ import annotations

import shlex

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import ModalScreen
from textual.widgets import Button, Footer

from aiq_tui.terminal_text import exact, hidden_note, printable
from aiq_tui.tools.mcp.servers import ServerDefinition, variables
from aiq_tui.ui.plain import PlainLabel, PlainStatic
from aiq_tui.ui.screens.deliberate import DeliberateDialog
from aiq_tui.ui.screens.dialog import Dialog


def server_details(server: ServerDefinition) -> str:
    """What the dialog shows, as plain lines (templates unexpanded: no secret is displayed).
    The project wrote every value, so each is shown character for character (:func:`exact`:
    an escape sequence could otherwise hide an argument) and the command line is quoted."""
    raw: list[tuple[str, str]] = []
    if server.command is not None:
        raw.append(("runs", shlex.join([server.command, *server.args])))
    else:
        raw.append(("connects to", server.target))
    if server.cwd:
        raw.append(("in", server.cwd))
    if server.env:
        raw.append(("sets", ", ".join(f"{key}={value}" for key, value in server.env)))
    if server.headers:
        raw.append(
            ("headers", ", ".join(f"{key}: {value}" for key, value in server.headers))
        )
    lines = [f"{label}: {exact(value)}" for label, value in raw]
    reads = variables(server)
    if reads:
        lines.append("reads your environment variables: " + ", ".join(reads))
    note = hidden_note("".join(value for _, value in raw))
    return "\n".join([*lines, note] if note else lines)


class McpApprovalScreen(DeliberateDialog, ModalScreen["str | None"]):
    """Dismisses with ``"approved"``, ``"rejected"`` (both remembered) or None (not now; Esc)."""

    BINDINGS = [
        Binding("s", "decide('approved')", "Start it"),
        Binding("r", "decide('rejected')", "Never"),
        Binding("n,escape", "decide('')", "Not now"),
    ]

    def __init__(self, server: ServerDefinition) -> None:
        super().__init__(classes="modal")
        self.server = server

    def compose(self) -> ComposeResult:
        server = self.server
        with Dialog(id="mcp-approval", classes="dialog"):
            yield PlainLabel(
                f"Start the project's MCP server “{server.name}”?", id="approval-title"
            )
            yield PlainStatic(
                f"from {printable(str(server.origin))} — a project you trust",
                classes="dim",
                markup=False,
            )
            yield PlainStatic(
                server_details(server), id="approval-detail", markup=False
            )
            yield PlainStatic(
                "Its tools still ask before each call. The answer is remembered until the "
                "definition changes.",
                classes="dim",
                markup=False,
            )
            with Horizontal(classes="buttons"):
                yield Button("Start it (s)", id="approved", variant="warning")
                yield Button("Never (r)", id="rejected", variant="error")
                yield Button("Not now (n)", id="later", variant="primary")
        yield Footer()  # this dialog's own keys (the main screen's are off while it is open)

    def on_mount(self) -> None:
        self.query_one("#later", Button).focus()  # the safe choice has focus
        self.start_deliberate()  # asked as the app starts: keys typed then are a question

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_decide(
            {"approved": "approved", "rejected": "rejected"}.get(
                event.button.id or "", ""
            )
        )

    def action_decide(self, value: str) -> None:
        self.dismiss(value or None)
