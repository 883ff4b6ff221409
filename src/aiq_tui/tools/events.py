"""What the tool registry reports of each call: requested (with its permission), approved or
denied, finished. Part of the engine's event stream (:data:`aiq_tui.events.Event` gathers them);
defined here, beside what emits them, so the tools layer reports without importing the layers
above it."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Union

from aiq_tui.event_fields import NOT_PRINTED
from aiq_tui.tools.mcp.events import McpCallFinished, McpCallStarted, McpProgress


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


ToolEvent = Union[
    ToolCallRequested,
    ToolCallApproved,
    ToolCallDenied,
    ToolCallCancelled,
    ToolCallFinished,
    McpCallStarted,
    McpProgress,
    McpCallFinished,
]
"""What a tool call reports through the registry (the engine's sink takes every event)."""

ToolEventSink = Callable[[ToolEvent], None]
