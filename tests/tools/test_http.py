"""http_request against a real HTTP server on 127.0.0.1 started by the test (seed 000)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest

from aiq_tui.config import ToolSettings
from aiq_tui.tools.http import HttpRequestTool


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:  # keep test output clean
        pass

    def _reply(
        self,
        status: int,
        body: bytes,
        content_type: str = "application/json",
        headers: dict[str, str] | None = None,
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _echo(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode() if length else ""
        payload = {
            "method": self.command,
            "path": self.path,
            "body": body,
            "content_type": self.headers.get("Content-Type"),
            "x_test": self.headers.get("X-Test"),
        }
        self._reply(200, json.dumps(payload).encode())

    def do_GET(self) -> None:
        if self.path.startswith("/big"):
            self._reply(200, b"x" * 10_000, "text/plain")
        elif self.path.startswith("/redirect/"):
            left = int(self.path.rsplit("/", 1)[1])
            target = f"/redirect/{left - 1}" if left > 1 else "/echo"
            self._reply(302, b"", "text/plain", {"Location": target})
        elif self.path.startswith("/slow"):
            import time

            time.sleep(1.0)
            self._reply(200, b"late", "text/plain")
        elif self.path.startswith("/deep/"):  # a JSON answer nesting N arrays
            levels = int(self.path.rsplit("/", 1)[1])
            self._reply(200, b"[" * levels + b"]" * levels)
        elif self.path.startswith("/missing"):
            self._reply(404, b"not here", "text/plain")
        else:
            self._echo()

    do_POST = do_PUT = do_DELETE = do_PATCH = _echo

    def do_HEAD(self) -> None:
        self._reply(200, b"0123456789", "text/plain")


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture
def tool() -> HttpRequestTool:
    return HttpRequestTool(
        ToolSettings(http_max_bytes=1000, http_max_redirects=2, http_timeout_seconds=5)
    )


async def test_http_get_with_query_and_headers(
    server: str, tool: HttpRequestTool
) -> None:
    result = await tool.run(
        {
            "url": f"{server}/echo",
            "query": {"q": "books", "n": 2},
            "headers": {"X-Test": "yes"},
        }
    )
    assert result.ok and result.content["status"] == 200
    assert result.content["json"]["path"] == "/echo?q=books&n=2"
    assert result.content["json"]["x_test"] == "yes"
    assert not result.content["truncated"]


@pytest.mark.parametrize("levels", [65, 5_000])
async def test_a_json_answer_nested_past_the_limit_comes_back_as_text_not_a_crash(
    server: str, levels: int
) -> None:
    deep = HttpRequestTool(ToolSettings(http_max_bytes=100_000, http_timeout_seconds=5))
    result = await deep.run({"url": f"{server}/deep/{levels}"})
    assert result.ok and "json" not in result.content
    assert result.content["body"] == "[" * levels + "]" * levels


async def test_a_json_answer_at_the_depth_limit_is_parsed(server: str) -> None:
    deep = HttpRequestTool(ToolSettings(http_max_bytes=100_000, http_timeout_seconds=5))
    result = await deep.run({"url": f"{server}/deep/64"})
    assert result.ok and "body" not in result.content
    assert json.dumps(result.content["json"]) == "[" * 64 + "]" * 64


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE"])
async def test_http_write_methods_send_json_body(
    server: str, tool: HttpRequestTool, method: str
) -> None:
    result = await tool.run(
        {"url": f"{server}/items", "method": method, "json": {"title": "Dune"}}
    )
    assert result.ok
    echoed = result.content["json"]
    assert echoed["method"] == method and json.loads(echoed["body"]) == {
        "title": "Dune"
    }
    assert echoed["content_type"] == "application/json"


async def test_http_text_body(server: str, tool: HttpRequestTool) -> None:
    result = await tool.run(
        {"url": f"{server}/t", "method": "POST", "body": "plain words"}
    )
    assert result.content["json"]["body"] == "plain words"


async def test_http_head_has_no_body(server: str, tool: HttpRequestTool) -> None:
    result = await tool.run({"url": f"{server}/h", "method": "HEAD"})
    assert (
        result.ok
        and result.content["body"] == ""
        and result.content["headers"]["content-length"] == "10"
    )


async def test_http_response_over_cap_is_truncated(
    server: str, tool: HttpRequestTool
) -> None:
    result = await tool.run({"url": f"{server}/big"})
    assert result.ok and result.content["truncated"] is True
    assert result.content["bytes"] == 1000 and len(result.content["body"]) == 1000
    assert "(truncated)" in result.summary


async def test_http_redirects_are_followed_up_to_the_limit(
    server: str, tool: HttpRequestTool
) -> None:
    ok = await tool.run({"url": f"{server}/redirect/2"})
    assert (
        ok.ok and ok.content["redirects"] == 2 and ok.content["json"]["path"] == "/echo"
    )
    too_many = await tool.run({"url": f"{server}/redirect/3"})
    assert not too_many.ok and "more than 2 redirects" in too_many.error


async def test_http_timeout_is_a_clear_failure(
    server: str, tool: HttpRequestTool
) -> None:
    result = await tool.run({"url": f"{server}/slow", "timeout": 0.2})
    assert not result.ok and "timed out after 0.2 s" in result.error


async def test_http_error_status_is_a_result_not_a_failure(
    server: str, tool: HttpRequestTool
) -> None:
    result = await tool.run({"url": f"{server}/missing"})
    assert (
        result.ok
        and result.content["status"] == 404
        and result.content["body"] == "not here"
    )


async def test_http_connection_refused_is_a_failure(tool: HttpRequestTool) -> None:
    result = await tool.run({"url": "http://127.0.0.1:9/"})
    assert not result.ok and "ConnectError" in result.error


@pytest.mark.parametrize(
    "url", ["file:///etc/passwd", "ftp://x/y", "not a url", "/relative"]
)
async def test_http_only_absolute_http_urls(tool: HttpRequestTool, url: str) -> None:
    result = await tool.run({"url": url})
    assert not result.ok and "absolute http(s) URL" in result.error


def test_http_permission_key_by_method_and_host() -> None:
    tool = HttpRequestTool(ToolSettings(http_allowed_hosts=["x"]))
    assert tool.permission_key({"url": "http://x"}) == "http_get"
    assert tool.permission_key({"url": "http://x", "method": "head"}) == "http_get"
    for method in ("POST", "PUT", "DELETE", "PATCH"):
        assert (
            tool.permission_key({"url": "http://x", "method": method}) == "http_write"
        )
    assert (
        tool.permission_key({"url": "http://Other.example/a"})
        == "http_get:other.example"
    )
    assert (
        tool.permission_key({"url": "http://other.example/a", "method": "POST"})
        == "http_write:other.example"
    )
    assert (
        tool.describe({"url": "http://x/a", "method": "post", "query": {"k": "v"}})
        == "POST http://x/a?k=v"
    )


async def test_http_injected_transport_is_used() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(201, json={"seen": str(request.url)})

    tool = HttpRequestTool(ToolSettings(), transport=httpx.MockTransport(handler))
    result = await tool.run(
        {"url": "https://api.example.test/v1", "method": "POST", "json": {}}
    )
    assert result.content["status"] == 201 and result.content["json"] == {
        "seen": "https://api.example.test/v1"
    }
