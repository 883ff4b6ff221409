"""The workbench app: composes the main screen and turns engine events into pane updates.

Data flows one way. The engine runs its turns inside Textual workers on the app's event
loop; every event it emits is posted as an :class:`EngineEvent` message and handled here
in order, so the UI never blocks while a model streams and widgets never do I/O.
"""

from __future__ import annotations

import asyncio
import gc
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable

from textual import events, on, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Header, Static
from textual.worker import Worker, WorkerState, get_current_worker

from aiq_tui.skills.model import SkillState
from aiq_tui.terminal_text import for_terminal, printable
from aiq_tui.ui.commands import AiqCommands
from aiq_tui.ui.crash import write_crash_report
from aiq_tui.ui.history import append_history, history_path, load_history
from aiq_tui.replay.cursor import TimeCursor
from aiq_tui.ui.messages import (
    Drained, EngineEvent, ListEdge, ReplayRequested, SessionDeleted, SkillChosen, StreamedText,
)
from aiq_tui.ui.widgets.budget_gauge import BudgetGauge
from aiq_tui.ui.widgets.conversation import Conversation
from aiq_tui.ui.themes import ReadableThemes
from aiq_tui.ui.widgets.footer import CoalescedFooter
from aiq_tui.ui import mcp_prompts
from aiq_tui.ui.widgets.prompt import SLASH_COMMANDS, PromptInput
from aiq_tui.ui.widgets.skills_pane import SkillsPane
from aiq_tui.ui.view import StateView, fit_to_height

if TYPE_CHECKING:
    from concurrent.futures import Future

    from textual.widgets import DataTable

    # Screens other than the main one are imported by the actions that push them, and the
    # engine's types where events arrive: the first frame must not pay for them (tests/startup
    # guards this).
    from aiq_tui.config import AppConfig
    from aiq_tui.events import Event, SemanticProgress, SkillStateChanged
    from aiq_tui.problems import Problem
    from aiq_tui.tools.base import ApprovalRequest, Decision
    from aiq_tui.ui.screens.approval import ApprovalScreen

# Fits 80 columns: one line saying how to connect a real model.
DEMO_BANNER = "Offline demo model — set OPENAI_API_KEY or ANTHROPIC_API_KEY; Settings: F2"
THEMES = ("textual-dark", "textual-light")
READ_AHEAD_WAIT_S = 0.25
"""How long the first frame waits for a catalog read beside the imports (10,000 cached skills
take ≈ 0.1 s of that thread's time): a late list would cost a second layout of the screen,
drawn while the engine's build shares the interpreter with it. A slower read (a cold disk)
is listed by the start worker after the frame."""
# Actions that need the engine: while a deferred start builds it they are shown disabled.
NEEDS_ENGINE = frozenset({
    "settings", "inspector", "sessions", "replay", "doctor", "warnings", "reload_skills", "compact",
    "clear", "activate_skill", "set_skill_status", "open_skill", "long_demo",
})

# The workbench's own keys: off (and out of the footer) while a dialog is open on top of it.
MAIN_SCREEN_ONLY = frozenset({
    "show_help", "settings", "inspector", "sessions", "warnings", "copy_answer", "toggle_theme",
    "reload_skills", "toggle_activity", "maximize_activity", "scroll_conversation",
})


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
    read_ahead: "Future[Any] | None" = None
    """``listing``'s result, read by a thread beside the UI's imports (from a catalog cache):
    listed in the first frame when it is ready by then (:data:`READ_AHEAD_WAIT_S`)."""


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
            return (filled or inside or [None])[0]
        lists = [w for w in inside if type(w).__name__ != "ContentTabs"]  # the active tab's list
        return (lists or inside or [None])[0]

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
        if not event.is_printable or not event.character or focused is None or focused.id == "prompt":
            return
        from aiq_tui.ui.widgets.prompt import PromptInput

        prompt = self.query_one("#prompt", PromptInput)
        prompt.focus()
        prompt.insert_text_at_cursor(event.character)
        event.stop()
        event.prevent_default()


def semantic_label(event: SemanticProgress) -> str:
    """The header's note on semantic matching: progress while embedding, "semantic" when on."""
    if event.state == "failed":
        return "keyword matching (model failed)"
    if event.state == "ready" and event.done >= event.total:
        return "semantic on"
    return f"embedding skills {event.done}/{event.total}"


class AiqApp(ReadableThemes, App[int]):
    """``AiqApp(engine)`` — any object with the Engine's public surface works (tests use a fake)."""

    TITLE = "aiq-tui"
    CSS_PATH = "app.tcss"
    COMMANDS = App.COMMANDS | {AiqCommands}
    # Classes on the screen by size, used by app.tcss to fit 80×24 and scale up.
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (30, "-tall")]
    BINDINGS = [
        Binding("ctrl+c", "interrupt", "Cancel/quit", show=False, priority=True),
        Binding("escape", "cancel_turn", "Cancel turn", show=False),
        Binding("f1", "show_help", "Help"),
        Binding("f2", "settings", "Settings"),
        Binding("f3", "inspector", "Inspector"),
        Binding("f4", "sessions", "Sessions"),
        Binding("f5", "reload_skills", "Reload", show=False),
        Binding("f6", "warnings", "Warnings"),
        Binding("ctrl+y", "copy_answer", "Copy answer"),
        Binding("ctrl+t", "toggle_theme", "Theme"),
        Binding("ctrl+r", "reload_skills", "Reload", show=False),
        Binding("ctrl+o", "toggle_activity", "Tools/Timeline", show=False),
        Binding("f7", "maximize_activity", "Tools full", show=False),
        Binding("ctrl+q", "quit", "Quit", priority=True),
        # Reading from the prompt: panes with their own lists (skills, tool log) keep these keys.
        Binding("pageup", "scroll_conversation('page_up')", "Scroll up", show=False),
        Binding("pagedown", "scroll_conversation('page_down')", "Scroll down", show=False),
        Binding("ctrl+home", "scroll_conversation('top')", "Oldest message", show=False),
        Binding("ctrl+end", "scroll_conversation('end')", "Newest message", show=False),
        # The time cursor's keys act on the empty prompt (check_action below says when): its
        # arrows and End are the prompt's bindings, Space is typed there unless it pauses
        # (PromptInput._on_key) — decided in typing order. Here for the footer, after the rest.
        Binding("space", "toggle_pause", "Pause", key_display="␣"),
    ]

    def __init__(
        self,
        engine: Any,
        *,
        clock: Callable[[], datetime] | None = None,
        watch: bool = True,
        flash_seconds: float = 2.0,
        start: "EngineStart | None" = None,
        project: Path | None = None,
    ) -> None:
        super().__init__()
        self.engine = engine
        self._project = project  # the folder whose trust the first start asks about (default: cwd)
        self._trust_changed = False
        """None until a deferred start (:meth:`starting`) has built it, after the first frame."""
        self._start = start
        self._framed = threading.Event()  # set at the first frame: the engine is built after it
        self._listed_ahead = False  # the read-ahead listing is in the first frame: the worker skips it
        self.start_error: str | None = None
        """Why a deferred start could not build the engine (the app exits 2; run_tui prints it)."""
        self._queued: list[str] = []  # prompts typed before the engine was ready
        self._waiting: list[str] = []  # messages sent while a turn ran: sent after it, in order
        self.clock = clock or datetime.now
        self.watch_enabled = watch
        self.flash_seconds = flash_seconds
        self.busy = False
        self.first_frame_at: float | None = None
        self._turn_worker: Worker[None] | None = None
        self._stop_demo = False
        self._skills_refresh_pending = False
        self._pending_approval: ApprovalScreen | None = None
        self._cursor_moved = asyncio.Event()  # set at every draw: the cursor may have moved
        self._trust_settled = asyncio.Event()  # the project's trust question answered (or none asked)
        self._held_events: list[Event] | None = None  # a list while Replay mode is open
        self._open_stream: StreamedText | None = None
        self.cursor = TimeCursor()  # every event folded; the panes draw the state at the cursor
        self.demo: DemoSteps | None = None  # the step-through /demo, while it is stepped
        self.view: StateView = None  # type: ignore[assignment]  # made on mount, over the main screen
        self.crash: tuple[BaseException, Path | None] | None = None
        """Set when an unhandled error stops the app: the error and the crash report's path."""
        self.semantic_label = ""  # "embedding skills 42/199", then "semantic on"; shown in the header
        self.mcp_servers: dict[str, Any] = {}  # the last McpServerChanged per server (the MCP tab draws it)
        self.use_readable_themes()  # Textual's two themes, readable in 256 colours too
        if self.config.ui.theme in self.available_themes:
            self.theme = self.config.ui.theme

    @classmethod
    def starting(cls, config: AppConfig, home: Any, build: Callable[[], Any],
                 listing: Callable[[], Any] | None = None, read_ahead: "Future[Any] | None" = None,
                 **options: Any) -> "AiqApp":
        """The app with its engine built after the first frame, in a worker thread: the frame
        shows at once from the validated config, and the catalog, the index and every tool
        load behind it ("loading skills…"); ``listing``, when given, lists the skills before
        the rest has loaded (in the first frame when ``read_ahead``, its result computed by a
        thread, is ready by then). Prompts typed meanwhile are sent when it is ready."""
        return cls(None, start=EngineStart(config, home, build, listing, read_ahead), **options)

    @property
    def config(self) -> AppConfig:
        return self.engine.config if self.engine is not None else self._start.config  # type: ignore[union-attr]

    @property
    def home(self) -> Any:
        """The config home (:class:`~aiq_tui.locations.Home`)."""
        return self.engine.workspace.home if self.engine is not None else self._start.home  # type: ignore[union-attr]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        from textual.screen import ModalScreen

        if isinstance(self.screen, ModalScreen) and action in MAIN_SCREEN_ONLY:
            return False  # a dialog's footer shows its own keys, not the workbench's
        if self.engine is None and action in NEEDS_ENGINE:
            return None  # shown, disabled: it works once the skills have loaded
        if action in CURSOR_ACTIONS:
            return self._cursor_keys_apply(action)
        return True

    def _cursor_keys_apply(self, action: str) -> bool:
        """The cursor's keys act on the main screen's empty prompt (typing keeps its keys):
        Space when there is something to pause, the arrows and End only while paused."""
        if not self.is_mounted or self.screen is not self.screen_stack[0] or not self.cursor.records:
            return False
        prompt = self.view.find("#prompt") if self.view is not None else None  # held: asked per key
        if prompt is None or prompt.value or self.screen.focused is not prompt:
            return False
        return action == "toggle_pause" or self.cursor.paused

    # -- layout --------------------------------------------------------------------------
    def get_default_screen(self) -> Screen[Any]:
        return MainScreen(id="_default")

    def compose(self) -> ComposeResult:
        context = self.config.context
        yield Header()
        yield Static(DEMO_BANNER, id="banner", markup=False)
        yield Static("", id="problems-banner", markup=False)
        with Horizontal(id="main"):
            with Vertical(id="left"):
                conversation = Conversation(id="conversation")
                conversation.can_focus = False  # read from the prompt (PgUp / PgDn): not a second Tab stop
                yield conversation
                yield Static("", id="cursor-bar", markup=False)
                yield PromptInput(self._skill_names, id="prompt")
            with Vertical(id="right"):
                yield SkillsPane(id="skills")
                yield BudgetGauge((context.compress_at, context.evict_at, context.aggressive_at), id="gauge")
                if self.engine is not None:  # built already: its events are drawn from mount on
                    yield self._activity(self._timeline())
                else:  # a deferred start: the tabs are mounted after the first frame, in this place
                    yield Static("", id="activity-pending")
        yield CoalescedFooter()

    @staticmethod
    def _activity(*timeline: Any) -> Any:
        """The Tools / Timeline tabs. A deferred start mounts them once the first frame (and the
        skills listed in it) are drawn, the Timeline itself with the engine: the tabs, the tool
        log's DataTable and their styles were a tenth of the first frame's time, for a pane
        that is empty until the first turn. Until then ``#activity-pending`` keeps its place."""
        from textual.widgets import TabbedContent, TabPane

        from aiq_tui.ui.widgets.tool_log import ToolLog

        tabs = TabbedContent(id="activity")
        tabs.compose_add_child(TabPane("Tools", ToolLog(id="tool-log"), id="tab-tools"))
        tabs.compose_add_child(TabPane("Timeline", *timeline, id="tab-timeline"))
        return tabs

    async def _mount_activity(self) -> None:
        """The deferred start's tabs, in place of ``#activity-pending`` (same height: nothing moves)."""
        main = self.screen_stack[0]
        pending = main.query("#activity-pending")
        if not pending or main.query("#activity"):
            return
        await main.query_one("#right").mount(self._activity(), before=pending.first())
        await pending.first().remove()

    def on_mount(self) -> None:
        self.view = StateView(self.screen, self._catalog_views, flash=self._flash)
        prompt = self.query_one("#prompt", PromptInput)
        prompt.load_history(load_history(self._history_file(), self._history_size()))
        prompt.border_title = "Prompt"
        if self.is_headless:  # nobody sees a blink; a blinking cursor would make pictures depend on timing
            prompt.cursor_blink = False
        prompt.focus()
        if self.engine is not None:
            self._attach_engine()
        else:
            self.show_banner()
            self._update_subtitle()
            self.query_one(SkillsPane).show_reason("loading skills…")
            self._listed_ahead = self._list_read_ahead()
            # Started now, not after the frame: a catalog not read ahead (no cache) is listed
            # right after the first frame; the engine waits for the list.
            self.run_worker(self._build_engine, thread=True, group="start", exit_on_error=False)
        self.call_after_refresh(self._first_frame)

    def _list_read_ahead(self) -> bool:
        """Lists the catalog read beside the imports, when it is ready within
        :data:`READ_AHEAD_WAIT_S`, so the first frame shows the skills. Waiting here gives that
        thread the interpreter to itself; drawing first and listing after costs a second
        layout, drawn while the engine's build competes with it."""
        ahead = self._start.read_ahead if self._start is not None else None
        if ahead is None:
            return False
        try:
            views = ahead.result(timeout=READ_AHEAD_WAIT_S)
        except Exception:  # noqa: BLE001 - late or failed: the start worker lists it, or reports why not
            return False
        self.query_one(SkillsPane).set_views(views)
        return True

    def _attach_engine(self) -> None:
        """Everything the panes show comes from the engine from now on."""
        self.engine.subscribe(self._sink)
        self.engine.approver = self._approve
        if getattr(self.engine, "mcp", None) is not None:
            self.engine.mcp.approver = self._approve_mcp_server
            mcp_prompts.install_elicitor(self, self.engine.mcp)  # a server's questions: a dialog
        self.show_banner()
        self._update_subtitle()
        self._show_problems(self._problems())
        self.refresh_skills()
        self.call_later(self._engine_budget)
        if self.watch_enabled and self.engine.config.skills.watch:
            self.watch_skills()

    def banner_text(self) -> str | None:
        """The demo notice, or — before the first message fails on it — a provider that cannot
        answer (no API key): asked of the provider's own readiness check."""
        # Still starting: the config says whether it is the demo (a real provider is checked once built).
        demo = self.engine.is_demo if self.engine is not None else self.config.llm.active().kind == "demo"
        if demo:
            return DEMO_BANNER if self.config.ui.show_banner else None
        check = getattr(getattr(self.engine, "provider", None), "_check_ready", None)
        if check is None:
            return None
        try:
            check()
        except Exception as exc:  # noqa: BLE001 - any reason it cannot answer is worth a banner
            return f"⚠ {exc} — F2 Settings"
        return None

    def show_banner(self) -> None:
        banner = self.query_one("#banner", Static)
        text = self.banner_text()
        banner.display = text is not None
        banner.update(text or "")

    def _history_file(self) -> Path:
        return history_path(self.home.data_dir)

    def _history_size(self) -> int:
        return self.config.ui.history_size

    @work(thread=True, group="history", exit_on_error=False)
    def _keep_history(self, text: str) -> None:
        append_history(self._history_file(), text, self._history_size())

    def watch_theme(self, theme: str) -> None:
        """Ctrl+T or the palette's theme picker: the choice is kept for the next run."""
        if not self.is_running or theme == self.config.ui.theme:
            return
        self.config.ui.theme = theme
        self._save_ui_settings({"theme": theme})

    @work(thread=True, group="settings", exit_on_error=False)
    def _save_ui_settings(self, changes: dict[str, Any]) -> None:
        from aiq_tui.ui.config_file import save_settings

        try:
            save_settings(self.home.config_file, {"ui": changes})
        except Exception as exc:  # noqa: BLE001 - an unsaved theme must not stop the app
            self.call_from_thread(self.notify, f"could not save the theme: {exc}", severity="warning")

    def on_resize(self, event: events.Resize) -> None:
        # Narrow terminals: the footer's compact form fits more keys in 80 columns.
        for footer in self.screen_stack[0].query(Footer):
            footer.compact = event.size.width < 110
        # Short terminals (80×24): a compact gauge and smaller sections keep Inactive visible.
        for screen in self.screen_stack:  # the workbench and Replay, if it is open
            fit_to_height(screen, event.size.height)

    def _first_frame(self) -> None:
        self.first_frame_at = time.perf_counter()
        self._ask_trust()
        if self.engine is None:
            self._framed.set()
            return
        self._started()

    def _timeline(self) -> Any:
        from aiq_tui.ui.widgets.timeline import Timeline

        return Timeline(id="timeline")

    def _mount_timeline(self) -> None:
        """A deferred start mounts the Timeline, in a tab that is hidden at the start, with the
        engine, after the first frame: its widget, Textual's RichLog, imports ``rich.pretty``
        and ``attrs`` (≈ 10 ms) that the frame need not wait for. It shows what was drawn so far."""
        main = self.screen_stack[0]
        if main.query("#timeline") or not main.query("#tab-timeline"):
            return
        timeline = self._timeline()
        main.query_one("#tab-timeline").mount(timeline)
        if self.view is not None and self.view.drawn is not None:
            timeline.show(self.view.drawn.timeline)

    def _started(self) -> None:
        self._mount_timeline()
        if not gc.isenabled():  # ui.run paused it for start-up: what exists now lives all session
            gc.freeze()
            gc.enable()
        self.run_worker(self._warm_up, thread=True, group="warm-up", exit_on_error=False)
        if getattr(self.engine, "start_mcp", None) is not None:
            self.run_worker(self._start_mcp(), group="mcp", exit_on_error=False)

    async def _start_mcp(self) -> None:
        """The MCP servers start (and a trusted project's are asked about) once the trust
        question is answered: trust comes first, a server's question never covers it."""
        await self._trust_settled.wait()
        await self.engine.start_mcp()

    def _build_engine(self) -> None:
        """In a thread after the first frame: the catalog, the tools and the engine."""
        from aiq_tui.config import ConfigError

        assert self._start is not None
        try:
            if self._start.listing is not None and not self._listed_ahead:
                # Waits until the list is drawn: building on meanwhile would halve its share of the GIL.
                self.call_from_thread(self._show_listing, self._start.listing())
            while not self._framed.wait(0.05):  # the engine's imports (~0.2 s) must not delay the first frame
                if get_current_worker().is_cancelled:  # the app ended before its first frame
                    return
            self.call_from_thread(self._mount_activity)  # after the frame and the list: neither waits for it
            import aiq_tui.ui.widgets.timeline  # noqa: F401 - here, not on the UI's time (mounted by _started)
            engine = self._start.build()
        except (ConfigError, ValueError) as exc:  # sources.yaml, an unknown provider: exit 2, say why
            self.call_from_thread(self._start_failed, str(exc))
            return
        self.call_from_thread(self._engine_ready, engine)

    async def _show_listing(self, views: Any) -> None:
        if self.engine is None and self.is_running:
            self.query_one(SkillsPane).set_views(views)
            drawn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self.call_after_refresh(lambda: drawn.done() or drawn.set_result(None))
            try:
                await asyncio.wait_for(drawn, timeout=1.0)  # never holds the build up for long
            except asyncio.TimeoutError:
                pass

    def _start_failed(self, message: str) -> None:
        gc.enable()
        self.start_error = message
        self.exit(2)

    def _engine_ready(self, engine: Any) -> None:
        if not self.is_running:
            return
        self.engine = engine
        if self._trust_changed:  # answered while the engine was being built from the old decision
            self._apply_trust()
        self.query_one(SkillsPane).show_reason("")
        self._attach_engine()
        self.refresh_bindings()
        self._started()
        queued, self._queued = self._queued, []
        for text in queued:
            self.call_later(self._submit_text, text)

    def _warm_up(self) -> None:
        """In a thread after the first frame, never on the UI's time: the engine loads its
        tokenizer and builds the match index; the first answer's markdown renderer loads."""
        warm_up = getattr(self.engine, "warm_up", None)
        if warm_up is not None:
            warm_up()
            self.call_from_thread(self._warmed)
        import aiq_tui.ui.widgets.answer  # noqa: F401
        prepare = getattr(self.engine, "prepare_semantic", None)
        if prepare is not None:  # skill vectors (issue 16): embedded here; keyword-only until ready
            prepare()

    def _warmed(self) -> None:
        """Exact token counts replace the estimates the first frame showed."""
        self.call_later(self._engine_budget)
        self.refresh_skills()

    async def _engine_budget(self) -> None:
        """The engine's budget outside a turn (start, warm-up, settings), folded as the event it is."""
        from aiq_tui.events import BudgetChanged

        await self.apply_event(BudgetChanged(self.engine.breakdown))

    # -- engine → UI -------------------------------------------------------------------
    def _sink(self, event: Event) -> None:
        from aiq_tui.events import TokenStreamed

        event = for_terminal(event)  # what the model and the tools wrote: shown escaped, never obeyed
        if isinstance(event, TokenStreamed):
            if self._open_stream is not None and self._open_stream.open:
                self._open_stream.parts.append(event.text)
            else:
                self._open_stream = StreamedText(event.text)
                self.post_message(self._open_stream)
            return
        if self._open_stream is not None:  # later tokens must not jump ahead of this event
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

    def _handle_exception(self, error: Exception) -> None:
        # Textual's last stop for an unhandled error: keep a report before the app exits
        # (run_tui prints its path and exits 1).
        if self.crash is None:
            self.crash = (error, write_crash_report(self.home.root, error))
        super()._handle_exception(error)

    async def on_engine_event(self, message: EngineEvent) -> None:
        if self._held_events is not None:  # Replay mode draws with the same widgets: live waits
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
        if demo is not None and demo.step_pending and self.cursor.paused and self.cursor.next_step(self._is_step):
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

    # -- the time cursor --------------------------------------------------------------------
    def _show_cursor_bar(self) -> None:
        bar = self.view.find("#cursor-bar") if self.view is not None else None  # held: no query per event
        if bar is None:
            return
        cursor = self.cursor
        bar.display = cursor.paused
        if not cursor.paused:
            return
        shown = cursor.shown
        if self.demo is not None:
            bar.update(self.demo.bar(cursor, self.engine.config.ui.demo_step_seconds))
            return
        bar.update(paused_bar(cursor))

    async def action_toggle_pause(self) -> None:
        if self.demo is not None and self.cursor.paused:  # the demo: Space plays / pauses
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

    # -- what only the chrome shows (CHROME below names these per event type) ---------------------
    async def _on_error(self, event: Any) -> None:
        self.notify(event.message, title="Error", severity="error", markup=False)

    async def _on_session_saved(self, event: Any) -> None:
        self._update_subtitle()

    async def _on_semantic(self, event: Any) -> None:
        self.semantic_label = semantic_label(event)
        self._update_subtitle()

    async def _on_reloaded(self, event: Any) -> None:
        if event.problems:
            self.notify(str(self._shown_problem(event.problems[0])), title="Skill failed to load",
                        severity="warning", markup=False)
        self._show_problems(self._problems())
        self.refresh_skills()

    async def _mcp_changed(self, event: Any) -> None:
        """An MCP server started, failed, changed its tools: the MCP tab (added with the first
        server) redraws, the timeline and the warnings banner say what happened."""
        from aiq_tui.ui.widgets.mcp_pane import McpPane

        old = self.mcp_servers.get(event.name)
        self.mcp_servers[event.name] = event
        from textual.widgets import TabPane

        tabs: Any = self.query_one("#activity")
        if not self.query("#mcp-pane"):
            await tabs.add_pane(TabPane("MCP", McpPane(id="mcp-pane"), id="tab-mcp"))
        self.query_one("#mcp-pane", McpPane).show(self.mcp_servers)
        if old is None or (old.state, old.tools, old.omitted) != (event.state, event.tools, event.omitted):
            detail = f"{len(event.tools)} tools" if event.state == "ready" else (event.message.splitlines() or [""])[0]
            await self.take({"type": "mcp_server_changed", "line": f"{event.name}: {event.state} — {detail}"})
        if event.state in ("failed", "not approved") and (old is None or old.state != event.state):
            self.notify((event.message.splitlines() or [""])[0], title=f"MCP server {event.name}: {event.state}",
                        severity="warning")
        self._show_problems(self._problems())

    async def _mcp_progress(self, event: Any) -> None:
        if self.busy:  # the status line under the prompt, while the call runs
            self.query_one("#prompt", PromptInput).border_subtitle = mcp_prompts.progress_line(event)

    async def _approve_mcp_server(self, server: Any) -> str | None:
        """The fleet's question about an untrusted project's server: a modal, answered once."""
        from aiq_tui.ui.screens.mcp_approval import McpApprovalScreen

        future: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()

        def decided(answer: str | None) -> None:
            if not future.done():
                future.set_result(answer)

        self.call_later(lambda: None if future.done() else self.push_screen(McpApprovalScreen(server),
                                                                             callback=decided))
        return await future

    def _catalog_views(self) -> list[Any]:
        return self.engine.skill_views() if self.engine is not None else []

    def refresh_skills(self) -> None:
        """The catalog changed (not an event): the skills pane lists it again, coalesced."""
        if self._skills_refresh_pending:
            return
        self._skills_refresh_pending = True

        async def redraw() -> None:
            self._skills_refresh_pending = False
            self.view.catalog_changed()
            self.view.drawn = None
            await self.draw()

        self.call_later(redraw)

    def _flash(self, names: Any) -> None:
        """Skills that just changed state are highlighted for a moment."""
        pane = self.query_one(SkillsPane)
        for name in names:
            pane.flash(name)
            self.set_timer(self.flash_seconds, lambda name=name: pane.unflash(name))

    # -- state helpers -----------------------------------------------------------------
    def _skill_names(self) -> Iterable[str]:
        return self.engine.workspace.catalog.names() if self.engine is not None else ()

    def _bases(self) -> list[Path]:
        return [self.home.root, Path.cwd()]

    def shown(self, path: Path | None) -> str:
        from aiq_tui.ui.screens.warnings import shown_path

        return shown_path(path, self._bases())

    def _problems(self) -> tuple[Problem, ...]:
        return tuple(self.engine.problems) if self.engine is not None else ()

    def _shown_problem(self, problem: Problem) -> str:
        return f"{self.shown(problem.path)}: {problem.message}" + (f" — {problem.hint}" if problem.hint else "")

    def _show_problems(self, problems: tuple[Problem, ...]) -> None:
        from aiq_tui.tools.launcher import sandbox_warning

        banner = self.query_one("#problems-banner", Static)
        # "" while Landlock confines commands in a project; a warning otherwise
        sandbox = sandbox_warning(self.engine.workspace.cwd if self.engine is not None else None)
        banner.display = bool(problems) or bool(sandbox)
        if problems:
            count = len(problems)
            what = "problem" if any(p.message.startswith(("MCP server", "tools.permissions."))
                                    for p in problems) else "skill problem"
            banner.update(f"⚠ {count} {what}{'s' if count != 1 else ''} — F6 shows what to fix"
                          + (f"\n{sandbox}" if sandbox else ""))
        elif sandbox:
            banner.update(sandbox)

    def _update_subtitle(self) -> None:
        if self.engine is None:
            self.sub_title = "starting…"
            return
        session = self.engine.session
        title = printable(session.display_title, one_line=True) if session.messages else "new session"
        self.sub_title = f"{self.engine.provider_label} · {title} [{session.id}]"
        if self.semantic_label:
            self.sub_title += f" · {self.semantic_label}"

    def _set_busy(self, busy: bool) -> None:
        self.busy = busy
        prompt = self.query_one("#prompt", PromptInput)
        prompt.border_subtitle = "working… Esc cancels" if busy else ""
        prompt.set_class(busy, "-busy")

    # -- input --------------------------------------------------------------------------
    @on(PromptInput.Changed, "#prompt")
    def _prompt_changed(self, event: PromptInput.Changed) -> None:
        if not event.value or len(event.value) == 1:  # emptiness decides which keys the cursor takes
            self.refresh_bindings()

    @on(PromptInput.Submitted, "#prompt")
    async def _submitted(self, event: PromptInput.Submitted) -> None:
        text = event.value.strip()
        prompt = self.query_one("#prompt", PromptInput)
        if not text:
            return
        prompt.remember(text)
        self._keep_history(text)
        prompt.value = ""
        if self.cursor.paused:  # what the user sends is answered live
            await self.action_cursor_live()
        if self.engine is None:  # typed while skills load: sent the moment the engine is ready
            self._queued.append(text)
            self.notify("Starting — your message is sent as soon as the skills have loaded.")
            return
        await self._submit_text(text)

    async def _submit_text(self, text: str) -> None:
        if text.startswith("/"):
            await self.run_slash(text)
            return
        self.send(text)

    def _refused_while_turn_runs(self) -> bool:
        """True (and the user is told) while a turn or the long demo runs."""
        running = self._turn_running()
        if running:
            self.notify("A turn is running — Esc cancels it.", severity="warning")
        return running

    def send(self, text: str) -> None:
        if self._turn_running():  # kept, shown as queued, and sent when the running turn ends
            self._waiting.append(text)
            self.call_later(self.note, f"queued: {text} — sent when the running turn ends "
                                       f"({len(self._waiting)} waiting; Esc cancels the running turn)", "info")
            return
        self._set_busy(True)
        self._turn_worker = self._run_turn(text)

    def _send_waiting(self) -> None:
        if self._waiting and not self._turn_running():
            self.send(self._waiting.pop(0))

    @work(group="turn", exit_on_error=False)
    async def _run_turn(self, text: str) -> None:
        await self.engine.send(text)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker is self._turn_worker and event.state in (WorkerState.ERROR, WorkerState.CANCELLED,
                                                                   WorkerState.SUCCESS):
            if event.state is WorkerState.ERROR:
                self.notify(printable(f"turn failed: {event.worker.error}"), severity="error", markup=False)
            if event.state is not WorkerState.SUCCESS:
                self._set_busy(False)
            if self._waiting:
                self.call_later(self._send_waiting)

    async def run_slash(self, text: str) -> None:
        command, _, rest = text.partition(" ")
        rest = rest.strip()
        conversation = self.query_one(Conversation)
        if command == "/skill":
            if not rest:
                await self.note("usage: /skill NAME", "warning")
            else:
                self._activate(rest)
        elif command == "/skills":
            pane = self.query_one(SkillsPane)
            counts = ", ".join(f"{len(pane.views_in(s))} {s.value}" for s in SkillState)
            await self.note(f"skills: {counts}", "info")
            # The first section with something in it; with no skills at all the prompt keeps focus.
            filled = next((state for state in SkillState if pane.views_in(state)), None)
            if filled is not None:
                pane.section(filled).focus()
        elif command == "/match":
            self.action_inspector(rest)
        elif command == "/compact":
            self._compact()
        elif command == "/demo":
            await self.action_long_demo(play=rest == "play")
        elif command == "/clear":
            await self.action_clear()
        elif command == "/model":
            await self.note(f"model: {self.engine.provider_label}", "info")
            self.action_settings(model_only=True)
        elif command == "/session":
            self.action_sessions()
        elif command == "/save-skill":
            if not rest:
                await self.note("usage: /save-skill NAME", "warning")
            else:
                self._save_skill(rest)
        elif command == "/help":
            self.action_show_help()
        elif command == "/replay":
            self.action_replay(rest)
        elif command == "/doctor":
            self.action_doctor()
        elif command.startswith("/mcp__") and await mcp_prompts.run_prompt_command(self, command, rest):
            pass  # an MCP server's prompt, sent as the user's message
        else:
            known = " ".join(SLASH_COMMANDS)
            await self.note(f"unknown command {command}; try: {known}", "warning")

    # -- workers for engine actions ----------------------------------------------------------
    @work(group="engine", exit_on_error=False)
    async def _activate(self, name: str) -> None:
        if not await self.engine.activate(name):
            catalog = self.engine.workspace.catalog
            dormant = catalog.find(name) if hasattr(catalog, "find") else None
            if dormant is not None:  # disabled, not gone: say so and open it where e enables it
                await self.note(
                    f"{name} is {status_label(dormant.status)} — e in its viewer (or 'Enable skill: {name}' "
                    "in Ctrl+P) enables it", "warning")
                self.action_open_skill(name)
                return
            close = catalog.close_names(name) if hasattr(catalog, "close_names") else []
            hint = f" — did you mean {', '.join(close)}?" if close else ""
            await self.note(f"no skill named {name!r}{hint}", "warning")
        else:
            await self.note(f"activated {name}", "info")
            if self.screen is not self.screen_stack[0]:  # e.g. from the skill viewer: say so there
                self.notify(f"Activated {name}.")

    @work(group="engine", exit_on_error=False)
    async def _compact(self) -> None:
        plan = await self.engine.compact()
        if plan.is_noop:
            why = "; ".join(plan.notes) or "nothing older than the kept messages"
            await self.note(f"nothing to compact: {why}", "info")

    async def action_long_demo(self, play: bool = False) -> None:
        """``/demo``: the demo model's scripted story, step by step: the view pauses after every
        step (→ the next, ← back, Space plays at ``ui.demo_step_seconds`` and pauses again) and
        the bar above the prompt says what the step did and why; the next turn starts when the
        last step of the previous one has been seen. ``/demo play`` starts playing. Esc stops it."""
        if not self.engine.is_demo:
            await self.note("/demo plays a script for the offline demo model; "
                            "start with --provider demo to watch it", "warning")
            return
        if self._refused_while_turn_runs():
            return
        await self.note("step-through demo: each answer grows the context until compression fires at 80, "
                        "90 and 95 % — → next step · ← back · Space plays · End live · Esc stops", "info")
        self._stop_demo = False
        self.demo = DemoSteps(start=len(self.cursor.records) - 1)
        self.cursor.pause_at(self.demo.start)
        self._set_busy(True)
        self._turn_worker = self._run_long_demo()
        if play:
            self._play(True)
        await self.draw()
        self.refresh_bindings()

    @work(group="turn", exit_on_error=False)
    async def _run_long_demo(self) -> None:
        from aiq_tui.llm.demo import DemoScript

        script = DemoScript.for_engine(self.engine)
        if script.window_note:  # the story is written for the demo model's window
            await self.note(script.window_note, "info")
        pause = self.engine.config.ui.demo_turn_pause
        first = True
        try:
            while not self._stop_demo and (text := script.next_turn(self.engine.breakdown.fraction)) is not None:
                if not first:
                    await self._demo_turn_seen()
                    if self._stop_demo:
                        break
                first = False
                await self.engine.send(text)
                # The demo model answers without waiting on anything: let the screen show this
                # turn (and Esc, Ctrl+C or the palette be handled) before the next one starts.
                await self.drained()
                if pause and not self._stop_demo and not self.cursor.paused:
                    await asyncio.sleep(pause)
        finally:
            script.close()  # it stops watching the engine whether the story ended or was stopped
        self._set_busy(False)
        if self._stop_demo:
            self.demo = None
            self._play(False)
            self.cursor.live()
            await self.note("long demo stopped — /demo plays it again", "warning")
            self.refresh_bindings()
        elif self.demo is not None:
            from aiq_tui.replay.captions import demo_summary

            self.demo.finished = True
            records = self.cursor.records[self.demo.start:]
            await self.note(demo_summary(records, self.engine.session.id), "info")

    async def _demo_turn_seen(self) -> None:
        """While the demo is stepped, the next turn waits until every step so far was shown."""
        demo = self.demo
        while demo is not None and self.cursor.paused and not self._stop_demo:
            demo.go.clear()
            if self.cursor.after == 0 and demo.wanted:
                demo.wanted = False
                return
            await demo.go.wait()

    def _is_step(self, index: int) -> bool:
        """An event the step-through demo stops on: one with a caption, or the app's own notice."""
        demo = self.demo
        if demo is None:
            return True
        return demo.caption(self.cursor.records, index) is not None or \
            self.cursor.records[index].get("type") == "notice"

    async def _demo_next(self) -> bool:
        """→ in the demo: the next step, or (every step seen) the next turn. False at the end."""
        demo = self.demo
        if demo is None:
            return False
        if self.cursor.next_step(self._is_step):
            await self.draw()
            return True
        if demo.finished:
            return False
        demo.wanted = True  # the worker starts the next turn; its first step is shown when it arrives
        demo.step_pending = True
        demo.go.set()
        return True

    def _play(self, on: bool) -> None:
        demo = self.demo
        if demo is None:
            return
        if demo.timer is not None:
            demo.timer.stop()
            demo.timer = None
        pace = self.engine.config.ui.demo_step_seconds
        if on and not pace:
            self.cursor.live()  # no pace: playing is the live view
            demo.go.set()
            demo.wanted = True
        elif on:
            demo.timer = self.set_interval(pace, self._play_tick)
        demo.playing = on
        self._show_cursor_bar()

    async def _play_tick(self) -> None:
        if not await self._demo_next() or self.demo is None:
            self._play(False)

    @work(group="engine", exit_on_error=False)
    async def _resume(self, session_id: str) -> None:
        """The resumed session's recorded turns are folded as they were shown live (tool calls
        as ``⚙`` lines, compressions, skill changes); then the engine restores its skills."""
        if self.busy:
            self.engine.cancel()
        await self.engine.resume(session_id)
        await self.drained()  # the skills it restored are folded before its history
        await self._new_story({"type": "reset"})
        for record in history_records(self.engine.session):
            await self.take(record)
        await self._engine_budget()  # the budget now, not the one its last turn ended on
        self._update_subtitle()
        self.refresh_skills()

    # -- project trust ---------------------------------------------------------------------------
    def project_dir(self) -> Path:
        workspace = getattr(self.engine, "workspace", None)
        return self._project or getattr(workspace, "cwd", None) or Path.cwd()

    def _ask_trust(self) -> None:
        """First start in an undecided folder that brings skills or a .mcp.json: ask, as Claude
        Code asks "Do you trust the files in this folder?" (see aiq_tui.trust)."""
        from aiq_tui.trust import needs_decision

        offers = needs_decision(self.home, self.project_dir(), self.config.skills.project_dirs)
        if offers:
            from aiq_tui.ui.screens.trust import TrustScreen

            self.push_screen(TrustScreen(self.project_dir(), offers), callback=self._trust_answered)
        else:
            self._trust_settled.set()

    def _trust_answered(self, level: Any) -> None:
        self.query_one("#prompt", PromptInput).focus()
        if level is not None:
            self._record_trust(level)
        else:  # decided later: untrusted for this run
            self._trust_settled.set()

    @work(thread=True, group="trust", exit_on_error=False)
    def _record_trust(self, level: Any) -> None:
        from aiq_tui.trust import TrustFileError, record

        try:
            record(self.home, self.project_dir(), level)
        except (OSError, TrustFileError) as exc:
            self.call_from_thread(self.notify, f"could not remember the decision: {exc}", severity="error")
            self.call_from_thread(self._trust_settled.set)
            return
        self.call_from_thread(self._trust_recorded, level)

    def _trust_recorded(self, level: Any) -> None:
        self._trust_settled.set()  # recorded: the MCP servers start under it
        self._trust_changed = True
        self.notify(f"{self.project_dir()}: {level.value}; `aiq-tui trust` changes it", timeout=4)
        if self.engine is not None:
            self._apply_trust()

    def _apply_trust(self) -> None:
        refresh = getattr(self.engine, "refresh_trust", None)
        if refresh is not None:
            refresh()
        self._trust_changed = False

    # -- approvals -------------------------------------------------------------------------
    async def _approve(self, request: ApprovalRequest) -> Decision:
        """The engine's approver: show the modal and wait for the user's choice."""
        from aiq_tui.tools.base import Decision
        from aiq_tui.ui.screens.approval import ApprovalScreen

        future: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()
        screen = ApprovalScreen(request)

        def decided(decision: Decision | None) -> None:
            if not future.done():
                future.set_result(decision or Decision.DENY)

        self._pending_approval = screen
        try:
            # The screen first shows what led to the question (skills loaded, the call's notice):
            # once the modal is up, the panes behind it are not laid out again until it closes.
            await self.drained()
            await self._asking_step_shown(request.call_id)
            # Queued after the engine events already posted (the call's own notice among them):
            # while the modal is up, queries for the main screen's widgets would find nothing.
            self.call_later(lambda: None if future.done() else self.push_screen(screen, callback=decided))
            return await future
        except asyncio.CancelledError:
            if screen.is_current:
                screen.dismiss(Decision.DENY)
            raise
        finally:
            self._pending_approval = None

    async def _asking_step_shown(self, call_id: str) -> None:
        """A stepped ``/demo`` asks on its own step: the engine, which runs ahead of the steps on
        screen, waits here until the user has stepped to the call that asks (its caption says
        "it asks for your approval"), or goes live, or the demo ends."""
        records = self.cursor.records
        asking = next((i for i in range(len(records) - 1, -1, -1)
                       if records[i].get("type") == "tool_call_requested" and records[i].get("call_id") == call_id),
                      None)
        while asking is not None and self.demo is not None and self.cursor.paused and self.cursor.index < asking \
                and not self._stop_demo:
            self._cursor_moved.clear()
            await self._cursor_moved.wait()

    # -- watching skill folders -----------------------------------------------------------------
    def watch_dirs(self) -> list[Path]:
        return [entry.path for entry in self.engine.workspace.skill_dirs if entry.path.is_dir()]

    @work(group="watch", exclusive=True, exit_on_error=False)
    async def watch_skills(self) -> None:
        from watchfiles import awatch

        dirs = self.watch_dirs()
        if not dirs:
            return
        async for _changes in awatch(*dirs, debounce=200, step=50):
            self.engine.reload()

    # -- actions ----------------------------------------------------------------------------------
    def _turn_running(self) -> bool:
        """A turn, or the long demo (which is between two turns part of the time)."""
        return self.busy or (self._turn_worker is not None and self._turn_worker.is_running)

    def action_interrupt(self) -> None:
        """Ctrl+C: copies the text selected with the mouse, if any (as in any Textual app: this
        binding comes first, so it does that too); else cancels a running turn."""
        selected = self.screen.get_selected_text()
        if selected:
            self.copy_to_clipboard(selected)
            self.screen.clear_selection()
            self.notify(f"Copied the selected text ({len(selected):,} characters).")
            return
        if self._turn_running():
            self.action_cancel_turn()
        else:
            self.notify("Press Ctrl+Q to quit (your session is saved after every turn).")

    def action_cancel_turn(self) -> None:
        if self.screen.maximized is not None and not self._turn_running():
            self.screen.minimize()  # Esc leaves the full-screen Tools / Timeline first
            return
        self._stop_demo = True  # the long demo stops after the turn that is cancelled now
        self._cursor_moved.set()  # an approval waiting for its step stops waiting
        if self.demo is not None:
            self.demo.go.set()  # a demo waiting for the next step stops waiting
        if self._turn_running():
            self.engine.cancel()
            self.notify("Cancelling the turn…")

    async def action_quit(self) -> None:
        """Cancel a running turn and let the engine save it before leaving."""
        if self._turn_worker is not None and self._turn_worker.is_running:
            self.engine.cancel()
            try:
                await asyncio.wait_for(self._turn_worker.wait(), timeout=5)
            except Exception:  # noqa: BLE001 - leaving anyway; the engine saved after the last turn
                pass
        fleet = getattr(self.engine, "mcp", None)
        if fleet is not None:  # MCP servers are stopped, not left to notice the closed pipe
            try:
                await asyncio.wait_for(fleet.aclose(), timeout=10)
            except Exception:  # noqa: BLE001 - leaving anyway
                pass
        self.exit(0)

    def action_scroll_conversation(self, where: str) -> None:
        conversation = self.query_one(Conversation)
        {"page_up": lambda: conversation.page(-1), "page_down": lambda: conversation.page(1),
         "top": conversation.to_top, "end": conversation.to_end}[where]()

    def action_show_help(self) -> None:
        from aiq_tui.ui.screens.help import HelpScreen

        self.push_screen(HelpScreen())

    def action_settings(self, model_only: bool = False) -> None:
        """F2: every setting; ``/model`` (``model_only``): the provider and model picker."""
        from aiq_tui.llm.factory import readiness_problem
        from aiq_tui.ui.screens.settings import SettingsScreen

        home = self.engine.workspace.home

        def saved(config: AppConfig | None) -> None:
            if config is not None:
                self._apply_settings(config, self.shown(home.config_file))

        self.push_screen(SettingsScreen(self.engine.config, home.config_file, self.shown(home.config_file),
                                        model_only=model_only, readiness=readiness_problem), saved)

    @work(group="settings-apply", exclusive=True, exit_on_error=False)
    async def _apply_settings(self, config: AppConfig, where: str) -> None:
        """The saved settings take effect now; a running turn finishes on the old provider first."""
        apply = getattr(self.engine, "apply_settings", None)
        if apply is None:
            self.notify(f"Settings saved to {where}; they apply on the next start.")
            return
        worker = self._turn_worker
        if worker is not None and worker.is_running:
            self.notify("Settings saved; they apply when the running turn ends.")
            await worker.wait()
        try:
            await apply(config)
        except ValueError as exc:
            self.notify(f"Settings saved to {where}, but not applied: {exc}", severity="error")
            return
        context = self.engine.config.context
        gauge = self.query_one(BudgetGauge)
        gauge.thresholds = (context.compress_at, context.evict_at, context.aggressive_at)
        gauge.refresh(layout=True)  # the new budget arrived as an event (apply_settings emits it)
        self.show_banner()
        self._update_subtitle()
        window = self.engine.breakdown.window
        await self.note(
            f"now using {self.engine.provider_label} · window {window:,} tokens (saved to {where})", "info")

    def action_inspector(self, query: str = "") -> None:
        """The match inspector on ``query`` — by default the last question's ranking (F3)."""
        from aiq_tui.ui.screens.inspector import InspectorScreen

        self.push_screen(InspectorScreen(self.engine, query or self.cursor.head.query))

    def action_sessions(self) -> None:
        from aiq_tui.ui.screens.sessions import SessionsScreen

        def chosen(session_id: str | None) -> None:
            if session_id:
                self._resume(session_id)

        self.push_screen(SessionsScreen(self.engine), chosen)

    def on_replay_requested(self, message: ReplayRequested) -> None:
        self.action_replay(message.session_id)

    def action_replay(self, session_id: str = "") -> None:
        """Replay mode (F4 → r, ``/replay [ID]``): the session's turns, read-only; Esc returns.
        A saved session is read and folded by the screen's worker (a loading bar meanwhile);
        the current one is in memory."""
        from aiq_tui.agent.sessions import SessionError, SessionNotFound
        from aiq_tui.replay.state import turns_from_messages
        from aiq_tui.ui.screens.replay import Recorded, ReplayScreen, ReplayUnavailable

        if self._refused_while_turn_runs():
            return

        def recorded(session: Any) -> Recorded:
            turns, note = session.replay, ""
            if not turns:
                turns = turns_from_messages(session.messages)
                note = "recorded before replay: conversation only" if turns else ""
            if not turns:
                raise ReplayUnavailable("Nothing to replay yet: this session has no turns.", "warning")
            return Recorded(turns, session.display_title, note)

        store = self.engine.sessions

        def load() -> Recorded:  # in the screen's worker thread
            try:
                return recorded(store.load(session_id))
            except SessionNotFound:  # in the app the list is F4, not the CLI the store's message names
                raise ReplayUnavailable(f"No session {session_id!r}. F4 lists the saved sessions; "
                                        "r there replays one.") from None
            except SessionError as exc:
                raise ReplayUnavailable(str(exc)) from None

        turns: Any = None
        title, note = session_id, ""
        if not session_id:
            try:
                current = recorded(self.engine.session)
            except ReplayUnavailable as problem:
                self.notify(str(problem), severity="warning", markup=False)
                return
            turns, title, note = current.turns, current.title, current.note
        metas = list(self.engine.workspace.catalog)  # as it is now: the worker counts their tokens
        context = self.engine.config.context
        skills = getattr(self.engine, "skills", None)

        def rows() -> list[tuple[str, str, int]]:
            return [(m.name, m.description, skills.catalog_tokens(m.name, m.description) if skills else 0)
                    for m in metas]

        screen = ReplayScreen(turns, title, note=note,
                              thresholds=(context.compress_at, context.evict_at, context.aggressive_at),
                              catalog=rows, load=None if turns is not None else load)
        self._held_events = []
        self.push_screen(screen, callback=lambda _: self._back_to_live())

    def _back_to_live(self) -> None:
        held, self._held_events = self._held_events or [], None
        for event in held:
            self.post_message(EngineEvent(event))

    def action_doctor(self) -> None:
        """The Doctor screen: every skill checked with this engine's matcher and budget."""
        from aiq_tui.ui.screens.doctor import DoctorScreen

        if self._refused_while_turn_runs():  # the doctor ranks with the engine's own index
            return
        self.push_screen(DoctorScreen(self.engine, self._bases()))

    def action_warnings(self) -> None:
        from aiq_tui.ui.screens.warnings import WarningsScreen

        self.push_screen(WarningsScreen(self._problems(), self._bases()))

    def action_copy_answer(self) -> None:
        answer = self.query_one(Conversation).last_answer
        if not answer:
            self.notify("No answer to copy yet.", severity="warning")
            return
        self.copy_to_clipboard(answer)
        self.notify("Copied the last answer.")

    def action_toggle_theme(self) -> None:
        self.theme = THEMES[1] if self.theme == THEMES[0] else THEMES[0]

    def action_reload_skills(self) -> None:
        self.engine.reload()

    def action_toggle_activity(self) -> None:
        found = self.query("#activity")
        if not found:  # a deferred start's first moments: the tabs are being mounted
            return
        tabs: Any = found.first()
        order = ["tab-tools", "tab-timeline"] + (["tab-mcp"] if self.query("#tab-mcp") else [])
        tabs.active = order[(order.index(tabs.active) + 1) % len(order)] if tabs.active in order else order[0]

    def action_maximize_activity(self) -> None:
        """F7: the Tools / Timeline pane fills the screen (F7 or Esc gives the layout back)."""
        screen = self.screen_stack[0]
        found = screen.query("#activity")
        if not found:  # a deferred start's first moments: the tabs are being mounted
            return
        activity = found.first()
        if screen.maximized is activity:
            screen.minimize()
            return
        screen.maximized = activity
        focus = screen.entry_of(activity) if isinstance(screen, MainScreen) else None
        if focus is not None:
            focus.focus()

    def action_compact(self) -> None:
        self._compact()

    async def action_clear(self) -> None:
        if self._turn_running():  # a turn, or the /demo between two of its turns
            self.notify("A turn is running — Esc cancels it first.", severity="warning")
            return
        await self._clear_session()
        await self.note("new session — the previous one stays saved", "info")

    async def _clear_session(self) -> None:
        """The engine starts a new session and the screen a new story: a new cursor (turn 1 is
        the new session's first question), no demo, the conversation at its end and no skill
        marked by the old session's compressions."""
        await self._new_story({"type": "reset", "session": "new"})
        self.engine.clear()  # its unloads and budget are the new story's first events
        self._update_subtitle()

    async def _new_story(self, reset: dict[str, Any]) -> None:
        """What the screen shows from now on belongs to another session: the time cursor starts
        afresh from ``reset`` (folded over the last state: a resumed session keeps the skills its
        engine restored), the step-through demo ends and the conversation is drawn from its top."""
        demo, self.demo = self.demo, None
        if demo is not None and demo.timer is not None:
            demo.timer.stop()
        reset.setdefault("clock", self.clock().strftime("%H:%M:%S"))
        self.cursor = self.cursor.fresh(reset)
        self._set_busy(self.cursor.head.running)
        for conversation in self.screen_stack[0].query(Conversation):
            await conversation.reset()
        await self.draw()
        self.refresh_bindings()

    def action_activate_skill(self, name: str) -> None:
        self._activate(name)

    @work(group="engine", exit_on_error=False)
    async def _save_skill(self, name: str) -> None:
        """``/save-skill NAME``: the last turn's tool calls → a composite skill, opened in the viewer."""
        from aiq_tui.skills.builder import composite_from_last_turn

        conversation = self.query_one(Conversation)
        try:
            entry = composite_from_last_turn(name, self.engine.session.messages)
            path = await asyncio.to_thread(self.engine.workspace.catalog.save, entry)
        except Exception as exc:  # noqa: BLE001 - StoreError/ValueError: say why, keep the app
            await self.note(f"/save-skill: {exc}", "warning")
            return
        self.engine.reload()
        from aiq_tui.ui.text_fit import counted

        await self.note(f"saved {name} ({counted(len(entry.definition['steps']), 'step')}) → {path}", "info")
        self.action_open_skill(name)

    @work(group="engine", exit_on_error=False)
    async def action_set_skill_status(self, name: str, status: str) -> None:
        """Enable / disable a skill from the viewer (the same catalog call as ``skills enable``)."""
        try:
            await asyncio.to_thread(self.engine.workspace.catalog.set_status, name, status)
        except Exception as exc:  # noqa: BLE001
            self.notify(f"cannot change {name}: {exc}", severity="error")
            return
        self.engine.reload()
        self.notify(f"{name}: {'enabled' if status == 'active' else status_label(status)}")
        from aiq_tui.ui.screens.skill_viewer import SkillViewerScreen

        if isinstance(self.screen, SkillViewerScreen):  # show the skill as it is now
            await self.pop_screen()
            self.action_open_skill(name)

    def action_open_skill(self, name: str) -> None:
        from aiq_tui.ui.screens.skill_viewer import SkillDocument, SkillViewerScreen

        catalog = self.engine.workspace.catalog
        meta = catalog.find(name) if hasattr(catalog, "find") else catalog.get(name)
        if meta is None:
            self.notify(f"No skill named {name!r}.", severity="warning")
            return
        from aiq_tui.skills.imported import pending_tools

        skill = catalog.load(name)
        document = SkillDocument(meta, skill.body, tuple(catalog.resources(name)),
                                 validation_problems(meta, self.engine.config.skills), self.shown(meta.path),
                                 pending_tools(self.engine.workspace.home, meta))
        self.push_screen(SkillViewerScreen(document))

    @work(group="engine", exit_on_error=False)
    async def action_confirm_skill_tools(self, name: str) -> None:
        """The viewer's ``c``: the user confirms an imported skill's allowed-tools (as
        ``aiq-tui skills trust NAME``)."""
        from aiq_tui.skills.imported import confirm

        catalog = self.engine.workspace.catalog
        meta = catalog.find(name) if hasattr(catalog, "find") else catalog.get(name)
        if meta is None:
            return
        try:
            await asyncio.to_thread(confirm, self.engine.workspace.home, meta)
        except OSError as exc:
            self.notify(f"cannot record it: {exc}", severity="error")
            return
        self.notify(f"{name}: its allowed-tools now pre-approve those calls while the skill is in use")
        from aiq_tui.ui.screens.skill_viewer import SkillViewerScreen

        if isinstance(self.screen, SkillViewerScreen):  # show the skill as it is now
            await self.pop_screen()
            self.action_open_skill(name)

    def action_trigger_eval(self, name: str = "") -> None:
        """The trigger eval view of ``name`` (default: the Active skill)."""
        from aiq_tui.skills.model import SkillState
        from aiq_tui.ui.screens.trigger_eval import TriggerEvalScreen, eval_file_of

        if not name:
            name = next((v.name for v in self.engine.skill_views() if v.state is SkillState.ACTIVE), "")
        meta = self.engine.workspace.catalog.get(name) if name else None
        if meta is None:
            self.notify("Which skill? Open it in the viewer and press t, or type 'Trigger evals' and its name "
                        "in the palette.", severity="warning")
            return
        self.push_screen(TriggerEvalScreen(self.engine, name, self.shown(eval_file_of(meta))))

    async def on_session_deleted(self, message: SessionDeleted) -> None:
        """Deleting the session in use starts a new one; otherwise its next turn would write
        the deleted file back with all its old messages."""
        if message.session_id != self.engine.session.id:
            return
        await self._clear_session()
        await self.note(f"deleted session {message.session_id} — this is a new session", "info")

    def on_skill_chosen(self, message: SkillChosen) -> None:
        if self.engine is not None:  # listed while the engine is still being built: not yet
            self.action_open_skill(message.name)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        # By the table's id, not @on(DataTable.RowSelected, …): that would import DataTable
        # with this module, before the first frame (the tabs are mounted after it).
        table = getattr(event.control, "id", None)
        if table == "mcp-pane":
            self._mcp_row_selected(event)
        elif table == "tool-log":
            self._tool_selected(event)

    def _mcp_row_selected(self, event: DataTable.RowSelected) -> None:
        from aiq_tui.ui.screens.text_modal import TextModal
        from aiq_tui.ui.widgets.mcp_pane import McpPane

        def describe(tool: str) -> str:
            found = self.engine.tools.get(tool) if self.engine is not None else None
            return found.spec.description if found is not None else ""

        details = self.query_one("#mcp-pane", McpPane).details(str(event.row_key.value), describe)
        if details is not None:
            self.push_screen(TextModal(*details))

    def _tool_selected(self, event: DataTable.RowSelected) -> None:
        from aiq_tui.ui.screens.text_modal import TextModal

        record = self.query_one("#tool-log").records.get(str(event.row_key.value))  # type: ignore[attr-defined]
        if record is not None:
            self.push_screen(TextModal(f"Tool call {record.call_id}", record.full_text()))


def status_label(status: str) -> str:
    """How a skill's status reads on screen: ``inactive`` is what the user did, "disabled"."""
    return "disabled" if status == "inactive" else status



@dataclass
class DemoSteps:
    """The step-through ``/demo``'s own state: where it began, the captions so far, whether
    it plays, and the gate the next turn waits on."""

    start: int
    finished: bool = False
    playing: bool = False
    wanted: bool = False  # the user asked for the step after the last one: the next turn may run
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
        text = self.caption(cursor.records, index) or str(record.get("text", "")).splitlines()[0:1]
        if isinstance(text, list):
            text = text[0] if text else ""
        steps = sum(1 for i in range(self.start, index + 1)
                    if self.caption(cursor.records, i) is not None)
        state = f"▶ playing ({pace:g} s a step)" if self.playing else "⏸ step"
        if self.finished and cursor.after == 0:  # nothing left to play: no "→ next", no "Space plays"
            return f"{state} {steps} · {text}\nthe end · ← back · End live"
        return f"{state} {steps} · {text}\n→ next · ← back · Space {'pauses' if self.playing else 'plays'} · End live"


def paused_bar(cursor: TimeCursor) -> str:
    """The bar above the prompt while the live view is paused: which event of how many is shown
    and how many arrived since the pause (stepping back queues nothing)."""
    shown, queued = cursor.shown, cursor.queued
    what = shown.last_event.replace("_", " ")
    arrived = f" · {queued} new event{'s' if queued != 1 else ''} since the pause" if queued else ""
    return (f"⏸ paused · turn {shown.turn} · event {cursor.index + 1} of {len(cursor.states)} ({what}){arrived}"
            " · ←/→ event · ↑/↓ turn · Space resume · End live")


CURSOR_ACTIONS = frozenset({"toggle_pause", "cursor_step", "cursor_turn", "cursor_live"})

# Events that change the app's chrome besides the view state: the handler's name per type.
CHROME = {
    "ErrorRaised": "_on_error",
    "SessionSaved": "_on_session_saved",
    "SemanticProgress": "_on_semantic",
    "CatalogReloaded": "_on_reloaded",
    "McpServerChanged": "_mcp_changed",
    "McpProgress": "_mcp_progress",
}


def history_records(session: Any) -> list[dict[str, Any]]:
    """What a resumed session showed, as records to fold: its recorded turns (tool results from
    its messages, for the tool log), or for a session saved before replay, its messages."""
    from aiq_tui.conversation import Role
    from aiq_tui.replay.state import turns_from_messages

    turns = getattr(session, "replay", None) or turns_from_messages(session.messages)
    results = {m.tool_call_id: m.content for m in session.messages if m.role is Role.TOOL and m.tool_call_id}
    records = []
    for turn in turns:
        for data in turn.get("events", ()):
            record = dict(data)
            if record.get("type") == "tool_call_finished" and record.get("call_id") in results:
                record["result"] = results[record["call_id"]]
            records.append(record)
    return records


def validation_problems(meta: Any, settings: Any) -> tuple[Problem, ...]:
    """The doctor's verdict on this skill (``skills validate --strict``, aiq's extension fields
    as warnings): the viewer and /doctor never disagree."""
    from aiq_tui.doctor.spec import skill_verdict

    return skill_verdict(meta.path, settings)
