"""The box every modal draws in: it scrolls (to the focused field, as Tab moves) when the
terminal is too short for it, so each modal works at 80×24; it is never a Tab stop itself."""

from __future__ import annotations

from textual.containers import VerticalScroll


class Dialog(VerticalScroll, can_focus=False):
    """A modal's frame (CSS class ``dialog``)."""
