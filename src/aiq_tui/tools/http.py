"""``http_request``: one HTTP call with a timeout, a response size cap and bounded redirects.

The body is streamed and reading stops at ``tools.http_max_bytes`` (``truncated: true``), so a
huge or endless response cannot fill memory or the model's context. Tests pass an
``httpx`` transport or talk to a server on 127.0.0.1; nothing is patched.
"""

from __future__ import annotations

import json
import time
from typing import Any
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from aiq_tui.config import ToolSettings
from aiq_tui.conversation import ToolSpec
from aiq_tui.tools.base import ToolResult

if TYPE_CHECKING:  # imported when a request is made: the tool is built at start-up, used later
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
            "url": {"type": "string", "description": "Absolute http:// or https:// URL."},
            "method": {"type": "string", "enum": list(METHODS), "description": "Default GET."},
            "headers": {"type": "object", "description": "Request headers (string values)."},
            "query": {"type": "object", "description": "Query parameters added to the URL."},
            "json": {"description": "A JSON body (sets Content-Type: application/json)."},
            "body": {"type": "string", "description": "A text body (instead of json)."},
            "timeout": {"type": "number", "description": "Seconds; capped by the configured timeout."},
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
    return {str(k): v if isinstance(v, str) else json.dumps(v) if isinstance(v, (dict, list)) else str(v) for k, v in value.items()}


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

    def permission_key(self, arguments: dict[str, Any]) -> str:
        return "http_get" if _method(arguments) in READ_METHODS else "http_write"

    def describe(self, arguments: dict[str, Any]) -> str:
        url = str(arguments.get("url", ""))
        query = arguments.get("query")
        if isinstance(query, dict) and query:
            import httpx

            url = str(httpx.URL(url, params={str(k): str(v) for k, v in query.items()})) if url else url
        return f"{_method(arguments)} {url}"

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        import httpx

        method = _method(arguments)
        if method not in METHODS:
            return ToolResult.failure(f"unsupported method {method!r}; use one of {', '.join(METHODS)}")
        url = arguments.get("url")
        if not isinstance(url, str) or urlsplit(url).scheme not in ("http", "https") or not urlsplit(url).netloc:
            return ToolResult.failure(f"url must be an absolute http(s) URL; got {url!r}")
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
        if isinstance(timeout, (int, float)) and not isinstance(timeout, bool) and timeout > 0:
            limit = min(float(timeout), limit)
        request_kwargs: dict[str, Any] = {"headers": headers, "params": query or None, "timeout": limit}
        if "json" in arguments:
            request_kwargs["json"] = arguments["json"]
        elif arguments.get("body") is not None:
            request_kwargs["content"] = str(arguments["body"]).encode("utf-8")

        started = time.perf_counter()
        try:
            if self._client is not None:
                return await self._send(self._client, method, url, request_kwargs, started)
            async with httpx.AsyncClient(
                transport=self._transport,
                follow_redirects=True,
                max_redirects=self._settings.http_max_redirects,
            ) as client:
                return await self._send(client, method, url, request_kwargs, started)
        except httpx.TooManyRedirects:
            return ToolResult.failure(
                f"{method} {url}: more than {self._settings.http_max_redirects} redirects "
                "(tools.http_max_redirects)"
            )
        except httpx.TimeoutException:
            return ToolResult.failure(f"{method} {url}: timed out after {limit:g} s")
        except httpx.HTTPError as exc:
            return ToolResult.failure(f"{method} {url}: {type(exc).__name__}: {exc}")

    async def _send(
        self, client: httpx.AsyncClient, method: str, url: str, kwargs: dict[str, Any], started: float
    ) -> ToolResult:
        cap = self._settings.http_max_bytes
        request = client.build_request(method, url, **kwargs)
        response = await client.send(request, stream=True, follow_redirects=True)
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
            "redirects": len(response.history),
            "duration_s": round(time.perf_counter() - started, 4),
        }
        if not truncated and "json" in response.headers.get("content-type", "") and text.strip():
            try:
                content["json"] = json.loads(text)
                del content["body"]
            except ValueError:
                pass
        summary = f"{response.status_code} {response.reason_phrase}, {size} bytes" + (
            " (truncated)" if truncated else ""
        )
        return ToolResult(ok=True, content=content, summary=summary)
