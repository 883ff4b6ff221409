"""The footer: Textual's, redrawn once per refresh however often the bindings change.

Textual's footer recomposes (unmounts and mounts every key, restyling each twice) on every
bindings change; focus moves, a screen resuming and the engine arriving change them a dozen
times during start-up, and each recompose cost ~13 ms of style work while the skills pane
waited. Changes that arrive before the next refresh now share one recompose, which reads the
bindings as they are by then — so what the footer shows is the same.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.app import ComposeResult
from textual.widgets import Footer

if TYPE_CHECKING:
    from textual.screen import Screen


class CoalescedFooter(Footer):
    """:class:`textual.widgets.Footer` with bindings changes coalesced per refresh."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._recompose_due = False

    def bindings_changed(self, screen: Screen) -> None:
        # The conditions under which Textual's footer schedules a recompose (after the refresh).
        due = bool(screen.app.app_focus) and self.is_attached and screen is self.screen
        if due and self._recompose_due:
            return  # the recompose already scheduled reads these bindings too
        if due:
            self._recompose_due = True
            # Scheduled first, so it runs just before that recompose: a change that arrives
            # while the recompose is under way schedules another one.
            self.call_after_refresh(self._recompose_done)
        super().bindings_changed(screen)

    def _recompose_done(self) -> None:
        self._recompose_due = False

    def compose(self) -> ComposeResult:
        # Each key Textual's footer yields binds its ``compact`` to the footer's, which adds the
        # key to the footer's watcher list; a recompose removes the keys but the list keeps
        # them (Textual prunes it only when ``compact`` changes, which it never does here), so
        # every pause, step and turn's bindings change kept a dozen dead keys alive: a day-long
        # session grew by megabytes. The keys being replaced are all gone by now.
        watchers: dict[str, list[Any]] = getattr(self, "__watchers", None) or {}
        for _name, entries in watchers.items():
            entries[:] = [
                (node, callback)
                for node, callback in entries
                if node is self or (node.parent is not None and node.is_attached)
            ]
        yield from super().compose()
