"""The conversation pane: user turns, streamed assistant answers (markdown), notices.

Streaming follows elia: one :class:`AnswerView` per turn receives every token through a
``MarkdownStream`` (which batches fragments when they arrive faster than they render), so
history is never re-rendered. The pane is anchored to the bottom and lets go as soon as the
user scrolls up, so reading older answers is never yanked away.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.containers import VerticalScroll
from textual.widgets import Static

if TYPE_CHECKING:
    from aiq_tui.ui.widgets.answer import AnswerView


class UserTurn(Static):
    """What the user typed, shown verbatim (no markup)."""

    def __init__(self, text: str) -> None:
        super().__init__(text, markup=False, classes="user-turn")
        self.border_title = "you"


class Notice(Static):
    """A one-line note in the conversation: tool calls, errors, slash-command output."""

    def __init__(self, text: str, kind: str = "info") -> None:
        super().__init__(text, markup=False, classes=f"notice -{kind}")


class Conversation(VerticalScroll):
    """The scrolling list of turns. Call these methods from the app's message handlers."""

    can_focus = True

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.border_title = "Conversation"
        self._answer: AnswerView | None = None
        self.last_answer = ""

    def on_mount(self) -> None:
        self.anchor()

    async def add_user(self, text: str) -> None:
        await self.mount(UserTurn(text))

    async def add_notice(self, text: str, kind: str = "info") -> None:
        await self.mount(Notice(text, kind))

    async def add_answer(self, text: str) -> None:
        """A complete answer (resumed sessions)."""
        from aiq_tui.ui.widgets.answer import AnswerView

        await self.mount(AnswerView(text))
        self.last_answer = text

    async def stream(self, fragment: str) -> None:
        if self._answer is None:
            from aiq_tui.ui.widgets.answer import AnswerView

            self._answer = AnswerView()
            await self.mount(self._answer)
        await self._answer.write(fragment)

    async def close_segment(self) -> None:
        """The model paused to call a tool: what it said so far stays above the tool notices,
        and its next words start a new block below them."""
        answer, self._answer = self._answer, None
        if answer is not None:
            await answer.finish()
            self.last_answer = answer.text

    async def end_answer(self, final: str, *, cancelled: bool = False) -> None:
        answer, self._answer = self._answer, None
        if answer is None and final and final != self.last_answer:
            from aiq_tui.ui.widgets.answer import AnswerView

            answer = AnswerView()
            await self.mount(answer)
        if answer is not None:
            await answer.finish(final or None)
            self.last_answer = answer.text
        if cancelled:
            await self.add_notice("turn cancelled — the partial answer was kept", "warning")

    async def reset(self) -> None:
        self._answer = None
        self.last_answer = ""
        await self.remove_children()
