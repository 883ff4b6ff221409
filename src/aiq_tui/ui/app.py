"""The workbench app: composes the main screen and the controllers that each own one concern,
and turns engine events into pane updates.

Data flows one way. The engine runs its turns inside Textual workers on the app's event
loop; every event it emits is posted as an :class:`EngineEvent` message and handled here
in order, so the UI never blocks while a model streams and widgets never do I/O. Each event
is folded into the view state at the time cursor and drawn (:class:`~aiq_tui.ui.view.StateView`).

Where each concern lives (the app holds one of each; ``action_*`` methods hand over to them):

* ``app.starter`` — :mod:`~aiq_tui.ui.engine_start`: the deferred start, the engine built after the first frame
* ``app.bridge`` — :mod:`~aiq_tui.ui.engine_bridge`: turns in workers, the waiting queue, approvals
* ``app.demo_control`` — :mod:`~aiq_tui.ui.demo_control`: the step-through ``/demo``
* :mod:`~aiq_tui.ui.cursor_control`: when the time cursor's keys apply, the paused bar
* ``app.project_trust`` — :mod:`~aiq_tui.ui.project_trust`: the trust question, MCP server questions
* ``app.skill_watch`` — :mod:`~aiq_tui.ui.skill_watch`: watching the skill folders
* ``app.skill_actions`` — :mod:`~aiq_tui.ui.skill_actions`: activate, open, enable, save a skill
* ``app.slash`` — :mod:`~aiq_tui.ui.slash`: the slash commands
* ``app.prompt_completion`` — :mod:`~aiq_tui.ui.prompt_completion`: ``@SERVER:URI`` and ``/mcp__…`` choices
* ``app.session_control`` — :mod:`~aiq_tui.ui.session_control`: new, resumed, deleted sessions; Replay
* ``app.settings_control`` — :mod:`~aiq_tui.ui.settings_control`: settings, theme, prompt history
* ``app.pane_actions`` — :mod:`~aiq_tui.ui.pane_actions`: tabs, full screen, scrolling, copying
* ``app.chrome`` — :mod:`~aiq_tui.ui.chrome`: header, banners, the MCP tab, toasts
* :mod:`~aiq_tui.ui.main_screen`: where Tab stops and stray keys go
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import events, on
from textual.app import App, ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Header

from aiq_tui.replay.cursor import TimeCursor
from aiq_tui.ui.bindings import APP_BINDINGS, MAIN_SCREEN_ONLY, NEEDS_ENGINE, THEMES
from aiq_tui.ui.chrome import DEMO_BANNER, Chrome
from aiq_tui.ui.commands import AiqCommands
from aiq_tui.ui.crash import write_crash_report
from aiq_tui.ui.cursor_control import CURSOR_ACTIONS, CursorKeys, cursor_keys_apply
from aiq_tui.ui.demo_control import DemoControl, DemoSteps
from aiq_tui.ui.engine_bridge import EngineBridge, EngineEvents
from aiq_tui.ui.engine_start import DeferredStart, EngineStart
from aiq_tui.ui.history import load_history
from aiq_tui.ui.main_screen import MainScreen
from aiq_tui.ui.messages import (
    ReplayRequested,
    SessionDeleted,
    SkillChosen,
    StreamedText,
)
from aiq_tui.ui.pane_actions import PaneActions
from aiq_tui.ui.plain import PlainNotifications, PlainStatic
from aiq_tui.ui.project_trust import ProjectTrust
from aiq_tui.ui.prompt_completion import PromptCompletion
from aiq_tui.ui.session_control import SessionControl
from aiq_tui.ui.settings_control import SettingsControl
from aiq_tui.ui.skill_actions import SkillActions
from aiq_tui.ui.skill_watch import SkillWatch
from aiq_tui.ui.slash import SlashCommands
from aiq_tui.ui.textual_compat import release_removed_widgets
from aiq_tui.ui.themes import ReadableThemes
from aiq_tui.ui.typing_guard import TypingClock
from aiq_tui.ui.view import StateView, fit_to_height
from aiq_tui.ui.widgets.budget_gauge import BudgetGauge
from aiq_tui.ui.widgets.choice_list import ChoiceList
from aiq_tui.ui.widgets.conversation import Conversation
from aiq_tui.ui.widgets.footer import CoalescedFooter
from aiq_tui.ui.widgets.prompt import SLASH_COMMANDS, PromptInput
from aiq_tui.ui.widgets.skills_pane import SkillsPane

if TYPE_CHECKING:
    from concurrent.futures import Future

    from textual.widgets import DataTable
    from textual.worker import Worker

    # Screens other than the main one are imported by the actions that push them, and the
    # engine's types where events arrive: the first frame must not pay for them (tests/startup
    # guards this).
    from aiq_tui.config import AppConfig
    from aiq_tui.events import Event
    from aiq_tui.ui.engine_protocol import UiEngine

__all__ = ["AiqApp", "DemoSteps", "EngineStart"]


class AiqApp(PlainNotifications, EngineEvents, CursorKeys, ReadableThemes, App[int]):
    """``AiqApp(engine)`` — any object with the Engine's public surface works (tests use a fake)."""

    TITLE = "aiq-tui"
    CSS_PATH = "app.tcss"
    COMMANDS = App.COMMANDS | {AiqCommands}
    # Classes on the screen by size, used by app.tcss to fit 80×24 and scale up.
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (30, "-tall")]
    BINDINGS = APP_BINDINGS

    def __init__(
        self,
        engine: UiEngine | None,
        *,
        clock: Callable[[], datetime] | None = None,
        watch: bool = True,
        flash_seconds: float = 2.0,
        start: EngineStart | None = None,
        project: Path | None = None,
    ) -> None:
        super().__init__()
        self.engine: UiEngine | None = engine
        """None until a deferred start (:meth:`starting`) has built it, after the first frame."""
        self.start_error: str | None = None
        """Why a deferred start could not build the engine (the app exits 2; run_tui prints it)."""
        self.clock = clock or datetime.now
        self.watch_enabled = watch
        self.flash_seconds = flash_seconds
        self.busy = False
        self._skills_refresh_pending = False
        self.first_frame_at: float | None = None
        self._cursor_moved = (
            asyncio.Event()
        )  # set at every draw: the cursor may have moved
        self._held_events: list[Event] | None = None  # a list while Replay mode is open
        self._open_stream: StreamedText | None = None
        self.cursor = (
            TimeCursor()
        )  # every event folded; the panes draw the state at the cursor
        self.demo: DemoSteps | None = (
            None  # the step-through /demo, while it is stepped
        )
        self.view: StateView = None  # type: ignore[assignment]  # made on mount, over the main screen
        self.crash: tuple[BaseException, Path | None] | None = None
        """Set when an unhandled error stops the app: the error and the crash report's path."""
        self.mcp_servers: dict[
            str, Any
        ] = {}  # the last McpServerChanged per server (the MCP tab draws it)
        # One controller per concern (see the module's docstring), each holding the app.
        self.starter = DeferredStart(self, start)
        self.bridge = EngineBridge(self)
        self.demo_control = DemoControl(self)
        self.project_trust = ProjectTrust(self, project)
        self.skill_watch = SkillWatch(self)
        self.skill_actions = SkillActions(self)
        self.slash = SlashCommands(self)
        self.prompt_completion = PromptCompletion(self)
        self.session_control = SessionControl(self)
        self.settings_control = SettingsControl(self)
        self.pane_actions = PaneActions(self)
        self.chrome = Chrome(self)
        self.submitting: str | None = None
        """The line being run, while it runs: a command refused for now gives it back to the prompt."""
        self.typing = TypingClock(lambda: self.config.ui.typing_grace)
        """When the last key was typed: approvals and Space tell typing from a deliberate key."""
        self.use_readable_themes()  # Textual's two themes, readable in 256 colours too
        if self.config.ui.theme in self.available_themes:
            self.theme = self.config.ui.theme

    @classmethod
    def starting(
        cls,
        config: AppConfig,
        home: Any,
        build: Callable[[], Any],
        listing: Callable[[], Any] | None = None,
        read_ahead: Future[Any] | None = None,
        **options: Any,
    ) -> AiqApp:
        """The app with its engine built after the first frame, in a worker thread: the frame
        shows at once from the validated config, and the catalog, the index and every tool
        load behind it ("loading skills…"); ``listing``, when given, lists the skills before
        the rest has loaded (in the first frame when ``read_ahead``, its result computed by a
        thread, is ready by then). Prompts typed meanwhile are sent when it is ready."""
        return cls(
            None, start=EngineStart(config, home, build, listing, read_ahead), **options
        )

    @property
    def config(self) -> AppConfig:
        if self.engine is not None:
            return self.engine.config
        return self._start_spec().config

    @property
    def home(self) -> Any:
        """The config home (:class:`~aiq_tui.locations.Home`)."""
        if self.engine is not None:
            return self.engine.workspace.home
        return self._start_spec().home

    @property
    def live_engine(self) -> UiEngine:
        """The engine, for what runs only once it is built (the actions that need it are
        refused before: bindings.NEEDS_ENGINE)."""
        if self.engine is None:
            raise RuntimeError("the engine is still starting")
        return self.engine

    def _start_spec(self) -> EngineStart:
        """What the engine is being built from: every app has an engine or this."""
        spec = self.starter.spec
        if spec is None:
            raise RuntimeError("the app has neither an engine nor what builds one")
        return spec

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        from textual.screen import ModalScreen

        if isinstance(self.screen, ModalScreen) and action in MAIN_SCREEN_ONLY:
            return False  # a dialog's footer shows its own keys, not the workbench's
        if self.engine is None and action in NEEDS_ENGINE:
            return None  # shown, disabled: it works once the skills have loaded
        if action in CURSOR_ACTIONS:
            return cursor_keys_apply(self, action)
        return True

    def get_driver_class(self) -> Any:
        driver = super().get_driver_class()
        from aiq_tui.ui.paste_safe import install

        install(driver)  # a pasted escape stays in its place (see paste_safe)
        return driver

    # -- layout --------------------------------------------------------------------------
    def get_default_screen(self) -> Screen[Any]:
        return MainScreen(id="_default")

    def compose(self) -> ComposeResult:
        context = self.config.context
        yield Header()
        yield PlainStatic(DEMO_BANNER, id="banner", markup=False)
        yield PlainStatic("", id="problems-banner", markup=False)
        with Horizontal(id="main"):
            with Vertical(id="left"):
                conversation = Conversation(id="conversation")
                conversation.can_focus = (
                    False  # read from the prompt (PgUp / PgDn): not a second Tab stop
                )
                yield conversation
                yield PlainStatic("", id="cursor-bar", markup=False)
                yield PromptInput(
                    self._skill_names, id="prompt", skill_hints=self._skill_hints
                )
                yield ChoiceList(
                    id="choices"
                )  # drawn over the conversation, above the prompt
            with Vertical(id="right"):
                yield SkillsPane(id="skills")
                yield BudgetGauge(
                    (context.compress_at, context.evict_at, context.aggressive_at),
                    id="gauge",
                )
                if (
                    self.engine is not None
                ):  # built already: its events are drawn from mount on
                    yield self.activity_tabs(self.timeline())
                else:  # a deferred start: the tabs are mounted after the first frame, in this place
                    yield PlainStatic("", id="activity-pending")
        yield CoalescedFooter()

    @staticmethod
    def activity_tabs(*timeline: Any) -> Any:
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

    def timeline(self) -> Any:
        from aiq_tui.ui.widgets.timeline import Timeline

        return Timeline(id="timeline")

    def on_mount(self) -> None:
        self.view = StateView(self.screen, self._catalog_views, flash=self.chrome.flash)
        prompt = self.query_one("#prompt", PromptInput)
        settings = self.settings_control
        prompt.load_history(
            load_history(settings.history_file(), settings.history_size())
        )
        prompt.border_title = "Prompt"
        self.prompt_completion.attach(prompt, self.query_one("#choices", ChoiceList))
        if self.is_headless:  # nobody sees a blink; a blinking cursor would make pictures depend on timing
            prompt.cursor_blink = False
        prompt.focus()
        if self.engine is not None:
            self.bridge.attach()
        else:
            self.chrome.show_banner()
            self.chrome.update_subtitle()
            self.query_one(SkillsPane).show_reason("loading skills…")
            self.starter.begin()
        self.call_after_refresh(self._first_frame)

    def watch_theme(self, theme: str) -> None:
        self.settings_control.theme_changed(theme)

    def on_resize(self, event: events.Resize) -> None:
        # Narrow terminals: the footer's compact form fits more keys in 80 columns.
        for footer in self.screen_stack[0].query(Footer):
            footer.compact = event.size.width < 110
        # Short terminals (80×24): a compact gauge and smaller sections keep Inactive visible.
        for screen in self.screen_stack:  # the workbench and Replay, if it is open
            fit_to_height(screen, event.size.height)

    def _first_frame(self) -> None:
        self.first_frame_at = time.perf_counter()
        self.project_trust.ask()
        if self.engine is None:
            self.starter.framed.set()
            return
        self.starter.started()

    def _handle_exception(self, error: Exception) -> None:
        # Textual's last stop for an unhandled error: keep a report before the app exits
        # (run_tui prints its path and exits 1).
        if self.crash is None:
            self.crash = (error, write_crash_report(self.home.root, error))
        super()._handle_exception(error)

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

    # -- state helpers -----------------------------------------------------------------
    def _skill_names(self) -> Iterable[str]:
        """What ``/skill `` completes: never a skill that is not the user's to run
        (``user-invocable: false``)."""
        return list(self._skill_hints())

    def _skill_hints(self) -> dict[str, str]:
        """Each skill the user may run, with its ``argument-hint`` ("" when none)."""
        from aiq_tui.skills.invocation import argument_hint, user_invocable

        if self.engine is None:
            return {}
        return {
            meta.name: argument_hint(meta.extras)
            for meta in self.engine.workspace.catalog
            if not meta.extras or user_invocable(meta.extras)
        }

    def _bases(self) -> list[Path]:
        return [self.home.root, Path.cwd()]

    def shown(self, path: Path | None) -> str:
        from aiq_tui.ui.screens.warnings import shown_path

        return shown_path(path, self._bases())

    def _set_busy(self, busy: bool) -> None:
        self.busy = busy
        prompt = self.query_one("#prompt", PromptInput)
        prompt.border_subtitle = "working… Esc cancels" if busy else ""
        prompt.set_class(busy, "-busy")
        if not busy:  # a turn ended: what it removed from the screen (footer keys, old blocks) can go
            release_removed_widgets()

    # -- input --------------------------------------------------------------------------
    @on(PromptInput.Changed, "#prompt")
    def _prompt_changed(self, event: PromptInput.Changed) -> None:
        if (
            not event.value or len(event.value) == 1
        ):  # emptiness decides which keys the cursor takes
            self.refresh_bindings()
        self.prompt_completion.changed()

    @on(PromptInput.Submitted, "#prompt")
    async def _submitted(self, event: PromptInput.Submitted) -> None:
        text = event.value.strip()
        prompt = self.query_one("#prompt", PromptInput)
        if not text:
            return
        prompt.remember(text)  # the prompt has cleared itself already
        self.settings_control.keep_history(text)
        command = text.split(" ", 1)[0]
        # What the user sends is answered live; one of the workbench's commands acts where the
        # cursor is (a paused /demo stays paused on its step, with its captions).
        if self.cursor.paused and command not in SLASH_COMMANDS:
            await self.action_cursor_live()
        if (
            self.engine is None
        ):  # typed while skills load: sent the moment the engine is ready
            self.starter.queued.append(text)
            self.notify(
                "Starting — your message is sent as soon as the skills have loaded."
            )
            return
        self.submitting = text
        try:
            await self.submit_text(text)
        finally:
            self.submitting = None

    async def submit_text(self, text: str) -> None:
        if text.startswith("/"):
            await self.run_slash(text)
            return
        self.send(text)

    async def run_slash(self, text: str) -> None:
        await self.slash.run(text)

    def send(self, text: str) -> None:
        self.bridge.send(text)

    def _turn_running(self) -> bool:
        """A turn, or the long demo (which is between two turns part of the time)."""
        return self.bridge.turn_running()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        self.bridge.worker_state_changed(event)

    # -- actions (keys, the palette, slash commands): each hands over to its controller ----------
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
            self.notify(
                "Press Ctrl+Q to quit (your session is saved after every turn)."
            )

    def action_cancel_turn(self) -> None:
        if self.screen.maximized is not None and not self._turn_running():
            self.screen.minimize()  # Esc leaves the full-screen Tools / Timeline first
            return
        self.bridge.cancel_turn()

    async def action_quit(self) -> None:
        """Cancel a running turn and let the engine save it before leaving."""
        await self.bridge.quit()

    async def action_long_demo(self, play: bool = False) -> None:
        """``/demo``: the demo model's scripted story, step by step (see :mod:`aiq_tui.ui.demo_control`)."""
        await self.demo_control.start(play)

    def action_scroll_conversation(self, where: str) -> None:
        self.pane_actions.scroll_conversation(where)

    def action_show_help(self) -> None:
        from aiq_tui.ui.screens.help import HelpScreen

        self.push_screen(HelpScreen())

    def action_settings(self, model_only: bool = False) -> None:
        """F2: every setting; ``/model`` (``model_only``): the provider and model picker."""
        self.settings_control.open(model_only)

    def action_inspector(self, query: str = "") -> None:
        """The match inspector on ``query`` — by default the last question's ranking (F3)."""
        from aiq_tui.ui.screens.inspector import InspectorScreen

        self.push_screen(
            InspectorScreen(self.live_engine, query or self.cursor.head.query)
        )

    def action_sessions(self) -> None:
        self.session_control.sessions()

    def on_replay_requested(self, message: ReplayRequested) -> None:
        self.action_replay(message.session_id)

    def action_replay(self, session_id: str = "") -> None:
        """Replay mode (F4 → r, ``/replay [ID]``): the session's turns, read-only; Esc returns."""
        self.session_control.replay(session_id)

    def action_harness_view(self, which: str = "all") -> None:
        """What each agent (harness) would load from this machine and project."""
        self.skill_actions.harness_view(which)

    def action_doctor(self) -> None:
        """The Doctor screen: every skill checked with this engine's matcher and budget."""
        from aiq_tui.ui.screens.doctor import DoctorScreen

        if (
            self.bridge.refused_while_turn_runs()
        ):  # the doctor ranks with the engine's own index
            return
        self.push_screen(DoctorScreen(self.live_engine, self._bases()))

    def action_warnings(self) -> None:
        from aiq_tui.ui.screens.warnings import WarningsScreen

        self.push_screen(WarningsScreen(self.chrome.problems(), self._bases()))

    def action_copy_answer(self) -> None:
        self.pane_actions.copy_answer()

    def action_toggle_theme(self) -> None:
        self.theme = THEMES[1] if self.theme == THEMES[0] else THEMES[0]

    def action_reload_skills(self) -> None:
        self.chrome.reloaded_by_you(self.live_engine.reload())

    def action_toggle_activity(self) -> None:
        self.pane_actions.toggle_activity()

    def action_maximize_activity(self) -> None:
        """F7: the Tools / Timeline pane fills the screen (F7 or Esc gives the layout back)."""
        self.pane_actions.maximize_activity()

    def action_compact(self) -> None:
        self.bridge.compact()

    async def action_clear(self) -> None:
        await self.session_control.clear()

    def action_activate_skill(self, name: str) -> None:
        self.skill_actions.activate(name)

    def action_set_skill_status(self, name: str, status: str) -> None:
        self.skill_actions.set_status(name, status)

    def action_open_skill(self, name: str) -> None:
        self.skill_actions.open(name)

    def action_confirm_skill_tools(self, name: str) -> None:
        self.skill_actions.confirm_tools(name)

    def action_trigger_eval(self, name: str = "") -> None:
        """The trigger eval view of ``name`` (default: the Active skill)."""
        self.skill_actions.trigger_eval(name)

    async def on_session_deleted(self, message: SessionDeleted) -> None:
        await self.session_control.deleted(message.session_id)

    def on_skill_chosen(self, message: SkillChosen) -> None:
        if (
            self.engine is not None
        ):  # listed while the engine is still being built: not yet
            self.action_open_skill(message.name)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        self.pane_actions.row_selected(event)
