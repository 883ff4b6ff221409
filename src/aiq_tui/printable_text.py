"""A rich :class:`~rich.text.Text` made printable with its styles kept: the one sanitiser
(:mod:`aiq_tui.terminal_text`) for text that already carries styles. The CLI's console and the
TUI's plain widgets both use it, so a styled line built from a skill's or a server's text
cannot carry a control character to the terminal either."""

from __future__ import annotations

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
