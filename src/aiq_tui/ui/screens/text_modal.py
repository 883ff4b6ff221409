"""A modal that shows one markdown document (tool-call details, explanations).

A detail view exists to show all of the text: long lines in code blocks (a query, a JSON
argument) are wrapped to the dialog's width, never cut at its edge."""

from __future__ import annotations

import textwrap

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer

from aiq_tui.terminal_text import printable
from aiq_tui.ui.plain import PlainLabel, PlainMarkdown, plain

FENCE_MARGIN = 14
"""Cells a code line loses inside the wide dialog: border, padding, the fence's own padding."""


def wrap_fences(markdown: str, width: int) -> str:
    """``markdown`` with every line inside a ``` block wrapped to ``width`` cells; a wrapped
    line continues under its own indentation plus two, so JSON keeps its shape."""
    out: list[str] = []
    inside = False
    for line in markdown.split("\n"):
        if line.lstrip().startswith("```"):
            inside = not inside
            out.append(line)
            continue
        if not inside or len(line) <= width:
            out.append(line)
            continue
        indent = " " * (len(line) - len(line.lstrip()) + 2)
        out.extend(
            textwrap.wrap(
                line,
                width,
                subsequent_indent=indent,
                break_long_words=True,
                break_on_hyphens=False,
            )
            or [line]
        )
    return "\n".join(out)


class TextModal(ModalScreen[None]):
    BINDINGS = [Binding("escape,q", "dismiss", "Close")]

    def __init__(self, title: str, markdown: str) -> None:
        super().__init__(classes="modal")
        self.title_text = title
        self.markdown = markdown

    def compose(self) -> ComposeResult:
        # The wide dialog: 100 cells, at most 95 % of the terminal.
        width = max(20, min(100, self.app.size.width * 95 // 100) - FENCE_MARGIN)
        with Vertical(classes="dialog wide"):
            yield PlainLabel(plain(self.title_text), classes="dialog-title")
            with VerticalScroll():
                yield PlainMarkdown(wrap_fences(printable(self.markdown), width))
            yield PlainLabel("Esc closes", classes="dim")
        yield Footer()  # this dialog's own keys (the main screen's are off while it is open)
