"""A dialog that answers only deliberate keys (:mod:`aiq_tui.ui.typing_guard`): the approval
of a tool call, the trust question, a project MCP server's start. A key typed while the user is
still typing, or within ``ui.typing_grace`` of the dialog opening, decides nothing and lands in
the prompt, where it was meant to go; Escape, Ctrl+C, Ctrl+Q and the mouse always count.

A screen mixes :class:`DeliberateDialog` in before ``ModalScreen`` and calls
:meth:`start_deliberate` from ``on_mount``; a ``#deliberate-wait`` label, if it composes one,
shows while keys are not taken yet.
"""

from __future__ import annotations

from typing import Any

from textual import events
from textual.timer import Timer

from aiq_tui.ui.typing_guard import DeliberateKeys

ALWAYS_KEYS = frozenset({"escape", "ctrl+c", "ctrl+q"})
"""Keys nobody types into a question: they pass even within the grace."""
WAIT_TEXT = "typing? keys go to the prompt — answer once you have read this"


class DeliberateDialog:
    """Key handling for a dialog that must not be answered by typing."""

    keys: DeliberateKeys | None = None
    _opened = False
    _arming: Timer | None = None

    def start_deliberate(self) -> None:
        """From ``on_mount``: the grace starts now."""
        screen: Any = self
        typing = getattr(screen.app, "typing", None)
        if typing is not None:
            self.keys = DeliberateKeys.opening_now(typing)
        self._opened = True
        self._show_armed()
        if not self.armed:
            self._arming = screen.set_interval(0.1, self._show_armed)

    @property
    def armed(self) -> bool:
        """True once a key may answer: mounted, the grace over and typing stopped."""
        if not self._opened:  # pushed, not mounted yet: its keys are not read yet
            return False
        return self.keys is None or self.keys.deliberate()

    def _show_armed(self) -> None:
        screen: Any = self
        armed = self.armed
        for wait in screen.query("#deliberate-wait"):
            wait.display = not armed
        if armed and self._arming is not None:
            self._arming.stop()

    async def on_key(self, event: events.Key) -> None:
        # Runs before any binding of this dialog or its buttons (they are decided once the key
        # has bubbled up to the app): a key typed for the prompt is handed there and stops here.
        if self.armed or event.key in ALWAYS_KEYS:
            return
        event.stop()
        event.prevent_default()
        if self.keys is not None:
            self.keys.typing.typed()
            self._show_armed()
        self._hand_to_prompt(event)

    def _hand_to_prompt(self, event: events.Key) -> None:
        """What was typed lands in the prompt as if the dialog had not opened; Enter sends
        nothing and decides nothing."""
        from aiq_tui.ui.widgets.prompt import PromptInput

        screen: Any = self
        found = screen.app.screen_stack[0].query("#prompt")
        prompt = found.first() if found else None
        if not isinstance(
            prompt, PromptInput
        ):  # no prompt: the key is simply no answer
            return
        if event.is_printable and event.character:
            prompt.insert_text_at_cursor(event.character)
        elif event.key == "backspace":
            prompt.action_delete_left()
