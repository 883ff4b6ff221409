"""Real MCP servers over stdio and HTTP: the in-test server (errors, timeouts, cancellation,
large results, list changes, crashes) and the fleet that runs them for the engine."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from aiq_tui.config import validate_config
from aiq_tui.conversation import ToolCall
from aiq_tui.events import McpServerChanged
from aiq_tui.locations import Home
from aiq_tui.tools.mcp.connection import McpConnection, McpError
from aiq_tui.tools.mcp.fleet import McpFleet
from aiq_tui.tools.mcp.servers import ServerDefinition
from aiq_tui.tools.registry import ToolRegistry, approve_all
from tests.mcp.conftest import FIXTURE_SERVER, fixture_server

pytestmark = pytest.mark.slow


def _definition(*flags: str, name: str = "fx", **extra: Any) -> ServerDefinition:
    return ServerDefinition(
        name=name,
        source="config",
        origin=Path("config.yaml"),
        transport="stdio",
        command=sys.executable,
        args=(str(FIXTURE_SERVER), *flags),
        **extra,
    )


def _connection(
    tmp_path: Path, definition: ServerDefinition, **options: Any
) -> McpConnection:
    settings = {"startup_timeout": 60.0, "call_timeout": 60.0, **options}
    return McpConnection(
        definition, cwd=tmp_path, log_path=tmp_path / "server.log", **settings
    )


def _fleet(
    home: Home, cwd: Path, servers: dict[str, Any], **mcp: Any
) -> tuple[McpFleet, list[McpServerChanged]]:
    config = validate_config({"mcp": {"servers": servers, **mcp}})
    events: list[McpServerChanged] = []
    return McpFleet(home, config, cwd, ToolRegistry([]), events.append), events


async def _call(fleet: McpFleet, name: str, arguments: dict[str, Any]) -> Any:
    return await fleet.registry.invoke(
        ToolCall("c1", name, arguments), approve_all, lambda event: None
    )


async def _until(condition: Any, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        await asyncio.sleep(0.05)


# -- one connection -------------------------------------------------------------------------


async def test_a_server_lists_its_tools_with_their_schemas(tmp_path: Path) -> None:
    connection = _connection(tmp_path, _definition())
    try:
        tools = {tool.name: tool for tool in await connection.start()}
    finally:
        await connection.close()
    assert {"echo", "fail", "slow", "big", "grow"} <= set(tools)
    assert tools["echo"].input_schema["properties"]["text"]["type"] == "string"
    assert tools["echo"].description == "Say the text back."


async def test_a_call_that_takes_too_long_fails_and_the_server_stays_up(
    tmp_path: Path,
) -> None:
    connection = _connection(tmp_path, _definition(), call_timeout=1.0)
    try:
        await connection.start()
        with pytest.raises(McpError, match="mcp.call_timeout_seconds"):
            await connection.call("slow", {"seconds": 600})
        answer = await connection.call("echo", {"text": "still here"})
    finally:
        await connection.close()
    assert answer.content[0].text == "echo: still here"


async def test_a_cancelled_call_is_cancelled_on_the_server_too(tmp_path: Path) -> None:
    connection = _connection(tmp_path, _definition())
    try:
        await connection.start()
        call = asyncio.create_task(connection.call("slow", {"seconds": 600}))
        deadline = time.monotonic() + 60
        while (
            "running=1" not in (await connection.call("count", {})).content[0].text
        ):  # on the server now
            assert time.monotonic() < deadline and not call.done(), (
                "the slow call never started on the server"
            )
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        counted = ""
        deadline = time.monotonic() + 30
        while "cancelled=1" not in counted and time.monotonic() < deadline:
            counted = (await connection.call("count", {})).content[0].text
    finally:
        await connection.close()
    assert "cancelled=1" in counted


@pytest.mark.parametrize(
    "flags, words",
    [
        (("--crash-on-start",), "fixture: refusing to start"),
        (("--hang-on-start",), "not ready within 2 s"),
    ],
)
async def test_a_server_that_does_not_start_is_an_error_with_its_stderr(
    tmp_path: Path, flags: tuple[str, ...], words: str
) -> None:
    connection = _connection(tmp_path, _definition(*flags), startup_timeout=2.0)
    started = time.monotonic()
    with pytest.raises(McpError) as caught:
        await connection.start()
    assert words in str(caught.value)
    assert (
        time.monotonic() - started < 30
    )  # bounded: timeout + the SDK's own stop sequence


async def test_a_missing_program_is_named(tmp_path: Path) -> None:
    definition = ServerDefinition(
        name="x",
        source="config",
        origin=Path("c"),
        transport="stdio",
        command="no-such-mcp-server-here",
    )
    with pytest.raises(McpError, match="program not found: no-such-mcp-server-here"):
        await _connection(tmp_path, definition).start()


async def test_the_server_gets_an_allowlisted_environment_never_the_api_keys(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-MUST-NOT-PASS")
    monkeypatch.setenv("DATABASE_URL", "postgres://user:pw@host/db")
    connection = _connection(tmp_path, _definition(env=(("SERVER_LEVEL", "debug"),)))
    try:
        await connection.start()
        names = set((await connection.call("env", {})).content[0].text.split())
    finally:
        await connection.close()
    assert "SERVER_LEVEL" in names and "PATH" in names
    assert "OPENAI_API_KEY" not in names and "DATABASE_URL" not in names
    assert names <= {
        "PATH",
        "HOME",
        "LANG",
        "TERM",
        "TZ",
        "LOGNAME",
        "SHELL",
        "USER",
        "SERVER_LEVEL",
        "PWD",
    } | {name for name in names if name.startswith("LC_")}


# -- the fleet: tools in the registry ----------------------------------------------------------


async def test_ready_servers_put_their_tools_in_the_registry_and_failures_become_warnings(
    isolated_home: Home, tmp_path: Path
) -> None:
    fleet, events = _fleet(
        isolated_home,
        tmp_path,
        {"fx": fixture_server(), "dead": fixture_server("--crash-on-start")},
    )
    try:
        await fleet.start()
        assert "mcp__fx__echo" in fleet.registry and not any(
            n.startswith("mcp__dead__") for n in fleet.registry.names()
        )
        result = await _call(fleet, "mcp__fx__echo", {"text": "hi"})
    finally:
        await fleet.aclose()
    assert result.ok and result.to_model_text() == "echo: hi"
    states = {(event.name, event.state) for event in events}
    assert {("fx", "starting"), ("fx", "ready"), ("dead", "failed")} <= states
    problem = next(p for p in fleet.problems() if "dead" in p.message)
    assert (
        problem.field == "mcp.servers.dead" and "refusing to start" in problem.message
    )
    assert fleet.registry.names() == []  # stopped: the tools are gone


async def test_errors_large_results_and_pictures_through_the_registry(
    isolated_home: Home, tmp_path: Path
) -> None:
    fleet, _ = _fleet(
        isolated_home, tmp_path, {"fx": fixture_server()}, result_max_bytes=5000
    )
    try:
        await fleet.start()
        failed = await _call(fleet, "mcp__fx__fail", {"reason": "nope"})
        big = await _call(fleet, "mcp__fx__big", {"size": 100_000})
        picture = await _call(fleet, "mcp__fx__picture", {})
        wrong = await _call(fleet, "mcp__fx__echo", {"txt": "missing text"})
    finally:
        await fleet.aclose()
    assert not failed.ok and "error" in json.loads(failed.to_model_text())
    assert (
        big.ok
        and len(big.to_model_text().encode()) < 5200
        and "100,000 bytes" in big.to_model_text()
    )
    assert picture.ok and "image/png" in picture.to_model_text()
    assert not wrong.ok and "missing required argument(s): text" in wrong.error


async def test_a_changed_tool_list_is_picked_up(
    isolated_home: Home, tmp_path: Path
) -> None:
    changed: list[bool] = []
    config = validate_config({"mcp": {"servers": {"fx": fixture_server()}}})
    fleet = McpFleet(
        isolated_home,
        config,
        tmp_path,
        ToolRegistry([]),
        lambda event: None,
        on_tools_changed=lambda: changed.append(True),
    )
    try:
        await fleet.start()
        assert "mcp__fx__extra" not in fleet.registry
        assert (await _call(fleet, "mcp__fx__grow", {})).ok
        await _until(lambda: "mcp__fx__extra" in fleet.registry)
        result = await _call(fleet, "mcp__fx__extra", {"word": "new"})
    finally:
        await fleet.aclose()
    assert result.ok and result.to_model_text() == "extra: new"
    assert len(changed) >= 2


async def test_a_server_that_crashes_mid_call_fails_the_call_and_its_tools_disappear(
    isolated_home: Home, tmp_path: Path
) -> None:
    fleet, events = _fleet(isolated_home, tmp_path, {"fx": fixture_server()})
    try:
        await fleet.start()
        result = await _call(fleet, "mcp__fx__crash", {})
        await _until(lambda: "mcp__fx__echo" not in fleet.registry)
    finally:
        await fleet.aclose()
    assert not result.ok and "MCP server fx" in result.error
    assert events[-1].state == "failed" and events[-1].message.startswith("stopped:")


async def test_many_tools_are_capped_by_their_share_of_the_window_and_reported(
    isolated_home: Home, tmp_path: Path
) -> None:
    from aiq_tui.context.tokens import TokenCounter

    fleet, events = _fleet(
        isolated_home,
        tmp_path,
        {"fx": fixture_server("--tools", "120")},
        tools_share=0.05,
    )
    try:
        await fleet.start()
        counter = TokenCounter(None)
        offered = fleet.offered(counter, 32_000)
        names = [spec.name for spec in offered]
        assert 0 < len(names) < 130 and counter.count_tools(offered) <= 0.05 * 32_000
        preferred = fleet.offered(
            counter, 32_000, lambda name: name == "mcp__fx__pad_119"
        )
        assert "mcp__fx__pad_119" in [spec.name for spec in preferred]
        fleet.note_offered(names)
        problems = fleet.problems()
    finally:
        await fleet.aclose()
    assert events[-1].omitted and len(events[-1].omitted) == len(
        events[-1].tools
    ) - len(names)
    assert any(
        "not offered" in p.message and "mcp.tools_share" in p.message for p in problems
    )


# -- HTTP ---------------------------------------------------------------------------------------


@pytest.fixture
def http_server(tmp_path: Path) -> Iterator[str]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen(
        [sys.executable, str(FIXTURE_SERVER), "--http", str(port), "--token", "s3cret"],
        stdout=subprocess.DEVNULL,
        stderr=(tmp_path / "http.log").open("w"),
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert process.poll() is None, (tmp_path / "http.log").read_text()
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(10)


async def test_an_http_server_is_reached_with_its_headers(
    isolated_home: Home,
    tmp_path: Path,
    http_server: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("FX_TOKEN", "s3cret")
    servers = {
        "web": {"url": http_server, "headers": {"Authorization": "Bearer ${FX_TOKEN}"}},
        "nokey": {"url": http_server},
    }
    fleet, _ = _fleet(isolated_home, tmp_path, servers, startup_timeout_seconds=20)
    try:
        await fleet.start()
        result = await _call(fleet, "mcp__web__echo", {"text": "over http"})
        states = {status.name: status.state for status in fleet.statuses()}
        problems = fleet.problems()
    finally:
        await fleet.aclose()
    assert result.ok and result.to_model_text() == "echo: over http"
    assert states == {
        "web": "ready",
        "nokey": "failed",
    }  # without the header the server refuses
    assert "cannot talk to" in next(p.message for p in problems if "nokey" in p.message)
