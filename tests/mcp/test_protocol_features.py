"""The MCP protocol beyond tools: what the client declares (roots, elicitation, never sampling),
progress, a server's questions to the user, resources (read by the model, attached with
``@server:uri``) and prompts — against an SDK-written server and, when installed, the reference
server-everything (``make test-servers``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from aiq_tui.config import validate_config
from aiq_tui.conversation import ToolCall
from aiq_tui.events import McpProgress, McpServerChanged
from aiq_tui.locations import Home
from aiq_tui.tools.mcp.elicitation import (
    ElicitationAnswer,
    ElicitationRequest,
    headless_answer,
)
from aiq_tui.tools.mcp.fleet import McpFleet
from aiq_tui.tools.registry import ToolRegistry, approve_all

pytestmark = pytest.mark.slow

PROTOCOL_SERVER = Path(__file__).with_name("protocol_server.py")
REPO = Path(__file__).resolve().parents[2]
EVERYTHING = REPO / ".test-servers" / "node_modules" / ".bin" / "mcp-server-everything"


def protocol_server() -> dict[str, Any]:
    return {"command": sys.executable, "args": [str(PROTOCOL_SERVER)]}


def everything_server() -> dict[str, Any]:
    """server-everything from the repository's .test-servers (``make test-servers``), or skip."""
    if not EVERYTHING.exists():
        pytest.skip(
            "server-everything is not installed: `make test-servers` (needs node and npm) puts it in "
            ".test-servers/"
        )
    return {"command": str(EVERYTHING), "args": ["stdio"]}


def _fleet(
    home: Home, cwd: Path, servers: dict[str, Any], **mcp: Any
) -> tuple[McpFleet, list[Any]]:
    config = validate_config({"mcp": {"servers": servers, **mcp}})
    events: list[Any] = []
    return McpFleet(home, config, cwd, ToolRegistry([]), events.append), events


async def _call(
    fleet: McpFleet, name: str, arguments: dict[str, Any], seen: list[Any] | None = None
) -> Any:
    sink = seen.append if seen is not None else (lambda event: None)
    return await fleet.registry.invoke(
        ToolCall("c1", name, arguments), approve_all, sink
    )


# -- what the client declares ---------------------------------------------------------------


async def test_the_client_declares_roots_and_elicitation_but_not_sampling(
    tmp_path: Path, isolated_home: Home
) -> None:
    fleet, _ = _fleet(isolated_home, tmp_path, {"p": protocol_server()})
    try:
        await fleet.start()
        declared = json.loads(
            (await _call(fleet, "mcp__p__client_capabilities", {})).content
        )
    finally:
        await fleet.aclose()
    assert "roots" in declared and "elicitation" in declared
    assert "sampling" not in declared


async def test_the_roots_are_the_project_folder(
    tmp_path: Path, isolated_home: Home
) -> None:
    fleet, _ = _fleet(isolated_home, tmp_path, {"p": protocol_server()})
    try:
        await fleet.start()
        roots = json.loads((await _call(fleet, "mcp__p__roots", {})).content)
    finally:
        await fleet.aclose()
    assert roots == [tmp_path.as_uri()]


# -- progress ---------------------------------------------------------------------------------


async def test_a_servers_progress_arrives_as_events_of_the_call(
    tmp_path: Path, isolated_home: Home
) -> None:
    fleet, _ = _fleet(isolated_home, tmp_path, {"p": protocol_server()})
    seen: list[Any] = []
    try:
        await fleet.start()
        result = await _call(fleet, "mcp__p__steps", {"n": 3}, seen)
    finally:
        await fleet.aclose()
    assert result.ok and result.content == "counted to 3"
    progress = [event for event in seen if isinstance(event, McpProgress)]
    assert [(e.call_id, e.progress, e.total, e.message) for e in progress] == [
        ("c1", 1, 3, "step 1"),
        ("c1", 2, 3, "step 2"),
        ("c1", 3, 3, "step 3"),
    ]
    assert progress[-1].label() == "3/3"


# -- elicitation ------------------------------------------------------------------------------


async def test_a_question_from_the_server_is_declined_when_nobody_can_answer(
    tmp_path: Path, isolated_home: Home
) -> None:
    fleet, _ = _fleet(isolated_home, tmp_path, {"p": protocol_server()})
    try:
        await fleet.start()
        result = await _call(fleet, "mcp__p__ask_name", {})
    finally:
        await fleet.aclose()
    assert result.content == "no name: decline"


async def test_a_question_from_the_server_is_answered_by_the_elicitor(
    tmp_path: Path, isolated_home: Home
) -> None:
    fleet, _ = _fleet(isolated_home, tmp_path, {"p": protocol_server()})
    asked: list[ElicitationRequest] = []

    async def answer(request: ElicitationRequest) -> ElicitationAnswer:
        asked.append(request)
        return ElicitationAnswer("accept", {"name": "Ada", "polite": False})

    fleet.elicitor = answer
    try:
        await fleet.start()
        result = await _call(fleet, "mcp__p__ask_name", {})
    finally:
        await fleet.aclose()
    assert result.content == "hello Ada"
    request = asked[0]
    assert (request.server, request.message, request.mode) == (
        "p",
        "What is your name?",
        "form",
    )
    assert [(f.name, f.kind, f.required, f.default) for f in request.fields] == [
        ("name", "string", True, None),
        ("polite", "boolean", False, True),
    ]


def test_headless_answers_decline_unless_defaults_are_accepted_and_every_required_field_has_one() -> (
    None
):
    from aiq_tui.tools.mcp.elicitation import ElicitationField

    needs_name = ElicitationRequest(
        "p", "?", fields=(ElicitationField("name", "string", required=True),)
    )
    defaulted = ElicitationRequest(
        "p",
        "?",
        fields=(ElicitationField("size", "integer", required=True, default=3),),
    )
    assert headless_answer(needs_name, accept_defaults=False).action == "decline"
    assert headless_answer(defaulted, accept_defaults=False).action == "decline"
    assert headless_answer(needs_name, accept_defaults=True).action == "decline"
    assert headless_answer(defaulted, accept_defaults=True) == ElicitationAnswer(
        "accept", {"size": 3}
    )
    assert (
        headless_answer(
            ElicitationRequest("p", "?", mode="url", url="https://x"),
            accept_defaults=True,
        ).action
        == "decline"
    )


# -- resources --------------------------------------------------------------------------------


async def test_resources_are_listed_and_read_by_the_model_through_a_tool(
    tmp_path: Path, isolated_home: Home
) -> None:
    fleet, events = _fleet(isolated_home, tmp_path, {"p": protocol_server()})
    try:
        await fleet.start()
        listed = [(r.uri, r.name, r.template) for r in fleet.resources("p")]
        spec = fleet.registry.get("mcp__p__read_resource").spec  # type: ignore[union-attr]
        today = await _call(fleet, "mcp__p__read_resource", {"uri": "notes://today"})
        templated = await _call(
            fleet, "mcp__p__read_resource", {"uri": "notes://day/monday"}
        )
    finally:
        await fleet.aclose()
    assert ("notes://today", "today", False) in listed and (
        "notes://day/{day}",
        "day",
        True,
    ) in listed
    assert (
        "notes://today" in spec.description and "notes://day/{day}" in spec.description
    )
    assert (today.ok, today.content) == (True, "buy milk")
    assert templated.content == "note of monday"
    ready = [
        e for e in events if isinstance(e, McpServerChanged) and e.state == "ready"
    ][-1]
    assert "mcp__p__read_resource" in ready.tools and "notes://today" in ready.resources


async def test_a_resource_read_is_cut_to_resource_max_bytes(
    tmp_path: Path, isolated_home: Home
) -> None:
    fleet, _ = _fleet(
        isolated_home, tmp_path, {"p": protocol_server()}, resource_max_bytes=1000
    )
    try:
        await fleet.start()
        big = await _call(fleet, "mcp__p__read_resource", {"uri": "notes://big"})
    finally:
        await fleet.aclose()
    assert big.content.startswith("x" * 1000) and "x" * 1001 not in big.content
    assert (
        "(mcp.resource_max_bytes)" in big.content
        and big.summary == "200,000 bytes (cut)"
    )


async def test_a_resource_named_with_at_server_colon_uri_is_attached(
    tmp_path: Path, isolated_home: Home
) -> None:
    fleet, _ = _fleet(isolated_home, tmp_path, {"p": protocol_server()})
    try:
        text = await fleet.attach_mentions(
            "summarise @p:notes://today please, and mail a@b.org"
        )
        missing = await fleet.attach_mentions("and @p:notes://nothing-here")
        untouched = await fleet.attach_mentions(
            "ask @home:https://example.org about it"
        )
    finally:
        await fleet.aclose()
    assert text.startswith("summarise @p:notes://today please")
    assert "[attached @p:notes://today (8 bytes)]\nbuy milk" in text
    assert "[@p:notes://nothing-here could not be attached:" in missing
    assert untouched == "ask @home:https://example.org about it"


# -- prompts ----------------------------------------------------------------------------------


async def test_prompts_are_listed_with_their_arguments_and_run(
    tmp_path: Path, isolated_home: Home
) -> None:
    fleet, events = _fleet(isolated_home, tmp_path, {"p": protocol_server()})
    try:
        await fleet.start()
        prompt = fleet.find_prompt("/mcp__p__review")
        assert prompt is not None
        text = await fleet.get_prompt(prompt, {"topic": "the plan"})
    finally:
        await fleet.aclose()
    assert prompt.description == "Review something"
    assert [(a.name, a.required) for a in prompt.arguments] == [
        ("topic", True),
        ("depth", False),
    ]
    assert text == "Please review the plan (short)."
    ready = [
        e for e in events if isinstance(e, McpServerChanged) and e.state == "ready"
    ][-1]
    assert ready.prompts == ("/mcp__p__review",)


async def test_a_changed_prompt_list_is_followed(
    tmp_path: Path, isolated_home: Home
) -> None:
    import asyncio
    import time

    fleet, events = _fleet(isolated_home, tmp_path, {"p": protocol_server()})
    try:
        await fleet.start()
        assert fleet.find_prompt("/mcp__p__later") is None
        assert (await _call(fleet, "mcp__p__more_prompts", {})).content == "added"
        deadline = time.monotonic() + 30
        while fleet.find_prompt("/mcp__p__later") is None:
            assert time.monotonic() < deadline, "the new prompt never arrived"
            await asyncio.sleep(0.05)
    finally:
        await fleet.aclose()
    announced = [
        e.prompts
        for e in events
        if isinstance(e, McpServerChanged) and e.state == "ready"
    ]
    assert announced[-1] == ("/mcp__p__review", "/mcp__p__later")


# -- sampling ---------------------------------------------------------------------------------


async def test_sampling_is_refused_unless_configured_then_asked_and_answered_by_the_model(
    project: Path, isolated_home: Home
) -> None:
    from aiq_tui.tools.base import Decision
    from tests.agent.helpers import openai_engine
    from tests.llm.fakes import FakeModelServer, openai_text_stream, sse_reply
    from tests.mcp.conftest import write_config

    async def haiku(
        sampling: bool, decision: Decision
    ) -> tuple[str, list[Any], list[Any]]:
        write_config(
            isolated_home,
            {"p": protocol_server()},
            tools={"permissions": {"mcp__p": "allow"}},
            mcp={"sampling": sampling},
        )
        asked: list[Any] = []

        async def approver(request: Any) -> Decision:
            asked.append(request)
            return decision

        async with FakeModelServer(
            [sse_reply(openai_text_stream(["old pond, a frog"]))]
        ) as server:
            engine, _ = openai_engine(isolated_home.root, server.base_url)
            engine.approver = approver
            try:
                await engine.start_mcp()
                result = await engine.tools.get("mcp__p__haiku").run({"topic": "ponds"})  # type: ignore[union-attr]
            finally:
                await engine.aclose()
            return result.to_model_text(), asked, server.requests

    text, asked, requests = await haiku(False, Decision.ALLOW_ONCE)
    assert (
        "sampled:" not in text and asked == [] and requests == []
    )  # not declared: the server gets an error
    text, asked, requests = await haiku(True, Decision.DENY)
    assert "sampled:" not in text and len(asked) == 1 and requests == []
    assert (
        asked[0].title == "Let MCP server p use the model"
        and "A haiku on ponds" in asked[0].detail
    )
    text, asked, requests = await haiku(True, Decision.ALLOW_ONCE)
    assert text == "sampled: old pond, a frog (gpt-4o-mini)"
    sent = json.dumps(
        requests[0].body
    )  # the server's system prompt and message, and no tools
    assert (
        "You write haiku." in sent
        and "A haiku on ponds" in sent
        and not requests[0].body.get("tools")
    )


# -- server-everything ------------------------------------------------------------------------


async def test_server_everything_shows_what_a_capable_client_gets(
    tmp_path: Path, isolated_home: Home
) -> None:
    fleet, events = _fleet(isolated_home, tmp_path, {"everything": everything_server()})
    seen: list[Any] = []
    try:
        await fleet.start()
        names = fleet.tool_names()
        roots = await _call(fleet, "mcp__everything__get-roots-list", {})
        progress = await _call(
            fleet,
            "mcp__everything__trigger-long-running-operation",
            {"duration": 1, "steps": 2},
            seen,
        )
        architecture = await _call(
            fleet,
            "mcp__everything__read_resource",
            {"uri": "demo://resource/static/document/architecture.md"},
        )
        prompt = fleet.find_prompt("/mcp__everything__args-prompt")
        assert prompt is not None
        prompted = await fleet.get_prompt(prompt, {"city": "Paris"})
    finally:
        await fleet.aclose()
    # tools it hides from a client that declares nothing:
    assert {
        "mcp__everything__get-roots-list",
        "mcp__everything__trigger-elicitation-request",
    } <= set(names)
    # one that needs task augmentation, which this client does not do, is never offered:
    assert "mcp__everything__simulate-research-query" not in names
    ready = [
        e for e in events if isinstance(e, McpServerChanged) and e.state == "ready"
    ][-1]
    assert (
        ready.unusable == ("simulate-research-query",)
        and "task augmentation" in ready.message
    )
    assert tmp_path.as_uri() in roots.content
    assert [e.label() for e in seen if isinstance(e, McpProgress)] == ["1/2", "2/2"]
    assert progress.ok and architecture.content.startswith("# Everything Server")
    assert "Paris" in prompted


# -- headless: aiq-tui ask --------------------------------------------------------------------


def _ask(
    monkeypatch: pytest.MonkeyPatch, model: Any, *flags: str, question: str
) -> int:
    from aiq_tui.cli import main

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    monkeypatch.setenv("OPENAI_BASE_URL", model.server.base_url)
    return main(["ask", "--provider", "openai", *flags, question])


def test_ask_attaches_an_at_mentioned_resource_to_the_question(
    project: Path, isolated_home: Home, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.llm.fakes import openai_text_stream, sse_reply
    from tests.mcp.conftest import write_config
    from tests.security.test_ask_hostile_model import ScriptedModel

    write_config(isolated_home, {"p": protocol_server()})
    with ScriptedModel([sse_reply(openai_text_stream(["Milk."]))]) as model:
        code = _ask(
            monkeypatch, model, "--deny-all", question="what does @p:notes://today say?"
        )
    assert code == 0
    user = [
        m["content"]
        for m in model.server.requests[0].body["messages"]
        if m["role"] == "user"
    ][-1]
    assert user.startswith("what does @p:notes://today say?")
    assert user.endswith("[attached @p:notes://today (8 bytes)]\nbuy milk")


@pytest.mark.parametrize(
    ("flags", "colour"),
    [
        (("--deny-all",), "no colour: decline"),
        (("--yes",), "no colour: decline"),  # --yes approves tool calls, not questions
        (("--yes", "--accept-elicitation-defaults"), "colour blue"),
    ],
)
def test_ask_declines_a_servers_question_headless_unless_defaults_are_accepted(
    project: Path,
    isolated_home: Home,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    flags: tuple[str, ...],
    colour: str,
) -> None:
    """Nobody to ask: declined; --accept-elicitation-defaults takes the server's own defaults,
    declines when a required field (the name) has none."""
    from tests.llm.fakes import openai_text_stream, openai_tool_stream, sse_reply
    from tests.mcp.conftest import write_config
    from tests.security.test_ask_hostile_model import ScriptedModel

    write_config(
        isolated_home,
        {"p": protocol_server()},
        tools={"permissions": {"mcp__p": "allow"}},
    )
    replies = [
        sse_reply(
            openai_tool_stream(
                [
                    ("call_1", "mcp__p__ask_name", "{}"),
                    ("call_2", "mcp__p__ask_colour", "{}"),
                    ("call_3", "mcp__p__steps", '{"n": 2}'),
                ]
            )
        ),
        sse_reply(openai_text_stream(["done"])),
    ]
    with ScriptedModel(replies) as model:
        code = _ask(monkeypatch, model, *flags, question="greet me")
    _, err = capsys.readouterr()
    assert code == 0, err
    results = [
        m["content"]
        for m in model.server.requests[1].body["messages"]
        if m["role"] == "tool"
    ]
    assert results[:2] == ["no name: decline", colour]
    assert "mcp p asked: What is your name? — declined: " in err
    assert "mcp p: 1/2 — step 1" in err and "mcp p: 2/2 — step 2" in err
