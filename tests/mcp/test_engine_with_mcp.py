"""The engine with MCP servers: tool definitions in the budget, Esc during a call, the
catalog share left to the skills."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from aiq_tui.events import ToolCallApproved, TurnFinished
from aiq_tui.locations import Home
from tests.agent.helpers import openai_engine
from tests.llm.fakes import (
    FakeModelServer,
    openai_text_stream,
    openai_tool_stream,
    sse_reply,
)
from tests.mcp.conftest import fixture_server, write_config

pytestmark = pytest.mark.slow


async def test_mcp_tool_definitions_count_in_system_and_tool_definitions(
    project: Path, isolated_home: Home
) -> None:
    write_config(isolated_home, {"fx": fixture_server()})
    engine, _ = openai_engine(isolated_home.root, "http://127.0.0.1:9")
    try:
        before = engine.breakdown
        await engine.start_mcp()
        after = engine.breakdown
        specs = [
            spec
            for spec in engine.current_prompt().tools
            if spec.name.startswith("mcp__fx__")
        ]
    finally:
        await engine.aclose()
    assert len(specs) == 10
    assert after.system - before.system == engine.counter.count_tools(specs)
    assert after.catalog == before.catalog  # the skills' catalog keeps its own share


async def test_esc_cancels_a_running_mcp_call(
    project: Path, isolated_home: Home
) -> None:
    write_config(
        isolated_home,
        {"fx": fixture_server()},
        tools={"permissions": {"mcp__fx": "allow"}},
    )
    replies = [
        sse_reply(
            openai_tool_stream([("call_1", "mcp__fx__slow", '{"seconds": 600}')])
        ),
        sse_reply(openai_text_stream(["never"])),
    ]
    async with FakeModelServer(replies) as server:
        engine, recorder = openai_engine(isolated_home.root, server.base_url)
        try:
            turn = asyncio.create_task(engine.send("wait for it"))
            deadline = time.monotonic() + 60
            while not recorder.of(ToolCallApproved):
                assert time.monotonic() < deadline
                await asyncio.sleep(0.02)
            counter = engine.tools.get("mcp__fx__count")
            while (
                "running=1" not in (await counter.run({})).to_model_text()
            ):  # the call is on the server now
                assert time.monotonic() < deadline and not turn.done(), (
                    "the slow call never reached the server"
                )
            started = time.monotonic()
            engine.cancel()
            await asyncio.wait_for(turn, 30)
            cancelled_in = time.monotonic() - started
            count = await counter.run({})
        finally:
            await engine.aclose()
    assert recorder.of(TurnFinished)[-1].cancelled
    assert cancelled_in < 10
    assert "cancelled=1" in count.to_model_text()
    assert engine.session.messages[-1].content == '{"error": "cancelled by the user"}'


async def test_a_skill_that_names_an_mcp_tool_gets_it_offered_first(
    project: Path, isolated_home: Home
) -> None:
    from tests.agent.helpers import write_skill

    write_skill(
        isolated_home.root / "skills",
        "padder",
        "Pads values with the padding tool.",
        extra="allowed-tools: mcp__fx__pad_099\n",
    )
    write_config(
        isolated_home,
        {"fx": fixture_server("--tools", "100")},
        context={"window": 16_000},
        mcp={"tools_share": 0.04},
    )
    engine, _ = openai_engine(isolated_home.root, "http://127.0.0.1:9")
    try:
        await engine.start_mcp()
        plain = {spec.name for spec in engine.current_prompt().tools}
        await engine.activate("padder")
        with_skill = {spec.name for spec in engine.current_prompt().tools}
        problems = [p.message for p in engine.problems]
    finally:
        await engine.aclose()
    assert "mcp__fx__pad_099" not in plain and "mcp__fx__pad_099" in with_skill
    assert any("not offered to the model" in message for message in problems)
