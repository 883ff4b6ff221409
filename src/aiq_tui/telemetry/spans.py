"""The engine's events as OpenTelemetry spans, following the GenAI semantic conventions.

One turn is one trace::

    invoke_agent aiq-tui                 (gen_ai.operation.name=invoke_agent, the session's id)
    ├── chat gpt-4o-mini                 (one per model request: model, token usage, finish reason,
    │                                     response id, server address and port)
    ├── execute_tool use_skill           (one per tool call: name, description, call id, permission, outcome)
    ├── execute_tool mcp__time__now
    │   └── tools/call now               (CLIENT: the MCP request, per the MCP semantic conventions;
    │                                     the server got its context in params._meta.traceparent)
    ├── chat gpt-4o-mini
    └── …
    span events: aiq.skills.matched, aiq.skill.loaded / changed / unloaded / evicted,
    aiq.context.compressed, aiq.retry, aiq.tool.approved, aiq.error

Events land on the innermost open span (a skill that ``use_skill`` loads is an event of that
tool's span); those that happen between turns (``/skill``, ``/compact``, a reload) are kept and
added to the next turn's span with their own times. Contents — the user's message, answers,
each request's input messages, system instructions, tool definitions and output, tool
arguments and results — are set only with ``log_content``.

:class:`TraceBuilder` is given each event with the time it was emitted and uses that time for
the span, so spans built later (while the SDK was still loading) are exact.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable
from typing import Any

from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind, Status, StatusCode

from aiq_tui.events import (
    BudgetChanged,
    CatalogLoaded,
    CatalogReloaded,
    CompressionApplied,
    ErrorRaised,
    McpCallFinished,
    McpCallStarted,
    ModelRequestContent,
    ModelRequestFinished,
    ModelRequestStarted,
    RetryScheduled,
    SkillsMatched,
    SkillStateChanged,
    TokenStreamed,
    ToolCallApproved,
    ToolCallCancelled,
    ToolCallDenied,
    ToolCallFinished,
    ToolCallRequested,
    TurnFinished,
    TurnStarted,
)
from aiq_tui.skills.model import SkillState

AGENT_NAME = "aiq-tui"
TOP_MATCHES = (
    5  # skills named in aiq.skills.matched: the head of the ranking explains a turn
)
BETWEEN_TURNS = (
    200  # events kept for the next turn's span (a long /skill session stays bounded)
)
# GenAI well-known provider names by our wire protocol (gen_ai.provider.name).
PROVIDER_NAMES = {"openai": "openai", "anthropic": "anthropic", "demo": "aiq.demo"}

Attributes = dict[str, Any]


class TraceBuilder:
    """Apply events in order with :meth:`apply`; :meth:`end_all` closes what is still open."""

    def __init__(
        self,
        tracer: trace.Tracer,
        *,
        log_content: bool = False,
        content_max_chars: int = 4096,
        conversation_id: Callable[[], str] = lambda: "",
        ids: Any = None,
    ) -> None:
        self.tracer = tracer
        self.ids = ids  # the provider's PresetIds: spans get the ids chosen when their event happened
        self.log_content = log_content
        self.content_max_chars = content_max_chars
        self.conversation_id = conversation_id
        self._turn: Span | None = None
        self._model: Span | None = None
        self._streamed: list[str] = []
        self._streamed_chars = 0
        self._answer_model: tuple[str, str] | None = (
            None  # (provider, model) of the turn's first request
        )
        self._tools: dict[str, Span] = {}
        self._requests: dict[str, Span] = {}  # MCP requests by tool call id
        self._waiting: deque[tuple[str, Attributes, int]] = deque(maxlen=BETWEEN_TURNS)
        self._budget: BudgetChanged | None = None

    # -- the one entry point --------------------------------------------------------------------
    def apply(self, event: object, at: int, ids: tuple[int, int] | None = None) -> None:
        """``event`` emitted at ``at`` (ns since the epoch); ``ids``: the (trace id, span id)
        chosen for the span it starts. Unknown types are ignored. One branch per event type."""
        if isinstance(event, TurnStarted):
            self._start_turn(event, at, ids)
        elif isinstance(event, McpCallStarted):
            self._start_request(event, at, ids)
        elif isinstance(event, McpCallFinished):
            self._finish_request(event, at)
        elif isinstance(event, TurnFinished):
            self._finish_turn(event, at)
        elif isinstance(event, ModelRequestStarted):
            self._start_model(event, at)
        elif isinstance(event, ModelRequestFinished):
            self._finish_model(event, at)
        elif isinstance(event, TokenStreamed):
            if (
                self._model is not None
                and self.log_content
                and self._streamed_chars <= self.content_max_chars
            ):
                self._streamed.append(event.text)  # no more than the attribute can hold
                self._streamed_chars += len(event.text)
        elif isinstance(event, ToolCallRequested):
            self._start_tool(event, at)
        elif isinstance(event, ToolCallApproved):
            self._tool_event(
                event.call_id,
                "aiq.tool.approved",
                {"aiq.tool.approved_by": event.by, "aiq.tool.always": event.always},
                at,
            )
        elif isinstance(event, ToolCallDenied):
            self._deny_tool(event, at)
        elif isinstance(event, ToolCallFinished):
            self._finish_tool(event, at)
        elif isinstance(event, ToolCallCancelled):
            self._cancel_tool(event, at)
        elif isinstance(event, SkillsMatched):
            self._event("aiq.skills.matched", self._matched(event), at)
        elif isinstance(event, SkillStateChanged):
            self._event(
                skill_event_name(event),
                {
                    "aiq.skill.name": event.name,
                    "aiq.skill.state": event.new.value
                    if event.new is not None
                    else "evicted",
                    "aiq.skill.previous_state": event.old.value
                    if event.old is not None
                    else "none",
                    "aiq.skill.phase": event.phase.label,
                    "aiq.skill.reason": event.reason,
                    "aiq.skill.tokens": event.tokens,
                },
                at,
            )
        elif isinstance(event, CompressionApplied):
            self._event(
                "aiq.context.compressed",
                {
                    "aiq.compression.stage": int(event.plan.stage),
                    "aiq.compression.step": event.step,
                    "aiq.compression.tokens_before": event.before,
                    "aiq.compression.tokens_after": event.after,
                    "aiq.compression.summarised_messages": len(
                        event.plan.summarise_ids
                    ),
                    "aiq.compression.evicted": [e.name for e in event.plan.evictions],
                },
                at,
            )
        elif isinstance(event, BudgetChanged):
            self._budget = event
        elif isinstance(event, RetryScheduled):
            self._event(
                "aiq.retry",
                {
                    "aiq.retry.attempt": event.attempt,
                    "aiq.retry.delay_s": event.delay_s,
                    "aiq.retry.reason": event.reason,
                },
                at,
            )
        elif isinstance(event, ErrorRaised):
            self._event(
                "aiq.error",
                {
                    "aiq.error.message": event.message,
                    "aiq.error.retryable": event.retryable,
                },
                at,
            )
            if self._turn is not None:
                self._turn.set_attribute("error.type", "turn_error")
                self._turn.set_status(Status(StatusCode.ERROR, event.message))
        elif isinstance(event, CatalogLoaded):
            # Discovery at start-up, before any turn: a span of its own, at its own times.
            span = self.tracer.start_span(
                "aiq.skills.discover",
                start_time=event.started_ns,
                attributes={
                    "aiq.catalog.skills": event.skills,
                    "aiq.catalog.dormant": event.dormant,
                    "aiq.catalog.directories": event.directories,
                    "aiq.catalog.problems": event.problems,
                    "aiq.catalog.cached": event.cached,
                },
            )
            span.end(end_time=event.started_ns + int(event.seconds * 1e9))
        elif isinstance(event, CatalogReloaded):
            self._event(
                "aiq.catalog.reloaded",
                {
                    "aiq.catalog.added": list(event.added),
                    "aiq.catalog.changed": list(event.changed),
                    "aiq.catalog.removed": list(event.removed),
                    "aiq.catalog.problems": len(event.problems),
                },
                at,
            )

    def end_all(self, at: int) -> None:
        """End every open span (the app quits in the middle of a turn)."""
        self._end_children(at, "the app ended during the call")
        if self._turn is not None:
            self._turn.set_attribute("aiq.turn.unfinished", True)
            self._turn.end(end_time=at)
            self._turn = None

    # -- turn ------------------------------------------------------------------------------------
    def _start_turn(
        self, event: TurnStarted, at: int, ids: tuple[int, int] | None = None
    ) -> None:
        self.end_all(at)
        attributes: Attributes = {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.name": AGENT_NAME,
            "aiq.turn.id": event.turn_id,
        }
        conversation = self.conversation_id()
        if conversation:
            attributes["gen_ai.conversation.id"] = conversation
        if self.log_content:
            attributes["gen_ai.input.messages"] = self._messages("user", event.text)
        self._preset(ids)
        try:
            self._turn = self.tracer.start_span(
                f"invoke_agent {AGENT_NAME}",
                kind=SpanKind.INTERNAL,
                attributes=attributes,
                start_time=at,
            )
        finally:
            self._preset(None)
        self._answer_model = None
        while (
            self._waiting
        ):  # what happened since the last turn, at the times it happened
            name, waiting_attributes, when = self._waiting.popleft()
            self._turn.add_event(name, waiting_attributes, timestamp=when)

    def _finish_turn(self, event: TurnFinished, at: int) -> None:
        if self._turn is None:
            return
        self._end_children(
            at, "cancelled" if event.cancelled else "the turn ended during the call"
        )
        turn = self._turn
        turn.set_attributes(
            {
                "gen_ai.usage.input_tokens": event.input_tokens,
                "gen_ai.usage.output_tokens": event.output_tokens,
                "aiq.turn.cancelled": event.cancelled,
            }
        )
        if self._answer_model is not None:
            provider, model = self._answer_model
            turn.set_attributes(
                {"gen_ai.provider.name": provider, "gen_ai.request.model": model}
            )
        if self._budget is not None:
            b = self._budget.breakdown
            turn.set_attributes(
                {
                    "aiq.budget.total_tokens": b.total,
                    "aiq.budget.window_tokens": b.window,
                    "aiq.budget.skill_tokens": b.skills_total,
                    "aiq.budget.skills": list(b.skills),
                }
            )
        if self.log_content and event.text:
            turn.set_attribute(
                "gen_ai.output.messages",
                self._messages("assistant", event.text, "stop"),
            )
        turn.end(end_time=at)
        self._turn = None

    # -- model requests ------------------------------------------------------------------------
    def _start_model(self, event: ModelRequestStarted, at: int) -> None:
        provider = PROVIDER_NAMES.get(event.kind, event.kind)
        if self._answer_model is None:
            self._answer_model = (provider, event.model)
        attributes: Attributes = {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": provider,
            "gen_ai.request.model": event.model,
            "gen_ai.request.max_tokens": event.max_tokens,
            "aiq.provider": event.provider,
        }
        if event.address:
            attributes["server.address"] = event.address
            if event.port:
                attributes["server.port"] = event.port
        if (
            self._budget is not None
        ):  # what aiq-tui counted for this request, beside what the API reports
            b = self._budget.breakdown
            attributes["aiq.prompt.tokens"] = b.total - b.reserve
        if self.log_content and event.request is not None:
            attributes.update(self._request_content(event.request))
        if self._model is not None:
            self._model.end(end_time=at)
        self._model = self.tracer.start_span(
            f"chat {event.model}",
            context=self._parent(),
            kind=SpanKind.CLIENT,
            attributes=attributes,
            start_time=at,
        )
        self._streamed, self._streamed_chars = [], 0

    def _finish_model(self, event: ModelRequestFinished, at: int) -> None:
        span = self._model
        if span is None:
            return
        span.set_attributes(
            {
                "gen_ai.response.model": event.model,
                "gen_ai.response.finish_reasons": [event.finish_reason]
                if event.finish_reason
                else [],
                "gen_ai.usage.input_tokens": event.input_tokens,
                "gen_ai.usage.output_tokens": event.output_tokens,
            }
        )
        if event.response_id:
            span.set_attribute("gen_ai.response.id", event.response_id)
        if event.error:
            span.set_attribute("error.type", "provider_error")
            span.set_status(Status(StatusCode.ERROR, event.error))
        elif event.finish_reason == "cancelled":
            span.set_attribute("error.type", "cancelled")
            span.set_status(Status(StatusCode.ERROR, "cancelled"))
        if self.log_content and self._streamed:
            span.set_attribute(
                "gen_ai.output.messages",
                self._messages(
                    "assistant", "".join(self._streamed), event.finish_reason
                ),
            )
        span.end(end_time=at)
        self._model, self._streamed = None, []

    # -- tool calls -------------------------------------------------------------------------------
    def _start_tool(self, event: ToolCallRequested, at: int) -> None:
        attributes: Attributes = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": event.name,
            "gen_ai.tool.call.id": event.call_id,
            "gen_ai.tool.type": "function",
            "aiq.tool.permission": event.permission,
        }
        if event.description:
            attributes["gen_ai.tool.description"] = event.description
        if self.log_content:
            attributes["gen_ai.tool.call.arguments"] = self._json(dict(event.arguments))
        old = self._tools.pop(event.call_id, None)
        if old is not None:
            old.end(end_time=at)
        self._tools[event.call_id] = self.tracer.start_span(
            f"execute_tool {event.name}",
            context=self._parent(),
            kind=SpanKind.INTERNAL,
            attributes=attributes,
            start_time=at,
        )

    def _deny_tool(self, event: ToolCallDenied, at: int) -> None:
        span = self._tools.pop(event.call_id, None)
        if span is None:
            return
        span.set_attributes({"aiq.tool.outcome": "denied", "error.type": "denied"})
        if self.log_content:  # a reason may quote the arguments (the program, the host)
            span.set_attribute("aiq.tool.denied_reason", self._cut(event.reason))
        span.set_status(Status(StatusCode.ERROR, "denied"))
        span.end(end_time=at)

    def _cancel_tool(self, event: ToolCallCancelled, at: int) -> None:
        span = self._tools.pop(event.call_id, None)
        if span is None:
            return
        span.set_attributes(
            {"aiq.tool.outcome": "cancelled", "error.type": "cancelled"}
        )
        span.set_status(Status(StatusCode.ERROR, "cancelled"))
        span.end(end_time=at)

    def _finish_tool(self, event: ToolCallFinished, at: int) -> None:
        span = self._tools.pop(event.call_id, None)
        if (
            span is None
        ):  # finished without a request we saw: still one span, of no length
            self._start_tool(ToolCallRequested(event.call_id, event.name, {}, ""), at)
            span = self._tools.pop(event.call_id)
        span.set_attributes(
            {
                "aiq.tool.outcome": "ok" if event.ok else "failed",
                "aiq.tool.duration_s": round(event.duration_s, 6),
            }
        )
        if self.log_content:
            span.set_attribute("aiq.tool.summary", self._cut(event.summary))
            if event.result is not None:
                span.set_attribute("gen_ai.tool.call.result", self._json(event.result))
        if not event.ok:
            span.set_attribute("error.type", "tool_error")
            span.set_status(
                Status(
                    StatusCode.ERROR,
                    self._cut(event.summary) if self.log_content else "failed",
                )
            )
        span.end(end_time=at)

    # -- MCP requests (the OpenTelemetry MCP semantic conventions' client span) -------------------
    def _start_request(
        self, event: McpCallStarted, at: int, ids: tuple[int, int] | None
    ) -> None:
        attributes: Attributes = {
            "mcp.method.name": event.method,
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": event.target,
            "network.transport": "pipe" if event.transport == "stdio" else "tcp",
            "aiq.mcp.server": event.server,
        }
        if event.transport != "stdio":
            attributes["network.protocol.name"] = "http"
        if event.protocol_version:
            attributes["mcp.protocol.version"] = event.protocol_version
        if event.session_id:
            attributes["mcp.session.id"] = event.session_id
        if event.address:
            attributes["server.address"] = event.address
            if event.port:
                attributes["server.port"] = event.port
        tool = self._tools.get(event.call_id)  # the tool call this request carries out
        parent = trace.set_span_in_context(tool) if tool is not None else self._parent()
        old = self._requests.pop(event.call_id, None)
        if old is not None:
            old.end(end_time=at)
        self._preset(ids)
        try:
            self._requests[event.call_id] = self.tracer.start_span(
                f"{event.method} {event.target}",
                context=parent,
                kind=SpanKind.CLIENT,
                attributes=attributes,
                start_time=at,
            )
        finally:
            self._preset(None)

    def _finish_request(self, event: McpCallFinished, at: int) -> None:
        span = self._requests.pop(event.call_id, None)
        if span is None:
            return
        if event.error_type:
            span.set_attribute("error.type", event.error_type)
            if event.error_type.lstrip(
                "-"
            ).isdigit():  # the JSON-RPC error code the server answered
                span.set_attribute("rpc.response.status_code", event.error_type)
            span.set_status(
                Status(
                    StatusCode.ERROR,
                    self._cut(event.error) if self.log_content else event.error_type,
                )
            )
        span.end(end_time=at)

    def _tool_event(
        self, call_id: str, name: str, attributes: Attributes, at: int
    ) -> None:
        span = self._tools.get(call_id)
        if span is not None:
            span.add_event(name, attributes, timestamp=at)

    # -- helpers ------------------------------------------------------------------------------------
    def _preset(self, ids: tuple[int, int] | None) -> None:
        if self.ids is not None:
            if ids is None:
                self.ids.clear()
            else:
                self.ids.preset(*ids)

    def _parent(self) -> Any:
        return trace.set_span_in_context(self._turn) if self._turn is not None else None

    def _innermost(self) -> Span | None:
        if self._requests:
            return next(reversed(self._requests.values()))
        if self._tools:
            return next(reversed(self._tools.values()))
        return self._model or self._turn

    def _event(self, name: str, attributes: Attributes, at: int) -> None:
        span = self._innermost()
        if span is None:
            self._waiting.append((name, attributes, at))
        else:
            span.add_event(name, attributes, timestamp=at)

    def _end_children(self, at: int, why: str) -> None:
        for span in [
            *self._requests.values(),
            *self._tools.values(),
            *([self._model] if self._model is not None else []),
        ]:
            span.set_attribute("error.type", "unfinished")
            span.set_status(Status(StatusCode.ERROR, why))
            span.end(end_time=at)
        self._requests.clear()
        self._tools.clear()
        self._model, self._streamed = None, []

    def _matched(self, event: SkillsMatched) -> Attributes:
        top = event.ranking.matches[:TOP_MATCHES]
        attributes: Attributes = {
            "aiq.match.considered": event.ranking.considered,
            "aiq.match.matched": len(event.ranking.matches),
            "aiq.match.skills": [m.name for m in top],
            "aiq.match.confidences": [round(m.confidence, 4) for m in top],
        }
        if self.log_content:
            attributes["aiq.match.query"] = self._cut(event.ranking.query)
        return attributes

    def _request_content(self, request: ModelRequestContent) -> Attributes:
        """A request's input as the GenAI conventions record it (opt-in: ``log_content``):
        ``gen_ai.system_instructions``, ``gen_ai.input.messages``, ``gen_ai.tool.definitions``;
        each text is cut to ``content_max_chars`` (the JSON stays whole)."""
        attributes: Attributes = {}
        if request.system:
            attributes["gen_ai.system_instructions"] = json.dumps(
                [{"type": "text", "content": self._cut(request.system)}],
                ensure_ascii=False,
            )
        messages = [self._input_message(message) for message in request.messages]
        attributes["gen_ai.input.messages"] = json.dumps(
            messages, ensure_ascii=False, default=str
        )
        if request.tools:
            attributes["gen_ai.tool.definitions"] = json.dumps(
                [
                    {
                        "type": "function",
                        "name": tool.name,
                        "description": self._cut(tool.description),
                        "parameters": tool.parameters,
                    }
                    for tool in request.tools
                ],
                ensure_ascii=False,
                default=str,
            )
        return attributes

    def _input_message(self, message: Any) -> dict[str, Any]:
        role = getattr(message.role, "value", str(message.role))
        parts: list[dict[str, Any]] = []
        if role == "tool":
            parts.append(
                {
                    "type": "tool_call_response",
                    "id": message.tool_call_id or "",
                    "response": self._cut(message.content),
                }
            )
        elif message.content:
            parts.append({"type": "text", "content": self._cut(message.content)})
        for call in message.tool_calls:
            text = json.dumps(call.arguments, ensure_ascii=False, default=str)
            parts.append(
                {
                    "type": "tool_call",
                    "id": call.id,
                    "name": call.name,
                    "arguments": call.arguments
                    if len(text) <= self.content_max_chars
                    else self._cut(text),
                }
            )
        return {"role": role, "parts": parts}

    def _messages(self, role: str, text: str, finish_reason: str = "") -> str:
        """The GenAI conventions' message JSON: ``[{"role", "parts": [{"type": "text", …}]}]``."""
        message: dict[str, Any] = {
            "role": role,
            "parts": [{"type": "text", "content": self._cut(text)}],
        }
        if finish_reason:
            message["finish_reason"] = finish_reason
        return json.dumps([message], ensure_ascii=False)

    def _json(self, value: Any) -> str:
        return self._cut(json.dumps(value, ensure_ascii=False, default=str))

    def _cut(self, text: str) -> str:
        limit = self.content_max_chars
        return text if len(text) <= limit else text[: max(0, limit - 1)] + "…"


def skill_event_name(event: SkillStateChanged) -> str:
    """``aiq.skill.evicted`` when the budget removed it from the prompt, ``unloaded`` when it
    stopped matching, ``loaded`` when it entered the prompt, ``changed`` for a new state or phase."""
    if event.new is None:
        return "aiq.skill.evicted"
    if event.new is SkillState.INACTIVE:
        return "aiq.skill.unloaded"
    if event.old is None or event.old is SkillState.INACTIVE:
        return "aiq.skill.loaded"
    return "aiq.skill.changed"


__all__ = ["AGENT_NAME", "TraceBuilder", "skill_event_name"]
