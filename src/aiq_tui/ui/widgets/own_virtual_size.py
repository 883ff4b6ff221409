"""A scrolling widget repaints its scrollbars when its own size or rows changed, not at every
layout pass of the screen.

At every layout pass Textual's compositor hands each widget the size of its arranged children
as its ``virtual_size``. A :class:`~textual.scroll_view.ScrollView` has no children — its rows
set its virtual size (a table's rows, a list's lines, an input's text) — so the size handed over
never matches, and ``ScrollView._size_updated`` takes every pass for a change and repaints the
widget's scrollbars. That comparison is also how Textual brings the scrollbars up to date after
the rows changed, so it must still happen then; otherwise it only makes a dirty cell at the
screen's right edge, and Textual repaints the rectangle around all dirty cells: one ← step of the
time cursor, which changes the conversation on the left, repainted every widget on the screen
(issue 32, measured with ``bench.soak``).
"""

from __future__ import annotations

from textual.geometry import Size


class OwnVirtualSize:
    """Mixin for ScrollView subclasses (put it first among the bases)."""

    _laid_out_virtual_size: Size | None = None

    def _size_updated(
        self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True
    ) -> bool:
        own: Size = self.virtual_size  # type: ignore[attr-defined]
        if (
            own != self._laid_out_virtual_size
        ):  # the rows changed: Textual's own path updates the scrollbars
            self._laid_out_virtual_size = own
        else:  # the same rows: compare what the widget shows, not the children it does not have
            virtual_size = own
        return super()._size_updated(size, virtual_size, container_size, layout)  # type: ignore[misc]
