"""A name that resolves to a public address when checked and to a private one when connected
(DNS rebinding) must not hand a private page to the model (issue 23 held out, finding 4 for
``http_request``): the address actually connected to is checked before anything is read, the way
``skills import`` checks it. Simulated: the check's lookup is told a public address while the
connection goes to a server on 127.0.0.1."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from aiq_tui.config import ToolSettings
from aiq_tui.conversation import ToolCall
from aiq_tui.tools import http as http_tool
from aiq_tui.tools.base import ApprovalRequest, Decision
from aiq_tui.tools.http import HttpRequestTool
from aiq_tui.tools.policy import PermissionPolicy
from aiq_tui.tools.registry import ToolRegistry, deny_all

INTERNAL = b"instance role credentials AKIA-INTERNAL"


class Internal(BaseHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", str(len(INTERNAL)))
        self.end_headers()
        self.wfile.write(INTERNAL)


@pytest.fixture
def rebinding(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Internal)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()

    async def first_lookup(host: str, port: int) -> list[str]:
        return ["93.184.216.34"]  # what the check saw; the connection resolves again

    monkeypatch.setattr(http_tool, "resolve_addresses", first_lookup)
    try:
        yield f"http://localhost:{server.server_address[1]}/latest/meta-data/"
    finally:
        server.shutdown()
        server.server_close()


async def _get(url: str, settings: ToolSettings, approver: Any) -> Any:
    registry = ToolRegistry(
        [HttpRequestTool(settings)], PermissionPolicy(settings.permissions)
    )
    return await registry.invoke(
        ToolCall("1", "http_request", {"url": url}), approver, lambda event: None
    )


async def test_an_allowed_host_that_connects_privately_is_refused_under_deny_all(
    rebinding: str,
) -> None:
    result = await _get(
        rebinding, ToolSettings(http_allowed_hosts=["localhost"]), deny_all
    )
    assert not result.ok
    assert "AKIA" not in str(result.content) + str(result.error)


async def test_approving_the_host_is_not_approving_its_private_address(
    rebinding: str,
) -> None:
    asked: list[str] = []

    async def host_only(request: ApprovalRequest) -> Decision:
        asked.append(request.permission)
        return (
            Decision.DENY
            if request.permission.startswith("http_private")
            else Decision.ALLOW_ONCE
        )

    result = await _get(rebinding, ToolSettings(), host_only)
    assert asked == ["http_get:localhost", "http_private:localhost"]
    assert not result.ok and "AKIA" not in str(result.content) + str(result.error)


def test_the_approval_shows_what_a_request_carries() -> None:
    """A POST is approved for what it sends, not only where: the body and headers are shown."""
    tool = HttpRequestTool(ToolSettings())
    shown = tool.describe(
        {
            "url": "https://paste.example/new",
            "method": "POST",
            "headers": {"X-Note": "hi"},
            "body": "DATABASE_PASSWORD=hunter2",
        }
    )
    assert "DATABASE_PASSWORD=hunter2" in shown and "X-Note: hi" in shown
    long = tool.describe(
        {
            "url": "https://paste.example/new",
            "method": "POST",
            "json": {"k": "v" * 5000},
        }
    )
    assert "more characters" in long and len(long) < 2300
