"""The approval modal for "ask" tool calls: shows the exact command / SQL / URL, every
argument of the call and what a file write would put on disk; each part scrolls.

It needs a deliberate key (:mod:`aiq_tui.ui.screens.deliberate`): one typed while the user is
still typing, or within a moment of the dialog opening, answers nothing and goes to the prompt.
A mouse click or Escape (deny) always counts: neither is typed by accident.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Footer

from aiq_tui.terminal_text import approval_text, printable
from aiq_tui.tools.approval_view import argument_lines, written_content
from aiq_tui.tools.base import ApprovalRequest, Decision
from aiq_tui.ui.plain import PlainLabel, PlainStatic
from aiq_tui.ui.screens.deliberate import WAIT_TEXT, DeliberateDialog
from aiq_tui.ui.screens.dialog import Dialog


class ApprovalScreen(DeliberateDialog, ModalScreen[Decision]):
    """Dismisses with the user's :class:`Decision`; Escape denies."""

    BINDINGS = [
        Binding("y", "decide('allow_once')", "Allow once"),
        Binding("a", "decide('allow_always')", "Always"),
        Binding("n,escape", "decide('deny')", "Deny"),
    ]

    def __init__(self, request: ApprovalRequest) -> None:
        super().__init__(classes="modal")
        self.request = request

    def compose(self) -> ComposeResult:
        request = self.request
        with Dialog(id="approval", classes="dialog"):
            yield PlainLabel(
                printable(request.title, one_line=True),
                id="approval-title",
                markup=False,
            )
            yield PlainLabel(
                printable(
                    f"tool {request.tool} · permission {request.permission}",
                    one_line=True,
                ),
                classes="dim",
                markup=False,
            )
            # Every character that would run; control characters shown escaped.
            yield PlainStatic(
                approval_text(request.detail), id="approval-detail", markup=False
            )
            # Every argument under its key (values may be cut, keys never): a long first
            # argument cannot hide the one that matters.
            arguments = argument_lines(request.arguments)
            if arguments:
                yield PlainLabel(
                    f"arguments ({len(arguments)}) — scroll with ↑ ↓ after Tab",
                    classes="dim",
                )
                with VerticalScroll(id="approval-arguments"):
                    yield PlainStatic("\n".join(arguments), markup=False)
            content = written_content(request.arguments)
            if (
                content is not None
            ):  # what a file write would put on disk, every character of it
                lines = content.count("\n") + (
                    0 if content.endswith("\n") or not content else 1
                )
                yield PlainLabel(
                    f"content ({lines} line{'' if lines == 1 else 's'}, {len(content.encode()):,} bytes) — "
                    "scroll with ↑ ↓ after Tab",
                    classes="dim",
                )
                with VerticalScroll(id="approval-content"):
                    yield PlainStatic(approval_text(content), markup=False)
            yield PlainLabel(WAIT_TEXT, id="deliberate-wait", classes="dim")
            with Horizontal(classes="buttons"):
                yield Button("Allow once (y)", id="allow_once", variant="success")
                if (
                    request.rememberable
                ):  # else "always" would not be kept: it is not offered
                    yield Button("Always (a)", id="allow_always", variant="primary")
                yield Button("Deny (n)", id="deny", variant="error")
        yield Footer()  # this dialog's own keys (the main screen's are off while it is open)

    def on_mount(self) -> None:
        self.query_one("#deny", Button).focus()  # the safe choice has focus
        self.start_deliberate()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_decide(event.button.id or "deny")

    def action_decide(self, value: str) -> None:
        if value == Decision.ALLOW_ALWAYS.value and not self.request.rememberable:
            return  # not offered for this call: only once or deny
        self.dismiss(Decision(value))
