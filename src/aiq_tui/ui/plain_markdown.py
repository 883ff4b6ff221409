"""Markdown from outside the app whose links cannot send you elsewhere than they say (see
:mod:`aiq_tui.ui.plain`); its own module so that Textual's Markdown (and markdown-it) load only
with the screens that show it, after the first frame."""

from __future__ import annotations

from typing import Any

from textual import on
from textual.widgets import Markdown


class PlainMarkdown(Markdown):
    """Markdown from outside the app (a skill's body, a tool's output). A click on a link opens
    nothing and says where the link points: its words may name another address than its target."""

    def __init__(self, markdown: str | None = None, **options: Any) -> None:
        options["open_links"] = False
        super().__init__(markdown, **options)

    @on(Markdown.LinkClicked)
    def _say_where_it_points(self, event: Markdown.LinkClicked) -> None:
        event.stop()
        self.notify(
            f"This link points to {event.href} — not opened; copy it to open it yourself.",
            title="Link",
        )
