"""Letting go of what Textual keeps drawn for widgets that left the screen.

Textual (8.x) memoises ``StylesCache.get_inner_outer`` with ``functools.lru_cache`` on the
instance method, so the cache's keys hold the last 1,024 widgets' style caches — each with the
lines it rendered — after the widgets are removed. A long session removes a few widgets a turn
(the conversation's window, the footer's keys as bindings change), so for its first couple of
hundred turns memory grew by what those widgets had drawn: about 0.1 MB a turn. The memo is a
function of two colours, computed again on the next paint; clearing it lets the removed
widgets' renderings go.
"""

from __future__ import annotations


def release_removed_widgets() -> None:
    """Drop Textual's references to the renderings of widgets no longer mounted. A Textual
    without that memo (renamed, or fixed) has nothing to drop: nothing happens."""
    try:
        from textual._styles_cache import StylesCache
    except ImportError:  # pragma: no cover - a Textual that moved it
        return
    memo = getattr(StylesCache, "get_inner_outer", None)
    clear = getattr(memo, "cache_clear", None)
    if callable(clear):
        clear()
