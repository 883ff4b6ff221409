"""What the HTTP providers share: client ownership, retries, tool-argument decoding, summaries.

Malformed tool arguments are not an exception: the call is still delivered as a
:class:`ToolCallReady` whose ``arguments`` hold only :data:`INVALID_ARGUMENTS_KEY` (the raw
text) and :data:`ARGUMENTS_ERROR_KEY` (why it failed). The engine checks
:func:`invalid_arguments` and answers the call with an error result, so the model learns its
arguments were invalid and can try again — the turn is not lost.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import aclosing, asynccontextmanager
from typing import TYPE_CHECKING, Any

from aiq_tui.config import ProviderSettings
from aiq_tui.conversation import Message, Role, ToolSpec
from aiq_tui.json_bounds import JSONTooDeep, loads_bounded
from aiq_tui.llm.base import ProviderError, StreamDone, StreamEvent, TextDelta
from aiq_tui.llm.retry import OnRetry, RetryPolicy, Sleep, with_retries

if (
    TYPE_CHECKING
):  # httpx loads with an HTTP provider, not with the engine (start-up cost)
    import httpx
    from httpx_sse import ServerSentEvent

    from aiq_tui.llm.sse import Endpoint

INVALID_ARGUMENTS_KEY = "__invalid_arguments__"
ARGUMENTS_ERROR_KEY = "__arguments_error__"

SUMMARY_INSTRUCTIONS = (
    "You write compact summaries of conversations between a user and an AI agent. Keep facts, "
    "numbers, names, tool results, decisions and open questions; drop pleasantries. Write plain "
    "prose or short bullet points, no preamble."
)


def decode_arguments(raw: str, max_depth: int, setting: str) -> dict[str, Any]:
    """Tool arguments from their JSON text; invalid JSON, or JSON nested more than
    ``max_depth`` levels (``setting`` names the limit for the model), yields the error marker
    mapping — never an exception, however deep the text nests."""
    if not raw.strip():
        return {}
    try:
        value = loads_bounded(raw, max_depth)
    except JSONTooDeep:
        return {
            INVALID_ARGUMENTS_KEY: raw,
            ARGUMENTS_ERROR_KEY: (
                f"arguments nested deeper than {max_depth} levels ({setting}); nothing ran: send flatter arguments"
            ),
        }
    except ValueError as exc:
        return {
            INVALID_ARGUMENTS_KEY: raw,
            ARGUMENTS_ERROR_KEY: f"arguments are not valid JSON: {exc}",
        }
    if not isinstance(value, dict):
        return {
            INVALID_ARGUMENTS_KEY: raw,
            ARGUMENTS_ERROR_KEY: f"arguments must be a JSON object, got {type(value).__name__}",
        }
    return value


def refused_arguments(reason: str) -> dict[str, Any]:
    """The marker of a call whose arguments were not kept (too large, or the reply was cut):
    the engine answers it with ``reason`` as an error result; nothing of the text is kept, so
    the session stays small enough to continue."""
    return {INVALID_ARGUMENTS_KEY: "", ARGUMENTS_ERROR_KEY: reason}


def _utf8_size(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


class ReplyLimits:
    """What one streamed reply may hold: each tool call's argument text up to
    ``max_tool_arguments_bytes``, text and arguments together up to ``max_reply_bytes``
    (``llm.providers.<name>``). A provider feeds every piece through :meth:`argument` /
    :meth:`text`; past the reply's cap it stops reading (:attr:`cut`)."""

    def __init__(self, settings: ProviderSettings, provider: str) -> None:
        self.arguments_cap = settings.max_tool_arguments_bytes
        self.reply_cap = settings.max_reply_bytes
        self.depth_cap = settings.max_tool_arguments_depth
        self.provider = provider
        self.received = 0
        self.cut = False

    def text(self, piece: str) -> bool:
        """Count ``piece``; False once the reply is over its cap (stop reading)."""
        self.received += _utf8_size(piece)
        if self.received > self.reply_cap:
            self.cut = True
        return not self.cut

    def argument(self, parts: ArgumentText, piece: str) -> bool:
        """Add ``piece`` to a call's arguments (kept only up to the call's cap); False once
        the reply is over its cap."""
        parts.add(piece, self.arguments_cap)
        return self.text(piece)

    def cut_reason(self) -> str:
        return (
            f"the reply grew past {self.reply_cap:,} bytes (llm.providers.{self.provider}.max_reply_bytes) "
            "and was cut; nothing of this call ran: send less in one reply (write a large file in parts, "
            "with append)"
        )

    def arguments_of(self, parts: ArgumentText) -> dict[str, Any]:
        """The call's decoded arguments, or the marker saying why they were not kept."""
        if parts.oversized:
            return refused_arguments(
                f"the arguments are over {self.arguments_cap:,} bytes "
                f"(llm.providers.{self.provider}.max_tool_arguments_bytes) and were dropped; nothing ran: "
                "send less in one call (write a large file in parts, with append)"
            )
        if self.cut:
            return refused_arguments(self.cut_reason())
        return decode_arguments(
            parts.joined(),
            self.depth_cap,
            f"llm.providers.{self.provider}.max_tool_arguments_depth",
        )


class ArgumentText:
    """A tool call's argument text as it streams in: kept while under the cap; past it only
    its size is (the text is dropped at once, never held whole)."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.size = 0
        self.oversized = False

    def add(self, piece: str, cap: int) -> None:
        self.size += _utf8_size(piece)
        if self.oversized:
            return
        if self.size > cap:
            self.oversized = True
            self.parts.clear()
        else:
            self.parts.append(piece)

    def joined(self) -> str:
        return "".join(self.parts)


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
        who = (
            message.role.value
            if message.role is not Role.TOOL
            else f"tool {message.name or ''}".strip()
        )
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
        self,
        system: str,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        max_tokens: int,
    ) -> AsyncIterator[StreamEvent]:
        raise NotImplementedError

    def _endpoint(self) -> Endpoint:
        raise NotImplementedError

    def headers(self) -> dict[str, str]:
        raise NotImplementedError

    def payload(
        self,
        system: str,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        max_tokens: int,
    ) -> dict[str, Any]:
        raise NotImplementedError

    @asynccontextmanager
    async def _reply_stream(
        self,
        endpoint: Endpoint,
        system: str,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        max_tokens: int,
    ) -> AsyncIterator[tuple[AsyncIterator[ServerSentEvent], ReplyLimits]]:
        """One request's server-sent events, read within this provider's limits (idle time,
        whole-reply time, event size) and the reply limits it checks as it goes. A reply past
        its size ends the iteration with ``limits.cut`` set, for the caller to say why."""
        from aiq_tui.llm.sse import ReplyTooLarge, stream_events

        limits = ReplyLimits(self.settings, self.name)
        events = stream_events(
            self._client,
            endpoint,
            headers=self.headers(),
            payload=self.payload(system, messages, tools, max_tokens),
            timeout=self.timeout,
            idle_timeout=self.settings.idle_timeout_seconds,
            max_seconds=self.settings.max_response_seconds,
            max_event_bytes=self.settings.max_reply_bytes,
        )
        try:
            async with aclosing(events):
                yield events, limits
        except ReplyTooLarge:
            limits.cut = True

    def check_ready(self) -> None:
        """Raise a clear ProviderError when the provider cannot work (e.g. missing key)."""

    async def stream(
        self,
        system: str,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        max_tokens: int,
    ) -> AsyncIterator[StreamEvent]:
        self.check_ready()
        async for event in with_retries(
            lambda: self._attempt(system, messages, tools, max_tokens),
            self.policy,
            on_retry=self.on_retry,
            sleep=self._sleep,
            rng=self._rng,
        ):
            yield event

    async def summarise(self, messages: Sequence[Message], max_tokens: int) -> str:
        request = [
            Message(
                Role.USER, "Summarise this conversation:\n\n" + transcript(messages)
            )
        ]
        parts: list[str] = []
        async for event in self.stream(SUMMARY_INSTRUCTIONS, request, (), max_tokens):
            if isinstance(event, TextDelta):
                parts.append(event.text)
            elif isinstance(event, StreamDone):
                break
        summary = "".join(parts).strip()
        if not summary:
            raise ProviderError(
                f"{self.name} ({self.model}): the model returned an empty summary"
            )
        return summary

    async def aclose(self) -> None:
        if self._owns_client:
            await self._client.aclose()
