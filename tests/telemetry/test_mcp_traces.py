"""Traces that join up: an MCP tool call is a CLIENT span of the turn's trace (the MCP semantic
conventions: ``tools/call {tool}``, ``mcp.method.name``, …), its request carries that span's
context in ``params._meta.traceparent``, and the server's own span — made by the MCP SDK's
server middleware from that ``_meta`` — arrives at the same collector as its child."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from aiq_tui.locations import Home
from aiq_tui.telemetry import attach_telemetry
from tests.agent.helpers import openai_engine
from tests.llm.fakes import (
    FakeModelServer,
    openai_text_stream,
    openai_tool_stream,
    sse_reply,
)
from tests.mcp.conftest import project, write_config  # noqa: F401 - project is a fixture
from tests.telemetry.receiver import OtlpReceiver, ReceivedSpan

pytestmark = pytest.mark.slow

SERVER = Path(__file__).with_name("traced_mcp_server.py")


def named(spans: list[ReceivedSpan], name: str) -> ReceivedSpan:
    found = [span for span in spans if span.name == name]
    assert found, f"no span {name!r} among {[s.name for s in spans]}"
    return found[0]


async def run_mcp_turn(
    home: Home,
    receiver: OtlpReceiver,
    monkeypatch: pytest.MonkeyPatch,
    server_exports: bool,
    url: str = "",
) -> tuple[str, list[str], int]:
    """One turn whose model calls ``mcp__tr__whoami`` (on a stdio server, or the one at
    ``url``); the tool's answer, what was said and the fake model server's port."""
    env = {"TRACED_SERVER_OTLP": receiver.endpoint} if server_exports else {}
    definition = (
        {"url": url}
        if url
        else {"command": sys.executable, "args": [str(SERVER)], "env": env}
    )
    write_config(home, {"tr": definition}, tools={"permissions": {"mcp__tr": "allow"}})
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint)
    replies = [
        sse_reply(openai_tool_stream([("call_1", "mcp__tr__whoami", "{}")])),
        sse_reply(openai_text_stream(["done"])),
    ]
    said: list[str] = []
    async with FakeModelServer(replies) as model:
        engine, _ = openai_engine(home.root, model.base_url)
        telemetry = attach_telemetry(engine, say=said.append)
        assert telemetry is not None
        try:
            await engine.send("who am I to the server?")
        finally:
            await engine.aclose()
            note = telemetry.close()
    assert note is None, note
    answer = next(
        m.content for m in engine.session.messages if m.tool_call_id == "call_1"
    )
    return answer, said, model.port


@pytest.fixture
def receiver() -> OtlpReceiver:
    with OtlpReceiver() as running:
        yield running


async def test_an_mcp_call_is_a_client_span_of_the_turn_and_its_request_carries_the_context(
    project: Path,
    isolated_home: Home,
    receiver: OtlpReceiver,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    answer, said, model_port = await run_mcp_turn(
        isolated_home, receiver, monkeypatch, server_exports=False
    )
    spans = receiver.wait_for(
        lambda got: any(s.name == "invoke_agent aiq-tui" for s in got)
    )
    turn = named(spans, "invoke_agent aiq-tui")
    tool = named(spans, "execute_tool mcp__tr__whoami")
    request = named(spans, "tools/call whoami")

    assert tool.parent_id == turn.span_id and request.parent_id == tool.span_id
    assert request.trace_id == turn.trace_id and request.kind == 3  # CLIENT
    assert request.attributes["mcp.method.name"] == "tools/call"
    assert request.attributes["gen_ai.operation.name"] == "execute_tool"
    assert request.attributes["gen_ai.tool.name"] == "whoami"
    assert request.attributes["network.transport"] == "pipe"
    assert request.attributes["mcp.protocol.version"]
    assert request.attributes["aiq.mcp.server"] == "tr"
    assert "error.type" not in request.attributes
    assert (
        tool.attributes["gen_ai.tool.description"]
        == "Say which _meta the request carried."
    )

    # The server got the request span's own context (W3C traceparent, unprefixed, SEP-414).
    meta = json.loads(answer)["meta"]
    assert meta["traceparent"] == f"00-{turn.trace_id}-{request.span_id}-01"
    assert said == []

    # Chat spans say which response and which server (the fake OpenAI API's chunk id).
    chat = next(s for s in spans if s.attributes.get("gen_ai.operation.name") == "chat")
    assert chat.attributes["gen_ai.response.id"] == "chatcmpl-fake123"
    assert (chat.attributes["server.address"], chat.attributes["server.port"]) == (
        "127.0.0.1",
        model_port,
    )


async def test_the_servers_own_span_joins_the_turns_trace(
    project: Path,
    isolated_home: Home,
    receiver: OtlpReceiver,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    await run_mcp_turn(isolated_home, receiver, monkeypatch, server_exports=True)
    spans = receiver.wait_for(
        lambda got: (
            any(s.name == "invoke_agent aiq-tui" for s in got)
            and any(
                s.resource.get("service.name") == "traced-mcp-server"
                and s.name == "tools/call whoami"
                for s in got
            )
        )
    )
    request = next(s for s in spans if s.name == "tools/call whoami" and s.kind == 3)
    served = next(
        s
        for s in spans
        if s.resource.get("service.name") == "traced-mcp-server"
        and s.name == "tools/call whoami"
    )
    assert served.kind == 2  # SERVER
    assert served.trace_id == request.trace_id and served.parent_id == request.span_id


async def test_without_telemetry_no_trace_context_is_sent(
    project: Path, isolated_home: Home
) -> None:
    write_config(
        isolated_home,
        {"tr": {"command": sys.executable, "args": [str(SERVER)]}},
        tools={"permissions": {"mcp__tr": "allow"}},
    )
    replies = [
        sse_reply(openai_tool_stream([("call_1", "mcp__tr__whoami", "{}")])),
        sse_reply(openai_text_stream(["done"])),
    ]
    async with FakeModelServer(replies) as model:
        engine, _ = openai_engine(isolated_home.root, model.base_url)
        try:
            await engine.send("who am I to the server?")
        finally:
            await engine.aclose()
    answer = next(
        m.content for m in engine.session.messages if m.tool_call_id == "call_1"
    )
    assert "traceparent" not in answer and '"meta"' in answer


@pytest.fixture
def http_server(tmp_path: Path) -> Iterator[tuple[str, int]]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    log = tmp_path / "http.log"
    process = subprocess.Popen(
        [sys.executable, str(SERVER), "--http", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=log.open("w"),
    )
    try:
        deadline = time.monotonic() + 60
        while True:  # until it listens
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert process.poll() is None and time.monotonic() < deadline, (
                    log.read_text()
                )
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp", port
    finally:
        process.terminate()
        process.wait(10)


async def test_an_http_servers_request_span_names_the_server_and_its_session(
    project: Path,
    isolated_home: Home,
    receiver: OtlpReceiver,
    monkeypatch: pytest.MonkeyPatch,
    http_server: tuple[str, int],
) -> None:
    url, port = http_server
    answer, _, _ = await run_mcp_turn(
        isolated_home, receiver, monkeypatch, server_exports=False, url=url
    )
    spans = receiver.wait_for(
        lambda got: any(s.name == "invoke_agent aiq-tui" for s in got)
    )
    request = named(spans, "tools/call whoami")
    assert request.attributes["network.transport"] == "tcp"
    assert request.attributes["network.protocol.name"] == "http"
    assert (
        request.attributes["server.address"],
        request.attributes["server.port"],
    ) == ("127.0.0.1", port)
    # This server speaks 2026-07-28, which has no sessions: no mcp.session.id to report.
    assert (
        request.attributes["mcp.protocol.version"] != "2026-07-28"
        or "mcp.session.id" not in request.attributes
    )
    assert (
        json.loads(answer)["meta"]["traceparent"]
        == f"00-{request.trace_id}-{request.span_id}-01"
    )
