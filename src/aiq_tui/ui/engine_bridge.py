"""The engine's side of the app: events in, turns run in workers, approvals out.

* :class:`EngineEvents`, part of the app (Textual delivers the messages to it): every engine
  event the sink receives is posted as a message, handled in order, folded into the view state at
  the time cursor and drawn; the events :data:`~aiq_tui.ui.chrome.CHROME` names also reach the
  app's chrome.
* :class:`EngineBridge` (``app.bridge``) attaches the app to an engine (its events go to the
  sink, its questions to :meth:`EngineBridge.approve`), sends the user's messages as turns —
  queued while a turn runs, sent in order after it — and keeps the engine's budget folded
  outside a turn.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from textual.worker import Worker, WorkerState

from aiq_tui.terminal_text import for_terminal, printable
from aiq_tui.ui import mcp_prompts
from aiq_tui.ui.chrome import CHROME
from aiq_tui.ui.messages import Drained, EngineEvent, StreamedText

if TYPE_CHECKING:
    from collections.abc import Callable
    from datetime import datetime

    from textual.message import Message

    from aiq_tui.events import Event
    from aiq_tui.replay.cursor import TimeCursor
    from aiq_tui.tools.base import ApprovalRequest, Decision
    from aiq_tui.ui.app import AiqApp
    from aiq_tui.ui.chrome import Chrome
    from aiq_tui.ui.demo_control import DemoSteps
    from aiq_tui.ui.screens.approval import ApprovalScreen
    from aiq_tui.ui.view import StateView


class EngineEvents:
    """The app's intake of engine events: sink → message → fold at the cursor → draw.

    A mixin of :class:`~aiq_tui.ui.app.AiqApp` (the messages are the app's); these are the
    attributes of the app it reads."""

    bridge: EngineBridge
    chrome: Chrome
    cursor: TimeCursor
    demo: DemoSteps | None
    view: StateView
    _held_events: list[Event] | None
    _open_stream: StreamedText | None
    _cursor_moved: asyncio.Event
    _collected: list[Event] | None = None
    """While set, engine events are kept here for the caller to fold at once, in order, instead
    of being posted (``/clear``: the old session's unloads end its story before the new one)."""

    if (
        TYPE_CHECKING
    ):  # the rest of the app this mixin calls (App's own, and CursorKeys')
        clock: Callable[[], datetime]

        def post_message(self, message: Message) -> bool: ...
        def call_later(
            self, callback: Callable[..., Any], *args: Any, **kwargs: Any
        ) -> bool: ...
        def _is_step(self, index: int) -> bool: ...
        def _set_busy(self, busy: bool) -> None: ...
        def _show_cursor_bar(self) -> None: ...

    # -- engine → UI -------------------------------------------------------------------
    def _sink(self, event: Event) -> None:
        from aiq_tui.events import TokenStreamed

        event = for_terminal(
            event
        )  # what the model and the tools wrote: shown escaped, never obeyed
        if self._collected is not None:
            self._collected.append(event)
            return
        if isinstance(event, TokenStreamed):
            if self._open_stream is not None and self._open_stream.open:
                self._open_stream.parts.append(event.text)
            else:
                self._open_stream = StreamedText(event.text)
                self.post_message(self._open_stream)
            return
        if (
            self._open_stream is not None
        ):  # later tokens must not jump ahead of this event
            self._open_stream.open = False
            self._open_stream = None
        self.post_message(EngineEvent(event))

    async def on_streamed_text(self, message: StreamedText) -> None:
        # The fast path for tokens: many fragments, one record (the fold joins them the same way).
        await self.take({"type": "token_streamed", "text": message.take()})

    def on_drained(self, message: Drained) -> None:
        message.done.set()  # type: ignore[attr-defined]

    async def drained(self) -> None:
        """Return once every engine event posted so far has been handled (shown)."""
        done = asyncio.Event()
        self.post_message(Drained(done))
        await done.wait()

    async def on_engine_event(self, message: EngineEvent) -> None:
        if (
            self._held_events is not None
        ):  # Replay mode draws with the same widgets: live waits
            self._held_events.append(message.event)
            return
        await self.apply_event(message.event)

    async def apply_event(self, event: Event) -> None:
        """One engine event: folded into the view state (what every pane draws), plus what only
        the app's chrome shows (header, MCP tab, toasts, the problems banner)."""
        from aiq_tui.replay.record import live_record

        chrome = CHROME.get(type(event).__name__)
        if chrome is not None:
            await getattr(self, chrome)(event)
        record = live_record(event)
        if record is not None:
            await self.take(record)

    async def take(self, record: dict[str, Any]) -> None:
        """Fold ``record`` (stamped with the clock's time) and draw the result if live."""
        record.setdefault("clock", self.clock().strftime("%H:%M:%S"))
        before = self.cursor.head.running
        self.cursor.add(record)
        demo = self.demo
        if (
            demo is not None
            and demo.step_pending
            and self.cursor.paused
            and self.cursor.next_step(self._is_step)
        ):
            demo.step_pending = False  # the step asked for before it existed
        if self.cursor.head.running != before:
            self._set_busy(self.cursor.head.running)
            if before and self._waiting:
                self.call_later(self._send_waiting)
        await self.draw()

    async def note(self, text: str, style: str = "info") -> None:
        """A line of the app's own in the conversation (slash-command output), folded like any event."""
        await self.take({"type": "notice", "text": text, "style": style})

    async def draw(self) -> None:
        """Draw the state at the cursor (the head when live) and the cursor's bar."""
        self._cursor_moved.set()  # an approval waiting for its step looks again
        self._show_cursor_bar()
        if self.view.drawn is self.cursor.shown:
            return
        await self.view.draw(self.cursor.shown)

    @property
    def _waiting(self) -> list[str]:
        return self.bridge.waiting

    def _send_waiting(self) -> None:
        self.bridge.send_waiting()

    # -- what only the chrome shows (CHROME names these per event type) -------------------------
    async def _on_error(self, event: Any) -> None:
        await self.chrome.on_error(event)

    async def _on_session_saved(self, event: Any) -> None:
        await self.chrome.on_session_saved(event)

    async def _on_semantic(self, event: Any) -> None:
        await self.chrome.on_semantic(event)

    async def _on_reloaded(self, event: Any) -> None:
        await self.chrome.on_reloaded(event)

    async def _mcp_changed(self, event: Any) -> None:
        await self.chrome.mcp_changed(event)

    async def _mcp_progress(self, event: Any) -> None:
        await self.chrome.mcp_progress(event)

    async def _mcp_resource(self, event: Any) -> None:
        await self.chrome.mcp_resource(event)


class EngineBridge:
    """Workers for the engine's turns, and the approvals it asks for."""

    def __init__(self, app: AiqApp) -> None:
        self.app = app
        self.waiting: list[
            str
        ] = []  # messages sent while a turn ran: sent after it, in order
        self.turn_worker: Worker[None] | None = (
            None  # the running turn, or the /demo's story
        )
        self.pending_approval: ApprovalScreen | None = None

    def attach(self) -> None:
        """Everything the panes show comes from the engine from now on."""
        app = self.app
        engine = app.live_engine
        engine.subscribe(app._sink)
        engine.approver = self.approve
        if getattr(engine, "mcp", None) is not None:
            engine.mcp.approver = app.project_trust.approve_mcp_server
            mcp_prompts.install_elicitor(
                app, engine.mcp
            )  # a server's questions: a dialog
        app.chrome.show_banner()
        app.chrome.update_subtitle()
        app.chrome.show_problems()
        app.refresh_skills()
        app.call_later(self.engine_budget)
        if app.watch_enabled and engine.config.skills.watch:
            app.skill_watch.start()

    async def engine_budget(self) -> None:
        """The engine's budget outside a turn (start, warm-up, settings), folded as the event it is."""
        from aiq_tui.events import BudgetChanged

        await self.app.apply_event(BudgetChanged(self.app.live_engine.breakdown))

    # -- turns --------------------------------------------------------------------------------
    def turn_running(self) -> bool:
        """A turn, or the long demo (which is between two turns part of the time)."""
        return self.app.busy or (
            self.turn_worker is not None and self.turn_worker.is_running
        )

    def refused_while_turn_runs(self) -> bool:
        """True (and the user is told) while a turn or the long demo runs. The command line
        that asked goes back into the prompt, to run once the turn is over."""
        running = self.turn_running()
        if not running:
            return False
        app = self.app
        line = app.submitting
        command = ""
        if line:
            from aiq_tui.ui.widgets.prompt import PromptInput

            prompt = app.screen_stack[0].query_one("#prompt", PromptInput)
            if not prompt.value:
                prompt.value = line
                prompt.cursor_position = len(line)
                command = line.split(" ", 1)[0]
        if app.demo is not None:
            where = " (paused on its step)" if app.cursor.paused else ""
            message = (
                f"The /demo is still running{where}: {command} is kept in the prompt — "
                "Esc ends the demo, then Enter runs it."
                if command
                else f"The /demo is still running{where}: Esc ends it, End plays the rest live."
            )
        else:
            message = "A turn is running — Esc cancels it." + (
                f" {command} is kept in the prompt: Enter runs it after."
                if command
                else ""
            )
        app.notify(message, severity="warning", markup=False)
        return True

    def send(self, text: str) -> None:
        app = self.app
        if (
            self.turn_running()
        ):  # kept, shown as queued, and sent when the running turn ends
            self.waiting.append(text)
            app.call_later(
                app.note,
                f"queued: {text} — sent when the running turn ends "
                f"({len(self.waiting)} waiting; Esc cancels the running turn)",
                "info",
            )
            return
        app._set_busy(True)
        self.turn_worker = app.run_worker(
            self._run_turn(text), name="_run_turn", group="turn", exit_on_error=False
        )

    def send_waiting(self) -> None:
        if self.waiting and not self.turn_running():
            self.send(self.waiting.pop(0))

    async def _run_turn(self, text: str) -> None:
        await self.app.live_engine.send(text)

    def worker_state_changed(self, event: Worker.StateChanged) -> None:
        """A turn that failed or was cancelled frees the prompt; the next waiting message goes."""
        app = self.app
        if event.worker is self.turn_worker and event.state in (
            WorkerState.ERROR,
            WorkerState.CANCELLED,
            WorkerState.SUCCESS,
        ):
            if event.state is WorkerState.ERROR:
                app.notify(
                    printable(f"turn failed: {event.worker.error}"),
                    severity="error",
                    markup=False,
                )
            if event.state is not WorkerState.SUCCESS:
                app._set_busy(False)
            if self.waiting:
                app.call_later(self.send_waiting)

    def compact(self) -> None:
        """``/compact``: the engine summarises older messages now (a note says when there is nothing to)."""
        self.app.run_worker(
            self._compact(), name="_compact", group="engine", exit_on_error=False
        )

    async def _compact(self) -> None:
        plan = await self.app.live_engine.compact()
        if plan.is_noop:
            why = "; ".join(plan.notes) or "nothing older than the kept messages"
            await self.app.note(f"nothing to compact: {why}", "info")

    # -- approvals ----------------------------------------------------------------------------
    async def approve(self, request: ApprovalRequest) -> Decision:
        """The engine's approver: show the modal and wait for the user's choice."""
        from aiq_tui.tools.base import Decision
        from aiq_tui.ui.screens.approval import ApprovalScreen

        app = self.app
        future: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()
        screen = ApprovalScreen(request)

        def decided(decision: Decision | None) -> None:
            if not future.done():
                future.set_result(decision or Decision.DENY)

        self.pending_approval = screen
        try:
            # The screen first shows what led to the question (skills loaded, the call's notice):
            # once the modal is up, the panes behind it are not laid out again until it closes.
            await app.drained()
            await self.asking_step_shown(request.call_id)
            # Queued after the engine events already posted (the call's own notice among them):
            # while the modal is up, queries for the main screen's widgets would find nothing.
            app.call_later(
                lambda: (
                    None if future.done() else app.push_screen(screen, callback=decided)
                )
            )
            return await future
        except asyncio.CancelledError:
            if screen.is_current:
                screen.dismiss(Decision.DENY)
            raise
        finally:
            self.pending_approval = None

    async def asking_step_shown(self, call_id: str) -> None:
        """A stepped ``/demo`` asks on its own step: the engine, which runs ahead of the steps on
        screen, waits here until the user has stepped to the call that asks (its caption says
        "it asks for your approval"), or goes live, or the demo ends."""
        app = self.app
        records = app.cursor.records
        asking = next(
            (
                i
                for i in range(len(records) - 1, -1, -1)
                if records[i].get("type") == "tool_call_requested"
                and records[i].get("call_id") == call_id
            ),
            None,
        )
        while (
            asking is not None
            and app.demo is not None
            and app.cursor.paused
            and app.cursor.index < asking
            and not app.demo_control.stopping
        ):
            app._cursor_moved.clear()
            await app._cursor_moved.wait()

    # -- leaving ------------------------------------------------------------------------------
    def cancel_turn(self) -> None:
        """Esc: the running turn (and the /demo after it) stops; waits for a step stop waiting."""
        app = self.app
        app.demo_control.stop()
        app._cursor_moved.set()  # an approval waiting for its step stops waiting
        if self.turn_running():
            app.live_engine.cancel()
            app.notify("Cancelling the turn…")

    async def quit(self) -> None:
        """Cancel a running turn and let the engine save it before leaving."""
        app = self.app
        if self.turn_worker is not None and self.turn_worker.is_running:
            app.live_engine.cancel()
            try:
                await asyncio.wait_for(self.turn_worker.wait(), timeout=5)
            except Exception:
                pass
        fleet = getattr(app.engine, "mcp", None)
        if (
            fleet is not None
        ):  # MCP servers are stopped, not left to notice the closed pipe
            try:
                await asyncio.wait_for(fleet.aclose(), timeout=10)
            except Exception:
                pass
        app.exit(0)
