"""The approval modal for "ask" tool calls: shows the exact command / SQL / URL, every
argument of the call and what a file write would put on disk; each part scrolls.

It needs a deliberate key: one typed while the user is still typing, or within a moment of the
dialog opening (:mod:`aiq_tui.ui.typing_guard`), answers nothing and goes to the prompt, where
it was meant to go. A mouse click or Escape (deny) always counts: neither is typed by accident.
"""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widgets import Button, Footer

from aiq_tui.terminal_text import approval_text, printable
from aiq_tui.tools.approval_view import argument_lines, written_content
from aiq_tui.tools.base import ApprovalRequest, Decision
from aiq_tui.ui.plain import PlainLabel, PlainStatic
from aiq_tui.ui.screens.dialog import Dialog
from aiq_tui.ui.typing_guard import DeliberateKeys


class ApprovalScreen(ModalScreen[Decision]):
    """Dismisses with the user's :class:`Decision`; Escape denies."""

    BINDINGS = [
        Binding("y", "decide('allow_once')", "Allow once"),
        Binding("a", "decide('allow_always')", "Always"),
        Binding("n,escape", "decide('deny')", "Deny"),
    ]

    def __init__(self, request: ApprovalRequest) -> None:
        super().__init__(classes="modal")
        self.request = request
        self.keys: DeliberateKeys | None = None
        """Set on mount from the app's typing clock; None (every key counts) without one."""
        self._arming: Timer | None = None
        self._opened = False

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
            yield PlainLabel(
                "typing? keys go to the prompt — answer once you have read this",
                id="approval-wait",
                classes="dim",
            )
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
        typing = getattr(self.app, "typing", None)
        if typing is not None:
            self.keys = DeliberateKeys.opening_now(typing)
        self._opened = True
        self._show_armed()
        if not self.armed:
            self._arming = self.set_interval(0.1, self._show_armed)

    @property
    def armed(self) -> bool:
        """True once a key may answer: mounted, the grace over and typing stopped."""
        if not self._opened:  # pushed, not mounted yet: its keys are not read yet
            return False
        return self.keys is None or self.keys.deliberate()

    def _show_armed(self) -> None:
        armed = self.armed
        self.query_one("#approval-wait").display = not armed
        if armed and self._arming is not None:
            self._arming.stop()

    async def on_key(self, event: events.Key) -> None:
        # Runs before any binding of this dialog or its buttons (they are decided once the key
        # has bubbled up to the app): a key typed for the prompt is handed there and stops here.
        if self.armed or event.key in ("escape", "ctrl+c", "ctrl+q"):
            return
        event.stop()
        event.prevent_default()
        if self.keys is not None:
            self.keys.typing.typed()
            self._show_armed()
        await self._hand_to_prompt(event)

    async def _hand_to_prompt(self, event: events.Key) -> None:
        """What was typed lands in the prompt as if the dialog had not opened; Enter sends
        nothing (the turn is still asking) and decides nothing."""
        from aiq_tui.ui.widgets.prompt import PromptInput

        try:
            prompt = self.app.screen_stack[0].query_one("#prompt", PromptInput)
        except Exception:  # no prompt (a test app): the key is simply not an answer
            return
        if event.is_printable and event.character:
            prompt.insert_text_at_cursor(event.character)
        elif event.key == "backspace":
            prompt.action_delete_left()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_decide(event.button.id or "deny")

    def action_decide(self, value: str) -> None:
        if value == Decision.ALLOW_ALWAYS.value and not self.request.rememberable:
            return  # not offered for this call: only once or deny
        self.dismiss(Decision(value))
