"""An MCP server's question to the user (``elicitation/create``), or a prompt's arguments.

One input per field of the server's form (its title, description, default and choices shown),
checked as typed values before the answer goes back; a URL request shows the URL to open.
Accept sends the values, Decline says no, Esc cancels. The server wrote every label, so each
is shown as plain text, never as markup. A question that looks destructive
(:func:`~aiq_tui.tools.mcp.elicitation.destructive_reason`) says so and pre-fills nothing: an
Enter typed for the prompt never answers "Confirm deleting every repository?" with the
server's ``yes``; every value is typed.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Input, Static

from aiq_tui.terminal_text import printable
from aiq_tui.tools.mcp.elicitation import (
    ElicitationAnswer,
    ElicitationField,
    ElicitationRequest,
    coerce,
    destructive_reason,
)
from aiq_tui.ui.plain import PlainLabel, PlainStatic, plain
from aiq_tui.ui.screens.dialog import Dialog


def field_hint(spec: ElicitationField) -> str:
    parts = [spec.description] if spec.description else []
    if spec.choices:
        parts.append(
            ("any of (comma-separated): " if spec.kind == "multi" else "one of: ")
            + ", ".join(spec.choices)
        )
    elif spec.kind == "boolean":
        parts.append("yes or no")
    elif spec.kind in ("number", "integer"):
        parts.append("a whole number" if spec.kind == "integer" else "a number")
    parts.append("required" if spec.required else "optional")
    return " · ".join(parts)


def _shown(value: object) -> str:
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    return "" if value is None else str(value)


class McpElicitationScreen(ModalScreen[ElicitationAnswer]):
    """Dismisses with the user's :class:`ElicitationAnswer` (accept with the typed values,
    decline, or cancel on Esc)."""

    BINDINGS = [
        Binding("escape", "cancel", "Cancel"),
        Binding("ctrl+s", "accept", "Accept"),
    ]

    def __init__(
        self,
        request: ElicitationRequest,
        *,
        title: str = "",
        accept_label: str = "Accept",
    ) -> None:
        super().__init__(classes="modal")
        self.request = request
        self.title_text = title or f"MCP server “{request.server}” asks"
        self.accept_label = accept_label
        self.danger = destructive_reason(request)

    def compose(self) -> ComposeResult:
        request = self.request
        with Dialog(id="mcp-elicitation", classes="dialog"):
            yield PlainLabel(
                printable(self.title_text), id="elicitation-title", markup=False
            )
            yield PlainStatic(
                printable(request.message), id="elicitation-message", markup=False
            )
            if self.danger is not None:
                yield PlainStatic(
                    f"⚠ this looks destructive ({printable(self.danger)}): nothing is "
                    "pre-filled, type every value",
                    id="elicitation-danger",
                    markup=False,
                )
            if request.mode == "url":
                yield PlainStatic(
                    f"open: {printable(request.url)}",
                    id="elicitation-url",
                    markup=False,
                )
            for index, spec in enumerate(request.fields):
                yield PlainLabel(printable(spec.label), markup=False)
                yield Input(
                    value="" if self.danger is not None else _shown(spec.default),
                    placeholder=printable(field_hint(spec)),
                    id=f"field-{index}",
                )
                yield PlainStatic(
                    printable(field_hint(spec)), classes="dim", markup=False
                )
            yield PlainStatic("", id="elicitation-problem", markup=False)
            with Horizontal(classes="buttons"):
                yield Button(
                    plain(f"{self.accept_label} (ctrl+s)"),
                    id="accept",
                    variant="primary",
                )
                yield Button("Decline", id="decline", variant="error")
                yield Button("Cancel (esc)", id="cancel")
        yield Footer()

    def on_mount(self) -> None:
        inputs = self.query(Input)
        (inputs.first() if inputs else self.query_one("#accept", Button)).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_accept()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "accept":
            self.action_accept()
        elif event.button.id == "decline":
            self.dismiss(ElicitationAnswer("decline", reason="you declined"))
        else:
            self.action_cancel()

    def action_cancel(self) -> None:
        self.dismiss(ElicitationAnswer("cancel", reason="you cancelled"))

    def action_accept(self) -> None:
        values: dict[str, object] = {}
        for index, spec in enumerate(self.request.fields):
            typed = self.query_one(f"#field-{index}", Input).value
            value, problem = coerce(spec, typed)
            if not problem and self.danger is not None and not typed.strip():
                # Left empty, the field would take the server's own default after all.
                problem = f"{spec.label}: type a value (nothing is pre-answered)"
            if problem:
                self.query_one("#elicitation-problem", Static).update(problem)
                self.query_one(f"#field-{index}", Input).focus()
                return
            if value is not None:
                values[spec.name] = value
        self.dismiss(ElicitationAnswer("accept", values))  # type: ignore[arg-type]
