"""Resource subscriptions: the resources a conversation uses are watched where a server allows it,
an update is announced once, and the user's next message carries it — against a 2025-era server
written on the wire (``subscription_server.py``: ``resources/subscribe``), the SDK's 2026-07-28
server (``protocol_server.py``: a ``subscriptions/listen`` stream) and, when installed, the
reference server-everything (``make test-servers``)."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from aiq_tui.events import McpResourceRefreshed, McpResourceUpdated
from aiq_tui.locations import Home
from tests.agent.helpers import Recorder, openai_engine
from tests.llm.fakes import (
    FakeModelServer,
    openai_text_stream,
    openai_tool_stream,
    sse_reply,
)
from tests.mcp.conftest import write_config

pytestmark = pytest.mark.slow

SUBSCRIPTION_SERVER = Path(__file__).with_name("subscription_server.py")
PROTOCOL_SERVER = Path(__file__).with_name("protocol_server.py")


def subscription_server(*flags: str) -> dict[str, Any]:
    return {"command": sys.executable, "args": [str(SUBSCRIPTION_SERVER), *flags]}


def answers(count: int) -> list[Any]:
    return [sse_reply(openai_text_stream([f"answer {n}"])) for n in range(count)]


async def until(condition: Callable[[], bool], what: str, seconds: float = 30) -> None:
    """Wait until ``condition()`` holds (the loop keeps running meanwhile)."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.01)


async def tool(engine: Any, name: str, **arguments: Any) -> str:
    return (await engine.tools.get(name).run(arguments)).to_model_text()


async def requests(engine: Any, server: str = "s") -> list[list[str]]:
    await engine.resource_watch.settled()
    return json.loads(await tool(engine, f"mcp__{server}__requests"))


def user_messages(engine: Any) -> list[str]:
    return [m.content for m in engine.session.messages if m.role.value == "user"]


async def touched(
    engine: Any, recorder: Recorder, uri: str, times: int = 1, server: str = "s"
) -> None:
    """The server announces ``times`` updates of ``uri``; returns once the first was heard and
    a later round trip to the server was answered (every update it sent was handled by then)."""
    before = len(recorder.of(McpResourceUpdated))
    await tool(engine, f"mcp__{server}__touch", uri=uri, times=times)
    await until(
        lambda: len(recorder.of(McpResourceUpdated)) > before, f"an update of {uri}"
    )
    await requests(engine, server)


async def test_only_a_server_that_declares_resources_subscribe_is_asked_to_subscribe(
    project: Path, isolated_home: Home
) -> None:
    write_config(
        isolated_home,
        {"s": subscription_server(), "n": subscription_server("--no-subscribe")},
    )
    async with FakeModelServer(answers(1)) as model:
        engine, _ = openai_engine(isolated_home.root, model.base_url)
        try:
            await engine.send("compare @s:notes://a with @n:notes://a")
            asked, not_asked = await requests(engine, "s"), await requests(engine, "n")
        finally:
            await engine.aclose()
    assert asked == [["resources/subscribe", "notes://a"]]
    assert not_asked == []
    assert "[attached @n:notes://a" in user_messages(engine)[0]  # attached all the same


async def test_a_flood_of_updates_is_one_announced_update(
    project: Path, isolated_home: Home
) -> None:
    write_config(isolated_home, {"s": subscription_server()})
    async with FakeModelServer(answers(1)) as model:
        engine, recorder = openai_engine(isolated_home.root, model.base_url)
        try:
            await engine.send("summarise @s:notes://a")
            await requests(engine)
            await touched(engine, recorder, "notes://a", times=50)
            await tool(
                engine, "mcp__s__touch", uri="notes://b"
            )  # not used by the conversation: ignored
            await requests(engine)  # the update arrived before this answer
        finally:
            await engine.aclose()
    assert [(e.server, e.uri, e.use) for e in recorder.of(McpResourceUpdated)] == [
        ("s", "notes://a", "attached")
    ]


async def test_the_next_message_carries_the_fresh_text_of_a_changed_attachment(
    project: Path, isolated_home: Home
) -> None:
    write_config(isolated_home, {"s": subscription_server()})
    async with FakeModelServer(answers(3)) as model:
        engine, recorder = openai_engine(isolated_home.root, model.base_url)
        try:
            await engine.send("summarise @s:notes://a")
            await requests(engine)
            await tool(engine, "mcp__s__edit", uri="notes://a", text="second text of a")
            await touched(engine, recorder, "notes://a")
            await engine.send("and now?")
            await engine.send("anything else?")
        finally:
            await engine.aclose()
    first, second, third = user_messages(engine)
    assert first.endswith("[attached @s:notes://a (15 bytes)]\nfirst text of a")
    assert second == (
        "and now?\n\n[@s:notes://a was updated since the user attached it; its current text "
        "(16 bytes)]\nsecond text of a"
    )
    assert third == "anything else?"  # carried once
    assert [(e.uri, e.outcome) for e in recorder.of(McpResourceRefreshed)] == [
        ("notes://a", "attached")
    ]


async def test_an_update_that_leaves_the_text_as_attached_is_not_sent_again(
    project: Path, isolated_home: Home
) -> None:
    write_config(isolated_home, {"s": subscription_server()})
    async with FakeModelServer(answers(2)) as model:
        engine, recorder = openai_engine(isolated_home.root, model.base_url)
        try:
            await engine.send("summarise @s:notes://a")
            await requests(engine)
            await touched(engine, recorder, "notes://a")
            await engine.send("and now?")
        finally:
            await engine.aclose()
    assert user_messages(engine)[1] == "and now?"
    assert [
        (e.uri, e.outcome, e.summary) for e in recorder.of(McpResourceRefreshed)
    ] == [("notes://a", "unchanged", "15 bytes")]


async def test_an_attachment_that_cannot_be_read_again_is_said_to_the_model(
    project: Path, isolated_home: Home
) -> None:
    write_config(isolated_home, {"s": subscription_server()})
    async with FakeModelServer(answers(2)) as model:
        engine, recorder = openai_engine(isolated_home.root, model.base_url)
        try:
            await engine.send("summarise @s:notes://a")
            await requests(engine)
            await tool(engine, "mcp__s__remove", uri="notes://a")
            await touched(engine, recorder, "notes://a")
            await engine.send("and now?")
        finally:
            await engine.aclose()
    assert user_messages(engine)[1].startswith(
        "and now?\n\n[@s:notes://a, which the user attached earlier, was "
        "updated since but could not be read again: "
    )
    assert "no resource notes://a" in user_messages(engine)[1]
    assert [(e.uri, e.outcome) for e in recorder.of(McpResourceRefreshed)] == [
        ("notes://a", "failed")
    ]


async def test_the_model_is_told_that_a_resource_it_read_changed(
    project: Path, isolated_home: Home
) -> None:
    write_config(
        isolated_home,
        {"s": subscription_server()},
        tools={"permissions": {"mcp__s": "allow"}},
    )
    replies = [
        sse_reply(
            openai_tool_stream(
                [("call_1", "mcp__s__read_resource", '{"uri": "notes://b"}')]
            )
        ),
        *answers(2),
    ]
    async with FakeModelServer(replies) as model:
        engine, recorder = openai_engine(isolated_home.root, model.base_url)
        try:
            await engine.send("what does b say?")
            asked = await requests(engine)
            await touched(engine, recorder, "notes://b")
            await engine.send("and now?")
        finally:
            await engine.aclose()
    assert asked == [["resources/subscribe", "notes://b"]]
    assert recorder.of(McpResourceUpdated)[0].use == "read"
    assert user_messages(engine)[1] == (
        "and now?\n\n[update from MCP server s: @s:notes://b, which you read earlier, has changed since; "
        "read it again if you need its current text]"
    )


async def test_a_new_conversation_unsubscribes_and_hears_no_more_updates(
    project: Path, isolated_home: Home
) -> None:
    write_config(isolated_home, {"s": subscription_server()})
    async with FakeModelServer(answers(1)) as model:
        engine, recorder = openai_engine(isolated_home.root, model.base_url)
        try:
            await engine.send("summarise @s:notes://a")
            await requests(engine)
            await touched(engine, recorder, "notes://a")
            engine.clear()
            asked = await requests(engine)
            await tool(engine, "mcp__s__touch", uri="notes://a")
            await requests(engine)  # the update arrived before this answer
        finally:
            await engine.aclose()
    assert asked == [
        ["resources/subscribe", "notes://a"],
        ["resources/unsubscribe", "notes://a"],
    ]
    assert len(recorder.of(McpResourceUpdated)) == 1  # the one before /clear
    assert [(e.uri, e.outcome) for e in recorder.of(McpResourceRefreshed)] == [
        ("notes://a", "dropped")
    ]
    assert (
        engine.resource_watch.watched() == {} and engine.resource_watch.pending() == {}
    )


async def test_past_max_subscriptions_the_least_recently_used_stops_being_watched(
    project: Path, isolated_home: Home
) -> None:
    write_config(
        isolated_home, {"s": subscription_server()}, mcp={"max_subscriptions": 1}
    )
    async with FakeModelServer(answers(2)) as model:
        engine, _ = openai_engine(isolated_home.root, model.base_url)
        try:
            await engine.send("summarise @s:notes://a")
            await engine.send("and @s:notes://b")
            asked = await requests(engine)
        finally:
            await engine.aclose()
    assert asked == [
        ["resources/subscribe", "notes://a"],
        ["resources/unsubscribe", "notes://a"],
        ["resources/subscribe", "notes://b"],
    ]


async def test_subscribe_resources_false_never_subscribes(
    project: Path, isolated_home: Home
) -> None:
    write_config(
        isolated_home, {"s": subscription_server()}, mcp={"subscribe_resources": False}
    )
    async with FakeModelServer(answers(1)) as model:
        engine, _ = openai_engine(isolated_home.root, model.base_url)
        try:
            await engine.send("summarise @s:notes://a")
            asked = await requests(engine)
        finally:
            await engine.aclose()
    assert asked == []


async def test_the_journal_keeps_one_update_per_resource_between_two_messages(
    project: Path, isolated_home: Home
) -> None:
    write_config(isolated_home, {"s": subscription_server()})
    async with FakeModelServer(answers(3)) as model:
        engine, recorder = openai_engine(isolated_home.root, model.base_url)
        try:
            await engine.send("summarise @s:notes://a")
            await requests(engine)
            for _ in range(3):
                await tool(
                    engine,
                    "mcp__s__edit",
                    uri="notes://a",
                    text=f"text {len(recorder.events)}",
                )
                await touched(engine, recorder, "notes://a", times=20)
                await engine.send("and now?")
        finally:
            await engine.aclose()
    saved = [
        event["type"] for turn in engine.session.replay for event in turn["events"]
    ]
    assert (
        saved.count("mcp_resource_updated") == 3
    )  # 60 updates from the server, one per message
    assert saved.count("mcp_resource_refreshed") == 3


async def test_a_server_that_stops_drops_its_subscriptions_and_subscribes_again_when_back(
    project: Path, isolated_home: Home
) -> None:
    write_config(isolated_home, {"s": subscription_server()})
    async with FakeModelServer(answers(1)) as model:
        engine, recorder = openai_engine(isolated_home.root, model.base_url)
        try:
            await engine.send("summarise @s:notes://a")
            await requests(engine)
            old = engine.mcp.live_connection("s")
            definition = old.server
            await old.close()  # the server goes away (as a crash does, without a word)
            engine.mcp._closed(definition, "stopped for the test")
            gone = engine.resource_watch.subscribed("s")
            await engine.mcp._start_one(
                definition
            )  # the fleet has no restart of its own yet
            again = await requests(engine)
            await touched(engine, recorder, "notes://a")
        finally:
            await engine.aclose()
    assert gone == frozenset() and old.on_resource_updated is None
    assert again == [["resources/subscribe", "notes://a"]]  # the new process was asked
    assert [e.uri for e in recorder.of(McpResourceUpdated)] == ["notes://a"]


# -- a 2026-07-28 server: subscriptions/listen ----------------------------------------------------


async def test_a_2026_server_is_watched_through_a_listen_stream(
    project: Path, isolated_home: Home
) -> None:
    write_config(
        isolated_home,
        {"p": {"command": sys.executable, "args": [str(PROTOCOL_SERVER)]}},
        tools={"permissions": {"mcp__p": "allow"}},
    )
    async with FakeModelServer(answers(3)) as model:
        engine, recorder = openai_engine(isolated_home.root, model.base_url)
        try:
            await engine.send("what is on @p:notes://today?")
            first = engine.resource_watch.subscribed("p")
            await engine.send(
                "and on @p:notes://day/monday?"
            )  # the stream is replaced by one for both
            both = engine.resource_watch.subscribed("p")
            await tool(engine, "mcp__p__rewrite_today", text="buy bread", times=5)
            await until(
                lambda: bool(recorder.of(McpResourceUpdated)),
                "the update of notes://today",
            )
            await tool(
                engine, "mcp__p__client_capabilities"
            )  # every update was handled by its answer
            await engine.send("and now?")
        finally:
            await engine.aclose()
    assert first == frozenset({"notes://today"})
    assert both == frozenset({"notes://today", "notes://day/monday"})
    assert [(e.uri, e.use) for e in recorder.of(McpResourceUpdated)] == [
        ("notes://today", "attached")
    ]
    assert user_messages(engine)[2].endswith(
        "was updated since the user attached it; its current text (9 bytes)]\nbuy bread"
    )


def _ask_touching(
    isolated_home: Home,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    touch: str,
    *flags: str,
) -> tuple[str, str]:
    """``ask FLAGS "watch @s:notes://a"`` with a model that calls ``mcp__s__touch`` (``touch``: its
    arguments), so the server announces updates of the attached resource during the turn."""
    from tests.mcp.test_protocol_features import _ask
    from tests.security.test_ask_hostile_model import ScriptedModel

    write_config(
        isolated_home,
        {"s": subscription_server()},
        tools={"permissions": {"mcp__s": "allow"}},
    )
    replies = [
        sse_reply(openai_tool_stream([("call_1", "mcp__s__touch", touch)])),
        sse_reply(openai_text_stream(["It changed."])),
    ]
    with ScriptedModel(replies) as model:
        code = _ask(monkeypatch, model, *flags, question="watch @s:notes://a")
    out, err = capsys.readouterr()
    assert code == 0, err
    return out, err


def test_ask_json_prints_an_update_that_arrives_during_the_turn(
    project: Path,
    isolated_home: Home,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out, _ = _ask_touching(
        isolated_home, monkeypatch, capsys, '{"uri": "notes://a", "times": 3}', "--json"
    )
    lines = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    assert [line for line in lines if line["type"] == "mcp_resource_updated"] == [
        {
            "type": "mcp_resource_updated",
            "server": "s",
            "uri": "notes://a",
            "use": "attached",
        }
    ]


def test_ask_says_on_stderr_that_a_resource_was_updated(
    project: Path,
    isolated_home: Home,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, err = _ask_touching(isolated_home, monkeypatch, capsys, '{"uri": "notes://a"}')
    assert "mcp s: resource @s:notes://a updated on the server" in err


# -- the reference server-everything (make test-servers) ------------------------------------------


async def test_server_everything_announces_updates_of_a_subscribed_resource(
    project: Path, isolated_home: Home
) -> None:
    """server-everything subscribes on ``resources/subscribe`` and, once its tool
    ``toggle-subscriber-updates`` is called, sends ``notifications/resources/updated`` for each
    subscribed URI at once and then every 5 s (its text never changes: the update is not sent again)."""
    from tests.mcp.test_protocol_features import everything_server

    write_config(isolated_home, {"everything": everything_server()})
    uri = "demo://resource/static/document/architecture.md"
    async with FakeModelServer(answers(2)) as model:
        engine, recorder = openai_engine(isolated_home.root, model.base_url)
        try:
            await engine.send(f"summarise @everything:{uri}")
            subscribed = engine.resource_watch.subscribed("everything")
            toggle = "mcp__everything__toggle-subscriber-updates"
            started = await tool(engine, toggle)
            await until(
                lambda: bool(recorder.of(McpResourceUpdated)),
                "server-everything's update",
            )
            stopped = await tool(engine, toggle)
            await engine.send("has it changed?")
        finally:
            await engine.aclose()
    assert subscribed == frozenset({uri})
    assert (
        "Started simulated resource updated notifications" in started
        and "Stopped" in stopped
    )
    assert [(e.server, e.uri, e.use) for e in recorder.of(McpResourceUpdated)][:1] == [
        ("everything", uri, "attached")
    ]
    assert (
        len(recorder.of(McpResourceUpdated)) == 1
    )  # one until the next message, however many it sent
    assert [(e.uri, e.outcome) for e in recorder.of(McpResourceRefreshed)] == [
        (uri, "unchanged")
    ]
    assert user_messages(engine)[1] == "has it changed?"


async def test_the_fresh_text_is_cut_to_resource_max_bytes_as_an_attach_is(
    project: Path, isolated_home: Home
) -> None:
    write_config(
        isolated_home, {"s": subscription_server()}, mcp={"resource_max_bytes": 20}
    )
    async with FakeModelServer(answers(2)) as model:
        engine, recorder = openai_engine(isolated_home.root, model.base_url)
        try:
            await engine.send("summarise @s:notes://a")
            await requests(engine)
            await tool(engine, "mcp__s__edit", uri="notes://a", text="y" * 5000)
            await touched(engine, recorder, "notes://a")
            await engine.send("and now?")
        finally:
            await engine.aclose()
    carried = user_messages(engine)[1]
    assert (
        "its current text (5,000 bytes (cut))]\n"
        + "y" * 20
        + "\n…[cut: 20 of 5,000 bytes shown"
        in carried
    )
    assert len(carried) < 300
