"""Every use of a private Textual API, in one place, each with a test of its own.

Textual's public API does not cover three things the workbench needs; each is reached here
with a fallback that keeps the app working (only less lean) on a Textual that renamed it, and
``tests/ui/test_textual_compat.py`` fails on such a Textual, so an upgrade shows it at once:

- :func:`release_removed_widgets`: the ``StylesCache.get_inner_outer`` memo keeps removed
  widgets' renderings alive (a long session grew ~0.1 MB a turn).
- :func:`bound_table_caches`: DataTable's render caches sized to what a tool log shows.
- :func:`anchor_released`: whether the user scrolled an anchored container away from its end.
- :data:`XTermParser`: the driver's input parser, which :mod:`aiq_tui.ui.paste_safe` extends
  so a bracketed paste keeps its order (the driver builds it by this module-level name).

Two widgets also *override* private methods (the tests cover their signatures):
``ScrollView._size_updated`` in :mod:`aiq_tui.ui.widgets.own_virtual_size` and
``Input._on_key`` in :mod:`aiq_tui.ui.widgets.prompt`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

# The driver's input parser (loaded with the driver, before any frame), for paste_safe to extend.
from textual._xterm_parser import XTermParser as XTermParser

# For types only: the tool log's module loads DataTable after the first frame, not this one.
if TYPE_CHECKING:
    from textual.widget import Widget
    from textual.widgets import DataTable

#: DataTable's private render caches and the share of the row bound each gets (cells: every
#: column of that many rows).
TABLE_CACHES = (
    ("_row_render_cache", 1),
    ("_line_cache", 1),
    ("_row_renderable_cache", 1),
    ("_cell_render_cache", 4),
)


def release_removed_widgets() -> None:
    """Drop Textual's references to the renderings of widgets no longer mounted.

    Textual (8.x) memoises ``StylesCache.get_inner_outer`` with ``functools.lru_cache`` on the
    instance method, so its keys hold the last 1,024 widgets' style caches — each with the
    lines it rendered — after the widgets are removed. The memo is a function of two colours,
    computed again on the next paint. A Textual without that memo has nothing to drop."""
    try:
        from textual._styles_cache import StylesCache
    except ImportError:  # pragma: no cover - a Textual that moved it
        return
    memo = getattr(StylesCache, "get_inner_outer", None)
    clear = getattr(memo, "cache_clear", None)
    if callable(clear):
        clear()


def bound_table_caches(table: DataTable[Any], rows: int) -> None:
    """Size ``table``'s render caches to ``rows`` rows (never larger than Textual's own). A
    Textual that renamed them keeps its own sizes, and the table works the same."""
    for name, share in TABLE_CACHES:
        cache = getattr(table, name, None)
        if cache is not None and isinstance(getattr(cache, "maxsize", None), int):
            cache.maxsize = min(cache.maxsize, share * rows)


def anchor_released(widget: Widget) -> bool:
    """Whether the user scrolled ``widget`` (anchored to its end) away from the end. Textual
    keeps it as ``_anchor_released``; without it, nothing is taken as released."""
    return bool(getattr(widget, "_anchor_released", False))
