"""The skills runtime in the TUI, against the real engine on the demo model: /save-skill, the
viewer's enable/disable, and inactive skills shown with their status."""

from __future__ import annotations

import asyncio
from datetime import datetime
from pathlib import Path

import pytest

from aiq_tui.agent.engine import Engine
from aiq_tui.ui.app import AiqApp
from aiq_tui.ui.screens.skill_viewer import SkillViewerScreen
from aiq_tui.ui.widgets.skills_pane import SECTIONS, SkillsPane
from aiq_tui.workspace import Workspace
from tests.ui.helpers import notices, say, settle

pytestmark = pytest.mark.slow


def fixed_clock() -> datetime:
    return datetime(2025, 1, 2, 12, 0, 0)


def real_app(home: Path) -> AiqApp:
    return AiqApp(
        Engine.create(Workspace.open(home_flag=home)), clock=fixed_clock, watch=False
    )


async def wait_for(pilot, condition, timeout: float = 10.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        assert loop.time() < deadline, f"condition not met within {timeout:g} s"
        await pilot.pause(0.05)


async def test_save_skill_turns_the_last_turn_into_a_composite_and_opens_it(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    app = real_app(home)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await say(pilot, "show the tables in the sample database")
        await settle(pilot, timeout=20)
        called = [r for r in app.engine.session.tool_calls if r.name != "use_skill"]
        assert called, "the demo model calls a tool for this question"
        await say(pilot, "/save-skill table-tour")
        await wait_for(pilot, lambda: isinstance(app.screen, SkillViewerScreen))
        assert (
            app.screen.document.meta.name == "table-tour"
            and app.screen.document.meta.type == "composite"
        )
        assert "table-tour" in app.engine.workspace.catalog
        assert "skill_table-tour" in app.engine.tools
        text = (home / "skills" / "table-tour" / "SKILL.md").read_text()
        assert f"tool: {called[0].name}" in text


async def test_save_skill_without_tool_calls_says_why(tmp_path: Path) -> None:
    app = real_app(tmp_path / "home")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await say(pilot, "/save-skill nothing-yet")
        await settle(pilot)
        assert any("/save-skill" in n and "no turn yet" in n for n in notices(app))


async def test_viewer_disables_and_enables_a_skill_and_the_pane_shows_its_status(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    app = real_app(home)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        app.action_open_skill("http-api")
        await pilot.pause()
        await pilot.press("e")
        await wait_for(pilot, lambda: "http-api" not in app.engine.workspace.catalog)
        assert (
            "status: inactive"
            in (home / "skills" / "http-api" / "SKILL.md").read_text()
        )
        assert "skill_http-api" not in app.engine.tools
        await wait_for(
            pilot,
            lambda: (
                isinstance(app.screen, SkillViewerScreen)
                and app.screen.document.meta.status == "inactive"
            ),
        )
        views = {v.name: v for v in app.engine.skill_views()}
        assert views["http-api"].status == "inactive"
        await pilot.press("e")
        await wait_for(pilot, lambda: "http-api" in app.engine.workspace.catalog)
        assert "skill_http-api" in app.engine.tools
        await pilot.press("escape")
        await settle(pilot)
        pane = app.query_one(SkillsPane)
        assert any(
            v.name == "http-api" and v.status == "active"
            for state in SECTIONS
            for v in pane.views_in(state)
        )


async def test_a_disabled_skill_stays_reachable_by_name_says_disabled_and_is_enabled_from_the_palette(
    tmp_path: Path,
) -> None:
    from aiq_tui.agent.views import SkillView
    from aiq_tui.ui.commands import AiqCommands
    from aiq_tui.ui.widgets.skill_list import skill_line
    from aiq_tui.ui.widgets.timeline import Timeline

    app = real_app(tmp_path / "home")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        app.action_open_skill("data-report")
        await pilot.pause()
        await pilot.press("e")
        await wait_for(pilot, lambda: "data-report" not in app.engine.workspace.catalog)
        await pilot.press("escape")
        await settle(pilot)
        entries = [
            text for kind, text in app.query_one(Timeline).entries if kind == "reload"
        ]
        assert (
            entries
            and "disabled data-report" in entries[-1]
            and "removed" not in entries[-1]
        )
        view = next(v for v in app.engine.skill_views() if v.name == "data-report")
        assert isinstance(view, SkillView) and "disabled" in str(skill_line(view, 34))
        await say(pilot, "/skill data-report")
        await wait_for(pilot, lambda: isinstance(app.screen, SkillViewerScreen))
        assert any("data-report is disabled" in n for n in notices(app))
        assert "disabled" in str(app.screen.query_one("#viewer-title").render())
        await pilot.press("escape")
        await settle(pilot)
        provider = AiqCommands(app.screen)
        hits = [hit async for hit in provider.search("data-report")]
        enable = [hit for hit in hits if "Enable skill: data-report" in str(hit.text)]
        assert enable, [str(hit.text) for hit in hits]
        await enable[0].command()
        await wait_for(pilot, lambda: "data-report" in app.engine.workspace.catalog)


async def test_a_composite_skill_call_shows_its_numbered_plan(tmp_path: Path) -> None:
    from aiq_tui.conversation import ToolCall
    from aiq_tui.tools.registry import approve_all

    app = real_app(tmp_path / "home")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        # The call goes through the engine's registry with the app as the event sink, as in a turn.
        await app.engine.tools.invoke(
            ToolCall("p1", "skill_sales-report-pipeline", {}), approve_all, app._sink
        )
        await settle(pilot)
        plan = [
            n
            for n in notices(app)
            if n.startswith("plan of skill_sales-report-pipeline")
        ]
        assert plan and "1. execute_sql" in plan[0] and "4. file_operations" in plan[0]


async def test_the_viewer_shows_steps_as_json_and_enter_opens_the_whole_field(
    tmp_path: Path,
) -> None:
    """issue 24 §1.6: the viewer's `steps` were a Python repr, cut at the column's edge."""
    import json

    from textual.widgets import DataTable

    from aiq_tui.ui.screens.text_modal import TextModal

    home = tmp_path / "home"
    folder = home / "skills" / "table-tour"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        "---\nname: table-tour\ndescription: List the sample database's tables, then count each one's rows.\n"
        "type: composite\nsteps:\n  - tool: execute_sql\n    args:\n      sql: SELECT name FROM sqlite_master "
        "WHERE type = 'table' ORDER BY name\n  - tool: execute_sql\n    args:\n      sql: SELECT COUNT(*) FROM orders\n"
        "---\n\nA two-step tour.\n"
    )
    app = real_app(home)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        app.action_open_skill("table-tour")
        await wait_for(
            pilot,
            lambda: (
                isinstance(app.screen, SkillViewerScreen)
                and app.screen.query("#frontmatter")
            ),
        )
        await pilot.pause()
        table = app.screen.query_one("#frontmatter", DataTable)
        keys = [row.value for row in table.rows]
        cell = str(table.get_row("steps")[1])
        assert cell.startswith('[{"') and "{'" not in cell
        table.focus()
        table.move_cursor(row=keys.index("steps"))
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, TextModal))
        shown = app.screen.markdown
        body = shown.split("```json\n", 1)[1].rsplit("\n```", 1)[0]
        assert (
            json.loads(body)
            == app.engine.workspace.catalog.get("table-tour").extras["steps"]
        )
