"""The provider protocol: stream a reply (text and tool calls) for a prompt."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, Union

from aiq_tui.conversation import Message, ToolCall, ToolSpec


@dataclass(frozen=True)
class TextDelta:
    text: str


@dataclass(frozen=True)
class ToolCallReady:
    """A complete tool call (arguments fully received and decoded)."""

    call: ToolCall


@dataclass(frozen=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0


@dataclass(frozen=True)
class StreamDone:
    finish_reason: str  # "stop" | "tool_calls" | "length" | "cancelled"
    usage: Usage = Usage()
    response_id: str = (
        ""  # the API's id of the response ("chatcmpl-…", "msg_…"), "" when it gave none
    )


StreamEvent = Union[TextDelta, ToolCallReady, StreamDone]


class ProviderError(Exception):
    """A failed model call. ``retryable`` says whether trying again may help."""

    def __init__(
        self,
        message: str,
        *,
        retryable: bool = False,
        status: int | None = None,
        retry_after: float | None = None,
    ):
        super().__init__(message)
        self.retryable, self.status, self.retry_after = retryable, status, retry_after


OnRetry = Callable[[int, float, str], Union[Awaitable[None], None]]
"""Told of each retry a provider schedules: (attempt, delay in seconds, reason)."""


class Provider(Protocol):
    name: str  # config name, e.g. "openai"
    model: str
    is_demo: bool  # the UI labels demo output as such
    base_url: str  # where requests go ("" for the offline demo model)
    on_retry: OnRetry | None  # the engine sets it to emit RetryScheduled events

    def check_ready(self) -> None:
        """Raise :class:`ProviderError` saying why the provider cannot work as configured (no
        API key, …); sends nothing."""
        ...

    def stream(
        self,
        system: str,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        max_tokens: int,
    ) -> AsyncIterator[StreamEvent]:
        """Yield text deltas and complete tool calls, then exactly one StreamDone.

        Raises ProviderError (after the provider's own bounded retries) on failure.
        """
        ...

    async def summarise(self, messages: Sequence[Message], max_tokens: int) -> str:
        """A short summary of ``messages`` for compression; may raise ProviderError."""
        ...

    async def aclose(self) -> None: ...
