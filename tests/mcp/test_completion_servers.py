"""``completion/complete`` against real servers: an SDK-written one (values, context, a slow and a
failing answer, a server that declares no completions) and, in the TUI, the reference
server-everything when installed (``make test-servers``)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from aiq_tui.config import validate_config
from aiq_tui.locations import Home
from aiq_tui.tools.mcp.completion import ValueRequest
from aiq_tui.tools.mcp.connection import McpError
from aiq_tui.tools.mcp.fleet import McpFleet
from aiq_tui.tools.registry import ToolRegistry
from aiq_tui.ui.app import AiqApp
from aiq_tui.ui.widgets.choice_list import ChoiceList
from tests.agent.helpers import openai_engine
from tests.llm.fakes import FakeModelServer
from tests.mcp.conftest import write_config
from tests.mcp.test_protocol_features import everything_server

sys.path.insert(0, str(Path(__file__).parents[1] / "ui"))

from conftest import fixed_clock

pytestmark = pytest.mark.slow

COMPLETION_SERVER = Path(__file__).with_name("completion_server.py")
DAY = "notes://day/{day}"


def _fleet(home: Home, cwd: Path, *flags: str, **mcp: Any) -> McpFleet:
    server = {"command": sys.executable, "args": [str(COMPLETION_SERVER), *flags]}
    config = validate_config({"mcp": {"servers": {"c": server}, **mcp}})
    return McpFleet(home, config, cwd, ToolRegistry([]), lambda event: None)


async def test_values_come_from_the_server_with_the_other_arguments_as_context(
    tmp_path: Path, isolated_home: Home
) -> None:
    fleet = _fleet(isolated_home, tmp_path)
    try:
        await fleet.start()
        assert fleet.offers_completions("c")
        assert await fleet.complete(
            ValueRequest("c", "ref/resource", DAY, "day", "t")
        ) == ["tuesday", "thursday"]
        assert await fleet.complete(
            ValueRequest(
                "c", "ref/prompt", "review", "depth", "", (("topic", "the code"),)
            )
        ) == ["short", "deep"]
        assert await fleet.complete(
            ValueRequest("c", "ref/prompt", "review", "depth", "")
        ) == ["short"]
    finally:
        await fleet.aclose()


async def test_a_slow_or_failing_answer_is_an_error_within_the_timeout_and_the_server_stays_up(
    tmp_path: Path, isolated_home: Home
) -> None:
    fleet = _fleet(isolated_home, tmp_path, completion_timeout_seconds=0.5)
    try:
        await fleet.start()
        started = time.monotonic()
        with pytest.raises(McpError) as slow:
            await fleet.complete(ValueRequest("c", "ref/resource", DAY, "day", "slow"))
        assert slow.value.kind == "timeout" and "mcp.completion_timeout_seconds" in str(
            slow.value
        )
        assert time.monotonic() - started < 5
        with pytest.raises(McpError) as failed:
            await fleet.complete(ValueRequest("c", "ref/resource", DAY, "day", "boom"))
        assert failed.value.kind == "-32603"
        assert await fleet.complete(
            ValueRequest("c", "ref/resource", DAY, "day", "mo")
        ) == ["monday"]
    finally:
        await fleet.aclose()


async def test_a_server_without_the_capability_is_never_asked(
    tmp_path: Path, isolated_home: Home
) -> None:
    fleet = _fleet(isolated_home, tmp_path, "--no-completions")
    try:
        await fleet.start()
        assert [r.uri for r in fleet.resources()] == [DAY]  # ready, with its template
        assert not fleet.offers_completions("c")
        with pytest.raises(McpError) as refused:
            await fleet.complete(ValueRequest("c", "ref/resource", DAY, "day", "mo"))
        assert refused.value.kind == "not_offered"
    finally:
        await fleet.aclose()


# -- server-everything in the TUI -----------------------------------------------------------------


async def _until(
    pilot: Pilot, condition: Callable[[], Any], seconds: float = 60
) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        await pilot.pause(0.05)


def _shown(app: AiqApp) -> list[str]:
    choices = app.query_one("#choices", ChoiceList)
    return [choice.label for choice in choices.choices] if choices.display else []


async def _type(pilot: Pilot, text: str) -> None:
    await pilot.press(*("space" if char == " " else char for char in text))


async def test_server_everything_completes_mentions_prompts_and_their_values_in_the_tui(
    project: Path, isolated_home: Home
) -> None:
    write_config(isolated_home, {"everything": everything_server()})
    async with FakeModelServer([]) as server:
        engine, _ = openai_engine(isolated_home.root, server.base_url)
        app = AiqApp(engine, clock=fixed_clock, watch=False)
        async with app.run_test(size=(120, 36)) as pilot:
            await _until(
                pilot,
                lambda: (
                    getattr(app.mcp_servers.get("everything"), "state", "") == "ready"
                ),
            )
            prompt = app.query_one("#prompt")

            # a resource, by part of its URI
            await _type(pilot, "explain @archi")
            await _until(
                pilot,
                lambda: (
                    _shown(app)
                    == ["@everything:demo://resource/static/document/architecture.md"]
                ),
            )
            await pilot.press("tab")
            assert (
                prompt.value
                == "explain @everything:demo://resource/static/document/architecture.md "
            )

            # a template: its literal part, then the variable's value from the server
            prompt.value = ""
            await _type(pilot, "@everything:demo://resource/dynamic/te")
            await _until(
                pilot,
                lambda: (
                    "@everything:demo://resource/dynamic/text/{resourceId}"
                    in _shown(app)
                ),
            )
            await pilot.press("tab")
            assert prompt.value == "@everything:demo://resource/dynamic/text/"
            # its completer accepts a positive integer, echoed back: typed in full, nothing more to show
            template = "demo://resource/dynamic/text/{resourceId}"
            assert await engine.mcp.complete(
                ValueRequest("everything", "ref/resource", template, "resourceId", "7")
            ) == ["7"]
            await _type(pilot, "7")
            await pilot.pause()
            assert (
                _shown(app) == []
                and prompt.value == "@everything:demo://resource/dynamic/text/7"
            )

            # a prompt, its arguments' names, their values (the second narrowed by the first)
            prompt.value = ""
            await _type(pilot, "/mcp__everything__compl")
            await _until(
                pilot, lambda: _shown(app) == ["/mcp__everything__completable-prompt"]
            )
            await pilot.press("tab")
            await _until(pilot, lambda: _shown(app) == ["department=", "name="])
            await pilot.press("tab")
            await _type(pilot, "E")
            await _until(pilot, lambda: _shown(app) == ["department=Engineering"])
            await pilot.press("tab")
            await _until(pilot, lambda: _shown(app) == ["name="])
            await pilot.press("tab")
            await _until(
                pilot, lambda: _shown(app) == ["name=Alice", "name=Bob", "name=Charlie"]
            )
            await pilot.press("down", "tab")
            assert (
                prompt.value
                == "/mcp__everything__completable-prompt department=Engineering name=Bob "
            )
            await app.action_quit()
