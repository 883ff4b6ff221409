"""The workbench app: composes the main screen and turns engine events into pane updates.

Data flows one way. The engine runs its turns inside Textual workers on the app's event
loop; every event it emits is posted as an :class:`EngineEvent` message and handled here
in order, so the UI never blocks while a model streams and widgets never do I/O.
"""

from __future__ import annotations

import asyncio
import time
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Iterable

from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Footer, Header, Static, TabbedContent, TabPane
from textual.worker import Worker, WorkerState

from aiq_tui.events import (
    BudgetChanged,
    CatalogReloaded,
    CompressionApplied,
    ErrorRaised,
    Event,
    RetryScheduled,
    SemanticProgress,
    SessionSaved,
    SkillsMatched,
    SkillStateChanged,
    TokenStreamed,
    ToolCallApproved,
    ToolCallDenied,
    ToolCallFinished,
    ToolCallRequested,
    TurnFinished,
    TurnStarted,
)
from aiq_tui.config import AppConfig
from aiq_tui.conversation import Role
from aiq_tui.problems import Problem
from aiq_tui.skills.model import SkillState
from aiq_tui.tools.base import ApprovalRequest, Decision
from aiq_tui.ui.commands import AiqCommands
from aiq_tui.ui.messages import EngineEvent, SkillChosen
from aiq_tui.ui.screens.approval import ApprovalScreen
from aiq_tui.ui.screens.help import HelpScreen
from aiq_tui.ui.screens.inspector import InspectorScreen
from aiq_tui.ui.screens.sessions import SessionsScreen
from aiq_tui.ui.screens.settings import SettingsScreen
from aiq_tui.ui.screens.skill_viewer import SkillDocument, SkillViewerScreen
from aiq_tui.ui.screens.text_modal import TextModal
from aiq_tui.ui.screens.warnings import WarningsScreen, shown_path
from aiq_tui.ui.widgets.budget_gauge import BudgetGauge
from aiq_tui.ui.widgets.conversation import Conversation
from aiq_tui.ui.widgets.prompt import SLASH_COMMANDS, PromptInput
from aiq_tui.ui.widgets.skills_pane import SkillsPane
from aiq_tui.ui.widgets.timeline import Timeline
from aiq_tui.ui.widgets.tool_log import ToolLog

# Fits 80 columns: one line saying how to connect a real model.
DEMO_BANNER = "Offline demo model — set OPENAI_API_KEY or ANTHROPIC_API_KEY; Settings: F2"
THEMES = ("textual-dark", "textual-light")


def semantic_label(event: SemanticProgress) -> str:
    """The header's note on semantic matching: progress while embedding, "semantic" when on."""
    if event.state == "failed":
        return "keyword matching (model failed)"
    if event.state == "ready" and event.done >= event.total:
        return "semantic on"
    return f"embedding skills {event.done}/{event.total}"


class AiqApp(App[int]):
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
        Binding("f6", "warnings", "Warnings"),
        Binding("ctrl+y", "copy_answer", "Copy answer"),
        Binding("ctrl+t", "toggle_theme", "Theme"),
        Binding("ctrl+r", "reload_skills", "Reload", show=False),
        Binding("ctrl+o", "toggle_activity", "Tools/Timeline", show=False),
        Binding("ctrl+q", "quit", "Quit", priority=True),
    ]

    def __init__(
        self,
        engine: Any,
        *,
        clock: Callable[[], datetime] | None = None,
        watch: bool = True,
        flash_seconds: float = 2.0,
    ) -> None:
        super().__init__()
        self.engine = engine
        self.clock = clock or datetime.now
        self.watch_enabled = watch
        self.flash_seconds = flash_seconds
        self.busy = False
        self.first_frame_at: float | None = None
        self._turn_worker: Worker[None] | None = None
        self._stop_demo = False
        self._skills_refresh_pending = False
        self._pending_approval: ApprovalScreen | None = None
        self.semantic_label = ""  # "embedding skills 42/199", then "semantic on"; shown in the header
        config: AppConfig = engine.config
        if config.ui.theme in self.available_themes:
            self.theme = config.ui.theme

    # -- layout --------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        config: AppConfig = self.engine.config
        context = config.context
        yield Header()
        yield Static(DEMO_BANNER, id="banner", markup=False)
        yield Static("", id="problems-banner", markup=False)
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield Conversation(id="conversation")
                yield PromptInput(self._skill_names, id="prompt")
            with Vertical(id="right"):
                yield SkillsPane(id="skills")
                yield BudgetGauge((context.compress_at, context.evict_at, context.aggressive_at), id="gauge")
                with TabbedContent(id="activity"):
                    with TabPane("Tools", id="tab-tools"):
                        yield ToolLog(id="tool-log")
                    with TabPane("Timeline", id="tab-timeline"):
                        yield Timeline(self.clock, id="timeline")
        yield Footer()

    def on_mount(self) -> None:
        self.engine.subscribe(self._sink)
        self.engine.approver = self._approve
        self.query_one("#banner", Static).display = bool(self.engine.is_demo and self.engine.config.ui.show_banner)
        self.query_one("#prompt", PromptInput).border_title = "Prompt"
        if self.is_headless:  # nobody sees a blink; a blinking cursor would make pictures depend on timing
            self.query_one("#prompt", PromptInput).cursor_blink = False
        self._update_subtitle()
        self._show_problems(self._problems())
        self.refresh_skills()
        self.query_one(BudgetGauge).breakdown = self.engine.breakdown
        self.query_one("#prompt", PromptInput).focus()
        if self.watch_enabled and self.engine.config.skills.watch:
            self.watch_skills()
        self.call_after_refresh(self._first_frame)

    def on_resize(self) -> None:
        # Short terminals (80×24): a compact gauge and smaller sections keep Inactive visible.
        short = self.size.height < 30
        self.query_one(BudgetGauge).compact = short
        pane = self.query_one(SkillsPane)
        pane.small_rows = 2 if short else 5
        pane.refresh_sections()

    def _first_frame(self) -> None:
        self.first_frame_at = time.perf_counter()
        warm_up = getattr(self.engine, "warm_up", None)
        if warm_up is not None:  # the match index: built in a thread, never on the UI's time
            self.run_worker(warm_up, thread=True, group="warm-up", exit_on_error=False)
        prepare = getattr(self.engine, "prepare_semantic", None)
        if prepare is not None:  # skill vectors (issue 16): embedded in a thread; keyword-only until ready
            self.run_worker(prepare, thread=True, group="semantic", exit_on_error=False)

    # -- engine → UI -------------------------------------------------------------------
    def _sink(self, event: Event) -> None:
        self.post_message(EngineEvent(event))

    async def on_engine_event(self, message: EngineEvent) -> None:
        await self.apply_event(message.event)

    async def apply_event(self, event: Event) -> None:  # noqa: C901 - one branch per event type
        conversation = self.query_one(Conversation)
        timeline = self.query_one(Timeline)
        tools = self.query_one(ToolLog)
        if isinstance(event, TokenStreamed):
            await conversation.stream(event.text)
        elif isinstance(event, TurnStarted):
            self._set_busy(True)
            await conversation.add_user(event.text)
        elif isinstance(event, SkillsMatched):
            top = event.ranking.matches[0] if event.ranking.matches else None
            timeline.add("match", f"{len(event.ranking.matches)} of {event.ranking.considered} scored"
                         + (f", top {top.name} {top.score:.2f}" if top else ""))
        elif isinstance(event, SkillStateChanged):
            self._skill_changed(event)
        elif isinstance(event, BudgetChanged):
            self.query_one(BudgetGauge).breakdown = event.breakdown
        elif isinstance(event, CompressionApplied):
            note = f"stage {event.plan.stage.value}%: {event.step} ({event.before:,} → {event.after:,})"
            self.query_one(BudgetGauge).stage_note = note
            timeline.add("compress", note)
        elif isinstance(event, ToolCallRequested):
            await conversation.close_segment()
            status = "asking" if event.permission == "ask" else "running"
            record = tools.upsert(event.call_id, name=event.name, arguments=event.arguments,
                                  permission=event.permission, status=status)
            timeline.add("tool", f"{event.name} {record.short_args(60)}")
            await conversation.add_notice(f"⚙ {event.name}({record.short_args(70)})", "tool")
        elif isinstance(event, ToolCallApproved):
            tools.upsert(event.call_id, status="running")
        elif isinstance(event, ToolCallDenied):
            tools.upsert(event.call_id, status="denied", summary=event.reason)
            await conversation.add_notice(f"✗ {event.name} denied: {event.reason}", "warning")
        elif isinstance(event, ToolCallFinished):
            tools.upsert(event.call_id, status="ok" if event.ok else "failed", summary=event.summary,
                         duration_s=event.duration_s, result=event.result)
            await conversation.add_notice(f"{'✓' if event.ok else '✗'} {event.name}: {event.summary}",
                                          "tool" if event.ok else "error")
        elif isinstance(event, TurnFinished):
            await conversation.end_answer(event.text, cancelled=event.cancelled)
            self._set_busy(False)
        elif isinstance(event, ErrorRaised):
            await conversation.add_notice(f"error: {event.message}", "error")
            self.notify(event.message, title="Error", severity="error")
        elif isinstance(event, RetryScheduled):
            await conversation.add_notice(
                f"retry {event.attempt} in {event.delay_s:.1f} s: {event.reason}", "warning")
        elif isinstance(event, CatalogReloaded):
            self._catalog_reloaded(event)
        elif isinstance(event, SessionSaved):
            self._update_subtitle()
        elif isinstance(event, SemanticProgress):
            self.semantic_label = semantic_label(event)
            self._update_subtitle()

    def _skill_changed(self, event: SkillStateChanged) -> None:
        pane = self.query_one(SkillsPane)
        new = event.new.value if event.new is not None else "evicted"
        old = event.old.value if event.old is not None else "none"
        text = f"{event.name}: {old} → {new} ({event.phase.label}) — {event.reason}"
        pane.show_reason(text)
        kind = "evict" if event.new in (None, SkillState.INACTIVE) else "load"
        self.query_one(Timeline).add(kind, f"{event.name} {old}→{new} {event.phase.label}: {event.reason}")
        pane.flash(event.name)
        self.set_timer(self.flash_seconds, lambda: pane.unflash(event.name))
        self.refresh_skills()

    def _catalog_reloaded(self, event: CatalogReloaded) -> None:
        parts = [f"{label} {', '.join(names)}" for label, names in
                 (("added", event.added), ("changed", event.changed), ("removed", event.removed)) if names]
        self.query_one(Timeline).add("reload", "; ".join(parts) or "no changes")
        if event.problems:
            self.query_one(Timeline).add("warn", f"{len(event.problems)} problem(s); last good versions kept")
            self.notify(str(self._shown_problem(event.problems[0])), title="Skill failed to load",
                        severity="warning")
        self._show_problems(self._problems())
        self.refresh_skills()

    def refresh_skills(self) -> None:
        """Coalesce: many state changes in one turn redraw the pane once."""
        if self._skills_refresh_pending:
            return
        self._skills_refresh_pending = True

        def redraw() -> None:
            self._skills_refresh_pending = False
            self.query_one(SkillsPane).set_views(self.engine.skill_views())

        self.call_later(redraw)

    # -- state helpers -----------------------------------------------------------------
    def _skill_names(self) -> Iterable[str]:
        return self.engine.workspace.catalog.names()

    def _bases(self) -> list[Path]:
        return [self.engine.workspace.home.root, Path.cwd()]

    def shown(self, path: Path | None) -> str:
        return shown_path(path, self._bases())

    def _problems(self) -> tuple[Problem, ...]:
        return tuple(self.engine.problems)

    def _shown_problem(self, problem: Problem) -> str:
        return f"{self.shown(problem.path)}: {problem.message}" + (f" — {problem.hint}" if problem.hint else "")

    def _show_problems(self, problems: tuple[Problem, ...]) -> None:
        banner = self.query_one("#problems-banner", Static)
        banner.display = bool(problems)
        if problems:
            count = len(problems)
            banner.update(f"⚠ {count} skill problem{'s' if count != 1 else ''} — F6 shows what to fix")

    def _update_subtitle(self) -> None:
        session = self.engine.session
        title = session.display_title if session.messages else "new session"
        self.sub_title = f"{self.engine.provider_label} · {title} [{session.id}]"
        if self.semantic_label:
            self.sub_title += f" · {self.semantic_label}"

    def _set_busy(self, busy: bool) -> None:
        self.busy = busy
        prompt = self.query_one("#prompt", PromptInput)
        prompt.border_subtitle = "working… Esc cancels" if busy else ""
        prompt.set_class(busy, "-busy")

    # -- input --------------------------------------------------------------------------
    @on(PromptInput.Submitted, "#prompt")
    async def _submitted(self, event: PromptInput.Submitted) -> None:
        text = event.value.strip()
        prompt = self.query_one("#prompt", PromptInput)
        if not text:
            return
        prompt.remember(text)
        prompt.value = ""
        if text.startswith("/"):
            await self.run_slash(text)
            return
        self.send(text)

    def _refused_while_turn_runs(self) -> bool:
        """True (and the user is told) while a turn or the long demo runs."""
        running = self.busy or (self._turn_worker is not None and self._turn_worker.is_running)
        if running:
            self.notify("A turn is running — Esc cancels it.", severity="warning")
        return running

    def send(self, text: str) -> None:
        if self._refused_while_turn_runs():
            return
        self._set_busy(True)
        self._turn_worker = self._run_turn(text)

    @work(group="turn", exit_on_error=False)
    async def _run_turn(self, text: str) -> None:
        await self.engine.send(text)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker is self._turn_worker and event.state in (WorkerState.ERROR, WorkerState.CANCELLED,
                                                                   WorkerState.SUCCESS):
            if event.state is WorkerState.ERROR:
                self.notify(f"turn failed: {event.worker.error}", severity="error")
            if event.state is not WorkerState.SUCCESS:
                self._set_busy(False)

    async def run_slash(self, text: str) -> None:
        command, _, rest = text.partition(" ")
        rest = rest.strip()
        conversation = self.query_one(Conversation)
        if command == "/skill":
            if not rest:
                await conversation.add_notice("usage: /skill NAME", "warning")
            else:
                self._activate(rest)
        elif command == "/skills":
            pane = self.query_one(SkillsPane)
            counts = ", ".join(f"{len(pane.views_in(s))} {s.value}" for s in SkillState)
            await conversation.add_notice(f"skills: {counts}", "info")
            pane.section(SkillState.ACTIVE).focus()
        elif command == "/match":
            self.action_inspector(rest)
        elif command == "/compact":
            self._compact()
        elif command == "/demo":
            await self.action_long_demo()
        elif command == "/clear":
            await self.action_clear()
        elif command == "/model":
            await conversation.add_notice(f"model: {self.engine.provider_label}", "info")
            self.action_settings()
        elif command == "/session":
            self.action_sessions()
        elif command == "/help":
            self.action_show_help()
        else:
            known = " ".join(SLASH_COMMANDS)
            await conversation.add_notice(f"unknown command {command}; try: {known}", "warning")

    # -- workers for engine actions ----------------------------------------------------------
    @work(group="engine", exit_on_error=False)
    async def _activate(self, name: str) -> None:
        if not await self.engine.activate(name):
            catalog = self.engine.workspace.catalog
            close = catalog.close_names(name) if hasattr(catalog, "close_names") else []
            hint = f" — did you mean {', '.join(close)}?" if close else ""
            await self.query_one(Conversation).add_notice(f"no skill named {name!r}{hint}", "warning")
        else:
            await self.query_one(Conversation).add_notice(f"activated {name}", "info")

    @work(group="engine", exit_on_error=False)
    async def _compact(self) -> None:
        plan = await self.engine.compact()
        if plan.is_noop:
            why = "; ".join(plan.notes) or "nothing older than the kept messages"
            await self.query_one(Conversation).add_notice(f"nothing to compact: {why}", "info")

    async def action_long_demo(self) -> None:
        """``/demo``: play the demo model's scripted long conversation, one turn after another,
        so the gauge climbs through every compression stage (Esc stops it)."""
        conversation = self.query_one(Conversation)
        if not self.engine.is_demo:
            await conversation.add_notice("/demo plays a script for the offline demo model; "
                                          "start with --provider demo to watch it", "warning")
            return
        if self._refused_while_turn_runs():
            return
        await conversation.add_notice("long demo: each answer grows the context until compression "
                                      "fires at 80, 90 and 95 % — Esc stops it", "info")
        self._stop_demo = False
        self._set_busy(True)
        self._turn_worker = self._run_long_demo()

    @work(group="turn", exit_on_error=False)
    async def _run_long_demo(self) -> None:
        from aiq_tui.llm.demo import DemoScript

        script = DemoScript.from_settings(self.engine.breakdown.window, self.engine.config.context)
        while not self._stop_demo and (text := script.next_turn(self.engine.breakdown.fraction)) is not None:
            await self.engine.send(text)
        self._set_busy(False)

    @work(group="engine", exit_on_error=False)
    async def _resume(self, session_id: str) -> None:
        if self.busy:
            self.engine.cancel()
        await self.engine.resume(session_id)
        await self.show_session()

    async def show_session(self) -> None:
        """Render the engine's current session from scratch (after resume or clear)."""
        conversation = self.query_one(Conversation)
        await conversation.reset()
        self.query_one(ToolLog).clear_records()
        for message in self.engine.session.messages:
            if message.role is Role.USER:
                await conversation.add_user(message.content)
            elif message.role is Role.ASSISTANT and message.content:
                await conversation.add_answer(message.content)
            elif message.role is Role.TOOL:
                await conversation.add_notice(f"✓ {message.name or 'tool'}: {message.content[:70]}", "tool")
            elif message.summary:
                await conversation.add_notice(f"summary: {message.content[:200]}", "info")
        self.query_one(BudgetGauge).breakdown = self.engine.breakdown
        self._update_subtitle()
        self.refresh_skills()

    # -- approvals -------------------------------------------------------------------------
    async def _approve(self, request: ApprovalRequest) -> Decision:
        """The engine's approver: show the modal and wait for the user's choice."""
        future: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()
        screen = ApprovalScreen(request)

        def decided(decision: Decision | None) -> None:
            if not future.done():
                future.set_result(decision or Decision.DENY)

        self._pending_approval = screen
        self.push_screen(screen, callback=decided)
        try:
            return await future
        except asyncio.CancelledError:
            if screen.is_current:
                screen.dismiss(Decision.DENY)
            raise
        finally:
            self._pending_approval = None

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
    def action_interrupt(self) -> None:
        if self.busy:
            self.action_cancel_turn()
        else:
            self.notify("Press Ctrl+Q to quit (your session is saved after every turn).")

    def action_cancel_turn(self) -> None:
        self._stop_demo = True
        if self.busy:
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
        self.exit(0)

    def action_show_help(self) -> None:
        self.push_screen(HelpScreen())

    def action_settings(self) -> None:
        home = self.engine.workspace.home

        def saved(config: AppConfig | None) -> None:
            if config is not None:
                self.notify(f"Settings saved to {self.shown(home.config_file)}; the provider applies on next start.")

        self.push_screen(SettingsScreen(self.engine.config, home.config_file, self.shown(home.config_file)), saved)

    def action_inspector(self, query: str = "") -> None:
        self.push_screen(InspectorScreen(self.engine, query))

    def action_sessions(self) -> None:
        def chosen(session_id: str | None) -> None:
            if session_id:
                self._resume(session_id)

        self.push_screen(SessionsScreen(self.engine), chosen)

    def action_warnings(self) -> None:
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
        tabs = self.query_one("#activity", TabbedContent)
        tabs.active = "tab-timeline" if tabs.active == "tab-tools" else "tab-tools"

    def action_compact(self) -> None:
        self._compact()

    async def action_clear(self) -> None:
        if self.busy:
            self.notify("A turn is running — Esc cancels it first.", severity="warning")
            return
        self.engine.clear()
        await self.show_session()
        await self.query_one(Conversation).add_notice("new session — the previous one stays saved", "info")

    def action_activate_skill(self, name: str) -> None:
        self._activate(name)

    def action_open_skill(self, name: str) -> None:
        catalog = self.engine.workspace.catalog
        meta = catalog.get(name)
        if meta is None:
            self.notify(f"No skill named {name!r}.", severity="warning")
            return
        skill = catalog.load(name)
        document = SkillDocument(meta, skill.body, tuple(catalog.resources(name)),
                                 validation_problems(meta, self.engine.config.skills), self.shown(meta.path))
        self.push_screen(SkillViewerScreen(document))

    def on_skill_chosen(self, message: SkillChosen) -> None:
        self.action_open_skill(message.name)

    @on(DataTable.RowSelected, "#tool-log")
    def _tool_selected(self, event: DataTable.RowSelected) -> None:
        record = self.query_one(ToolLog).records.get(str(event.row_key.value))
        if record is not None:
            self.push_screen(TextModal(f"Tool call {record.call_id}", record.full_text()))


def validation_problems(meta: Any, settings: Any) -> tuple[Problem, ...]:
    """Every problem ``aiq-tui skills validate`` would report for this skill."""
    from aiq_tui.skills.check import check_file

    return check_file(meta.path, settings).problems
