"""The engine's event stream: one ordered sequence consumed by the TUI, the CLI and tests.

Every event is a frozen dataclass. ``to_json`` turns any of them into a JSON-ready dict with
a ``type`` field (the class name in snake_case) — what ``--json`` prints, one per line.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any, Union

from aiq_tui.context.model import Breakdown, CompressionPlan
from aiq_tui.problems import Problem
from aiq_tui.skills.model import Phase, Ranking, SkillState

NOT_PRINTED = {"printed": False}
"""Field metadata: kept from ``to_json`` (``--json`` lines, replays) — bulky or already said
elsewhere; the telemetry reads it from the event itself."""


@dataclass(frozen=True)
class TurnStarted:
    turn_id: str
    text: str
    message_id: str = ""  # the user message's id (what a compression plan names when it summarises it)


@dataclass(frozen=True)
class SkillsMatched:
    ranking: Ranking


@dataclass(frozen=True)
class SkillStateChanged:
    name: str
    old: SkillState | None
    new: SkillState | None  # None: evicted from the prompt entirely
    phase: Phase
    reason: str  # e.g. "loaded full: confidence 0.82 ≥ 0.7"
    tokens: int = 0


@dataclass(frozen=True)
class BudgetChanged:
    breakdown: Breakdown


@dataclass(frozen=True)
class CompressionApplied:
    plan: CompressionPlan
    step: str  # "summarised 12 messages", "evicted pdf-tools", …
    before: int
    after: int


@dataclass(frozen=True)
class ToolCallRequested:
    call_id: str
    name: str
    arguments: Mapping[str, Any]
    permission: str  # allow | ask | deny
    description: str = field(
        default="", metadata=NOT_PRINTED
    )  # the tool's own (gen_ai.tool.description)


@dataclass(frozen=True)
class ToolCallApproved:
    call_id: str
    name: str
    always: bool = False
    by: str = "policy"  # "policy" | "user" | "flag"


@dataclass(frozen=True)
class ToolCallDenied:
    call_id: str
    name: str
    reason: str


@dataclass(frozen=True)
class ToolCallCancelled:
    """A call the turn left without a result: cancelled (Ctrl+C / Esc) while it asked or ran,
    or cut short when the turn failed. No ``ToolCallFinished`` follows it."""

    call_id: str
    name: str
    reason: str = "cancelled by you"


@dataclass(frozen=True)
class ToolCallFinished:
    call_id: str
    name: str
    ok: bool
    summary: str
    duration_s: float
    result: Any = None


@dataclass(frozen=True)
class ModelRequestStarted:
    """The engine is calling the model: once per round of a turn (what a trace's model-request
    span starts from; the TUI and replay draw nothing for it)."""

    provider: str  # the config name ("openai", "local", …)
    kind: str  # the wire protocol: openai | anthropic | demo
    model: str
    max_tokens: int = 0
    address: str = ""  # the endpoint's host (server.address); "" for the demo model
    port: int = 0
    request: ModelRequestContent | None = field(
        default=None, compare=False, metadata=NOT_PRINTED
    )


@dataclass(frozen=True)
class ModelRequestContent:
    """What one model request sends — for telemetry's opt-in content capture only."""

    system: str
    messages: tuple[Any, ...]  # conversation.Message
    tools: tuple[Any, ...]  # conversation.ToolSpec


@dataclass(frozen=True)
class ModelRequestFinished:
    """The model call that :class:`ModelRequestStarted` began has ended — answered, failed or
    cancelled — with the token usage the provider reported (0 when it reported none)."""

    provider: str
    model: str
    input_tokens: int = 0
    output_tokens: int = 0
    finish_reason: str = ""  # stop | tool_calls | length | cancelled | error
    duration_s: float = 0.0
    error: str = ""  # why it failed ("" when it answered)
    response_id: str = (
        ""  # the provider's id of the response (gen_ai.response.id), "" when none
    )


@dataclass(frozen=True)
class TokenStreamed:
    text: str


@dataclass(frozen=True)
class TurnFinished:
    turn_id: str
    text: str
    input_tokens: int = 0
    output_tokens: int = 0
    cancelled: bool = False


@dataclass(frozen=True)
class ErrorRaised:
    message: str
    retryable: bool = False


@dataclass(frozen=True)
class RetryScheduled:
    attempt: int
    delay_s: float
    reason: str


@dataclass(frozen=True)
class CatalogReloaded:
    added: tuple[str, ...]
    changed: tuple[str, ...]
    removed: tuple[str, ...]
    problems: tuple[Problem, ...] = ()
    disabled: tuple[str, ...] = ()
    """Skills still on disk whose status is no longer active (not in ``removed``)."""


@dataclass(frozen=True)
class CatalogLoaded:
    """Discovery at start-up: what the first scan of the skill folders found, and when it ran
    (it runs before the engine, so its sinks get it when they attach — the telemetry's span
    ``aiq.skills.discover``). Reloads are :class:`CatalogReloaded`."""

    skills: int
    dormant: int
    directories: int
    problems: int
    started_ns: int
    """When the scan began, ns since the epoch."""
    seconds: float
    cached: int = 0
    """Skills taken from the catalog cache rather than parsed."""


@dataclass(frozen=True)
class SessionSaved:
    session_id: str
    path: Path


@dataclass(frozen=True)
class SemanticProgress:
    """Skill vectors for semantic matching: ``done`` of ``total`` embedded (issue 16).

    ``state``: loading | embedding | ready | failed (then ``error`` says why; matching
    stays keyword-only)."""

    done: int
    total: int
    state: str
    error: str = ""


@dataclass(frozen=True)
class McpServerChanged:
    """An MCP server's state: ``starting`` | ``ready`` | ``failed`` | ``stopped`` | ``disabled`` |
    ``awaiting approval`` | ``not approved`` | ``rejected``. ``tools`` are the names the model
    sees (``mcp__<server>__<tool>``); ``omitted`` those left out by ``mcp.tools_share``;
    ``message`` says why (a failure, a refusal, what to do)."""

    name: str
    state: str
    source: str  # "config" (config.yaml) | "project" (.mcp.json)
    target: str  # the command line or the URL
    tools: tuple[str, ...] = ()
    message: str = ""
    omitted: tuple[str, ...] = ()
    resources: tuple[str, ...] = ()  # the URIs (and URI templates) it lists
    prompts: tuple[
        str, ...
    ] = ()  # its prompts as slash commands: /mcp__<server>__<prompt>
    unusable: tuple[
        str, ...
    ] = ()  # its tools this client cannot call (they need task augmentation)


@dataclass(frozen=True)
class McpCallStarted:
    """A tool call's request is being sent to its MCP server (what a trace's MCP client span
    starts from; the screens draw nothing for it)."""

    call_id: str
    server: str
    method: str  # the MCP method: tools/call
    target: str  # the server's own name of the tool
    transport: str  # stdio | http | sse
    protocol_version: str = ""
    session_id: str = ""  # the server's session (streamable HTTP), "" when none
    address: str = ""  # host and port of an http / sse server
    port: int = 0


@dataclass(frozen=True)
class McpProgress:
    """A server's ``notifications/progress`` for a running call: ``progress`` of ``total`` (0
    when the server gave none), with its message. The tool log and the status line show it."""

    call_id: str
    server: str
    progress: float
    total: float = 0.0
    message: str = ""

    def label(self) -> str:
        """``3/4`` (or ``3`` with no total): what fits the tool log's status column."""
        done = f"{self.progress:g}"
        return f"{done}/{self.total:g}" if self.total else done


@dataclass(frozen=True)
class McpCallFinished:
    """The request :class:`McpCallStarted` sent has its answer. ``error_type``: "" when the
    server answered; the JSON-RPC error code ("-32601"); ``tool_error`` (the result's
    ``isError``); ``timeout``; ``cancelled``; or the failure's kind."""

    call_id: str
    error_type: str = ""
    error: str = ""


@dataclass(frozen=True)
class McpResourceUpdated:
    """A server said a resource the conversation uses changed (``notifications/resources/updated``
    for a URI the client subscribed to). ``use``: ``attached`` (the user attached it with
    ``@server:uri``: the next message carries its fresh text) or ``read`` (the model read it: the
    next message tells the model). Coalesced: at most one per resource until that next message."""

    server: str
    uri: str
    use: str  # attached | read


@dataclass(frozen=True)
class McpResourceRefreshed:
    """The user's message carries an update :class:`McpResourceUpdated` announced. ``outcome``:
    ``attached`` (its fresh text, re-read now), ``unchanged`` (re-read: the same text as attached
    before, not sent again), ``failed`` (it could not be re-read: the model is told so),
    ``told`` (a resource the model read: the model is told it changed) or ``dropped`` (a new
    conversation began first: no message carries it). ``summary``: the size, or why."""

    server: str
    uri: str
    outcome: str
    summary: str = ""


Event = Union[
    TurnStarted,
    SkillsMatched,
    SkillStateChanged,
    BudgetChanged,
    CompressionApplied,
    ToolCallRequested,
    ToolCallApproved,
    ToolCallDenied,
    ToolCallCancelled,
    ToolCallFinished,
    TokenStreamed,
    TurnFinished,
    ErrorRaised,
    RetryScheduled,
    CatalogReloaded,
    CatalogLoaded,
    SessionSaved,
    SemanticProgress,
    McpServerChanged,
    ModelRequestStarted,
    ModelRequestFinished,
    McpCallStarted,
    McpCallFinished,
    McpProgress,
    McpResourceUpdated,
    McpResourceRefreshed,
]

EventSink = Callable[[Event], None]


def event_type(event: object) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", type(event).__name__).lower()


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        data = {
            f.name: _plain(getattr(value, f.name))
            for f in dataclasses.fields(value)
            if f.metadata.get("printed", True)
        }
        # Derived figures are part of what consumers need (gauge totals, phase labels).
        for derived in ("total", "fraction", "skills_total"):
            if hasattr(type(value), derived):
                data[derived] = _plain(getattr(value, derived))
        return data
    if isinstance(value, Enum):
        return value.label if hasattr(value, "label") else value.value
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_plain(v) for v in value]
    return value


def to_json(event: Event) -> dict[str, Any]:
    """A JSON-ready dict: ``{"type": "skill_state_changed", ...fields}``."""
    return {"type": event_type(event), **_plain(event)}
