"""The rich console of the headless commands: content is literal and printable, styling is kept.

Two rules, fitted here once so that no call site can forget them:

* **A string is text, never markup.** rich parses ``[...]`` in every string it is given to
  print or lay out (``print``, table cells, rule and table titles) unless told not to; a skill's
  description holding ``[link=https://evil.example]https://docs.python.org/[/link]`` would
  become a terminal hyperlink whose target is not its text, ``[conceal]…[/conceal]`` would hide
  text from the reader, and a stray ``[/b]`` would crash the command. This console renders
  every string as it is — no markup, no ``:emoji:`` codes, no highlighting — whatever a caller
  passes; styled output is built as :class:`~rich.text.Text` (``Text.assemble``), where the
  style is a separate argument the outside text cannot reach.
* **Nothing printed is a control character.** Each string and :class:`~rich.text.Text` is
  made printable (:mod:`aiq_tui.terminal_text`) before layout, so widths stay right; any other
  renderable's segments after it. rich's own styling (colours, links) travels in styles and
  control segments, which are left alone.

rich objects that parse markup themselves, not through the console (a ``Panel``'s title and
subtitle, ``rich.progress`` columns, ``rich.prompt``), take :class:`~rich.text.Text` for
anything that is not a literal in the source; ``tests/security/test_outside_text_is_never_markup.py``
holds every call to that.
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

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.update(markup=False, emoji=False, highlight=False)
        super().__init__(*args, **kwargs)

    def render_str(self, text: str, **kwargs: Any) -> Text:
        # markup / emoji / highlight are not the caller's to turn on: a call that says
        # markup=True about a string built from a skill's text would undo the rule.
        kwargs.update(markup=False, emoji=False, highlight=False)
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
