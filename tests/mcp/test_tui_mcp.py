"""The TUI with MCP servers: the MCP tab lists each server's state and tools, a call shows in
the tool log like a built-in one; a project's server is asked about once in a dialog, after the
trust question and only in a trusted project."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from aiq_tui.events import McpServerChanged
from aiq_tui.locations import Home
from aiq_tui.tools.mcp.approvals import answer_for
from aiq_tui.tools.mcp.servers import ServerDefinition, project_servers
from aiq_tui.ui.app import AiqApp
from aiq_tui.ui.screens.approval import ApprovalScreen
from aiq_tui.ui.screens.mcp_approval import McpApprovalScreen
from aiq_tui.ui.widgets.mcp_pane import McpPane
from aiq_tui.ui.widgets.tool_log import ToolLog
from tests.agent.helpers import openai_engine
from tests.llm.fakes import (
    FakeModelServer,
    openai_text_stream,
    openai_tool_stream,
    sse_reply,
)
from tests.mcp.conftest import fixture_server, write_config

sys.path.insert(0, str(Path(__file__).parents[1] / "ui"))

from conftest import fixed_clock
from fake_engine import FakeEngine

SIZE = (120, 36)


async def _until(
    pilot: Pilot, condition: Callable[[], Any], seconds: float = 60
) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        await pilot.pause(0.05)


def _pane_rows(app: AiqApp) -> list[list[str]]:
    pane = app.query_one("#mcp-pane", McpPane)
    return [
        [str(cell) for cell in pane.get_row_at(index)]
        for index in range(pane.row_count)
    ]


@pytest.mark.slow
async def test_the_tui_shows_the_servers_tools_and_the_call(
    project: Path, isolated_home: Home
) -> None:
    write_config(
        isolated_home,
        {"fx": fixture_server(), "broken": fixture_server("--crash-on-start")},
    )
    replies = [
        sse_reply(
            openai_tool_stream(
                [("call_1", "mcp__fx__echo", json.dumps({"text": "from the tui"}))]
            )
        ),
        sse_reply(openai_text_stream(["The server said it back."])),
    ]
    async with FakeModelServer(replies) as server:
        engine, _ = openai_engine(isolated_home.root, server.base_url)
        app = AiqApp(engine, clock=fixed_clock, watch=False)
        async with app.run_test(size=SIZE) as pilot:
            await _until(
                pilot,
                lambda: (
                    app.mcp_servers.get("fx") is not None
                    and app.mcp_servers["fx"].state == "ready"
                    and app.mcp_servers.get("broken") is not None
                    and app.mcp_servers["broken"].state == "failed"
                ),
            )
            await pilot.pause()
            rows = _pane_rows(app)
            assert ["fx", "ready", "echo"] in rows
            assert any(row[0] == "broken" and row[1] == "failed" for row in rows)
            assert "problem" in str(app.query_one("#problems-banner").render())
            await pilot.press("ctrl+o", "ctrl+o")
            assert app.query_one("#activity").active == "tab-mcp"
            app.send("say it back")
            await _until(
                pilot,
                lambda: (
                    isinstance(app.screen, ApprovalScreen)
                    and bool(app.screen.query("#approval-detail"))
                ),
            )
            assert "mcp__fx__echo" in str(
                app.screen.query_one("#approval-detail").render()
            ) or "echo" in str(app.screen.query_one("#approval-detail").render())
            await _until(pilot, lambda: app.screen.armed)  # after ui.typing_grace
            await pilot.press("y")
            await _until(pilot, lambda: not app.busy)
            record = app.query_one(ToolLog).records["call_1"]
            assert (record.name, record.status, record.result) == (
                "mcp__fx__echo",
                "ok",
                "echo: from the tui",
            )
            await app.action_quit()
        assert (
            engine.mcp.statuses()[0].state == "stopped"
        )  # quitting stopped the servers


async def _trust_first(pilot: Pilot, app: AiqApp, key: str) -> None:
    """The first start asks about the folder before anything else; ``key`` answers it."""
    from aiq_tui.ui.screens.trust import TrustScreen

    await _until(
        pilot,
        lambda: (
            isinstance(app.screen, TrustScreen)
            and bool(app.screen.query("#trust-title"))
        ),
    )
    await pilot.pause(
        0.3
    )  # time enough for a server's question to arrive, were it not held back
    assert isinstance(app.screen, TrustScreen) and not any(
        isinstance(s, McpApprovalScreen) for s in app.screen_stack
    )
    await _until(pilot, lambda: app.screen.armed)  # after ui.typing_grace
    await pilot.press(key)


@pytest.mark.slow
async def test_a_trusted_projects_server_asks_once_after_the_trust_question(
    project: Path, isolated_home: Home
) -> None:
    (project / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"fx": fixture_server()}})
    )
    engine, _ = openai_engine(isolated_home.root, "http://127.0.0.1:9")
    app = AiqApp(engine, clock=fixed_clock, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await _trust_first(pilot, app, "y")
        # Pushed, then composed: wait for the dialog's content, not only the screen.
        await _until(
            pilot,
            lambda: (
                isinstance(app.screen, McpApprovalScreen)
                and bool(app.screen.query("#approval-title"))
            ),
        )
        assert "fx" in str(app.screen.query_one("#approval-title").render())
        assert sys.executable in str(app.screen.query_one("#approval-detail").render())
        await _until(pilot, lambda: app.screen.armed)  # after ui.typing_grace
        await pilot.press("s")
        await _until(pilot, lambda: "mcp__fx__echo" in engine.tools)
        await app.action_quit()
    server = project_servers(project)[0][0]
    assert answer_for(isolated_home, project, server) == "approved"


@pytest.mark.parametrize("key", ["n", "escape"])
@pytest.mark.slow
async def test_an_untrusted_projects_server_is_not_asked_about_nor_started(
    project: Path, isolated_home: Home, key: str
) -> None:
    (project / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"fx": fixture_server()}})
    )
    engine, _ = openai_engine(isolated_home.root, "http://127.0.0.1:9")
    app = AiqApp(engine, clock=fixed_clock, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await _trust_first(pilot, app, key)
        await _until(
            pilot,
            lambda: (
                "fx" in app.mcp_servers
                and app.mcp_servers["fx"].state == "not approved"
            ),
        )
        assert not isinstance(app.screen, McpApprovalScreen)
        assert "aiq-tui mcp approve fx" in app.mcp_servers["fx"].message
        await app.action_quit()
    assert "mcp__fx__echo" not in engine.tools


@pytest.mark.slow
async def test_not_now_leaves_the_server_stopped_and_asks_again_next_time(
    project: Path, isolated_home: Home
) -> None:
    (project / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"fx": fixture_server()}})
    )
    engine, _ = openai_engine(isolated_home.root, "http://127.0.0.1:9")
    app = AiqApp(engine, clock=fixed_clock, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await _trust_first(pilot, app, "y")
        await _until(pilot, lambda: isinstance(app.screen, McpApprovalScreen))
        await pilot.press("escape")
        await _until(pilot, lambda: app.mcp_servers["fx"].state == "not approved")
        await app.action_quit()
    assert "mcp__fx__echo" not in engine.tools
    assert answer_for(isolated_home, project, project_servers(project)[0][0]) is None


# -- pictures ---------------------------------------------------------------------------------


def _fake_app(tmp_path: Path) -> tuple[AiqApp, FakeEngine]:
    engine = FakeEngine(tmp_path)
    app = AiqApp(engine, clock=fixed_clock, watch=False, flash_seconds=3600)
    app.animation_level = "none"
    return app, engine


def _servers() -> list[McpServerChanged]:
    tools = ("mcp__time__get_current_time", "mcp__time__convert_time")
    return [
        McpServerChanged(
            "time", "ready", "config", "mcp-server-time", tools, "2 tools"
        ),
        McpServerChanged(
            "git",
            "failed",
            "config",
            "mcp-server-git --repository /nowhere",
            (),
            "the server exited (or closed its output) before it was ready",
        ),
        McpServerChanged(
            "project-db",
            "not approved",
            "project",
            "npx -y db-server",
            (),
            "not started: .mcp.json belongs to a project you have not trusted. Trust the project "
            "with `aiq-tui trust`, or approve this server with `aiq-tui mcp approve project-db`",
        ),
    ]


class TestMcpScreens:
    def test_mcp_tab(self, snap_compare, tmp_path: Path) -> None:
        app, engine = _fake_app(tmp_path)

        async def run_before(pilot: Pilot) -> None:
            for event in _servers():
                engine.emit(event)
            await _until(pilot, lambda: len(app.mcp_servers) == 3)
            await pilot.pause()
            app.clear_notifications()  # the failures' toasts would hide the pane
            await pilot.press("ctrl+o", "ctrl+o")
            await pilot.pause()

        assert snap_compare(app, terminal_size=SIZE, run_before=run_before)

    def test_mcp_approval_dialog(self, snap_compare, tmp_path: Path) -> None:
        app, _ = _fake_app(tmp_path)
        server = ServerDefinition(
            name="project-db",
            source="project",
            origin=Path("/work/app/.mcp.json"),
            transport="stdio",
            command="npx",
            args=("-y", "db-server", "--dsn", "${DB_DSN}"),
            env=(("LOG_LEVEL", "debug"),),
        )

        async def run_before(pilot: Pilot) -> None:
            app.run_worker(
                app.project_trust.approve_mcp_server(server),
                group="mcp-ask",
                exit_on_error=False,
            )
            await _until(pilot, lambda: isinstance(app.screen, McpApprovalScreen))
            await pilot.pause()

        assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


async def test_mcp_states_are_readable_in_both_themes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ready / failed / not approved and the muted reasons reach 4.5:1 on the pane's rows (issue 24
    item 11: fixed ANSI names were 2–3:1 on the light theme)."""
    from drawn_contrast import drawn_contrasts

    monkeypatch.delenv("NO_COLOR")
    app, engine = _fake_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        for event in _servers():
            engine.emit(event)
        await _until(pilot, lambda: len(app.mcp_servers) == 3)
        app.clear_notifications()
        await pilot.press("ctrl+o", "ctrl+o")
        await pilot.pause()
        pane = app.query_one(McpPane)
        pane.move_cursor(row=pane.row_count - 1)
        faint, drawn = [], set()
        for theme in (
            "textual-light",
            "textual-dark",
            "textual-light",
        ):  # drawn again per theme
            app.theme = theme
            await pilot.pause()
            await pilot.pause()
            for ratio, text in drawn_contrasts(app, pane.region):
                drawn.add(text)
                if ratio < 4.5:
                    faint.append((theme, text, ratio))
        assert {"ready", "failed"} <= drawn
        assert not faint, faint
