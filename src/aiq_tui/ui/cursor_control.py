"""The time cursor's keys on the live screen: when they apply, and the bar they show.

The cursor itself is :class:`~aiq_tui.replay.cursor.TimeCursor` (shared with Replay);
:class:`CursorKeys`, part of the app, moves it (``action_toggle_pause`` / ``action_cursor_*``;
the step-through demo moves it by steps) and draws the bar above the prompt. Its keys act on
the main screen's empty, focused prompt (typing keeps its keys): Space when there is something
to pause, the arrows and End only while paused (:func:`cursor_keys_apply`). Paused outside the
demo, :func:`paused_bar` says where the view is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aiq_tui.replay.cursor import TimeCursor
    from aiq_tui.ui.app import AiqApp
    from aiq_tui.ui.demo_control import DemoControl, DemoSteps
    from aiq_tui.ui.engine_protocol import UiEngine
    from aiq_tui.ui.view import StateView

CURSOR_ACTIONS = frozenset(
    {"toggle_pause", "cursor_step", "cursor_turn", "cursor_live"}
)


def cursor_keys_apply(app: AiqApp, action: str) -> bool:
    """The cursor's keys act on the main screen's empty prompt (typing keeps its keys):
    Space when there is something to pause, the arrows and End only while paused."""
    if (
        not app.is_running  # was `app.is_mounted`: a method, so always true
        or not app.screen_stack
        or app.screen is not app.screen_stack[0]
        or not app.cursor.records
    ):
        return False
    prompt = (
        app.view.find("#prompt") if app.view is not None else None
    )  # held: asked per key
    if prompt is None or prompt.value or app.screen.focused is not prompt:
        return False
    return action == "toggle_pause" or app.cursor.paused


def paused_bar(cursor: TimeCursor) -> str:
    """The bar above the prompt while the live view is paused: which event of how many is shown
    and how many arrived since the pause (stepping back queues nothing)."""
    shown, queued = cursor.shown, cursor.queued
    what = shown.last_event.replace("_", " ")
    arrived = (
        f" · {queued} new event{'s' if queued != 1 else ''} since the pause"
        if queued
        else ""
    )
    # Turns are numbered from 1 everywhere (captions, summary, Replay): what came before the
    # first question is no "turn 0".
    turn = f"turn {shown.turn}" if shown.turn else "before the first question"
    return (
        f"⏸ paused · {turn} · event {cursor.index + 1} of {len(cursor.states)} ({what}){arrived}"
        " · ←/→ event · ↑/↓ turn · Space resume · End live"
    )


class CursorKeys:
    """The time cursor's actions and its bar. A mixin of :class:`~aiq_tui.ui.app.AiqApp` (Textual
    finds actions on the app); these are the attributes of the app it reads."""

    cursor: TimeCursor
    demo: DemoSteps | None
    demo_control: DemoControl
    engine: UiEngine | None

    if (
        TYPE_CHECKING
    ):  # the rest of the app this mixin reads (App's own, and EngineEvents')
        view: StateView

        @property
        def live_engine(self) -> UiEngine: ...

        async def draw(self) -> None: ...
        def refresh_bindings(self) -> None: ...

    # -- the time cursor --------------------------------------------------------------------
    def _show_cursor_bar(self) -> None:
        bar = (
            self.view.find("#cursor-bar") if self.view is not None else None
        )  # held: no query per event
        if bar is None:
            return
        cursor = self.cursor
        bar.display = cursor.paused
        if not cursor.paused:
            return
        if self.demo is not None:
            bar.update(
                self.demo.bar(cursor, self.live_engine.config.ui.demo_step_seconds)
            )
            return
        bar.update(paused_bar(cursor))

    async def action_toggle_pause(self) -> None:
        if (
            self.demo is not None and self.cursor.paused
        ):  # the demo: Space plays / pauses
            self._play(not self.demo.playing)
            return
        if self.cursor.paused:
            await self.action_cursor_live()
        elif self.cursor.pause():
            await self.draw()
        self.refresh_bindings()

    async def action_cursor_step(self, delta: int) -> None:
        if self.demo is not None:  # the demo moves by steps (events with a caption)
            self._play(False)
            if delta > 0:
                await self._demo_next()
            else:
                self.cursor.previous_step(self._is_step)
                await self.draw()
            return
        self.cursor.step(delta)
        await self.draw()

    async def action_cursor_turn(self, delta: int) -> None:
        self.cursor.turn(delta)
        await self.draw()

    async def action_cursor_live(self) -> None:
        if self.demo is not None:  # the rest of the demo plays live
            self._play(False)
            self.demo.wanted = True
            self.demo.go.set()
        self.cursor.live()
        await self.draw()
        self.refresh_bindings()

    # -- the step-through demo moves by steps (aiq_tui.ui.demo_control) ---------------------------
    def _is_step(self, index: int) -> bool:
        return self.demo_control.is_step(index)

    def _play(self, on: bool) -> None:
        self.demo_control.play(on)

    async def _demo_next(self) -> bool:
        return await self.demo_control.next()
