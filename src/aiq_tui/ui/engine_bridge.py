"""Events in: the engine's events, folded at the time cursor and drawn.

:class:`EngineEvents`, part of the app (Textual delivers the messages to it): every engine
event the sink receives is posted as a message, handled in order, folded into the view state at
the time cursor and drawn; the events :data:`CHROME` names also reach the app's chrome.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from aiq_tui.terminal_text import for_terminal
from aiq_tui.ui.messages import Drained, EngineEvent, StreamedText

if TYPE_CHECKING:
    from aiq_tui.events import Event
    from aiq_tui.replay.cursor import TimeCursor
    from aiq_tui.ui.app import DemoSteps
    from aiq_tui.ui.view import StateView

# Events that change the app's chrome besides the view state: the handler's name per type.
CHROME = {
    "ErrorRaised": "_on_error",
    "SessionSaved": "_on_session_saved",
    "SemanticProgress": "_on_semantic",
    "CatalogReloaded": "_on_reloaded",
    "McpServerChanged": "_mcp_changed",
    "McpProgress": "_mcp_progress",
}


class EngineEvents:
    """The app's intake of engine events: sink → message → fold at the cursor → draw.

    A mixin of :class:`~aiq_tui.ui.app.AiqApp` (the messages are the app's); these are the
    attributes of the app it reads."""

    cursor: TimeCursor
    demo: DemoSteps | None
    view: StateView
    _held_events: list[Event] | None
    _open_stream: StreamedText | None
    _cursor_moved: asyncio.Event

    # -- engine → UI -------------------------------------------------------------------
    def _sink(self, event: Event) -> None:
        from aiq_tui.events import TokenStreamed

        event = for_terminal(event)  # what the model and the tools wrote: shown escaped, never obeyed
        if isinstance(event, TokenStreamed):
            if self._open_stream is not None and self._open_stream.open:
                self._open_stream.parts.append(event.text)
            else:
                self._open_stream = StreamedText(event.text)
                self.post_message(self._open_stream)
            return
        if self._open_stream is not None:  # later tokens must not jump ahead of this event
            self._open_stream.open = False
            self._open_stream = None
        self.post_message(EngineEvent(event))

    async def on_streamed_text(self, message: StreamedText) -> None:
        # The fast path for tokens: many fragments, one record (the fold joins them the same way).
        await self.take({"type": "token_streamed", "text": message.take()})

    def on_drained(self, message: Drained) -> None:
        message.done.set()  # type: ignore[attr-defined]

    async def drained(self) -> None:
        """Return once every engine event posted so far has been handled (shown)."""
        done = asyncio.Event()
        self.post_message(Drained(done))
        await done.wait()

    async def on_engine_event(self, message: EngineEvent) -> None:
        if self._held_events is not None:  # Replay mode draws with the same widgets: live waits
            self._held_events.append(message.event)
            return
        await self.apply_event(message.event)

    async def apply_event(self, event: Event) -> None:
        """One engine event: folded into the view state (what every pane draws), plus what only
        the app's chrome shows (header, MCP tab, toasts, the problems banner)."""
        from aiq_tui.replay.record import live_record

        chrome = CHROME.get(type(event).__name__)
        if chrome is not None:
            await getattr(self, chrome)(event)
        record = live_record(event)
        if record is not None:
            await self.take(record)

    async def take(self, record: dict[str, Any]) -> None:
        """Fold ``record`` (stamped with the clock's time) and draw the result if live."""
        record.setdefault("clock", self.clock().strftime("%H:%M:%S"))
        before = self.cursor.head.running
        self.cursor.add(record)
        demo = self.demo
        if demo is not None and demo.step_pending and self.cursor.paused and self.cursor.next_step(self._is_step):
            demo.step_pending = False  # the step asked for before it existed
        if self.cursor.head.running != before:
            self._set_busy(self.cursor.head.running)
            if before and self._waiting:
                self.call_later(self._send_waiting)
        await self.draw()

    async def note(self, text: str, style: str = "info") -> None:
        """A line of the app's own in the conversation (slash-command output), folded like any event."""
        await self.take({"type": "notice", "text": text, "style": style})

    async def draw(self) -> None:
        """Draw the state at the cursor (the head when live) and the cursor's bar."""
        self._cursor_moved.set()  # an approval waiting for its step looks again
        self._show_cursor_bar()
        if self.view.drawn is self.cursor.shown:
            return
        await self.view.draw(self.cursor.shown)
