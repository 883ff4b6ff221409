"""Replay mode: step through a recorded session turn by turn and event by event.

The screen folds the session's events once (:func:`aiq_tui.replay.state.all_states`, the fold
the live app uses) and draws the state at its cursor with the live workbench's own widgets and
renderer (:class:`aiq_tui.ui.view.StateView`), so what it shows is what the workbench showed
at that point. Events are counted from 1 within their turn. Read-only: there is no prompt, and Esc returns to
live mode. :class:`ReplayApp` hosts the screen on its own for ``aiq-tui replay --svg``.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Static

from aiq_tui.replay.state import ViewState, all_states, event_count
from aiq_tui.ui.plain import plain
from aiq_tui.ui.view import StateView, catalog_views
from aiq_tui.ui.widgets.budget_gauge import BudgetGauge
from aiq_tui.ui.widgets.conversation import Conversation
from aiq_tui.ui.widgets.skills_pane import SkillsPane
from aiq_tui.ui.widgets.timeline import Timeline

_NO_TIME = datetime(2000, 1, 1)


CatalogRows = Callable[[], Sequence[tuple[str, str, int]]]  # (name, description, catalog-line tokens)


class ReplayScreen(Screen[None]):
    """``ReplayScreen(turns, title)`` — ``turns`` as saved in a session's ``replay``."""

    # Priority: the conversation would otherwise scroll on these keys instead of scrubbing.
    BINDINGS = [
        Binding("escape", "live", "Back to live", priority=True),
        Binding("left", "step(-1)", "◀ event", priority=True),
        Binding("right", "step(1)", "event ▶", priority=True),
        Binding("up,pageup", "turn(-1)", "◀ turn", priority=True),
        Binding("down,pagedown", "turn(1)", "turn ▶", priority=True),
        Binding("home", "jump(0)", "Start", show=False, priority=True),
        Binding("end", "jump(-1)", "End", show=False, priority=True),
    ]

    def __init__(self, turns: Sequence[Mapping[str, Any]], title: str, *, turn: int | None = None,
                 note: str = "",
                 thresholds: tuple[float, float, float] = (0.8, 0.9, 0.95),
                 catalog: CatalogRows | None = None) -> None:
        super().__init__()
        self.catalog_rows = catalog
        self.turns = list(turns)
        self.title_text = title
        self.note = note
        self.thresholds = thresholds
        self.states = all_states(self.turns)  # one fold, once: stepping only moves the cursor
        self.turn = len(self.turns) if turn is None else max(0, min(turn, len(self.turns)))
        self.event = event_count(self.turns, self.turn)
        self.state = ViewState()
        self.view: StateView | None = None
        self._drawn: tuple[int, int] | None = None
        self._drawing = False

    def compose(self) -> ComposeResult:
        yield Static("", id="replay-bar", markup=False)
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield Conversation(id="conversation")
            with Vertical(id="right"):
                yield SkillsPane(id="skills")
                yield BudgetGauge(self.thresholds, id="gauge")
                yield Timeline(lambda: _NO_TIME, id="timeline")
        yield Footer()

    async def on_mount(self) -> None:
        self.query_one(Conversation).border_title = plain(f"Replay (read-only): {self.title_text}")
        timeline = self.query_one(Timeline)
        timeline.border_title = "Timeline"
        timeline.styles.height = 11
        rows = self.catalog_rows() if self.catalog_rows else ()
        views = catalog_views(rows)
        self.view = StateView(self, lambda: views)
        await self.show()

    # -- navigation ------------------------------------------------------------------------
    # Keys only move the cursor and return; drawing catches up with the newest position (held
    # keys skip the positions in between instead of queueing a redraw for each).
    def action_step(self, delta: int) -> None:
        turn, event = self.turn, self.event + delta
        if event < 1 and turn > 1:
            turn -= 1
            event = event_count(self.turns, turn)
        elif event > event_count(self.turns, turn) and turn < len(self.turns):
            turn, event = turn + 1, 1
        self.turn = turn
        self.event = max(min(1, event_count(self.turns, turn)), min(event, event_count(self.turns, turn)))
        self._request()

    def action_turn(self, delta: int) -> None:
        self.turn = max(1 if self.turns else 0, min(len(self.turns), self.turn + delta))
        self.event = event_count(self.turns, self.turn)
        self._request()

    def action_jump(self, where: int) -> None:
        if where == 0:
            self.turn, self.event = (1, min(1, event_count(self.turns, 1))) if self.turns else (0, 0)
        else:
            self.turn = len(self.turns)
            self.event = event_count(self.turns, self.turn)
        self._request()

    def action_live(self) -> None:
        self.dismiss(None)

    async def go(self, turn: int, event: int | None = None) -> None:
        """Show the state after ``event`` events of ``turn`` (the whole turn when None)."""
        self.turn = max(0, min(turn, len(self.turns)))
        total = event_count(self.turns, self.turn)
        self.event = total if event is None else max(0, min(event, total))
        await self.show()

    def state_of(self, turn: int, event: int) -> ViewState:
        return self.states[turn - 1][event] if turn >= 1 else ViewState()

    # -- drawing ---------------------------------------------------------------------------
    def caption(self) -> str:
        total = event_count(self.turns, self.turn)
        state = self.state_of(self.turn, self.event)
        what = state.last_event.replace("_", " ") if self.event else "before its first event"
        note = f" · {self.note}" if self.note else ""
        return (f"⏵ Replay · turn {self.turn}/{len(self.turns)} · event {self.event}/{total} ({what}){note}"
                " · ←/→ event · ↑/↓ turn · Esc live")

    def _request(self) -> None:
        bars = self.query("#replay-bar")
        if not bars:  # keys still queued while the screen closes
            return
        bars.first(Static).update(self.caption())
        if not self._drawing:
            self._drawing = True
            self.run_worker(self._catch_up(), group="replay-draw", exit_on_error=False)

    async def _catch_up(self) -> None:
        try:
            while self._drawn != (self.turn, self.event) and self.view is not None:
                position = (self.turn, self.event)
                self.state = self.state_of(*position)
                await self.view.draw(self.state)
                self._drawn = position
        finally:
            self._drawing = False

    async def show(self) -> None:
        """Draw the current position now (and wait until it is drawn)."""
        self.query_one("#replay-bar", Static).update(self.caption())
        self.state = self.state_of(self.turn, self.event)
        if self.view is not None:
            await self.view.draw(self.state)
            self._drawn = (self.turn, self.event)


class ReplayApp(App[None]):
    """The Replay screen on its own (``aiq-tui replay --svg`` and snapshot tests)."""

    CSS_PATH = str(Path(__file__).resolve().parents[1] / "app.tcss")
    TITLE = "aiq-tui replay"

    def __init__(self, turns: Sequence[Mapping[str, Any]], title: str, *, turn: int | None = None,
                 note: str = "") -> None:
        super().__init__()
        self.replay = ReplayScreen(turns, title, turn=turn, note=note)

    def on_mount(self) -> None:
        self.push_screen(self.replay, callback=lambda _: self.exit())
