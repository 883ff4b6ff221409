"""The deferred start: the first frame draws from the validated config at once, and the engine
(catalog, tools, provider) is built in a worker thread behind it ("loading skills…").

:class:`DeferredStart` is held by the app as ``app.starter``. It lists the skills read ahead,
builds the engine after the first frame, mounts the Tools / Timeline tabs and the Timeline once
the frame is drawn, warms the engine up and starts the MCP servers once trust is settled.
Prompts typed meanwhile wait in :attr:`DeferredStart.queued` and are sent when it is ready.
"""

from __future__ import annotations

import asyncio
import gc
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual.worker import get_current_worker

from aiq_tui.ui.widgets.skills_pane import SkillsPane

if TYPE_CHECKING:
    from concurrent.futures import Future

    from aiq_tui.config import AppConfig
    from aiq_tui.ui.app import AiqApp

READ_AHEAD_WAIT_S = 0.25
"""How long the first frame waits for a catalog read beside the imports (10,000 cached skills
take ≈ 0.1 s of that thread's time): a late list would cost a second layout of the screen,
drawn while the engine's build shares the interpreter with it. A slower read (a cold disk)
is listed by the start worker after the frame."""


@dataclass(frozen=True)
class EngineStart:
    """A deferred start: the validated config and home draw the first frame; ``build`` makes
    the engine (workspace catalog, tools, provider) in a worker thread after it."""

    config: AppConfig
    home: Any
    build: Callable[[], Any]
    listing: Callable[[], Any] | None = None
    """The skills as a new engine will list them, from the catalog alone: shown before ``build``
    (whose imports take most of the start) has finished."""
    read_ahead: Future[Any] | None = None
    """``listing``'s result, read by a thread beside the UI's imports (from a catalog cache):
    listed in the first frame when it is ready by then (:data:`READ_AHEAD_WAIT_S`)."""


class DeferredStart:
    """Builds the app's engine after the first frame and brings the screen up to it."""

    def __init__(self, app: AiqApp, start: EngineStart | None) -> None:
        self.app = app
        self.spec = start
        self.framed = (
            threading.Event()
        )  # set at the first frame: the engine is built after it
        self.listed_ahead = (
            False  # the read-ahead listing is in the first frame: the worker skips it
        )
        self.queued: list[str] = []  # prompts typed before the engine was ready

    def begin(self) -> None:
        """On mount, with no engine yet: list what was read ahead, then build in a thread."""
        self.listed_ahead = self.list_read_ahead()
        # Started now, not after the frame: a catalog not read ahead (no cache) is listed
        # right after the first frame; the engine waits for the list.
        self.app.run_worker(
            self.build_engine, thread=True, group="start", exit_on_error=False
        )

    def list_read_ahead(self) -> bool:
        """Lists the catalog read beside the imports, when it is ready within
        :data:`READ_AHEAD_WAIT_S`, so the first frame shows the skills. Waiting here gives that
        thread the interpreter to itself; drawing first and listing after costs a second
        layout, drawn while the engine's build competes with it."""
        ahead = self.spec.read_ahead if self.spec is not None else None
        if ahead is None:
            return False
        try:
            views = ahead.result(timeout=READ_AHEAD_WAIT_S)
        except Exception:
            return False
        self.app.query_one(SkillsPane).set_views(views)
        return True

    async def mount_activity(self) -> None:
        """The deferred start's tabs, in place of ``#activity-pending`` (same height: nothing moves)."""
        main = self.app.screen_stack[0]
        pending = main.query("#activity-pending")
        if not pending or main.query("#activity"):
            return
        await main.query_one("#right").mount(
            self.app.activity_tabs(), before=pending.first()
        )
        await pending.first().remove()

    def mount_timeline(self) -> None:
        """A deferred start mounts the Timeline, in a tab that is hidden at the start, with the
        engine, after the first frame, which need not wait for its module and styles (the
        widget was a RichLog, whose ``rich.pretty`` and ``attrs`` cost ≈ 10 ms). It shows what
        was drawn so far."""
        app = self.app
        main = app.screen_stack[0]
        if main.query("#timeline") or not main.query("#tab-timeline"):
            return
        timeline = app.timeline()
        main.query_one("#tab-timeline").mount(timeline)
        if app.view is not None and app.view.drawn is not None:
            timeline.show(app.view.drawn.timeline)

    def started(self) -> None:
        """The engine exists and the first frame is drawn: the rest loads behind the screen."""
        app = self.app
        self.mount_timeline()
        if (
            not gc.isenabled()
        ):  # tui_cmd paused it for start-up: what exists now lives all session
            gc.freeze()
            gc.enable()
        app.run_worker(self.warm_up, thread=True, group="warm-up", exit_on_error=False)
        if getattr(app.engine, "start_mcp", None) is not None:
            app.run_worker(self.start_mcp(), group="mcp", exit_on_error=False)

    async def start_mcp(self) -> None:
        """The MCP servers start (and a trusted project's are asked about) once the trust
        question is answered: trust comes first, a server's question never covers it."""
        await self.app.project_trust.settled.wait()
        await self.app.live_engine.start_mcp()

    def build_engine(self) -> None:
        """In a thread after the first frame: the catalog, the tools and the engine."""
        from aiq_tui.config import ConfigError

        app = self.app
        assert self.spec is not None
        try:
            if self.spec.listing is not None and not self.listed_ahead:
                # Waits until the list is drawn: building on meanwhile would halve its share of the GIL.
                # Textual types the callback as returning Awaitable[Never]: a coroutine is fine.
                app.call_from_thread(self.show_listing, self.spec.listing())  # type: ignore[arg-type]
            while not self.framed.wait(
                0.05
            ):  # the engine's imports (~0.2 s) must not delay the first frame
                if (
                    get_current_worker().is_cancelled
                ):  # the app ended before its first frame
                    return
            # After the frame and the list: neither waits for it. (Textual's stub: see above.)
            app.call_from_thread(self.mount_activity)  # type: ignore[arg-type]
            import aiq_tui.ui.widgets.timeline  # noqa: F401 - here, not on the UI's time (mounted by started)

            engine = self.spec.build()
        except (
            ConfigError,
            ValueError,
        ) as exc:  # sources.yaml, an unknown provider: exit 2, say why
            app.call_from_thread(self.start_failed, str(exc))
            return
        app.call_from_thread(self.engine_ready, engine)

    async def show_listing(self, views: Any) -> None:
        app = self.app
        if app.engine is None and app.is_running:
            app.query_one(SkillsPane).set_views(views)
            drawn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            app.call_after_refresh(
                lambda: None if drawn.done() else drawn.set_result(None)
            )
            try:
                await asyncio.wait_for(
                    drawn, timeout=1.0
                )  # never holds the build up for long
            except TimeoutError:
                pass

    def start_failed(self, message: str) -> None:
        gc.enable()
        self.app.start_error = message
        self.app.exit(2)

    def engine_ready(self, engine: Any) -> None:
        app = self.app
        if not app.is_running:
            return
        app.engine = engine
        if (
            app.project_trust.changed
        ):  # answered while the engine was being built from the old decision
            app.project_trust.apply()
        app.query_one(SkillsPane).show_reason("")
        app.bridge.attach()
        app.refresh_bindings()
        self.started()
        queued, self.queued = self.queued, []
        for text in queued:
            app.call_later(app.submit_text, text)

    def warm_up(self) -> None:
        """In a thread after the first frame, never on the UI's time: the engine loads its
        tokenizer and builds the match index; the first answer's markdown renderer loads."""
        engine = self.app.engine
        warm_up = getattr(engine, "warm_up", None)
        if warm_up is not None:
            warm_up()
            self.app.call_from_thread(self.warmed)
        import aiq_tui.ui.widgets.answer  # noqa: F401

        prepare = getattr(engine, "prepare_semantic", None)
        if (
            prepare is not None
        ):  # skill vectors (issue 16): embedded here; keyword-only until ready
            prepare()

    def warmed(self) -> None:
        """Exact token counts replace the estimates the first frame showed."""
        self.app.call_later(self.app.bridge.engine_budget)
        self.app.refresh_skills()
