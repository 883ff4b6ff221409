"""The help screen: every binding and slash command, from ``ui/help.md``."""

from __future__ import annotations

from importlib import resources

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, Header, MarkdownViewer


def help_text() -> str:
    return resources.files("aiq_tui.ui").joinpath("help.md").read_text(encoding="utf-8")


class HelpScreen(Screen[None]):
    BINDINGS = [Binding("escape,q,f1", "app.pop_screen", "Back")]

    def compose(self) -> ComposeResult:
        yield Header()
        yield MarkdownViewer(help_text(), show_table_of_contents=False, id="help")
        yield Footer()
