"""One assistant answer, rendered as markdown and streamed into place.

Its own module because Markdown (and markdown-it) is costly to import: the conversation
pane imports it when the first answer arrives, not before the app's first frame.
"""

from __future__ import annotations

from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownStream


class AnswerView(Markdown):
    """One assistant answer, streamed into place."""

    def __init__(self, text: str = "") -> None:
        super().__init__(text, classes="answer")
        self.border_title = "assistant"
        self.text = text
        self._stream: MarkdownStream | None = None

    async def write(self, fragment: str) -> None:
        if self._stream is None:
            self._stream = Markdown.get_stream(self)
        self.text += fragment
        await self._stream.write(fragment)

    async def finish(self, final: str | None = None) -> None:
        """Stop streaming; re-render once from the final text so the result is canonical."""
        if self._stream is not None:
            await self._stream.stop()
            self._stream = None
        if final is not None and final != self.text:
            self.text = final
            await self.update(final)
