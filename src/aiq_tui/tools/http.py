"""``http_request``: one HTTP call with an overall deadline, a streamed size cap and
redirects that are checked hop by hop.

What asks (through the registry, see :meth:`HttpRequestTool.run_with_approval`):

* a host not in ``tools.http_allowed_hosts``: permission ``http_get:HOST`` (or
  ``http_write:HOST``), asked once per host and remembered for the session when the user
  says "always" — a model cannot send what it read to a server nobody approved;
* a host that resolves to a private, loopback, link-local or otherwise non-public address
  (checked after DNS resolution, for the first URL and after every redirect):
  ``http_private:HOST``;
* a redirect to another host asks for that host like a first request would.

``deny`` on ``http_get`` / ``http_write`` / ``http_private`` denies every host. The deadline
(``tools.http_timeout_seconds``) covers connecting, every redirect and the whole body. The
body is streamed and reading stops at ``tools.http_max_bytes`` both on the wire (compressed)
and decoded (``truncated: true``). Tests pass an ``httpx`` transport or talk to a server on
127.0.0.1; nothing is patched.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import socket
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit

from aiq_tui.config import ToolSettings
from aiq_tui.conversation import ToolSpec
from aiq_tui.json_bounds import loads_bounded
from aiq_tui.tools.base import ToolResult

if (
    TYPE_CHECKING
):  # imported when a request is made: the tool is built at start-up, used later
    import httpx

METHODS = ("GET", "POST", "PUT", "DELETE", "PATCH", "HEAD")
READ_METHODS = frozenset({"GET", "HEAD"})

SPEC = ToolSpec(
    name="http_request",
    description=(
        "Make an HTTP request and return status, headers and body. GET/HEAD are read-only; "
        "other methods change data and may need the user's approval. Bodies over the size "
        "limit are cut and flagged truncated."
    ),
    parameters={
        "type": "object",
        "properties": {
            "url": {
                "type": "string",
                "description": "Absolute http:// or https:// URL.",
            },
            "method": {
                "type": "string",
                "enum": list(METHODS),
                "description": "Default GET.",
            },
            "headers": {
                "type": "object",
                "description": "Request headers (string values).",
            },
            "query": {
                "type": "object",
                "description": "Query parameters added to the URL.",
            },
            "json": {
                "description": "A JSON body (sets Content-Type: application/json)."
            },
            "body": {"type": "string", "description": "A text body (instead of json)."},
            "timeout": {
                "type": "number",
                "description": "Seconds; capped by the configured timeout.",
            },
        },
        "required": ["url"],
        "additionalProperties": False,
    },
)


def _method(arguments: dict[str, Any]) -> str:
    return str(arguments.get("method") or "GET").upper()


def _string_map(value: Any, field: str) -> dict[str, str] | str:
    if value is None:
        return {}
    if not isinstance(value, dict):
        return f"{field} must be an object of name → value"
    return {
        str(k): v
        if isinstance(v, str)
        else json.dumps(v)
        if isinstance(v, (dict, list))
        else str(v)
        for k, v in value.items()
    }


AskMore = Callable[[str, str], Awaitable[bool]]
"""``ask(permission_key, detail)`` → whether the call may go on (the registry's policy + user)."""

REDIRECTS = frozenset({301, 302, 303, 307, 308})


def is_public(address: str) -> bool:
    """Whether ``address`` (an IP literal) is a public unicast address: not private, loopback,
    link-local, reserved or multicast (an IPv4-mapped IPv6 address counts as its IPv4 one)."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast


def _literal(host: str) -> str | None:
    """``host`` when it is an IP address itself (brackets dropped), else None."""
    bare = host.strip("[]")
    try:
        ipaddress.ip_address(bare)
    except ValueError:
        return None
    return bare


async def resolve_addresses(host: str, port: int) -> list[str]:
    """Every address ``host`` resolves to (an IP literal is itself); ``[]`` when it does not."""
    if (literal := _literal(host)) is not None:
        return [literal]
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(
            host, port, type=socket.SOCK_STREAM
        )
    except (OSError, UnicodeError):
        return []
    return sorted({str(info[4][0]) for info in infos})


def addresses_of(host: str, port: int) -> list[str]:
    """:func:`resolve_addresses` for callers without an event loop (``skills import``)."""
    if (literal := _literal(host)) is not None:
        return [literal]
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        return []
    return sorted({str(info[4][0]) for info in infos})


BODY_SHOWN = 2000
"""Characters of a request body an approval shows."""


class HttpRequestTool:
    """The ``http_request`` tool. Pass ``transport`` (tests) or a ready ``client``."""

    def __init__(
        self,
        settings: ToolSettings,
        *,
        client: httpx.AsyncClient | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self._settings = settings
        self._client = client
        self._transport = transport

    @property
    def spec(self) -> ToolSpec:
        return SPEC

    def _base_key(self, method: str) -> str:
        return "http_get" if method in READ_METHODS else "http_write"

    def host_approved(self, host: str) -> bool:
        return host.lower().rstrip(".") in {
            h.lower().rstrip(".") for h in self._settings.http_allowed_hosts
        }

    def permission_key(self, arguments: dict[str, Any]) -> str:
        base = self._base_key(_method(arguments))
        host = urlsplit(str(arguments.get("url", ""))).hostname
        if not host or self.host_approved(host):
            return base
        return f"{base}:{host.lower()}"  # asked per host, remembered per host

    def describe(self, arguments: dict[str, Any]) -> str:
        """What the approval shows: the request line, and what the request carries — its headers
        and the start of its body (what a hostile model would smuggle out is in them)."""
        url = str(arguments.get("url", ""))
        query = arguments.get("query")
        if isinstance(query, dict) and query:
            import httpx

            url = (
                str(httpx.URL(url, params={str(k): str(v) for k, v in query.items()}))
                if url
                else url
            )
        lines = [f"{_method(arguments)} {url}"]
        headers = arguments.get("headers")
        if isinstance(headers, dict) and headers:
            lines.append(
                "headers: " + "; ".join(f"{k}: {v}" for k, v in headers.items())
            )
        if "json" in arguments:
            body = json.dumps(arguments["json"], ensure_ascii=False)
        elif arguments.get("body") is not None:
            body = str(arguments["body"])
        else:
            body = ""
        if body:
            shown = (
                body
                if len(body) <= BODY_SHOWN
                else body[:BODY_SHOWN] + f"… ({len(body) - BODY_SHOWN} more characters)"
            )
            lines.append(
                f"body ({len(body.encode('utf-8', 'surrogatepass'))} bytes): {shown}"
            )
        return "\n".join(lines)

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        return await self.run_with_approval(arguments, None)

    async def run_with_approval(
        self, arguments: dict[str, Any], ask: AskMore | None
    ) -> ToolResult:
        """Run the call; ``ask`` is consulted for what only shows up while running (a private
        address after DNS, a redirect to another host). The registry always passes it."""
        import httpx

        method = _method(arguments)
        if method not in METHODS:
            return ToolResult.failure(
                f"unsupported method {method!r}; use one of {', '.join(METHODS)}"
            )
        url = arguments.get("url")
        if (
            not isinstance(url, str)
            or urlsplit(url).scheme not in ("http", "https")
            or not urlsplit(url).netloc
        ):
            return ToolResult.failure(
                f"url must be an absolute http(s) URL; got {url!r}"
            )
        headers = _string_map(arguments.get("headers"), "headers")
        query = _string_map(arguments.get("query"), "query")
        if isinstance(headers, str):
            return ToolResult.failure(headers)
        if isinstance(query, str):
            return ToolResult.failure(query)
        if "json" in arguments and arguments.get("body") is not None:
            return ToolResult.failure("give either json or body, not both")
        limit = self._settings.http_timeout_seconds
        timeout = arguments.get("timeout")
        if (
            isinstance(timeout, (int, float))
            and not isinstance(timeout, bool)
            and timeout > 0
        ):
            limit = min(float(timeout), limit)
        request_kwargs: dict[str, Any] = {
            "headers": headers,
            "params": query or None,
            "timeout": limit,
        }
        if "json" in arguments:
            request_kwargs["json"] = arguments["json"]
        elif arguments.get("body") is not None:
            request_kwargs["content"] = str(arguments["body"]).encode("utf-8")

        started = time.perf_counter()
        try:
            async with asyncio.timeout(
                limit
            ):  # one deadline: connect, redirects and the whole body
                if self._client is not None:
                    return await self._send(
                        self._client, method, url, request_kwargs, started, ask
                    )
                async with httpx.AsyncClient(
                    transport=self._transport, follow_redirects=False
                ) as client:
                    return await self._send(
                        client, method, url, request_kwargs, started, ask
                    )
        except (TimeoutError, httpx.TimeoutException):
            return ToolResult.failure(
                f"{method} {url}: timed out after {limit:g} s (tools.http_timeout_seconds: "
                "the whole call, body included)"
            )
        except httpx.HTTPError as exc:
            return ToolResult.failure(f"{method} {url}: {type(exc).__name__}: {exc}")

    async def _allowed_to_reach(
        self,
        method: str,
        url: str,
        first: bool,
        ask: AskMore | None,
        approved: set[str],
    ) -> str | None:
        """None when ``url`` may be fetched now; else the refusal. A private address the user
        approved for its host is added to ``approved``."""
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            return f"redirect to {url!r} is not an http(s) URL"
        host = parts.hostname.lower()
        if ask is None:
            return (
                None  # no policy in the loop (the tool used on its own, e.g. in tests)
            )
        if not first and not self.host_approved(host):
            if not await ask(
                f"{self._base_key(method)}:{host}", f"{method} {url} (redirected)"
            ):
                return f"the redirect to {host} was not approved"
        port = parts.port or (443 if parts.scheme == "https" else 80)
        addresses = await resolve_addresses(host, port)
        private = [address for address in addresses if not is_public(address)]
        if private:
            detail = f"{method} {url} → {', '.join(private)} (a private, loopback or link-local address)"
            if not await ask(f"http_private:{host}", detail):
                return f"{host} resolves to {', '.join(private)}, a non-public address, and that was not approved"
            approved.update(private)
        return None

    async def _connected_privately(
        self,
        response: httpx.Response,
        method: str,
        url: str,
        ask: AskMore | None,
        approved: set[str],
    ) -> str | None:
        """The refusal when the address actually connected to is private and not approved: a
        name may resolve differently for the connection than for the check (DNS rebinding)."""
        if ask is None:
            return None
        stream = response.extensions.get("network_stream")
        peer = stream.get_extra_info("server_addr") if stream is not None else None
        address = str(peer[0]) if peer else None
        if address is None or is_public(address) or address in approved:
            return None
        host = (urlsplit(url).hostname or "").lower()
        detail = (
            f"{method} {url} connected to {address} (a private, loopback or link-local address; "
            "the name resolved to a public one when it was checked)"
        )
        if not await ask(f"http_private:{host}", detail):
            return f"{host} connected to {address}, a non-public address, and that was not approved"
        approved.add(address)
        return None

    async def _send(
        self,
        client: httpx.AsyncClient,
        method: str,
        url: str,
        kwargs: dict[str, Any],
        started: float,
        ask: AskMore | None = None,
    ) -> ToolResult:
        history: list[str] = []
        approved: set[str] = set()
        while True:
            refusal = await self._allowed_to_reach(
                method, url, not history, ask, approved
            )
            if refusal is not None:
                return ToolResult.failure(
                    f"refused: {refusal}", {"url": url, "redirects": history}
                )
            request = client.build_request(method, url, **kwargs)
            response = await client.send(request, stream=True, follow_redirects=False)
            refusal = await self._connected_privately(
                response, method, url, ask, approved
            )
            if refusal is not None:
                await response.aclose()
                return ToolResult.failure(
                    f"refused: {refusal}", {"url": url, "redirects": history}
                )
            location = response.headers.get("location")
            if response.status_code not in REDIRECTS or not location:
                break
            await response.aclose()
            if len(history) >= self._settings.http_max_redirects:
                return ToolResult.failure(
                    f"{method} {url}: more than {self._settings.http_max_redirects} redirects "
                    "(tools.http_max_redirects)"
                )
            history.append(url)
            url = urljoin(str(response.url), location)
            if response.status_code == 303 or (
                response.status_code in (301, 302) and method == "POST"
            ):
                method = "GET"
                kwargs = {
                    key: value
                    for key, value in kwargs.items()
                    if key not in ("json", "content")
                }
            kwargs = {
                **kwargs,
                "params": None,
            }  # the query belongs to the first URL only
        return await self._read(response, history, started)

    async def _read(
        self, response: httpx.Response, history: list[str], started: float
    ) -> ToolResult:
        cap = self._settings.http_max_bytes
        chunks: list[bytes] = []
        size = 0
        truncated = False
        try:
            async for chunk in response.aiter_bytes():
                room = cap - size
                if len(chunk) > room:
                    chunks.append(chunk[:room])
                    size += room
                    truncated = True
                    break
                chunks.append(chunk)
                size += len(chunk)
                if (
                    response.num_bytes_downloaded > cap
                ):  # on the wire, before decompression
                    truncated = True
                    break
        finally:
            await response.aclose()
        raw = b"".join(chunks)
        text = raw.decode(response.encoding or "utf-8", errors="replace")
        content: dict[str, Any] = {
            "status": response.status_code,
            "reason": response.reason_phrase,
            "url": str(response.url),
            "headers": dict(response.headers),
            "body": text,
            "bytes": size,
            "truncated": truncated,
            "redirects": len(history),
            "duration_s": round(time.perf_counter() - started, 4),
        }
        if (
            not truncated
            and "json" in response.headers.get("content-type", "")
            and text.strip()
        ):
            try:
                content["json"] = loads_bounded(
                    text, self._settings.http_max_json_depth
                )
                del content["body"]
            except (
                ValueError
            ):  # not JSON, or nested too deep (JSONTooDeep): passed as text
                pass
        summary = f"{response.status_code} {response.reason_phrase}, {size} bytes" + (
            " (truncated)" if truncated else ""
        )
        return ToolResult(ok=True, content=content, summary=summary)
