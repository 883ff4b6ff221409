"""Messages the workbench posts to itself.

The engine calls a plain sink for every event; the sink wraps the event in
:class:`EngineEvent` and posts it, so every widget update happens on Textual's message
queue, in the order the engine emitted them.
"""

from __future__ import annotations

from textual.message import Message

from aiq_tui.events import Event


class EngineEvent(Message):
    """One engine event, delivered to the app in order."""

    def __init__(self, event: Event) -> None:
        super().__init__()
        self.event = event


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


class PromptSubmitted(Message):
    """The user pressed Enter in the prompt with non-empty text."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text
