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
from typing import TYPE_CHECKING, Any, Union

from aiq_tui.context.model import Breakdown, CompressionApplied
from aiq_tui.event_fields import NOT_PRINTED
from aiq_tui.problems import Problem
from aiq_tui.skills.model import Phase, Ranking, SkillState
from aiq_tui.tools.events import (
    ToolCallApproved,
    ToolCallCancelled,
    ToolCallDenied,
    ToolCallFinished,
    ToolCallRequested,
)
from aiq_tui.tools.mcp.events import (
    McpCallFinished,
    McpCallStarted,
    McpProgress,
    McpResourceRefreshed,
    McpResourceUpdated,
    McpServerChanged,
)

if TYPE_CHECKING:
    from aiq_tui.skills.catalog import SkillCatalog


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


def catalog_loaded(catalog: SkillCatalog) -> CatalogLoaded:
    """The catalog's first scan as an event: what :func:`aiq_tui.telemetry.attach_telemetry`
    traces (discovery ran before the engine that emits the rest)."""
    return CatalogLoaded(
        skills=len(catalog),
        dormant=len(catalog.dormant()),
        directories=len(catalog.dirs),
        problems=len(catalog.problems),
        started_ns=catalog.scan_started_ns,
        seconds=catalog.scan_seconds,
        cached=catalog.scan_cached,
    )


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
