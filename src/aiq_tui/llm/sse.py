"""One HTTP streaming request to a model endpoint, with every failure as a ProviderError.

Shared by the OpenAI and Anthropic providers: opens the request, turns HTTP statuses and
network faults into clear, key-free messages (naming provider, status and URL), and yields
the server-sent events. Closing the generator (or cancelling its task) closes the response,
so no connection is leaked.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import re
from collections.abc import AsyncGenerator, Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx
from httpx_sse import ServerSentEvent, SSEError

from aiq_tui.json_bounds import loads_bounded
from aiq_tui.llm.base import ProviderError
from aiq_tui.llm.retry import parse_retry_after

# 408 timeout, 409 conflict/lock, 425 too early, 429 rate limit, 5xx, 529 Anthropic overload.
RETRYABLE_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})
_BODY_PREVIEW = 300


def redact(text: str, secrets: Iterable[str | None]) -> str:
    """``text`` with every secret (and its Bearer form) replaced by ``***``."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "***")
    return text


def is_local_url(url: str) -> bool:
    """True for loopback / private-network hosts (Ollama, vLLM, LM Studio): no key needed."""
    host = (urlsplit(url).hostname or "").lower()
    if (
        host in {"localhost", "host.docker.internal"}
        or host.endswith(".local")
        or host.endswith(".localhost")
    ):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_private or address.is_unspecified


@dataclass(frozen=True)
class Endpoint:
    """Who we are talking to, for error messages (never includes a key)."""

    provider: str
    model: str
    url: str
    key_env: str | None = None
    secret: str | None = None

    def error(self, message: str, **kwargs: Any) -> ProviderError:
        text = redact(f"{self.provider} ({self.model}): {message}", [self.secret])
        return ProviderError(text, **kwargs)


def _api_message(body: bytes) -> str:
    text = body.decode("utf-8", errors="replace").strip()
    try:
        data = loads_bounded(text)
    except ValueError:  # not JSON, or too deep for json to read: shown as text
        return text[:_BODY_PREVIEW]
    if isinstance(data, dict):
        error = data.get("error", data)
        if isinstance(error, dict) and error.get("message"):
            kind = error.get("type") or error.get("code")
            return f"{error['message']}" + (f" [{kind}]" if kind else "")
        if isinstance(error, str):
            return error[:_BODY_PREVIEW]
    return text[:_BODY_PREVIEW]


def status_error(
    endpoint: Endpoint, response: httpx.Response, body: bytes
) -> ProviderError:
    status = response.status_code
    reason = response.reason_phrase or ""
    detail = _api_message(body)
    message = f"HTTP {status} {reason} from {endpoint.url}" + (
        f": {detail}" if detail else ""
    )
    if status in (401, 403):
        where = (
            f"the {endpoint.key_env} environment variable"
            if endpoint.key_env
            else "the API key"
        )
        message += f". Check {where}."
    retry_after = parse_retry_after(response.headers.get("retry-after"))
    if retry_after is None and response.headers.get("retry-after-ms"):
        try:
            retry_after = float(response.headers["retry-after-ms"]) / 1000
        except ValueError:
            retry_after = None
    return endpoint.error(
        message,
        retryable=status in RETRYABLE_STATUSES,
        status=status,
        retry_after=retry_after if status in RETRYABLE_STATUSES else None,
    )


def network_error(endpoint: Endpoint, exc: Exception) -> ProviderError:
    if isinstance(exc, httpx.TimeoutException):
        what = f"timed out ({type(exc).__name__}) talking to {endpoint.url}"
    elif isinstance(exc, httpx.ConnectError):
        what = f"cannot connect to {endpoint.url}: {exc}. Is the server running and the base URL right?"
    elif isinstance(
        exc, (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError)
    ):
        what = f"connection to {endpoint.url} dropped: {exc}"
    else:
        what = f"network error talking to {endpoint.url}: {exc}"
    return endpoint.error(what, retryable=True)


class ReplyTooLarge(ProviderError):
    """A reply (or one of its events) grew past ``llm.providers.<name>.max_reply_bytes``: the
    provider stops reading and hands back what it can (open tool calls as error results)."""


_LINE_END = re.compile(rb"\r\n|\r|\n")


def _take_lines(buffer: bytearray, final: bool) -> list[bytes]:
    """The complete lines at the start of ``buffer`` (removed from it). A ``\r`` at its very
    end waits for the next bytes: it may be the first half of ``\r\n``."""
    lines: list[bytes] = []
    start = 0
    for match in _LINE_END.finditer(buffer):
        if match.group() == b"\r" and match.end() == len(buffer) and not final:
            break
        lines.append(bytes(buffer[start : match.start()]))
        start = match.end()
    if final and start < len(buffer):
        lines.append(bytes(buffer[start:]))
        start = len(buffer)
    del buffer[:start]
    return lines


async def server_sent_events(
    response: httpx.Response, max_event_bytes: int | None = None
) -> AsyncGenerator[ServerSentEvent, None]:
    """The events of an SSE response (the WHATWG framing: ``event:``, ``data:``, ``id:``,
    ``retry:``, comments, a blank line ends an event), read from bytes so that a line or an
    event larger than ``max_event_bytes`` raises :class:`ReplyTooLarge` *before* it is held in
    memory whole (a 40 MB ``data:`` line is never one string)."""
    content_type = response.headers.get("content-type", "").partition(";")[0]
    if "text/event-stream" not in content_type:
        raise SSEError(
            f"Expected response header Content-Type to contain 'text/event-stream', got {content_type!r}"
        )
    cap = max_event_bytes
    buffer = bytearray()
    data: list[str] = []
    kind, size, last_id, retry = "", 0, "", None
    chunks = response.aiter_bytes()
    final = False
    while not final:
        try:
            buffer += await chunks.__anext__()
        except StopAsyncIteration:
            final = True
        for raw in _take_lines(buffer, final):
            if not raw:
                if data or kind or retry is not None:
                    yield ServerSentEvent(
                        event=kind or "message",
                        data="\n".join(data),
                        id=last_id,
                        retry=retry,
                    )
                kind, data, size, retry = "", [], 0, None
                continue
            if raw.startswith(b":"):
                continue
            field, _, value = raw.decode("utf-8", errors="replace").partition(":")
            value = value[1:] if value.startswith(" ") else value
            if field == "data":
                data.append(value)
                size += len(raw)
                if cap is not None and size > cap:
                    raise ReplyTooLarge(
                        f"an event of over {cap:,} bytes", retryable=False
                    )
            elif field == "event":
                kind = value
            elif field == "id" and "\x00" not in value:
                last_id = value
            elif field == "retry" and value.isdigit():
                retry = int(value)
        if (
            cap is not None and len(buffer) > cap
        ):  # one line, still unfinished, past the cap
            raise ReplyTooLarge(f"a line of over {cap:,} bytes", retryable=False)


ERROR_BODY_CAP = 64_000
"""An error response is read up to this many bytes (a 200 MB error body is not read whole)."""


async def _capped_body(response: httpx.Response, cap: int = ERROR_BODY_CAP) -> bytes:
    kept = bytearray()
    async for chunk in response.aiter_bytes():
        kept.extend(chunk[: cap - len(kept)])
        if len(kept) >= cap or response.num_bytes_downloaded > cap:
            break
    return bytes(kept)


async def stream_events(
    client: httpx.AsyncClient,
    endpoint: Endpoint,
    *,
    headers: dict[str, str],
    payload: dict[str, Any],
    timeout: httpx.Timeout,
    idle_timeout: float | None = None,
    max_seconds: float | None = None,
    max_event_bytes: int | None = None,
) -> AsyncGenerator[ServerSentEvent, None]:
    """POST ``payload`` and yield its server-sent events; raise ProviderError on failure.

    ``idle_timeout``: the longest wait for the next event (a stream that trickles bytes but
    never completes an event counts as idle). ``max_seconds``: the whole response's limit
    (an endless stream ends). ``max_event_bytes``: the largest event (or line) read; past it,
    :class:`ReplyTooLarge`. Error bodies are read up to :data:`ERROR_BODY_CAP` bytes."""
    request_headers = {
        **headers,
        "Accept": "text/event-stream",
        "Cache-Control": "no-store",
    }
    loop = asyncio.get_running_loop()
    deadline = loop.time() + max_seconds if max_seconds else None
    try:
        # ASCII JSON: a lone surrogate a model produced (in tool arguments or text) travels as
        # a \\uXXXX escape instead of failing to encode as UTF-8.
        body = json.dumps(payload, ensure_ascii=True).encode("ascii")
        request_headers["Content-Type"] = "application/json"
        async with client.stream(
            "POST", endpoint.url, headers=request_headers, content=body, timeout=timeout
        ) as response:
            if response.status_code != 200:
                body = await _capped_body(response)
                raise status_error(endpoint, response, body)
            try:
                events = server_sent_events(response, max_event_bytes)
                while True:
                    limits = [idle_timeout] if idle_timeout else []
                    if deadline is not None:
                        limits.append(deadline - loop.time())
                    wait = min(limits) if limits else None
                    if wait is not None and wait <= 0:
                        raise _too_long(endpoint, max_seconds)
                    try:
                        event = await asyncio.wait_for(events.__anext__(), wait)
                    except StopAsyncIteration:
                        break
                    except TimeoutError:
                        if deadline is not None and loop.time() >= deadline:
                            raise _too_long(endpoint, max_seconds) from None
                        raise endpoint.error(
                            f"no event from {endpoint.url} for {idle_timeout:g} s "
                            "(llm.providers.<name>.idle_timeout_seconds)",
                            retryable=True,
                        ) from None
                    yield event
            except SSEError as exc:
                raise endpoint.error(
                    f"{endpoint.url} did not answer with an event stream ({exc}); check the base URL",
                    retryable=False,
                ) from exc
    except httpx.HTTPError as exc:
        raise network_error(endpoint, exc) from exc


def _too_long(endpoint: Endpoint, max_seconds: float | None) -> Exception:
    return endpoint.error(
        f"the answer from {endpoint.url} ran past {max_seconds:g} s and was stopped "
        "(llm.providers.<name>.max_response_seconds)",
        retryable=False,
    )


def decode_data(endpoint: Endpoint, event: ServerSentEvent) -> dict[str, Any]:
    try:
        data = loads_bounded(event.data)
    except (
        ValueError
    ) as exc:  # JSONTooDeep included: json's RecursionError would end the turn
        raise endpoint.error(
            f"malformed event from {endpoint.url}: {event.data[:120]!r}", retryable=True
        ) from exc
    if not isinstance(data, dict):
        raise endpoint.error(
            f"unexpected event from {endpoint.url}: {event.data[:120]!r}",
            retryable=True,
        )
    return data
