"""A modal that shows one markdown document (tool-call details, explanations)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Label, Markdown

from aiq_tui.terminal_text import printable
from aiq_tui.ui.plain import plain


class TextModal(ModalScreen[None]):
    BINDINGS = [Binding("escape,q", "dismiss", "Close")]

    def __init__(self, title: str, markdown: str) -> None:
        super().__init__(classes="modal")
        self.title_text = title
        self.markdown = markdown

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog wide"):
            yield Label(plain(self.title_text), classes="dialog-title")
            with VerticalScroll():
                yield Markdown(printable(self.markdown))
            yield Label("Esc closes", classes="dim")
        yield Footer()  # this dialog's own keys (the main screen's are off while it is open)
