"""Untrusted text as a Textual cell or line: made printable (control characters shown
escaped, :mod:`aiq_tui.terminal_text`) and wrapped in a :class:`~rich.text.Text`, so it is
never parsed as markup either (a ``[link=…]`` in a skill's description stays text)."""

from __future__ import annotations

from rich.style import Style
from rich.text import Text

from aiq_tui.terminal_text import printable


def plain(text: str, *, one_line: bool = True, style: str | Style = "") -> Text:
    """``text`` for a table cell, a title or a status line: one line unless told otherwise."""
    return Text(printable(text, one_line=one_line), style=style)
