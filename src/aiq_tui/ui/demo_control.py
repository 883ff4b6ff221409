"""The step-through ``/demo``: the demo model's scripted story, one step at a time.

The view pauses after every step (→ the next, ← back, Space plays at ``ui.demo_step_seconds``
and pauses again) and the bar above the prompt says what the step did and why; the next turn
starts when the last step of the previous one has been seen. :class:`DemoSteps` is the demo's
own state (``app.demo`` while it is stepped); :class:`DemoControl` (``app.demo_control``) runs
the story in a worker and moves the time cursor by steps.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from aiq_tui.replay.cursor import TimeCursor
    from aiq_tui.ui.app import AiqApp


@dataclass
class DemoSteps:
    """The step-through ``/demo``'s own state: where it began, the captions so far, whether
    it plays, and the gate the next turn waits on."""

    start: int
    finished: bool = False
    playing: bool = False
    wanted: bool = (
        False  # the user asked for the step after the last one: the next turn may run
    )
    step_pending: bool = False  # … and is shown it as soon as it arrives
    go: asyncio.Event = field(default_factory=asyncio.Event)
    timer: Any = None
    _captions: list[str | None] = field(default_factory=list)

    def caption(self, records: list[Any], index: int) -> str | None:
        if len(self._captions) != len(records):  # one pass over the new records' story
            from aiq_tui.replay.captions import captions

            self._captions = captions(records)
        return self._captions[index] if 0 <= index < len(self._captions) else None

    def bar(self, cursor: TimeCursor, pace: float) -> str:
        index = cursor.index
        record = cursor.records[index] if 0 <= index < len(cursor.records) else {}
        text = (
            self.caption(cursor.records, index)
            or str(record.get("text", "")).splitlines()[0:1]
        )
        if isinstance(text, list):
            text = text[0] if text else ""
        steps = sum(
            1
            for i in range(self.start, index + 1)
            if self.caption(cursor.records, i) is not None
        )
        state = f"▶ playing ({pace:g} s a step)" if self.playing else "⏸ step"
        if (
            self.finished and cursor.after == 0
        ):  # nothing left to play: no "→ next", no "Space plays"
            return f"{state} {steps} · {text}\nthe end · ← back · End live"
        return f"{state} {steps} · {text}\n→ next · ← back · Space {'pauses' if self.playing else 'plays'} · End live"


class DemoControl:
    """Starts, steps, plays and stops the step-through demo over the app's time cursor."""

    def __init__(self, app: AiqApp) -> None:
        self.app = app
        self.stopping = (
            False  # Esc: the long demo stops after the turn that is cancelled now
        )

    def stop(self) -> None:
        """Esc: the story stops after the running turn; a demo waiting for its next step stops waiting."""
        self.stopping = True
        if self.app.demo is not None:
            self.app.demo.go.set()

    def end(self) -> None:
        """Another story begins (a new or resumed session): the demo, and its play timer, end."""
        demo, self.app.demo = self.app.demo, None
        if demo is not None and demo.timer is not None:
            demo.timer.stop()

    async def start(self, play: bool = False) -> None:
        """``/demo`` (``/demo play`` starts playing). Esc stops it."""
        app = self.app
        if not app.live_engine.is_demo:
            await app.note(
                "/demo plays a script for the offline demo model; "
                "start with --provider demo to watch it",
                "warning",
            )
            return
        if app.bridge.refused_while_turn_runs():
            return
        from aiq_tui.llm.demo import DemoScript

        if DemoScript.needs_own_session(app.engine):
            previous = app.live_engine.session.id
            await app.session_control.clear_session()
            app._set_busy(True)
            app.run_worker(
                self._in_own_session(previous, play),
                name="_demo_session",
                group="turn",
                exit_on_error=False,
            )
            return
        await self._begin(play)

    async def _in_own_session(self, previous: str, play: bool) -> None:
        """The story after a conversation: once the new session's first events (the old one's
        skills unloaded, its budget) are on screen, so that they come before its first step."""
        app = self.app
        await app.drained()
        await app.note(
            "/demo starts its own session, so that each stage fires in its own band; "
            f"session {previous} stays saved (F4 resumes it)",
            "info",
        )
        await self._begin(play)

    async def _begin(self, play: bool) -> None:
        app = self.app
        await app.note(
            "step-through demo: each answer grows the context until compression fires at 80, "
            "90 and 95 % — → next step · ← back · Space plays · End live · Esc stops",
            "info",
        )
        self.stopping = False
        app.demo = DemoSteps(start=len(app.cursor.records) - 1)
        app.cursor.pause_at(app.demo.start)
        app._set_busy(True)
        app.bridge.turn_worker = app.run_worker(
            self._run(), name="_run_long_demo", group="turn", exit_on_error=False
        )
        if play:
            self.play(True)
        await app.draw()
        app.refresh_bindings()

    async def _run(self) -> None:
        from aiq_tui.llm.demo import DemoScript

        app = self.app
        engine = app.live_engine
        script = DemoScript.for_engine(engine)
        if script.window_note:  # the story is written for the demo model's window
            await app.note(script.window_note, "info")
        pause = engine.config.ui.demo_turn_pause
        first = True
        try:
            while (
                not self.stopping
                and (text := script.next_turn(engine.breakdown.fraction)) is not None
            ):
                if not first:
                    await self._turn_seen()
                    if self.stopping:
                        break
                first = False
                await engine.send(text)
                # The demo model answers without waiting on anything: let the screen show this
                # turn (and Esc, Ctrl+C or the palette be handled) before the next one starts.
                await app.drained()
                if pause and not self.stopping and not app.cursor.paused:
                    await asyncio.sleep(pause)
        finally:
            script.close()  # it stops watching the engine whether the story ended or was stopped
        app._set_busy(False)
        if self.stopping:
            app.demo = None
            self.play(False)
            app.cursor.live()
            await app.note("long demo stopped — /demo plays it again", "warning")
            app.refresh_bindings()
        elif app.demo is not None:
            from aiq_tui.replay.captions import demo_summary

            app.demo.finished = True
            records = app.cursor.records[app.demo.start :]
            earlier = sum(
                1
                for record in app.cursor.records[: app.demo.start]
                if record.get("type") == "turn_started"
            )
            await app.note(demo_summary(records, engine.session.id, earlier), "info")

    async def _turn_seen(self) -> None:
        """While the demo is stepped, the next turn waits until every step so far was shown."""
        app = self.app
        demo = app.demo
        while demo is not None and app.cursor.paused and not self.stopping:
            demo.go.clear()
            if app.cursor.after == 0 and demo.wanted:
                demo.wanted = False
                return
            await demo.go.wait()

    def is_step(self, index: int) -> bool:
        """An event the step-through demo stops on: one with a caption, or the app's own notice."""
        app = self.app
        demo = app.demo
        if demo is None:
            return True
        return (
            demo.caption(app.cursor.records, index) is not None
            or app.cursor.records[index].get("type") == "notice"
        )

    async def next(self) -> bool:
        """→ in the demo: the next step, or (every step seen) the next turn. False at the end."""
        app = self.app
        demo = app.demo
        if demo is None:
            return False
        if app.cursor.next_step(self.is_step):
            await app.draw()
            return True
        if demo.finished:
            return False
        demo.wanted = True  # the worker starts the next turn; its first step is shown when it arrives
        demo.step_pending = True
        demo.go.set()
        return True

    def play(self, on: bool) -> None:
        app = self.app
        demo = app.demo
        if demo is None:
            return
        if demo.timer is not None:
            demo.timer.stop()
            demo.timer = None
        pace = app.live_engine.config.ui.demo_step_seconds
        if on and not pace:
            app.cursor.live()  # no pace: playing is the live view
            demo.go.set()
            demo.wanted = True
        elif on:
            demo.timer = app.set_interval(pace, self._tick)
        demo.playing = on
        app._show_cursor_bar()

    async def _tick(self) -> None:
        if not await self.next() or self.app.demo is None:
            self.play(False)
