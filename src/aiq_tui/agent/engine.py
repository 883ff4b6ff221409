"""The agent engine: one conversation's turn loop, UI-free, reporting through typed events.

A turn (:meth:`Engine.send`) goes: the user message is stored → skills are ranked for it
(with the last few user messages as down-weighted context) → skills load, change phase or
unload → the prompt is built and its budget reported → compression runs when the budget
crosses 80/90/95 % (and the turn is refused, not truncated, when even that cannot make it
fit) → the model streams → tool calls run through the permission policy and the approver →
repeat until the model answers without tools (bounded rounds) → the session is saved.

Every step is an event (:mod:`aiq_tui.events`) delivered to each subscriber in order;
the TUI renders them, ``aiq-tui ask`` prints them, tests assert them. A failed turn keeps the
user's message in the session (``retry()`` sends it again); a cancelled turn keeps what was
streamed and answers any pending tool calls with "cancelled" so the history stays valid.
"""

from __future__ import annotations

import asyncio
import dataclasses
import re
import threading
import time
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import msgspec

from aiq_tui.agent.sessions import (
    Session,
    SessionStore,
    TokenFigures,
    ToolCallRecord,
    new_session_id,
)
from aiq_tui.agent.skillset import LoadedSkills
from aiq_tui.config import AppConfig, ProviderSettings
from aiq_tui.context.catalog_line import CatalogFit, LineCut, line_cuts
from aiq_tui.context.compress import ContextState, compress, stage_for
from aiq_tui.context.model import Breakdown, CompressionPlan, Stage
from aiq_tui.context.prompt import CatalogLevel, Prompt, PromptBuilder, PromptInputs
from aiq_tui.context.tokens import TokenCounter
from aiq_tui.conversation import Message, Role, ToolCall, ToolSpec
from aiq_tui.events import (
    BudgetChanged,
    CatalogReloaded,
    ErrorRaised,
    Event,
    EventSink,
    McpServerChanged,
    ModelRequestContent,
    ModelRequestFinished,
    ModelRequestStarted,
    RetryScheduled,
    SemanticProgress,
    SessionSaved,
    SkillsMatched,
    TokenStreamed,
    ToolCallCancelled,
    ToolCallDenied,
    ToolCallFinished,
    ToolCallRequested,
    TurnFinished,
    TurnStarted,
)
from aiq_tui.figures import percent
from aiq_tui.llm.base import (
    Provider,
    ProviderError,
    StreamDone,
    TextDelta,
    ToolCallReady,
)
from aiq_tui.llm.common import invalid_arguments, sendable_arguments
from aiq_tui.llm.windows import ContextWindow, resolve_window
from aiq_tui.problems import Problem
from aiq_tui.ranking.match import Calibration, SkillIndex
from aiq_tui.replay.record import TurnRecorder
from aiq_tui.skill_tools.default_tools import build_default_tools
from aiq_tui.skill_tools.skill_as_tool import skill_tools
from aiq_tui.skills.executor import SkillExecutor
from aiq_tui.skills.model import Ranking
from aiq_tui.skills.skill_view import SkillView
from aiq_tui.skills.tool_names import skill_for_tool, tool_name_for
from aiq_tui.tools.base import Approver, ToolResult
from aiq_tui.tools.mcp.fleet import McpFleet
from aiq_tui.tools.mcp.search import TOOL_SEARCH, ToolSearchTool
from aiq_tui.tools.mcp.subscriptions import ResourceWatch
from aiq_tui.tools.policy import allowed_by_skill
from aiq_tui.tools.registry import ToolRegistry, project_layout_of
from aiq_tui.trace_context import endpoint_of
from aiq_tui.workspace import Workspace

EXPLICIT_REASON = "active: explicitly activated"
_ID = re.compile(r"^m(\d+)$")


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class TurnRefused(Exception):
    """The prompt cannot fit the window even after the most aggressive compression."""


def refusal_message(
    b: Breakdown, plan: CompressionPlan, steps: Sequence[str], compression: bool
) -> str:
    """Why a turn is not sent: what compression tried (each step with what it saved), what it
    could not do, how much is still over and what the user can do about it."""
    head = f"not sent: {b.total} tokens do not fit the {b.window}-token window"
    over = f"still {b.total - b.window} tokens over"
    if not compression:
        return (
            f"{head} and compression is off (context.compression: false); {over} — shorten the message, "
            "turn compression on, unload a skill or raise context.window"
        )
    tried = "; ".join(steps) or "nothing could be compressed"
    limits = [note for note in plan.notes if not note.startswith("still ")]
    return (
        f"{head} even after compression — tried: {tried}"
        + (f"; not possible: {'; '.join(limits)}" if limits else "")
        + f"; {over} — shorten the message, unload a skill or raise context.window"
    )


def room_note(b: Breakdown) -> str:
    """For ``/compact`` with nothing to fold: where the room goes and what would free it."""
    skills = (
        ", ".join(f"{name} {tokens}" for name, tokens in b.skills.items()) or "none"
    )
    return (
        f"the prompt is {percent(b.total, b.window)}% of {b.window} tokens: system and tool definitions {b.system}, "
        f"skills catalog {b.catalog}, loaded skills {b.skills_total} ({skills}), history {b.history}, "
        f"tool results {b.tool_results}, reserved for the answer {b.reserve}. To make room: /clear starts a "
        "new conversation, or lower context.reserve_output or raise context.window; the next turn still "
        "unloads skills that stop matching and shortens the catalog if it must"
    )


class Engine:
    """Drives one conversation at a time. Create with :meth:`create`; one turn at a time."""

    def __init__(
        self,
        workspace: Workspace,
        provider: Provider,
        *,
        max_rounds: int | None = None,
        defer_tokenizer: bool = False,
    ) -> None:
        self.workspace = workspace
        self.config: AppConfig = workspace.config
        self.provider = provider
        self.max_rounds = max_rounds or workspace.config.agent.max_tool_rounds
        # defer_tokenizer (the TUI): estimate until warm_up() loads the encoding off the UI thread.
        self.counter = TokenCounter(
            self.config.context.encoding,
            model=provider.model,
            deferred=defer_tokenizer,
            cache_dir=workspace.home.tokenizer_cache_dir,
        )
        self.builder = PromptBuilder(
            self.counter, self.config.context, self.config.disclosure
        )
        # Built on first use (or by warm_up() in a background thread): with thousands of
        # skills it takes a second or more, and the first frame does not need it.
        self._index: SkillIndex | None = None
        self._index_lock = threading.Lock()
        # Semantic matching (issue 16): keyword-only until prepare_semantic() has the vectors.
        self._matcher: Any = None  # ranking.semantic.Matcher, made with the index
        self._semantic: Any = (
            None  # ranking.semantic.SemanticModel, made by prepare_semantic
        )
        self._semantic_requested = False
        from aiq_tui.skills.imported import granted_tools

        self.skills = LoadedSkills(
            workspace.catalog,
            self.config,
            self.counter,
            self.builder.catalog_line,
            granted=lambda meta: granted_tools(workspace.home, meta),
            line_cap=lambda: self.builder.line_cap,
            window=lambda: self.window,
        )
        from aiq_tui.tools.launch_policy import LaunchPolicy

        # One launcher policy for every process the agent starts (commands and scripts).
        layout = project_layout_of(workspace.cwd, self.config, workspace.catalog)
        self.executor = SkillExecutor(
            self.config.tools,
            cwd=workspace.cwd,
            launch=LaunchPolicy(
                self.config.tools,
                home=workspace.home,
                project=workspace.cwd,
                layout=layout,
            ),
        )
        self.tools: ToolRegistry = build_default_tools(
            workspace.home,
            self.config,
            workspace.sources,
            workspace.catalog if self.config.skills.enabled else None,
            cwd=workspace.cwd,
            on_activate=self._on_use_skill,
            executor=self.executor,
        )
        # MCP servers (issue 26): defined now, started on the loop that runs the turns
        # (start_mcp(), or the first turn); their tools join self.tools as mcp__<server>__<tool>.
        self.mcp = McpFleet(
            workspace.home,
            self.config,
            workspace.cwd,
            self.tools,
            self._fleet_event,
            on_tools_changed=self._update_budget,
        )
        # The resources the conversation uses are watched (subscribed to) where servers allow it:
        # the next message carries what changed (tools/mcp/subscriptions.py).
        self.resource_watch = ResourceWatch(self.mcp, self.config, self._emit)
        # The tools past mcp.tools_share stay reachable: the model searches them (offered only then).
        self.tool_search = ToolSearchTool(self.mcp)
        self.tools.add(self.tool_search)
        if (
            self.config.mcp.sampling
        ):  # servers may use the model, each request asked first
            from aiq_tui.agent.mcp_sampling import make_sampler

            self.mcp.sampler = make_sampler(
                lambda: self.provider,
                lambda: self.approver,
                self.config.mcp.sampling_max_tokens,
            )
        self.sessions = SessionStore(
            workspace.home.sessions_dir, limits=self.config.sessions
        )
        self.session = self._new_session()
        self.approver: Approver | None = None
        self._sinks: list[EventSink] = []
        self._recorder = (
            TurnRecorder()
        )  # the session keeps each turn's events for replay
        self._base_problems = tuple(
            p for p in workspace.problems if p not in workspace.catalog.problems
        )
        self._catalog_problems = tuple(workspace.catalog.problems)
        self._next_id = 0
        self._turn_task: asyncio.Task[Any] | None = None
        self._cancel_requested = False
        self._open_calls: dict[str, str] = {}  # call id → tool name, asking or running
        self._last_ranking: Ranking | None = None
        # Compression may shorten the catalog to make one turn fit; each turn starts in full.
        self._catalog_level = CatalogLevel.FULL
        self._breakdown = self.current_prompt().breakdown
        provider.on_retry = self._on_retry

    @classmethod
    def create(
        cls,
        workspace: Workspace,
        provider_name: str | None = None,
        *,
        demo_delay: float | None = None,
        defer_tokenizer: bool = False,
        **provider_options: Any,
    ) -> Engine:
        """An engine on the named provider (default: config ``llm.provider``).

        Raises ValueError for an unknown provider name (the message lists the known ones).
        """
        from aiq_tui.llm.factory import create_provider

        provider = create_provider(
            workspace.config, provider_name, demo_delay=demo_delay, **provider_options
        )
        return cls(workspace, provider, defer_tokenizer=defer_tokenizer)

    # -- read-only state ----------------------------------------------------------------------
    @property
    def index(self) -> SkillIndex:
        """The inverted index over every skill's metadata (built once, updated on reload)."""
        with self._index_lock:
            if self._index is None:
                self._index = SkillIndex(
                    self.workspace.catalog,
                    Calibration.from_config(self.config.matching),
                )
            return self._index

    def warm_up(self) -> None:
        """Load a deferred tokenizer (then recount the budget and the catalog lines) and build
        the index; safe to call from a worker thread."""
        if self.counter.load():
            self.skills.recount()  # a skill loaded by a message sent meanwhile was estimated
            self._breakdown = self.current_prompt().breakdown
            self.skills.views()  # fills the per-skill catalog-line counts the pane shows
        _ = self.index

    @property
    def matcher(self) -> Any:
        """What turns, the inspector and ``explain`` rank with: the index, plus the semantic
        signal once :meth:`prepare_semantic` has embedded every skill."""
        index = self.index
        with self._index_lock:
            if self._matcher is None:
                from aiq_tui.models import matcher_for

                self._matcher = matcher_for(
                    self.workspace.home, self.config, index, self._semantic
                )
            return self._matcher

    @property
    def semantic_status(self) -> Any:
        """Whether semantic matching is enabled, and why not (cheap: no model is loaded)."""
        from aiq_tui.models import semantic_status

        return semantic_status(self.workspace.home, self.config)

    def prepare_semantic(self) -> None:
        """Load the embedding model and embed new or changed skills (cached in the config home),
        emitting :class:`SemanticProgress`. Blocking: call from a worker thread. No-op when
        semantic matching is off or unavailable."""
        self._semantic_requested = True
        matcher = self.matcher
        if self._semantic is None:
            if not self.semantic_status.enabled:
                return
            from aiq_tui.models import open_semantic

            self._semantic = open_semantic(
                self.workspace.home, self.config, self.workspace.catalog
            )
            if self._semantic is None:
                return
            matcher.semantic = self._semantic
        model = self._semantic
        model.prepare(
            on_progress=lambda p: self._emit(
                SemanticProgress(p.done, p.total, model.state, model.error)
            )
        )

    def _semantic_for_headless_turn(self) -> None:
        """Headless (``ask``): use the semantic signal when every skill's vector is cached
        (loading the model takes well under a second); otherwise embed in a background
        thread and answer this turn with keywords — a turn never waits for embedding."""
        self._semantic_requested = True
        if not self.semantic_status.enabled:
            return
        from aiq_tui.models import open_semantic

        model = open_semantic(self.workspace.home, self.config, self.workspace.catalog)
        if model is None:
            return
        self._semantic = self.matcher.semantic = model
        if model.progress.ready:
            self.prepare_semantic()
        else:
            threading.Thread(
                target=self.prepare_semantic, name="aiq-embed", daemon=True
            ).start()

    @property
    def provider_label(self) -> str:
        label = f"{self.provider.name} · {self.provider.model}"
        return label + " (offline demo)" if self.is_demo else label

    @property
    def is_demo(self) -> bool:
        return self.provider.is_demo

    @property
    def breakdown(self) -> Breakdown:
        return self._breakdown

    @property
    def _provider_settings(self) -> ProviderSettings | None:
        """The config entry of the provider in use (None for one the config does not name)."""
        return self.config.llm.providers.get(self.provider.name)

    @property
    def window(self) -> int:
        return self.window_info.tokens

    @property
    def window_info(self) -> ContextWindow:
        """The window of the provider in use (its model, live: a swapped provider brings its
        own window) and where the number came from (config, known model, provider default)."""
        return resolve_window(self.config, self.provider.name, self.provider.model)

    @property
    def reserve(self) -> int:
        return self.config.context.reserve_output

    @property
    def problems(self) -> tuple[Problem, ...]:
        return self._base_problems + self._catalog_problems + self.mcp.problems()

    @property
    def busy(self) -> bool:
        return self._turn_task is not None

    def skill_views(self) -> list[SkillView]:
        return self.skills.views()

    def rank(self, query: str, context: Sequence[str] = ()) -> Ranking:
        return self.matcher.rank(query, context=tuple(context), top_k=None)

    def explain(self, query: str, name: str, context: Sequence[str] = ()) -> str:
        explanation = self.matcher.explain(
            query, name, context=tuple(context), top_k=self.config.matching.top_k
        )
        return f"{name}: " + "; ".join(explanation.reasons)

    def conversation_context(self, query: str) -> tuple[str, ...]:
        """The earlier questions the engine ranks ``query`` with (``matching.context_messages``):
        those before it when it is the conversation's last question, else all of them (as the
        next question would be ranked). The inspector passes them to :meth:`rank`, so that it
        shows the numbers the skills pane shows, not a ranking of the words alone."""
        keep = self.config.matching.context_messages
        if not keep:
            return ()
        earlier = [
            m.content
            for m in self.session.messages
            if m.role is Role.USER and not m.summary
        ]
        if earlier and earlier[-1] == query:
            earlier.pop()
        return tuple(earlier[-keep:])

    def catalog_cut(self, name: str) -> tuple[LineCut | None, CatalogFit | None]:
        """How the catalog line the model reads for ``name`` is shortened in the prompt the next
        request sends (None: whole, or not listed), and the fit that decided it (its ``why()``)
        — the prompt builder's own figures, as ``aiq-tui prompt`` shows them."""
        prompt = self.current_prompt()
        fit = prompt.catalog_fit
        listed = [entry for entry in prompt.catalog_entries if entry[0] == name]
        if fit is None or not listed:
            return None, fit
        cuts = line_cuts(listed, fit, self.counter.count, prompt.catalog_level)
        return (cuts[0] if cuts else None), fit

    def signal_words(self, query: str, name: str) -> dict[str, str]:
        """Each term a match of ``name`` for ``query`` can score (a stem) → the word written."""
        return self.index.words_for(query, name)

    # -- events ---------------------------------------------------------------------------------
    def subscribe(self, sink: EventSink) -> None:
        self._sinks.append(sink)

    def unsubscribe(self, sink: EventSink) -> None:
        if sink in self._sinks:
            self._sinks.remove(sink)

    def _emit(self, event: Event) -> None:
        self._track_call(event)
        turn = self._recorder.add(event)
        if turn is not None:
            self.session.replay.append(turn)
        for sink in list(self._sinks):
            sink(event)

    def _track_call(self, event: Event) -> None:
        """The calls requested and not yet denied or finished: the ones a turn's end cancels."""
        if isinstance(event, ToolCallRequested):
            self._open_calls[event.call_id] = event.name
        elif isinstance(event, (ToolCallDenied, ToolCallFinished, ToolCallCancelled)):
            self._open_calls.pop(event.call_id, None)

    def _cancel_open_calls(self, cancelled: bool) -> None:
        """Every call still asking or running when the turn ends says so, in the stream (the
        Tools tab, replay and captions show it), instead of asking or running for good."""
        reason = (
            "cancelled by you"
            if cancelled
            else "cut short: the turn ended before it did"
        )
        for call_id, name in list(self._open_calls.items()):
            self._emit(ToolCallCancelled(call_id, name, reason))
        self._open_calls.clear()

    def _fleet_event(self, event: McpServerChanged) -> None:
        self._emit(event)
        self.resource_watch.server_changed(event)  # a server gone, or running again

    def _emit_all(self, events: Sequence[Event]) -> None:
        for event in events:
            self._emit(event)

    def _on_retry(self, attempt: int, delay: float, reason: str) -> None:
        self._emit(RetryScheduled(attempt, delay, reason))

    # -- the turn ---------------------------------------------------------------------------------
    async def send(self, text: str) -> str:
        """Run one turn for the user's ``text``; returns the final answer ("" on failure). Each
        ``@server:uri`` in it attaches that MCP resource to the message the model receives, and
        the message carries what changed in the resources the conversation watches."""
        attached: list[tuple[str, str, str]] = []
        content = await self.mcp.attach_mentions(text, attached.append)
        content += await self.resource_watch.for_message(attached)
        message = Message(Role.USER, content, id=self._new_id())
        self.session.messages.append(message)
        return await self._turn(text, message.id)

    async def retry(self) -> str:
        """Run the last user message again (after an error); no-op answer "" when there is none."""
        last_user = next(
            (m for m in reversed(self.session.messages) if m.role is Role.USER), None
        )
        if last_user is None:
            return ""
        # Drop a partial answer after it, so the model answers the question afresh.
        while self.session.messages and self.session.messages[-1] is not last_user:
            if (
                self.session.messages[-1].role is Role.TOOL
                or self.session.messages[-1].tool_calls
            ):
                break  # tool exchanges are kept: they are facts the model may reuse
            self.session.messages.pop()
        return await self._turn(last_user.content, last_user.id)

    async def _turn(self, text: str, message_id: str = "") -> str:
        turn_id = uuid.uuid4().hex[:12]
        self._turn_task = asyncio.current_task()
        self._cancel_requested = False
        self._emit(TurnStarted(turn_id, text, message_id))
        self._catalog_level = CatalogLevel.FULL
        answer, usage_in, usage_out, cancelled = "", 0, 0, False
        try:
            if self._index is None:  # build off the event loop so the UI keeps drawing
                await asyncio.to_thread(self.warm_up)
            if (
                not self._semantic_requested
            ):  # no TUI worker asked for it (headless ask)
                await asyncio.to_thread(self._semantic_for_headless_turn)
            await (
                self.mcp.start()
            )  # once; a failing server is a warning, never the turn's end
            self._match(text)
            for _round in range(self.max_rounds):
                prompt = await self._prepare()
                reply, calls, done = await self._stream(prompt)
                usage_in += done.usage.input_tokens
                usage_out += done.usage.output_tokens
                if reply or calls:
                    self.session.messages.append(
                        Message(
                            Role.ASSISTANT,
                            reply,
                            id=self._new_id(),
                            tool_calls=tuple(
                                ToolCall(c.id, c.name, sendable_arguments(c.arguments))
                                for c in calls
                            ),
                        )
                    )
                answer = reply or answer
                if not calls:
                    if done.finish_reason == "length":
                        self._emit(
                            ErrorRaised(
                                "the answer was cut off at the output limit "
                                "(context.reserve_output); ask the model to continue",
                                retryable=False,
                            )
                        )
                    break
                for call in calls:
                    await self._run_tool(call)
            else:
                self._emit(
                    ErrorRaised(
                        f"stopped after {self.max_rounds} model calls in one turn; "
                        "say 'continue' to let the agent go on",
                        retryable=False,
                    )
                )
        except asyncio.CancelledError:
            if not self._cancel_requested:
                raise
            task = asyncio.current_task()
            if task is not None:
                task.uncancel()
            cancelled = True
            last = self.session.messages[-1] if self.session.messages else None
            if last is not None and last.role is Role.ASSISTANT:
                answer = last.content
        except TurnRefused as exc:
            self._emit(ErrorRaised(str(exc), retryable=False))
        except ProviderError as exc:
            text = str(
                exc
            )  # an endpoint's error names the provider already: say it once
            named = (
                text
                if text.startswith(f"{self.provider.name} ")
                or text.startswith(f"{self.provider.name}:")
                else f"{self.provider.name}: {text}"
            )
            self._emit(ErrorRaised(named, retryable=exc.retryable))
        except Exception as exc:
            self._emit(
                ErrorRaised(
                    f"unexpected error: {type(exc).__name__}: {exc}", retryable=True
                )
            )
        finally:
            self._turn_task = None
            self._cancel_open_calls(cancelled)
            self._close_dangling_calls()
            self._update_budget()
            self.session.tokens = self._figures(usage_in, usage_out)
            self._emit(
                TurnFinished(turn_id, answer, usage_in, usage_out, cancelled=cancelled)
            )
            self._save()
        return answer

    def cancel(self) -> None:
        """Stop the running turn: the stream stops, what arrived is kept, the session saved."""
        task = self._turn_task
        if task is not None and not task.done():
            self._cancel_requested = True
            task.cancel()

    # -- matching and skills ------------------------------------------------------------------------
    def _match(self, text: str) -> None:
        context = self.conversation_context(text)  # ``text`` is the last message by now
        ranking = self.matcher.rank(text, context=context, top_k=None)
        self._last_ranking = ranking
        self._emit(SkillsMatched(ranking))
        self._emit_all(self.skills.apply_ranking(ranking))

    def _on_use_skill(self, name: str) -> None:
        self._emit_all(
            self.skills.activate(name, "active: loaded by the model with use_skill")
        )

    async def activate(self, name: str, arguments: str | None = None) -> bool:
        """``/skill NAME`` (``/NAME ARGS``): Active at the full phase regardless of score — a
        skill only the user runs (``disable-model-invocation``) included — with ``arguments`` in
        its ``$ARGUMENTS`` placeholders. False if unknown."""
        if name not in self.workspace.catalog:
            return False
        self._emit_all(
            self.skills.activate(name, EXPLICIT_REASON + " (/skill)", arguments)
        )
        self._update_budget()
        return True

    # -- prompt and budget ------------------------------------------------------------------------
    def _tool_specs(self, loaded: Any = None) -> list[ToolSpec]:
        """Built-in tools and use_skill always; a ``skill_<name>`` tool only while its skill is
        loaded (in ``loaded``, default the conversation's) — thousands of skills must not turn
        into thousands of tool definitions; MCP tools as many as fit ``mcp.tools_share`` (those
        the conversation's active skills name first)."""
        loaded = self.skills if loaded is None else loaded
        specs = []
        for name in self.tools.names():
            tool = self.tools.get(name)
            if tool is None:
                continue  # unregistered between names() and get(): nothing to offer
            if (
                name.startswith("skill_")
                and skill_for_tool(self.workspace.catalog, name) not in loaded
            ):
                continue
            if name.startswith("mcp__") or name == TOOL_SEARCH:
                continue  # offered below, within their share
            specs.append(tool.spec)
        allowed = self.skills.active_allowed_tools()
        preferred = (
            None
            if allowed is None
            else (lambda tool: allowed_by_skill(allowed, tool, tool))
        )
        offered = self.mcp.offered(self.counter, self.window, preferred)
        if (
            self.config.mcp.tool_search
            and len(offered) < len(self.mcp.tool_names())
            and self.tools.policy.configured(TOOL_SEARCH) != "deny"
        ):  # never offer what is refused
            sent = {spec.name for spec in offered}
            specs.append(
                self.tool_search.spec_for(
                    [n for n in self.mcp.tool_names() if n not in sent]
                )
            )
        return specs + offered

    def _manual_only_tool(self, tool_name: str) -> str | None:
        """Why the model may not call this skill's tool: the skill is one only the user runs
        (``disable-model-invocation``) and the user has not run it; None otherwise."""
        from aiq_tui.skills.invocation import model_invocable, refused_for_model

        skill = self.skill_for_tool(tool_name)
        meta = self.workspace.catalog.get(skill) if skill is not None else None
        if (
            skill is None
            or meta is None
            or skill in self.skills.explicit
            or model_invocable(meta.extras)
        ):
            return None
        return refused_for_model(skill)

    def skill_for_tool(self, tool_name: str) -> str | None:
        """The skill behind a ``skill_<name>`` tool (None for other tools) — the one mapping."""
        return skill_for_tool(self.workspace.catalog, tool_name)

    def preview(self, query: str) -> Prompt:
        """The prompt the engine would send for ``query`` as the next user message: skills are
        matched and loaded exactly as :meth:`send` does, nothing is sent or saved
        (``aiq-tui prompt`` shows this). The query stays out of the session."""
        message = Message(Role.USER, query, id=self._new_id())
        self.session.messages.append(message)
        try:
            self._match(query)
            return self._update_budget()
        finally:
            self.session.messages.remove(message)

    def current_prompt(self) -> Prompt:
        """The prompt the next request would send (system, history, tools, breakdown)."""
        return self.builder.build(self._prompt_inputs())

    def catalog_prompt(self, query: str) -> Prompt:
        """The request a new conversation sends for ``query`` before any skill is disclosed:
        the catalog (ranked for the query, in full), the use_skill instructions and the tools,
        no skill section — what a model decides from when it chooses to call ``use_skill`` (what
        skill-creator's trigger eval measures; ``match --eval --llm`` sends it). Nothing is
        sent, saved or emitted, and the conversation in progress is untouched."""
        ranking = self.matcher.rank(query, top_k=None)
        fresh = self._prompt_inputs(
            catalog=self.skills.catalog_entries(ranking),
            loaded=(),
            history=(Message(Role.USER, query, id="m1"),),
            tools=self._tool_specs(loaded=()),
            catalog_level=CatalogLevel.FULL,
        )
        return self.builder.build(fresh)

    def _prompt_inputs(
        self,
        *,
        catalog: Sequence[tuple[str, str]] | None = None,
        loaded: Sequence[Any] | None = None,
        history: Sequence[Message] | None = None,
        tools: list[ToolSpec] | None = None,
        catalog_level: CatalogLevel | None = None,
    ) -> PromptInputs:
        """The prompt builder's inputs: the conversation's, unless a part is given."""
        return PromptInputs(
            catalog=(self.skills.catalog_entries() if catalog is None else catalog)
            if self.config.skills.enabled
            else (),
            loaded=self.skills.loaded() if loaded is None else loaded,
            history=tuple(self.session.messages) if history is None else history,
            tools=self._tool_specs() if tools is None else tools,
            window=self.window,
            reserve=self.reserve,
            window_source=self.window_info.label,
            catalog_level=self._catalog_level
            if catalog_level is None
            else catalog_level,
        )

    def _update_budget(self) -> Prompt:
        prompt = self.current_prompt()
        self._breakdown = prompt.breakdown
        self._emit(BudgetChanged(prompt.breakdown))
        self.mcp.note_offered(spec.name for spec in prompt.tools)
        return prompt

    async def start_mcp(self) -> None:
        """Start the MCP servers (idempotent; the first turn does it too): each one ready or a
        warning, never an exception."""
        await self.mcp.start()

    async def _prepare(self) -> Prompt:
        """The prompt to send, compressed first when the budget calls for it; refused (never
        truncated) when it still does not fit."""
        prompt = self._update_budget()
        if stage_for(prompt.breakdown.fraction, self.config.context) is Stage.NONE:
            return prompt
        steps: list[str] = []
        plan = await self._compress(prompt, self.config.context, steps=steps)
        if not plan.is_noop:
            prompt = self._update_budget()
        # The planner budgets a summary at its cap; what counts is the measured prompt.
        if prompt.breakdown.total > prompt.breakdown.window:
            raise TurnRefused(
                refusal_message(
                    prompt.breakdown, plan, steps, self.config.context.compression
                )
            )
        return prompt

    async def _compress(
        self,
        prompt: Prompt,
        settings: Any,
        *,
        steps: list[str] | None = None,
        turn_open: bool = True,
    ) -> CompressionPlan:
        """Plan and apply compression to the session and the loaded skills. ``steps`` collects
        what each applied step did (the events' ``step`` texts); ``turn_open``: the last user
        message's turn is still running, so its tool results are in use and stay whole."""
        b = prompt.breakdown
        state = ContextState(
            history=tuple(self.session.messages),
            skills=self.skills.costs(),
            fixed=b.system,
            catalog=b.catalog,
            reserve=b.reserve,
            window=b.window,
            catalog_options=self.builder.catalog_options(self._prompt_inputs()),
            tool_summaries={
                record.call_id: record.summary for record in self.session.tool_calls
            },
            turn_open=turn_open,
        )
        provider_settings = self._provider_settings
        use_model = provider_settings is None or provider_settings.summarise_with_model

        async def by_model(messages: Sequence[Message], max_tokens: int) -> str:
            return await self.provider.summarise(messages, max_tokens)

        def emit(event: Any) -> None:
            if steps is not None:
                steps.append(event.step)
            self._emit(event)

        outcome = await compress(
            state, settings, self.counter, by_model if use_model else None, emit=emit
        )
        if outcome.plan.is_noop:
            return outcome.plan
        self.session.keep_title()  # the first messages may be folded into a summary now
        self.session.messages = list(outcome.state.history)
        if outcome.summary is not None:
            self.session.summaries.append(outcome.summary.text)
        for eviction in outcome.plan.evictions:
            self._emit_all(
                self.skills.evict(
                    eviction.name,
                    f"evicted at {int(outcome.plan.stage)} %: {eviction.reason}",
                )
            )
        if outcome.plan.catalog is not None:
            self._catalog_level = CatalogLevel(outcome.plan.catalog.level)
        return outcome.plan

    async def compact(self) -> CompressionPlan:
        """``/compact``: make room now, whatever the budget and even with compression off.
        Tool results are cleared to their extract and the older conversation is summarised,
        keeping the last ``keep_last`` messages — or the last ``keep_last_aggressive`` when
        that leaves nothing to fold; at ≥ 90 % skills are evicted as that stage does.
        Returns the plan; when nothing could be compacted (``is_noop``) its notes say why,
        what takes the room and what would free it."""
        context = self.config.context

        def forced(keep: int) -> Any:
            return msgspec.structs.replace(
                context,
                compression=True,
                compress_at=0.0,
                keep_last=keep,
                keep_last_aggressive=min(keep, context.keep_last_aggressive),
            )

        plan = await self._compress(
            self.current_prompt(), forced(context.keep_last), turn_open=False
        )
        if plan.is_noop and context.keep_last_aggressive < context.keep_last:
            plan = await self._compress(
                self.current_prompt(),
                forced(context.keep_last_aggressive),
                turn_open=False,
            )
        prompt = self._update_budget()
        if plan.is_noop:
            return dataclasses.replace(
                plan, notes=plan.notes + (room_note(prompt.breakdown),)
            )
        self._save()
        return plan

    # -- the model ----------------------------------------------------------------------------------
    async def _stream(self, prompt: Prompt) -> tuple[str, list[ToolCall], StreamDone]:
        parts: list[str] = []
        calls: list[ToolCall] = []
        done = StreamDone("stop")
        provider_settings = self._provider_settings
        max_tokens = self.reserve
        if provider_settings is not None:
            max_tokens = (
                min(max_tokens, provider_settings.max_output_tokens)
                or provider_settings.max_output_tokens
            )
        provider, model = self.provider.name, self.provider.model
        kind = provider_settings.kind if provider_settings is not None else provider
        address, port = endpoint_of(self.provider.base_url)
        self._emit(
            ModelRequestStarted(
                provider,
                kind,
                model,
                max(1, max_tokens),
                address,
                port,
                ModelRequestContent(
                    prompt.system, tuple(prompt.messages), tuple(prompt.tools)
                ),
            )
        )
        started, error = time.perf_counter(), ""
        try:
            async for item in self.provider.stream(
                prompt.system, prompt.messages, prompt.tools, max(1, max_tokens)
            ):
                if isinstance(item, TextDelta):
                    parts.append(item.text)
                    self._emit(TokenStreamed(item.text))
                elif isinstance(item, ToolCallReady):
                    calls.append(item.call)
                elif isinstance(item, StreamDone):
                    done = item
        except asyncio.CancelledError:
            done = StreamDone("cancelled", done.usage, done.response_id)
            # Keep what was streamed; tool calls of an interrupted reply are dropped.
            if parts:
                self.session.messages.append(
                    Message(Role.ASSISTANT, "".join(parts), id=self._new_id())
                )
            raise
        except Exception as exc:
            done, error = (
                StreamDone("error", done.usage, done.response_id),
                str(exc) or type(exc).__name__,
            )
            raise
        finally:  # every request that started ends, whatever happened (a trace's span closes)
            self._emit(
                ModelRequestFinished(
                    provider,
                    model,
                    done.usage.input_tokens,
                    done.usage.output_tokens,
                    done.finish_reason,
                    round(time.perf_counter() - started, 6),
                    error,
                    done.response_id,
                )
            )
        return "".join(parts), calls, done

    async def _run_tool(self, call: ToolCall) -> None:
        started = time.perf_counter()
        problem = invalid_arguments(call.arguments)
        refused = self._manual_only_tool(call.name)
        if problem is not None or refused is not None:
            result = ToolResult.failure(
                refused
                or f"{call.name}: {problem}; send the arguments as one JSON object"
            )
            self._emit(
                ToolCallRequested(
                    call.id, call.name, sendable_arguments(call.arguments), "deny"
                )
            )
            self._emit(
                ToolCallFinished(
                    call.id, call.name, False, result.summary, 0.0, result.error
                )
            )
        else:
            skill = self.skill_for_tool(call.name)
            if (
                skill is not None
            ):  # seed 003: a skill's tool about to run has its full description first
                upgraded = self.skills.before_tool_call(skill, call.name)
                if upgraded:
                    self._emit_all(upgraded)
                    self._update_budget()
            result = await self.tools.invoke(
                call,
                self.approver,
                self._emit,
                self.skills.active_allowed_tools(),
                preapproving=self.skills.preapproving_tools(),
            )
            if result.ok:  # a resource the model read is watched from now on
                self.resource_watch.model_read(
                    self.tools.get(call.name), call.arguments
                )
        content = result.to_model_text()
        if call.name == "use_skill" and result.ok:
            name = str(call.arguments.get("skill_name", "")).strip()
            if name in self.skills:
                # The instructions now sit in the system prompt (protected from compression);
                # repeating them in the history would pay for them twice.
                content = (
                    f"Skill '{name}' is active: its instructions and resource list are in the "
                    f"system prompt under '## Skill: {name}'. Follow them."
                )
        self.session.messages.append(
            Message(
                Role.TOOL,
                content,
                tool_call_id=call.id,
                name=call.name,
                id=self._new_id(),
            )
        )
        self.session.tool_calls.append(
            ToolCallRecord(
                call.id,
                call.name,
                sendable_arguments(call.arguments),
                result.summary,
                result.ok,
                round(time.perf_counter() - started, 6),
                at=_now(),
            )
        )

    def _close_dangling_calls(self) -> None:
        """Answer tool calls left without a result (cancelled mid-tool) so the history stays
        valid for every API (each tool call needs its result)."""
        answered = {
            m.tool_call_id for m in self.session.messages if m.role is Role.TOOL
        }
        for message in list(self.session.messages):
            for call in message.tool_calls:
                if call.id not in answered:
                    self.session.messages.append(
                        Message(
                            Role.TOOL,
                            '{"error": "cancelled by the user"}',
                            tool_call_id=call.id,
                            name=call.name,
                            id=self._new_id(),
                        )
                    )
                    answered.add(call.id)

    # -- sessions ----------------------------------------------------------------------------------
    def _new_session(self) -> Session:
        # Not written until its first turn: starting the app does not leave empty files.
        return Session(
            id=new_session_id(), provider=self.provider.name, model=self.provider.model
        )

    def _new_id(self) -> str:
        if self._next_id == 0:
            used = [
                int(m.group(1))
                for m in (_ID.match(x.id) for x in self.session.messages)
                if m
            ]
            self._next_id = max(used, default=0) + 1
        self._next_id += 1
        return f"m{self._next_id - 1}"

    def _figures(self, usage_in: int, usage_out: int) -> TokenFigures:
        b = self._breakdown
        previous = self.session.tokens
        return TokenFigures(
            window=b.window,
            last_total=b.total,
            parts=b.parts(),
            input_tokens=previous.input_tokens + usage_in,
            output_tokens=previous.output_tokens + usage_out,
        )

    def _save(self) -> None:
        self.session.skill_states = self.skills.statuses()
        try:
            path = self.sessions.save(self.session)
        except OSError as exc:
            self._emit(
                ErrorRaised(
                    f"could not save the session to {self.sessions.directory}: {exc}; "
                    "the conversation is still in memory",
                    retryable=True,
                )
            )
            return
        self._emit(SessionSaved(self.session.id, path))

    def clear(self) -> None:
        """Start a new conversation; the previous one stays saved. "Allow always" answers were
        for that conversation: the new one asks again."""
        self.session = self._new_session()
        self.tools.policy.forget()
        self._next_id = 0
        self._last_ranking = None
        self._catalog_level = CatalogLevel.FULL
        self.resource_watch.reset()  # what the old conversation used is no longer watched
        self._emit_all(self.skills.clear())
        self._update_budget()
        self._recorder.reset()  # the old session's unloads are not part of the new one's replay

    async def resume(self, session_id: str) -> Session:
        """Continue a saved session (id or unique prefix): history, skills and budget restored.

        Raises :class:`~aiq_tui.agent.sessions.SessionError` when it cannot be loaded.
        """
        session = self.sessions.load(session_id)
        self.session = session
        self.tools.policy.forget()  # "allow always" belonged to the conversation left behind
        self.resource_watch.reset()  # watched from its next attach or read on
        self._next_id = 0
        self._catalog_level = CatalogLevel.FULL
        states = session.skill_states
        explicit = [
            name
            for name, s in states.items()
            if s.reason.startswith(EXPLICIT_REASON) or "use_skill" in s.reason
        ]
        self._emit_all(self.skills.restore(states, explicit))
        self._update_budget()
        # Restoring puts back the skills the session already had: the screen follows these
        # events, but the session's replay must not show them as new loads in the next turn
        # (its earlier turns already loaded them). Events of the previous session go too.
        self._recorder.reset()
        return session

    def use_window(self, tokens: int | None) -> None:
        """Budget against a ``tokens``-token window from now on (None: the configured one again);
        the scripted ``/demo`` is written for the demo model's window."""
        self.config.context.window = tokens
        self._update_budget()

    # -- settings changed in the TUI ------------------------------------------------------------------
    async def apply_settings(self, config: AppConfig) -> None:
        """Saved settings in force now, without a restart: provider, model, window, thresholds.

        Raises ValueError (and changes nothing) when the new provider cannot be created.
        """
        from aiq_tui.llm.factory import create_provider

        provider = create_provider(config)
        old, self.provider = self.provider, provider
        self.config.llm = config.llm
        # In place: the prompt builder and the planner hold this very object. The new values
        # were validated together (save_settings), so they are copied as they are.
        for name in type(self.config.context).__struct_fields__:
            setattr(self.config.context, name, getattr(config.context, name))
        self.config.sessions = self.sessions.limits = (
            config.sessions
        )  # the next read of a saved session
        provider.on_retry = self._on_retry
        self.session.provider, self.session.model = provider.name, provider.model
        if self.counter.retarget(provider.model, self.config.context.encoding):
            # The new model counts in another encoding (gpt-4o: o200k): loaded off the event
            # loop, then every figure is recounted (the builder asks the counter afresh).
            await asyncio.to_thread(self.counter.load)
            self.skills.recount()
        self._update_budget()  # the window follows the new provider's model
        await old.aclose()

    # -- live reload -------------------------------------------------------------------------------
    def refresh_trust(self) -> CatalogReloaded:
        """The user trusted or untrusted the project (the TUI's dialog): the skill folders get
        their new trust and order, and what changed reloads like any edit."""
        self.workspace.retrust()
        return self.reload()

    def reload(self) -> CatalogReloaded:
        """Rescan the skill directories; the index, tools and loaded skills follow."""
        diff = self.workspace.catalog.rescan()
        for name in diff.removed + diff.changed:
            self.tools.remove(tool_name_for(name))
        fresh = [
            meta
            for meta in map(self.workspace.catalog.get, diff.added + diff.changed)
            if meta is not None
        ]
        with self._index_lock:  # not built yet: the build will read the new catalog
            if self._index is not None:
                for name in diff.removed:
                    self._index.remove(name)
                for meta in fresh:
                    self._index.upsert(meta)
        if (
            self._semantic is not None
        ):  # changed skills: keyword-only until re-embedded, off this thread
            self._semantic.update(fresh, diff.removed)
            if not self._semantic.progress.ready:
                threading.Thread(
                    target=self.prepare_semantic, name="aiq-embed", daemon=True
                ).start()
        if self.config.skills.enabled:
            for tool in skill_tools(
                _MetaList(self.workspace.catalog, fresh),
                self.executor,
                self.workspace.home,
            ):
                if tool.spec.name not in self.tools:
                    self.tools.add(tool)
        self._catalog_problems = (
            tuple(diff.problems)
            if diff.problems
            else tuple(self.workspace.catalog.problems)
        )
        # A disabled skill is still on disk: said so, not "removed" (it stays reachable by name).
        disabled = tuple(
            name
            for name in diff.removed
            if self.workspace.catalog.find(name) is not None
        )
        removed = tuple(name for name in diff.removed if name not in disabled)
        self._emit_all(self.skills.forget(removed))
        self._emit_all(
            self.skills.forget(
                disabled, "disabled: status inactive — e in its viewer enables it"
            )
        )
        self._emit_all(self.skills.refresh(diff.changed))
        event = CatalogReloaded(
            diff.added, diff.changed, removed, tuple(diff.problems), disabled
        )
        self._emit(event)
        if diff.added or diff.changed or diff.removed:
            self._update_budget()
        return event

    async def aclose(self) -> None:
        await self.resource_watch.aclose()
        await self.mcp.aclose()
        await self.provider.aclose()


class _MetaList:
    """Some of a catalog's skills, with the catalog's ``load`` (for ``skill_<name>`` tools)."""

    def __init__(self, catalog: Any, metas: list[Any]) -> None:
        self._catalog, self._metas = catalog, metas

    def __iter__(self):
        return iter(self._metas)

    def __getattr__(self, name: str) -> Any:  # load, definition, … of the catalog
        return getattr(self._catalog, name)


__all__ = ["Engine", "TurnRefused"]
