"""Draw a :class:`~aiq_tui.replay.state.ViewState` on the workbench's panes.

The live app and Replay both hold a view state (the fold of the events up to their cursor)
and hand it to :class:`StateView`, which updates the conversation, the skills pane, the gauge,
the timeline and the tool log — each only when its part of the state changed, so stepping
through a long session stays as fast as the keys repeat. No pane ever sees an event.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from textual.dom import DOMNode

from aiq_tui.context.model import Breakdown
from aiq_tui.replay.state import Budget, ViewState, skill_views
from aiq_tui.skills.skill_view import SkillView
from aiq_tui.ui.widgets.budget_gauge import BudgetGauge
from aiq_tui.ui.widgets.conversation import Conversation
from aiq_tui.ui.widgets.skills_pane import SkillsPane


def breakdown_of(budget: Budget | None) -> Breakdown | None:
    """The gauge's input from the state's budget (the same figures the event carried)."""
    if budget is None:
        return None
    parts = budget.parts
    return Breakdown(
        system=int(parts.get("system", 0)),
        catalog=int(parts.get("catalog", 0)),
        skills=dict(budget.skills),
        history=int(parts.get("history", 0)),
        tool_results=int(parts.get("tool_results", 0)),
        reserve=int(parts.get("reserve", 0)),
        window=budget.window,
        exact=budget.exact,
        window_source=budget.source,
    )


class StateView:
    """``StateView(root, catalog)``: ``root`` holds the panes (the main screen, Replay);
    ``catalog()`` gives the skills to list as Inactive unless the state says otherwise."""

    def __init__(
        self,
        root: DOMNode,
        catalog: Callable[[], Sequence[SkillView]],
        flash: Callable[[Sequence[str]], None] | None = None,
    ) -> None:
        self.root = root
        self.catalog = catalog
        self.flash = flash
        self.drawn: ViewState | None = None
        self._catalog_stale = True
        self._held: dict[Any, Any] = {}

    def catalog_changed(self) -> None:
        """The catalog (not an event) changed: the skills pane is redrawn on the next draw."""
        self._catalog_stale = True

    def find(self, selector: Any) -> Any | None:
        """The first widget under the root that ``selector`` (a type or a CSS selector) names, or
        None. Looked up once and then held: a CSS query matches the selector against every node
        of the screen, and drawing on every event must not cost what the screen holds. Looked up
        again only while it is not mounted yet (the activity tabs follow the first frame) or
        after it left the screen."""
        widget = self._held.get(selector)
        if widget is not None and widget.is_attached:
            return widget
        found = self.root.query(selector)
        widget = found.first() if found else None
        if widget is None:
            self._held.pop(selector, None)
        else:
            self._held[selector] = widget
        return widget

    async def draw(self, state: ViewState) -> None:
        before = self.drawn
        conversation = self.find(Conversation)
        if (
            conversation is None
        ):  # the screen is closing (the app exits): nothing left to draw on
            return
        self.drawn = state
        if conversation.shown is not state.conversation:
            await conversation.show(state.conversation)
        pane = self.find(SkillsPane)
        if (
            pane is None
        ):  # the screen closed while the conversation drew (the app exits)
            return
        if (
            before is None
            or self._catalog_stale
            or (state.skills, state.matches) != (before.skills, before.matches)
        ):
            self._catalog_stale = False
            if (
                self.flash is not None and before is not None
            ):  # highlighted in the redraw below
                earlier = {row.name: (row.state, row.phase) for row in before.skills}
                moved = [
                    row.name
                    for row in state.skills
                    if earlier.get(row.name) != (row.state, row.phase)
                ]
                if moved:
                    self.flash(moved)
            pane.set_views(skill_views(state, self.catalog()))
        if before is None or (
            state.changes is not before.changes and state.changes != before.changes
        ):
            pane.show_changes(state.changes)
        gauge = self.find(BudgetGauge)
        if gauge is not None:
            if before is None or (
                state.budget is not before.budget and state.budget != before.budget
            ):
                gauge.breakdown = breakdown_of(state.budget)
            gauge.stage_note = state.stage_note
            gauge.requests = state.requests
        timeline = self.find("#timeline")  # mounted after the first frame
        if timeline is not None:
            timeline.show(state.timeline)
        log = self.find("#tool-log")
        if log is not None:
            log.show(state.tools)


SHORT_ROWS = 30
"""Terminals shorter than this (80×24) get the compact gauge and two-row sections (app.tcss's
``-short`` rules do the rest), so all three skill sections and the gauge's figures fit."""


def fit_to_height(root: DOMNode, height: int) -> None:
    """The panes under ``root`` (the main screen, Replay) sized for a terminal ``height`` rows tall."""
    short = height < SHORT_ROWS
    for gauge in root.query(BudgetGauge):
        gauge.compact = short
    for pane in root.query(SkillsPane):
        pane.small_rows = 2 if short else 5
        pane.refresh_sections()


def catalog_views(rows: Sequence[Any]) -> list[SkillView]:
    """``(name, description, tokens)`` rows as Inactive views (Replay's catalog)."""
    from aiq_tui.skills.model import Phase, SkillState

    return [
        SkillView(name, description, SkillState.INACTIVE, Phase.METADATA, tokens)
        for name, description, tokens in rows
    ]
