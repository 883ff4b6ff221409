"""No terminal size stops the app: every screen and dialog is drawn over a grid of sizes down to
20×8, on a conversation that holds an answer (a 40-column terminal left the answer pane no
width, and measuring it raised), and the main screen is resized while an answer streams."""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot

sys.path.insert(0, str(Path(__file__).parent))

from conftest import fixed_clock
from fake_engine import FakeEngine, broken_skill_problem, write_skill_files
from helpers import open_sessions_list, say, settle, wait_until

from aiq_tui.agent.engine import Engine
from aiq_tui.ui.app import AiqApp
from aiq_tui.ui.screens.approval import ApprovalScreen
from aiq_tui.workspace import Workspace

WIDTHS = (20, 33, 40, 41, 60, 80, 120)
HEIGHTS = (8, 12, 30)
SIZES = [(width, height) for height in HEIGHTS for width in WIDTHS]


async def draw_at_every_size(pilot: Pilot, screen_type: type | None = None) -> None:
    app = pilot.app
    shown = type(app.screen)
    if screen_type is not None:
        assert isinstance(app.screen, screen_type)
    for width, height in SIZES:
        await pilot.resize_terminal(width, height)
        await pilot.pause()
        assert app.is_running and app.crash is None, (
            f"{shown.__name__} at {width}x{height}: {app.crash}"
        )
        assert type(app.screen) is shown, f"the screen changed at {width}x{height}"
    await pilot.resize_terminal(40, 30)
    await pilot.pause()
    await pilot.resize_terminal(41, 30)  # the reported step: 40x30 → 41x30
    await pilot.pause()
    assert app.is_running and app.crash is None


async def answered(pilot: Pilot) -> None:
    await say(pilot, "show the tables in the sample database")
    await settle(pilot)


async def main_screen(pilot: Pilot) -> None:
    await answered(pilot)


async def help_screen(pilot: Pilot) -> None:
    await answered(pilot)
    await pilot.press("f1")


async def inspector(pilot: Pilot) -> None:
    await answered(pilot)
    await say(pilot, "/match sql tables in a pdf")


async def skill_viewer(pilot: Pilot) -> None:
    write_skill_files(pilot.app.engine, "sql-analyst")
    await answered(pilot)
    pilot.app.action_open_skill("sql-analyst")


async def sessions(pilot: Pilot) -> None:
    await answered(pilot)
    await open_sessions_list(pilot)


async def settings(pilot: Pilot) -> None:
    await answered(pilot)
    await pilot.press("f2")


async def warnings(pilot: Pilot) -> None:
    await answered(pilot)
    await pilot.press("f6")


async def approval(pilot: Pilot) -> None:
    await answered(pilot)
    pilot.app.send("delete order 7 from the sample database")
    await wait_until(lambda: isinstance(pilot.app.screen, ApprovalScreen), "approval")


async def tool_call_details(pilot: Pilot) -> None:
    await answered(pilot)
    pilot.app.query_one("#tool-log").focus()
    await pilot.press("enter")


async def command_palette(pilot: Pilot) -> None:
    await answered(pilot)
    await pilot.press("ctrl+p")


SCREENS: dict[str, Callable[[Pilot], Awaitable[None]]] = {
    "main": main_screen,
    "help": help_screen,
    "inspector": inspector,
    "skill viewer": skill_viewer,
    "sessions": sessions,
    "settings": settings,
    "warnings": warnings,
    "approval": approval,
    "tool call details": tool_call_details,
    "command palette": command_palette,
}


@pytest.mark.parametrize("name", list(SCREENS))
async def test_a_screen_draws_at_every_size(tmp_path: Path, name: str) -> None:
    engine = FakeEngine(
        tmp_path, problems=(broken_skill_problem(tmp_path / ".aiqconfig"),)
    )
    app = AiqApp(engine, clock=fixed_clock, watch=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await SCREENS[name](pilot)
        await pilot.pause()
        await draw_at_every_size(pilot)


async def test_resizing_while_an_answer_streams(tmp_path: Path) -> None:
    engine = FakeEngine(tmp_path, stream_delay=0.01)
    app = AiqApp(engine, clock=fixed_clock, watch=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await say(pilot, "show the tables in the sample database")
        await wait_until(lambda: engine.streamed >= 2, "the answer streaming")
        await draw_at_every_size(pilot)
        await settle(pilot)
        assert app.crash is None


@pytest.mark.parametrize("which", ["replay", "doctor"])
async def test_replay_and_doctor_draw_at_every_size(tmp_path: Path, which: str) -> None:
    from aiq_tui.ui.screens.doctor import DoctorScreen
    from aiq_tui.ui.screens.replay import ReplayScreen

    app = AiqApp(
        Engine.create(Workspace.open(home_flag=tmp_path / "home")),
        clock=fixed_clock,
        watch=False,
    )
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await answered(pilot)
        await say(pilot, f"/{which}")
        screen = ReplayScreen if which == "replay" else DoctorScreen
        await wait_until(lambda: isinstance(app.screen, screen), which)
        await pilot.pause()
        await draw_at_every_size(pilot, screen)
