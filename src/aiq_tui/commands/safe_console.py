"""The rich console of the headless commands: content is made printable, styling is kept.

Each string and :class:`~rich.text.Text` is made printable (:mod:`aiq_tui.terminal_text`)
before layout, so widths stay right; any other renderable's segments after it. rich's own
styling (colours, links) travels in styles and control segments, which are left alone.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.console import Console, ConsoleOptions, RenderableType
from rich.segment import Segment
from rich.text import Text

from aiq_tui.terminal_text import printable


def printable_text(text: Text) -> Text:
    """``text`` with its characters made printable, styles kept on the same characters."""
    plain = text.plain
    if printable(plain) is plain:
        return text
    cuts = sorted(
        {span.start for span in text.spans} | {span.end for span in text.spans}
    )
    clean = Text(
        style=text.style,
        justify=text.justify,
        overflow=text.overflow,
        no_wrap=text.no_wrap,
        end=text.end,
        tab_size=text.tab_size,
    )
    # Every span starts and ends at a cut, so each piece is styled as a whole.
    for piece in text.divide(cuts):
        start = len(clean)
        clean.append(printable(piece.plain))
        for span in piece.spans:
            clean.stylize(span.style, start, len(clean))
    return clean


class SafeConsole(Console):
    """A rich console that never writes a control character it was given as content."""

    def render_str(self, text: str, **kwargs: Any) -> Text:
        return super().render_str(printable(text), **kwargs)

    def render(
        self, renderable: RenderableType, options: ConsoleOptions | None = None
    ) -> Iterable[Segment]:
        if isinstance(renderable, Text):
            yield from super().render(printable_text(renderable), options)
            return
        for segment in super().render(renderable, options):
            text = segment.text
            if segment.control or text.isprintable() or printable(text) is text:
                yield segment
            else:
                yield Segment(printable(text), segment.style, segment.control)
