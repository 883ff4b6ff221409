"""What the HTTP providers share: client ownership, retries, tool-argument decoding, summaries.

Malformed tool arguments are not an exception: the call is still delivered as a
:class:`ToolCallReady` whose ``arguments`` hold only :data:`INVALID_ARGUMENTS_KEY` (the raw
text) and :data:`ARGUMENTS_ERROR_KEY` (why it failed). The engine checks
:func:`invalid_arguments` and answers the call with an error result, so the model learns its
arguments were invalid and can try again — the turn is not lost.
"""

from __future__ import annotations

import asyncio
import json
import random
from typing import TYPE_CHECKING, Any, AsyncIterator, Mapping, Sequence

from aiq_tui.config import ProviderSettings
from aiq_tui.conversation import Message, Role, ToolSpec
from aiq_tui.llm.base import ProviderError, StreamDone, StreamEvent, TextDelta
from aiq_tui.llm.retry import OnRetry, RetryPolicy, Sleep, with_retries

if TYPE_CHECKING:  # httpx loads with an HTTP provider, not with the engine (start-up cost)
    import httpx

INVALID_ARGUMENTS_KEY = "__invalid_arguments__"
ARGUMENTS_ERROR_KEY = "__arguments_error__"

SUMMARY_INSTRUCTIONS = (
    "You write compact summaries of conversations between a user and an AI agent. Keep facts, "
    "numbers, names, tool results, decisions and open questions; drop pleasantries. Write plain "
    "prose or short bullet points, no preamble."
)


def decode_arguments(raw: str) -> dict[str, Any]:
    """Tool arguments from their JSON text; invalid JSON yields the error marker mapping."""
    if not raw.strip():
        return {}
    try:
        value = json.loads(raw)
    except ValueError as exc:
        return {INVALID_ARGUMENTS_KEY: raw, ARGUMENTS_ERROR_KEY: f"arguments are not valid JSON: {exc}"}
    if not isinstance(value, dict):
        return {
            INVALID_ARGUMENTS_KEY: raw,
            ARGUMENTS_ERROR_KEY: f"arguments must be a JSON object, got {type(value).__name__}",
        }
    return value


def invalid_arguments(arguments: Mapping[str, Any]) -> str | None:
    """The decoding error when a tool call's arguments were malformed, else None."""
    if INVALID_ARGUMENTS_KEY in arguments:
        return str(arguments.get(ARGUMENTS_ERROR_KEY) or "arguments are not valid JSON")
    return None


def sendable_arguments(arguments: Mapping[str, Any]) -> dict[str, Any]:
    """Arguments to echo back in history: an invalid call is sent as ``{}`` (APIs need objects)."""
    return {} if INVALID_ARGUMENTS_KEY in arguments else dict(arguments)


def transcript(messages: Sequence[Message], limit_chars: int = 60_000) -> str:
    """Messages as plain text for a summarisation request (newest kept when too long)."""
    lines = []
    for message in messages:
        who = message.role.value if message.role is not Role.TOOL else f"tool {message.name or ''}".strip()
        text = message.content
        for call in message.tool_calls:
            text += f"\n[calls {call.name} {call.arguments_json()}]"
        lines.append(f"{who}: {text}")
    text = "\n\n".join(lines)
    return text[-limit_chars:]


class HTTPProvider:
    """Base for providers that stream over HTTP with bounded retries."""

    is_demo = False
    kind = ""

    def __init__(
        self,
        name: str,
        settings: ProviderSettings,
        *,
        api_key: str | None,
        key_env: str | None,
        base_url: str,
        client: httpx.AsyncClient | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        on_retry: OnRetry | None = None,
        sleep: Sleep = asyncio.sleep,
        rng: random.Random | None = None,
    ):
        import httpx

        self.name = name
        self.model = settings.model
        self.settings = settings
        self.base_url = base_url.rstrip("/")
        self.on_retry = on_retry  # the engine sets this to emit RetryScheduled events
        self._api_key = api_key
        self._key_env = key_env
        self._sleep = sleep
        self._rng = rng or random.Random()
        self._owns_client = client is None
        self._client = client or httpx.AsyncClient(transport=transport)
        self.policy = RetryPolicy(max_retries=settings.max_retries)
        seconds = settings.timeout_seconds
        self.timeout = httpx.Timeout(seconds, connect=min(seconds, 10.0))

    def __repr__(self) -> str:  # never show the key
        return f"{type(self).__name__}(name={self.name!r}, model={self.model!r}, base_url={self.base_url!r})"

    # Subclasses: one attempt, no retries.
    def _attempt(
        self, system: str, messages: Sequence[Message], tools: Sequence[ToolSpec], max_tokens: int
    ) -> AsyncIterator[StreamEvent]:
        raise NotImplementedError

    def _check_ready(self) -> None:
        """Raise a clear ProviderError when the provider cannot work (e.g. missing key)."""

    async def stream(
        self, system: str, messages: Sequence[Message], tools: Sequence[ToolSpec], max_tokens: int
    ) -> AsyncIterator[StreamEvent]:
        self._check_ready()
        async for event in with_retries(
            lambda: self._attempt(system, messages, tools, max_tokens),
            self.policy, on_retry=self.on_retry, sleep=self._sleep, rng=self._rng,
        ):
            yield event

    async def summarise(self, messages: Sequence[Message], max_tokens: int) -> str:
        request = [Message(Role.USER, "Summarise this conversation:\n\n" + transcript(messages))]
        parts: list[str] = []
        async for event in self.stream(SUMMARY_INSTRUCTIONS, request, (), max_tokens):
            if isinstance(event, TextDelta):
                parts.append(event.text)
            elif isinstance(event, StreamDone):
                break
        summary = "".join(parts).strip()
        if not summary:
            raise ProviderError(f"{self.name} ({self.model}): the model returned an empty summary")
        return summary

    async def aclose(self) -> None:
        if self._owns_client:
            await self._client.aclose()
