"""What a tool is, what it returns, and how approval is asked. Shared by every tool module."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Protocol

from aiq_tui.conversation import ToolSpec
from aiq_tui.trace_context import TraceContextSource, TraceParent


@dataclass(frozen=True)
class ToolResult:
    """A structured tool result. ``content`` is JSON-serialisable and goes back to the model."""

    ok: bool
    content: Any
    summary: str  # one line for the tool-call log, e.g. "3 rows" or "exit 0, 12 lines"
    error: str | None = None

    def to_model_text(self) -> str:
        payload = (
            self.content
            if self.ok
            else {
                "error": self.error,
                **({"detail": self.content} if self.content else {}),
            }
        )
        return (
            payload
            if isinstance(payload, str)
            else json.dumps(payload, ensure_ascii=False, default=str)
        )

    @classmethod
    def failure(cls, error: str, content: Any = None) -> ToolResult:
        return cls(
            ok=False,
            content=content,
            summary=f"error: {error.splitlines()[0][:80]}",
            error=error,
        )


class Decision(str, Enum):
    ALLOW_ONCE = "allow_once"
    ALLOW_ALWAYS = (
        "allow_always"  # for the rest of the session, for this permission key
    )
    DENY = "deny"


@dataclass(frozen=True)
class ApprovalRequest:
    """Shown to the user before an "ask" call runs: the exact command / SQL / URL."""

    call_id: str
    tool: str
    permission: str  # the permission key, e.g. "execute_command", "sql_write"
    title: str  # e.g. "Run command", "Write SQL on sample"
    detail: str  # the command line, SQL text, or METHOD URL
    arguments: dict[str, Any] = field(default_factory=dict)
    rememberable: bool = True
    """Whether an "always" answer would be remembered; False (a key asked every time, a call
    from an untrusted project's source): the dialog offers only once / deny."""


Approver = Callable[[ApprovalRequest], Awaitable[Decision]]


@dataclass(frozen=True)
class CallObserver:
    """What a tool that calls out to another process is given besides its arguments
    (``run_observed``): its call's id, the engine's event sink for events of its own, and where
    to ask for the trace context its request should carry (None: nothing is traced)."""

    call_id: str
    emit: Callable[[Any], None]
    trace_context: TraceContextSource | None = None

    def traceparent(self) -> TraceParent | None:
        return (
            self.trace_context(self.call_id) if self.trace_context is not None else None
        )


class Tool(Protocol):
    """A tool the agent can call. Implementations live one per module in ``tools/``."""

    @property
    def spec(self) -> ToolSpec: ...

    def permission_key(self, arguments: dict[str, Any]) -> str:
        """Which permission governs this call (e.g. ``http_get`` vs ``http_write``)."""
        ...

    def describe(self, arguments: dict[str, Any]) -> str:
        """The call in one line, as shown in approvals and the tool log."""
        ...

    async def run(self, arguments: dict[str, Any]) -> ToolResult: ...

    # Optional: ``refusal(arguments) -> str | None``: why the call would be refused even once
    # approved (a program not on the allowlist, a path outside the roots). The registry asks it
    # before the approval, so the user is asked only about calls that can run.
    #
    # Optional: ``source_trusted(arguments) -> bool``. A tool that runs what a *project* brought
    # (a project skill's script, a project MCP server's tool) says whether that project is
    # trusted; an untrusted call is asked every time and never pre-approved (see
    # ``registry.source_trusted``). Tools without it are the app's own: trusted.
