"""The workbench's main screen: where Tab stops (once per pane) and where stray keys go (the prompt)."""

from __future__ import annotations

from typing import Any

from textual import events
from textual.screen import Screen

from aiq_tui.ui.messages import ListEdge


class MainScreen(Screen[None]):
    """The workbench screen. Keys that would otherwise be lost go to the prompt.

    Tab stops once per pane — the prompt, the skills (its three sections are crossed with ↑ ↓),
    the Tools / Timeline tabs — and the conversation scrolls from the prompt (PgUp / PgDn)."""

    PANES = ("#skills", "#activity")
    """Panes with more than one focusable widget inside: one Tab stop each."""

    def _pane_of(self, widget: Any) -> Any:
        for selector in self.PANES:
            for pane in self.query(selector):
                if widget is pane or pane in widget.ancestors:
                    return pane
        return None

    def entry_of(self, pane: Any) -> Any:
        """Where Tab lands in ``pane``: the section or tab that has something to act on."""
        inside = [w for w in self.focus_chain if w is not pane and pane in w.ancestors]
        if pane.id == "skills":
            filled = [w for w in inside if getattr(w, "rows", None)]
            return next(iter(filled or inside), None)
        lists = [
            w for w in inside if type(w).__name__ != "ContentTabs"
        ]  # the active tab's list
        return next(iter(lists or inside), None)

    def _stops(self) -> list[Any]:
        stops: list[Any] = []
        for widget in self.focus_chain:
            pane = self._pane_of(widget)
            stop = pane if pane is not None else widget
            if stop not in stops:
                stops.append(stop)
        return stops

    def _step(self, direction: int) -> Any:
        stops = self._stops()
        if not stops:
            return None
        focused = self.focused
        here = (self._pane_of(focused) or focused) if focused is not None else None
        index = stops.index(here) if here in stops else (-1 if direction > 0 else 0)
        stop = stops[(index + direction) % len(stops)]
        target = self.entry_of(stop) if stop.id in ("skills", "activity") else stop
        if target is not None:
            target.focus()
        return target

    def focus_next(self, selector: Any = "*") -> Any:
        return self._step(1)

    def focus_previous(self, selector: Any = "*") -> Any:
        return self._step(-1)

    def on_list_edge(self, message: ListEdge) -> None:
        """↑ on a section's first skill, ↓ on its last: the next section with skills in it."""
        from aiq_tui.ui.widgets.skill_list import SkillList

        lists = [w for w in self.query(SkillList) if w.rows]
        current = self.focused  # the list that had the key
        if current not in lists:
            return
        index = lists.index(current) + message.direction
        if 0 <= index < len(lists):
            target = lists[index]
            target.cursor = 0 if message.direction > 0 else len(target.rows) - 1
            target.focus()

    def on_screen_resume(self) -> None:
        # After any dialog or screen on top closes, typing and Enter belong to the prompt again
        # (focus left on the tool log made Enter open a tool's details instead of sending).
        if self.is_mounted:
            self.call_after_refresh(self._focus_prompt)

    def _focus_prompt(self) -> None:
        prompts = self.query("#prompt")
        if prompts:
            prompts.first().focus()

    def on_key(self, event: events.Key) -> None:
        # Typing in a pane (skills, tool log) starts a message instead of being swallowed.
        focused = self.focused
        if (
            not event.is_printable
            or not event.character
            or focused is None
            or focused.id == "prompt"
        ):
            return
        from aiq_tui.ui.widgets.prompt import PromptInput

        prompt = self.query_one("#prompt", PromptInput)
        prompt.focus()
        prompt.insert_text_at_cursor(event.character)
        event.stop()
        event.prevent_default()
