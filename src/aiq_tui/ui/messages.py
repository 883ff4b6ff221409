"""Messages the workbench posts to itself.

The engine calls a plain sink for every event; the sink wraps the event in
:class:`EngineEvent` and posts it, so every widget update happens on Textual's message
queue, in the order the engine emitted them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from aiq_tui.events import Event


class EngineEvent(Message):
    """One engine event, delivered to the app in order."""

    def __init__(self, event: Event) -> None:
        super().__init__()
        self.event = event


class StreamedText(Message):
    """Streamed tokens that arrived while the app was busy, joined into one update.

    A model (or the demo) can emit thousands of tokens faster than the screen redraws;
    one message per token would queue them all ahead of the user's keys (Esc arrived
    seconds late). The app's sink keeps appending to the newest unhandled one instead.
    """

    def __init__(self, first: str) -> None:
        super().__init__()
        self.parts = [first]
        self.open = True  # False once handled or once a later event was posted after it

    def take(self) -> str:
        self.open = False
        return "".join(self.parts)


class Drained(Message):
    """Posted after a batch of engine events; handling it means every earlier one was handled."""

    def __init__(self, done: object) -> None:
        super().__init__()
        self.done = done  # an asyncio.Event set by the app


class SessionDeleted(Message):
    """The sessions picker deleted a saved session."""

    def __init__(self, session_id: str) -> None:
        super().__init__()
        self.session_id = session_id


class SkillChosen(Message):
    """The user picked a skill in a list (open the skill viewer)."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name


class ReplayRequested(Message):
    """The user asked to replay a saved session (sessions picker ``r``)."""

    def __init__(self, session_id: str) -> None:
        super().__init__()
        self.session_id = session_id


class ListEdge(Message):
    """Up at a list's first row or Down at its last: the pane may move on to the next list
    (the skills pane's three sections are one Tab stop, crossed with the arrow keys)."""

    def __init__(self, direction: int) -> None:
        super().__init__()
        self.direction = direction
