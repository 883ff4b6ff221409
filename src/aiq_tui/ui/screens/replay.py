"""Replay mode: step through a recorded session turn by turn and event by event.

The screen folds the session's events once (:class:`aiq_tui.replay.state.SessionStates`, the
fold the live app uses) and draws the state at its cursor with the live workbench's own widgets
and renderer (:class:`aiq_tui.ui.view.StateView`), so what it shows is what the workbench showed
at that point. Events are counted from 1 within their turn. Read-only: there is no prompt, and
Esc returns to live mode. :class:`ReplayApp` hosts the screen on its own for ``aiq-tui replay --svg``.

Opened with a ``load`` function (a saved session, a long one), a thread worker reads the
session, folds it and lists the catalog, so no widget waits on a file. What it read within
:data:`LOADING_BAR_AFTER` is drawn in the screen's first frame; a longer read shows a loading
bar and its result comes back as a message (:class:`ReplayScreen.Loaded`), so a long session
shows progress instead of a frozen screen.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Literal

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Static, TabbedContent, TabPane

from aiq_tui.replay.state import SessionStates, ViewState, event_count
from aiq_tui.ui.plain import PlainNotifications, PlainStatic, plain
from aiq_tui.ui.themes import ReadableThemes
from aiq_tui.ui.view import StateView, catalog_views, fit_to_height
from aiq_tui.ui.widgets.budget_gauge import BudgetGauge
from aiq_tui.ui.widgets.conversation import Conversation
from aiq_tui.ui.widgets.skills_pane import SkillsPane
from aiq_tui.ui.widgets.timeline import Timeline
from aiq_tui.ui.widgets.tool_log import ToolLog

CatalogRows = Callable[
    [], Sequence[tuple[str, str, int]]
]  # (name, description, catalog-line tokens)
LOADING_BAR_AFTER = 0.1
"""Seconds a session may take to read and fold before the screen shows its loading bar."""
SYNC_EVENTS = 1_000
"""Sessions up to this many events given as turns are folded before the first frame (a few
tens of milliseconds); longer ones load in the background behind the loading bar."""


@dataclass(frozen=True)
class Recorded:
    """What a ``load`` function returns: a session's turns, its title and a note for the bar."""

    turns: Sequence[Mapping[str, Any]]
    title: str
    note: str = ""


class ReplayUnavailable(Exception):
    """Raised by a ``load`` function: the session cannot be replayed (the message says why);
    the screen closes and the app shows the message with ``severity``."""

    def __init__(
        self,
        message: str,
        severity: Literal["information", "warning", "error"] = "error",
    ) -> None:
        super().__init__(message)
        self.severity = severity


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
        Binding("ctrl+o", "toggle_activity", "Tools/Timeline"),
    ]

    @dataclass
    class Loaded(Message):
        """The worker's result: the session folded (or why it cannot be replayed)."""

        recorded: Recorded | None
        states: SessionStates | None
        rows: Sequence[tuple[str, str, int]]
        problem: ReplayUnavailable | None = None

    def __init__(
        self,
        turns: Sequence[Mapping[str, Any]] | None,
        title: str,
        *,
        turn: int | None = None,
        note: str = "",
        thresholds: tuple[float, float, float] = (0.8, 0.9, 0.95),
        catalog: CatalogRows | None = None,
        load: Callable[[], Recorded] | None = None,
    ) -> None:
        """``turns`` as saved in a session's ``replay``, or None and ``load``: called in a thread
        worker, it returns the session's :class:`Recorded` turns or raises ReplayUnavailable."""
        super().__init__()
        self.catalog_rows = catalog
        self.title_text = title
        self.note = note
        self.thresholds = thresholds
        self.wanted_turn = turn
        self.turns: list[Mapping[str, Any]] = []
        self.states: SessionStates | None = (
            None  # one fold, once: stepping only moves the cursor
        )
        self.turn = self.event = 0
        self._load = load
        if turns is not None:
            if sum(len(t.get("events", ())) for t in turns) <= SYNC_EVENTS:
                self._place(list(turns), SessionStates(turns))
            else:
                self._load = lambda: Recorded(turns, title, note)
        self.state = ViewState()
        self.view: StateView | None = None
        self._drawn: tuple[int, int] | None = None
        self._drawing = False

    @property
    def loaded(self) -> bool:
        """The session is folded (and, once :attr:`view` exists, drawn at the cursor)."""
        return self.states is not None

    def _place(self, turns: list[Mapping[str, Any]], states: SessionStates) -> None:
        self.turns, self.states = turns, states
        self._captions: list[list[str | None]] | None = (
            None  # the demo's captions, made on first use
        )
        turn = self.wanted_turn
        self.turn = len(turns) if turn is None else max(0, min(turn, len(turns)))
        self.event = event_count(turns, self.turn)

    def compose(self) -> ComposeResult:
        yield PlainStatic("", id="replay-bar", markup=False)
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield Conversation(id="conversation")
            with Vertical(id="right"):
                yield SkillsPane(id="skills")
                yield BudgetGauge(self.thresholds, id="gauge")
                # The live screen's Tools / Timeline pane (the timeline first: what Replay is for).
                with TabbedContent(id="activity", initial="tab-timeline"):
                    with TabPane("Tools", id="tab-tools"):
                        yield ToolLog(id="tool-log")
                    with TabPane("Timeline", id="tab-timeline"):
                        yield Timeline(id="timeline")
        yield Footer()

    def on_resize(self, event: Any) -> None:
        fit_to_height(self, event.size.height)

    async def on_mount(self) -> None:
        fit_to_height(
            self, self.app.size.height
        )  # 80×24: every skill section and the gauge's figures
        self.query_one(Conversation).border_title = plain(
            f"Replay (read-only): {self.title_text}"
        )
        if self.states is None:
            # A session read and folded within LOADING_BAR_AFTER shows its state in the first
            # frame; a longer read shows the loading bar meanwhile and the result as a message.
            loop = asyncio.get_running_loop()
            done: asyncio.Future[ReplayScreen.Loaded] = loop.create_future()
            self.run_worker(
                partial(self._read, loop, done),
                thread=True,
                group="replay-load",
                exit_on_error=False,
            )
            try:
                message = await asyncio.wait_for(
                    asyncio.shield(done), LOADING_BAR_AFTER
                )
            except TimeoutError:
                self.query_one("#replay-bar", Static).update(
                    f"⏵ Replay · loading {self.title_text} … · Esc live"
                )
                done.add_done_callback(
                    lambda result: self.post_message(result.result())
                )
                return
            await self.on_replay_screen_loaded(message)
            return
        rows = self.catalog_rows() if self.catalog_rows else ()
        self._make_view(rows)
        await self.show()

    def _make_view(self, rows: Sequence[tuple[str, str, int]]) -> None:
        views = catalog_views(rows)
        self.view = StateView(self, lambda: views)

    def _read(
        self, loop: asyncio.AbstractEventLoop, done: asyncio.Future[Loaded]
    ) -> None:
        """In a thread: read and fold the session, list the catalog; the result completes ``done``."""
        assert self._load is not None
        try:
            recorded = self._load()
            message = self.Loaded(
                recorded,
                SessionStates(recorded.turns),
                self.catalog_rows() if self.catalog_rows else (),
            )
        except ReplayUnavailable as problem:
            message = self.Loaded(None, None, (), problem)
        loop.call_soon_threadsafe(
            lambda: None if done.done() else done.set_result(message)
        )

    async def on_replay_screen_loaded(self, message: Loaded) -> None:
        if (
            message.problem is not None
            or message.recorded is None
            or message.states is None
        ):
            problem = message.problem or ReplayUnavailable(
                "the session could not be read"
            )
            self.app.notify(
                str(problem), title="Replay", severity=problem.severity, markup=False
            )
            self.dismiss(None)
            return
        self.title_text, self.note = message.recorded.title, message.recorded.note
        self.query_one(Conversation).border_title = plain(
            f"Replay (read-only): {self.title_text}"
        )
        self._place(list(message.recorded.turns), message.states)
        self._make_view(message.rows)
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
        self.event = max(
            min(1, event_count(self.turns, turn)),
            min(event, event_count(self.turns, turn)),
        )
        self._request()

    def action_turn(self, delta: int) -> None:
        self.turn = max(1 if self.turns else 0, min(len(self.turns), self.turn + delta))
        self.event = event_count(self.turns, self.turn)
        self._request()

    def action_jump(self, where: int) -> None:
        if where == 0:
            self.turn, self.event = (
                (1, min(1, event_count(self.turns, 1))) if self.turns else (0, 0)
            )
        else:
            self.turn = len(self.turns)
            self.event = event_count(self.turns, self.turn)
        self._request()

    def action_toggle_activity(self) -> None:
        tabs = self.query_one("#activity", TabbedContent)
        tabs.active = "tab-tools" if tabs.active == "tab-timeline" else "tab-timeline"

    def action_live(self) -> None:
        self.dismiss(None)

    async def go(self, turn: int, event: int | None = None) -> None:
        """Show the state after ``event`` events of ``turn`` (the whole turn when None)."""
        self.turn = max(0, min(turn, len(self.turns)))
        total = event_count(self.turns, self.turn)
        self.event = total if event is None else max(0, min(event, total))
        await self.show()

    def state_of(self, turn: int, event: int) -> ViewState:
        return self.states.at(turn, event) if self.states is not None else ViewState()

    # -- drawing ---------------------------------------------------------------------------
    def caption(self) -> str:
        """The bar: where the cursor is, then what the event did and why — the caption the
        step-through demo shows for it (the footer lists the keys)."""
        total = event_count(self.turns, self.turn)
        state = self.state_of(self.turn, self.event)
        what = (
            state.last_event.replace("_", " ")
            if self.event
            else "before its first event"
        )
        note = f" · {self.note}" if self.note else ""
        return (
            f"⏵ Replay · turn {self.turn}/{len(self.turns)} · event {self.event}/{total} ({what}){note}"
            f" · Esc live\n{self.step_caption()}"
        )

    def step_caption(self) -> str:
        """The caption of the event shown (:mod:`aiq_tui.replay.captions`, as the demo's bar)."""
        if not self.event or not 1 <= self.turn <= len(self.turns):
            return (
                f"turn {self.turn}: before its first event — → steps through it"
                if self.turns
                else ""
            )
        if getattr(self, "_captions", None) is None:
            from aiq_tui.replay.captions import turn_captions

            self._captions = turn_captions(self.turns)
        captions = self._captions or []
        row = captions[self.turn - 1] if self.turn - 1 < len(captions) else []
        text = row[self.event - 1] if self.event - 1 < len(row) else None
        if text is not None:
            return text
        kind = self.state_of(self.turn, self.event).last_event
        return (
            "the model writes its answer"
            if kind == "token_streamed"
            else kind.replace("_", " ")
        )

    def _request(self) -> None:
        bars = self.query("#replay-bar")
        if (
            not bars or self.view is None
        ):  # keys still queued while the screen closes, or it loads
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
        if (
            self.view is None
        ):  # still loading: the position is drawn when the session is read
            return
        self.query_one("#replay-bar", Static).update(self.caption())
        self.state = self.state_of(self.turn, self.event)
        await self.view.draw(self.state)
        self._drawn = (self.turn, self.event)


class ReplayApp(PlainNotifications, ReadableThemes, App[None]):
    """The Replay screen on its own (``aiq-tui replay --svg`` and snapshot tests)."""

    CSS_PATH = str(Path(__file__).resolve().parents[1] / "app.tcss")
    TITLE = "aiq-tui replay"
    # The workbench's size classes (app.tcss fits 80×24 with them).
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (30, "-tall")]

    def __init__(
        self,
        turns: Sequence[Mapping[str, Any]] | None,
        title: str,
        *,
        turn: int | None = None,
        note: str = "",
        load: Callable[[], Recorded] | None = None,
    ) -> None:
        super().__init__()
        self.use_readable_themes()  # the workbench's themes (app.tcss names their colours)
        self.replay = ReplayScreen(turns, title, turn=turn, note=note, load=load)

    def on_mount(self) -> None:
        self.push_screen(self.replay, callback=lambda _: self.exit())
