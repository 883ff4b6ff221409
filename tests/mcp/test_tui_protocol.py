"""The TUI with a server's resources, prompts, questions and progress: the MCP tab lists them,
a prompt runs as /mcp__server__prompt (its required arguments asked for), a server's question
is answered in a dialog, a call's progress reaches the tool log."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from aiq_tui.locations import Home
from aiq_tui.ui.app import AiqApp
from aiq_tui.ui.screens.mcp_elicitation import McpElicitationScreen
from aiq_tui.ui.widgets.mcp_pane import McpPane
from aiq_tui.ui.widgets.tool_log import ToolLog
from tests.agent.helpers import openai_engine
from tests.llm.fakes import (
    FakeModelServer,
    openai_text_stream,
    openai_tool_stream,
    sse_reply,
)
from tests.mcp.conftest import write_config
from tests.mcp.test_protocol_features import protocol_server

sys.path.insert(0, str(Path(__file__).parents[1] / "ui"))

from conftest import fixed_clock

pytestmark = pytest.mark.slow
SIZE = (120, 36)


async def _until(
    pilot: Pilot, condition: Callable[[], Any], seconds: float = 60
) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        await pilot.pause(0.05)


def _user_messages(server: FakeModelServer, request: int) -> list[str]:
    return [
        m["content"]
        for m in server.requests[request].body["messages"]
        if m["role"] == "user"
    ]


async def test_prompts_questions_and_progress_in_the_tui(
    project: Path, isolated_home: Home
) -> None:
    write_config(
        isolated_home,
        {"p": protocol_server()},
        tools={"permissions": {"mcp__p": "allow"}},
    )
    replies = [
        sse_reply(openai_text_stream(["Reviewed."])),
        sse_reply(
            openai_tool_stream(
                [
                    ("call_1", "mcp__p__ask_name", "{}"),
                    ("call_2", "mcp__p__steps", json.dumps({"n": 3})),
                ]
            )
        ),
        sse_reply(openai_text_stream(["Hello."])),
    ]
    async with FakeModelServer(replies) as server:
        engine, _ = openai_engine(isolated_home.root, server.base_url)
        app = AiqApp(engine, clock=fixed_clock, watch=False)
        async with app.run_test(size=SIZE) as pilot:
            await _until(
                pilot, lambda: getattr(app.mcp_servers.get("p"), "state", "") == "ready"
            )
            await pilot.pause()
            pane = app.query_one("#mcp-pane", McpPane)
            cells = [str(pane.get_row_at(index)[2]) for index in range(pane.row_count)]
            assert (
                "@notes://today" in cells
                and "/review" in cells
                and "read_resource" in cells
            )

            # a prompt as a slash command: its required argument is asked for
            await app.run_slash("/mcp__p__review")
            # pushed is not yet composed: wait for the dialog's own widgets, not just its screen
            await _until(
                pilot,
                lambda: (
                    isinstance(app.screen, McpElicitationScreen)
                    and bool(app.screen.query("#field-0"))
                ),
            )
            app.screen.query_one("#field-0", Input).value = "the plan"
            await pilot.press("ctrl+s")
            await _until(pilot, lambda: len(server.requests) >= 1 and not app.busy)
            assert _user_messages(server, 0)[-1] == "Please review the plan (short)."

            # a server's question during a call: answered in the dialog
            app.send("greet me")
            await _until(
                pilot,
                lambda: (
                    isinstance(app.screen, McpElicitationScreen)
                    and bool(app.screen.query("#elicitation-message"))
                ),
            )
            assert "What is your name?" in str(
                app.screen.query_one("#elicitation-message").render()
            )
            app.screen.query_one("#field-0", Input).value = "Ada"
            await pilot.press("ctrl+s")
            await _until(pilot, lambda: len(server.requests) >= 3 and not app.busy)
            tools = [
                m["content"]
                for m in server.requests[2].body["messages"]
                if m["role"] == "tool"
            ]
            assert tools == ["hello Ada", "counted to 3"]
            log = app.query_one(ToolLog).records
            assert (
                log["call_2"].progress == "3/3"
            )  # the server's progress reached the tool log
            await app.action_quit()


async def test_an_updated_resource_is_marked_said_and_carried_by_the_next_message(
    project: Path, isolated_home: Home
) -> None:
    from aiq_tui.agent.sessions import SessionStore
    from aiq_tui.replay.state import turn_states
    from tests.mcp.test_resource_subscriptions import subscription_server

    write_config(isolated_home, {"s": subscription_server()})
    replies = [
        sse_reply(openai_text_stream(["Noted."])),
        sse_reply(openai_text_stream(["Changed."])),
    ]
    async with FakeModelServer(replies) as server:
        engine, _ = openai_engine(isolated_home.root, server.base_url)
        app = AiqApp(engine, clock=fixed_clock, watch=False)
        async with app.run_test(size=SIZE) as pilot:
            await _until(
                pilot, lambda: getattr(app.mcp_servers.get("s"), "state", "") == "ready"
            )
            app.send("summarise @s:notes://a")
            await _until(pilot, lambda: len(server.requests) >= 1 and not app.busy)
            await engine.resource_watch.settled()
            await engine.tools.get("mcp__s__edit").run(
                {"uri": "notes://a", "text": "second text of a"}
            )
            await engine.tools.get("mcp__s__touch").run({"uri": "notes://a"})
            pane = app.query_one("#mcp-pane", McpPane)

            def cells() -> list[str]:
                return [
                    str(pane.get_row_at(index)[2]) for index in range(pane.row_count)
                ]

            await _until(pilot, lambda: "↻ @notes://a" in cells())
            said = app.cursor.head.conversation[-1]
            assert said.text == (
                "↻ resource @s:notes://a updated on the server — your next message re-reads it "
                "and sends the model its new text"
            )
            assert app.cursor.head.timeline[-1][1:] == ("mcp", "@s:notes://a updated")
            shown = [str(notice.render()) for notice in app.query(".notice")]
            assert any(
                text.startswith("↻ resource @s:notes://a updated") for text in shown
            )  # drawn as said

            app.send("and now?")
            await _until(pilot, lambda: len(server.requests) >= 2 and not app.busy)
            assert _user_messages(server, 1)[-1].endswith(
                "its current text (16 bytes)]\nsecond text of a"
            )
            await _until(
                pilot, lambda: "@notes://a" in cells()
            )  # the update went with the message
            live = [entry.text for entry in app.cursor.head.conversation]
            session_id = engine.session.id

            await engine.tools.get("mcp__s__touch").run({"uri": "notes://a"})
            await _until(pilot, lambda: "↻ @notes://a" in cells())
            await app.run_slash(
                "/clear"
            )  # a new conversation: no message will carry it
            await _until(pilot, lambda: "@notes://a" in cells())
            await app.action_quit()
    replayed = turn_states(
        SessionStore(engine.sessions.directory).load(session_id).replay
    )[-1]
    assert [
        entry.text for entry in replayed.conversation
    ] == live  # Replay shows what live showed
