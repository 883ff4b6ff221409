"""W3C Trace Context (``traceparent``) without OpenTelemetry: the ids a turn's spans will have,
chosen when the events happen, so an MCP request can carry its span's context in
``params._meta`` before the SDK has even loaded (the spans themselves are built later, with
these very ids — :mod:`aiq_tui.telemetry`).

A tool that sends a request elsewhere asks a :data:`TraceContextSource` for the context of its
call (``None``: nothing is traced, send nothing)."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

_random = random.SystemRandom()


@dataclass(frozen=True)
class TraceParent:
    """One span's context as the ``traceparent`` header carries it."""

    trace_id: int  # 128 bits, never 0
    span_id: int  # 64 bits, never 0
    sampled: bool = True

    def header(self) -> str:
        return f"00-{self.trace_id:032x}-{self.span_id:016x}-{'01' if self.sampled else '00'}"


TraceContextSource = Callable[[str], "TraceParent | None"]
"""Given a tool call's id, the context its outgoing request should carry (or None)."""


def new_trace_id() -> int:
    return _random.getrandbits(128) or 1


def new_span_id() -> int:
    return _random.getrandbits(64) or 1


def endpoint_of(url: str) -> tuple[str, int]:
    """The host and port a URL talks to (``server.address`` / ``server.port`` of a span);
    ``("", 0)`` when it names none. The port is the scheme's when the URL gives none."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return "", 0
    if not parts.hostname:
        return "", 0
    return parts.hostname, port or {"https": 443, "http": 80}.get(parts.scheme, 0)


__all__ = [
    "TraceContextSource",
    "TraceParent",
    "endpoint_of",
    "new_span_id",
    "new_trace_id",
]
