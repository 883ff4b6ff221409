"""Many tools (issue 33 item 7): the tools past mcp.tools_share are not dropped — the model finds
them with tool_search, they are offered from its next request, and they run under the same
permissions as every MCP tool."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from aiq_tui.conversation import ToolSpec
from aiq_tui.events import ToolCallDenied, ToolCallFinished
from aiq_tui.locations import Home
from aiq_tui.tools.mcp.search import rank_tools
from tests.mcp.conftest import fixture_server, installed, write_config
from tests.mcp.test_ask_with_mcp import _answer, _ask, _offered, _tool, _tool_messages
from tests.security.test_ask_hostile_model import ScriptedModel


def _repo(project: Path) -> Path:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = project / "repo"
    repo.mkdir()
    git = [
        "git",
        "-C",
        str(repo),
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@example.test",
    ]
    subprocess.run([*git, "init", "-q", "-b", "trunk"], check=True)
    (repo / "notes.txt").write_text("hello\n")
    subprocess.run([*git, "add", "notes.txt"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "first notes"], check=True)
    return repo


@pytest.mark.slow
def test_the_model_finds_a_git_tool_that_did_not_fit_and_calls_it(
    project: Path,
    isolated_home: Home,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    repo = _repo(project)
    write_config(
        isolated_home,
        {
            "git": {
                "command": installed("mcp-server-git"),
                "args": ["--repository", str(repo)],
            }
        },
        context={"window": 16_000},
        mcp={"tools_share": 0.01},
        tools={"permissions": {"mcp__git": "allow"}},
    )
    replies = [
        _tool("tool_search", {"query": "git log"}),
        _tool("mcp__git__git_log", {"repo_path": str(repo), "max_count": 1}, "call_2"),
        _answer("One commit: first notes."),
    ]
    with ScriptedModel(replies) as model:
        code = _ask(model, monkeypatch, question="what was the last commit?")
    out, err = capsys.readouterr()
    assert code == 0, err
    first, second = _offered(model, 0), _offered(model, 1)
    assert "mcp__git__git_log" not in first  # past the share: not offered up front…
    assert (
        "mcp__git__git_log" in first["tool_search"]["description"]
    )  # …but named, and searchable
    found = json.loads(_tool_messages(model, 1)[0])["tools"]
    assert (
        found[0]["name"] == "mcp__git__git_log"
        and "repo_path" in found[0]["input_schema"]["properties"]
    )
    assert "mcp__git__git_log" in second  # offered from the next request
    assert (
        "first notes" in _tool_messages(model, 2)[1]
    )  # the found tool ran on the real server
    assert (
        "tool tool_search: ok, found" in err and "mcp__git__git_log" in err
    )  # the tool log shows it
    assert "the model can find them with tool_search" in err
    assert "One commit" in out


@pytest.mark.slow
async def test_a_found_tool_keeps_its_permission(
    project: Path, isolated_home: Home
) -> None:
    from tests.agent.helpers import openai_engine
    from tests.llm.fakes import (
        FakeModelServer,
        openai_text_stream,
        openai_tool_stream,
        sse_reply,
    )

    write_config(
        isolated_home,
        {"fx": fixture_server("--tools", "60")},
        context={"window": 16_000},
        mcp={"tools_share": 0.03},
        tools={"permissions": {"mcp__fx": "allow", "mcp__fx__pad_057": "deny"}},
    )
    replies = [
        sse_reply(
            openai_tool_stream(
                [("c1", "tool_search", '{"query": "select:pad_056,pad_057"}')]
            )
        ),
        sse_reply(
            openai_tool_stream(
                [
                    ("c2", "mcp__fx__pad_056", '{"value": "a"}'),
                    ("c3", "mcp__fx__pad_057", '{"value": "b"}'),
                ]
            )
        ),
        sse_reply(openai_text_stream(["done"])),
    ]
    async with FakeModelServer(replies) as server:
        engine, recorder = openai_engine(isolated_home.root, server.base_url)
        try:
            await engine.send("pad two values")
        finally:
            await engine.aclose()
    offered: list[set[str]] = [
        {tool["function"]["name"] for tool in request.body["tools"]}
        for request in server.requests
    ]
    assert (
        "mcp__fx__pad_056" not in offered[0]
        and {"mcp__fx__pad_056", "mcp__fx__pad_057"} <= offered[1]
    )
    search = json.loads(server.requests[1].body["messages"][-1]["content"])
    assert [(t["name"], t["permission"]) for t in search["tools"]] == [
        ("mcp__fx__pad_056", "allow"),
        ("mcp__fx__pad_057", "deny"),
    ]
    finished = {event.name: event.ok for event in recorder.of(ToolCallFinished)}
    assert finished["mcp__fx__pad_056"] is True and "mcp__fx__pad_057" not in finished
    denied = recorder.of(ToolCallDenied)
    assert [event.name for event in denied] == ["mcp__fx__pad_057"]
    assert "tools.permissions.mcp__fx__pad_057" in denied[0].reason


def _spec(name: str, description: str) -> ToolSpec:
    return ToolSpec(
        name=name,
        description=description,
        parameters={"type": "object", "properties": {}},
    )


def test_search_ranks_names_above_descriptions_and_selects_by_name() -> None:
    specs = [
        _spec("mcp__fs__write_file", "Write a file."),
        _spec("mcp__fs__read_text_file", "Read a text file."),
        _spec(
            "mcp__fs__list_directory",
            "List what a directory holds, reading its entries.",
        ),
    ]
    names = lambda found: [spec.name for spec in found]  # noqa: E731
    assert names(rank_tools("read", specs, 5)) == [
        "mcp__fs__read_text_file",
        "mcp__fs__list_directory",
    ]
    assert names(rank_tools("select:list_directory,mcp__fs__write_file", specs, 5)) == [
        "mcp__fs__write_file",
        "mcp__fs__list_directory",
    ]
    assert rank_tools("email", specs, 5) == []
    assert len(rank_tools("file", specs, 1)) == 1


def test_without_left_out_tools_no_search_tool_is_offered(
    project: Path, isolated_home: Home
) -> None:
    from tests.agent.helpers import openai_engine

    engine, _ = openai_engine(isolated_home.root, "http://127.0.0.1:9")
    names: Any = {spec.name for spec in engine.current_prompt().tools}
    assert "tool_search" not in names and "tool_search" in engine.tools


@pytest.mark.slow
@pytest.mark.parametrize(
    ("settings", "offered"),
    [
        ({"mcp": {"tools_share": 0.03, "tool_search": False}}, False),
        (
            {
                "mcp": {"tools_share": 0.03},
                "tools": {"permissions": {"tool_search": "deny"}},
            },
            False,
        ),
        ({"mcp": {"tools_share": 0.03}}, True),
    ],
)
async def test_tool_search_is_offered_only_when_on_and_not_denied(
    project: Path, isolated_home: Home, settings: dict[str, Any], offered: bool
) -> None:
    from tests.agent.helpers import openai_engine

    write_config(
        isolated_home,
        {"fx": fixture_server("--tools", "60")},
        context={"window": 16_000},
        **settings,
    )
    engine, _ = openai_engine(isolated_home.root, "http://127.0.0.1:9")
    try:
        await engine.start_mcp()
        names = {spec.name for spec in engine.current_prompt().tools}
        problems = " ".join(str(p) for p in engine.problems)
    finally:
        await engine.aclose()
    assert ("tool_search" in names) is offered
    assert "not offered to the model up front" in problems
    if not settings["mcp"].get("tool_search", True):
        assert "mcp.tool_search is off" in problems
