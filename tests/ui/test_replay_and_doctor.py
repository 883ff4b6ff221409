"""Replay mode and the Doctor screen, driven like a user would, on the real engine (demo model)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from conftest import fixed_clock
from helpers import say, settle

from aiq_tui.agent.engine import Engine
from aiq_tui.ui.app import AiqApp
from aiq_tui.ui.screens.inspector import InspectorScreen
from aiq_tui.ui.screens.skill_viewer import SkillViewerScreen
from aiq_tui.ui.widgets.conversation import Conversation, UserTurn
from aiq_tui.ui.widgets.timeline import Timeline
from aiq_tui.workspace import Workspace


def real_app(home: Path) -> AiqApp:
    return AiqApp(
        Engine.create(Workspace.open(home_flag=home)), clock=fixed_clock, watch=False
    )


async def wait_until(pilot, condition, timeout: float = 10.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        assert loop.time() < deadline, f"condition not met within {timeout:g} s"
        await pilot.pause(0.05)


async def test_replay_scrubs_the_session_and_esc_returns_to_live(
    tmp_path: Path,
) -> None:
    from aiq_tui.ui.screens.replay import ReplayScreen

    app = real_app(tmp_path / "home")
    async with app.run_test(size=(120, 36)) as pilot:
        await say(pilot, "show the tables in the sample database")
        await settle(pilot)
        await say(pilot, "make a markdown report from the query results")
        await settle(pilot)
        await say(pilot, "/replay")
        await wait_until(pilot, lambda: isinstance(app.screen, ReplayScreen))
        screen = app.screen
        assert (screen.turn, screen.event) == (2, len(screen.turns[1]["events"]))
        assert screen.state.loaded()["data-report"] == ("active", "full")
        await pilot.press("up")  # back one turn: the first turn's end
        await pilot.pause()
        assert screen.turn == 1 and screen.state.loaded()["sql-explorer"] == (
            "active",
            "full",
        )
        await pilot.press(
            "home"
        )  # the first event (events count from 1): the question, nothing loaded yet
        await pilot.pause()
        assert (screen.turn, screen.event) == (1, 1) and "event 1/" in screen.caption()
        assert screen.state.last_event == "turn_started" and not screen.state.loaded()
        users = [
            w
            for w in screen.query_one(Conversation).children
            if isinstance(w, UserTurn)
        ]
        assert len(users) == 1
        # live events that arrive meanwhile wait: replay is read-only
        live_timeline = len(app.screen_stack[0].query_one(Timeline).entries)
        app.engine.reload()  # emits CatalogReloaded, which the live timeline shows
        await pilot.pause()
        assert screen.state.last_event == "turn_started"
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, ReplayScreen)
        await settle(pilot)
        assert (
            len(app.query_one(Timeline).entries) == live_timeline + 1
        )  # delivered after replay


async def test_sessions_picker_r_replays_the_selected_session(tmp_path: Path) -> None:
    from aiq_tui.ui.screens.replay import ReplayScreen

    app = real_app(tmp_path / "home")
    async with app.run_test(size=(120, 36)) as pilot:
        await say(pilot, "show the tables in the sample database")
        await settle(pilot)
        await pilot.press("f4")
        await pilot.pause()
        await pilot.press(
            "r"
        )  # a saved session: read and folded by the screen's worker
        await wait_until(
            pilot,
            lambda: (
                isinstance(app.screen, ReplayScreen)
                and app.screen.loaded
                and app.screen.view is not None
            ),
        )
        assert (
            app.screen.turns[0]["events"][0]["text"]
            == "show the tables in the sample database"
        )
        assert (app.screen.turn, app.screen.event) == (
            1,
            len(app.screen.turns[0]["events"]),
        )
        assert "turn 1/1" in str(app.screen.query_one("#replay-bar").render())


async def test_replay_of_an_empty_session_says_there_is_nothing(tmp_path: Path) -> None:
    from aiq_tui.ui.screens.replay import ReplayScreen

    app = real_app(tmp_path / "home")
    async with app.run_test(size=(120, 36)) as pilot:
        await say(pilot, "/replay")
        await pilot.pause()
        assert not isinstance(app.screen, ReplayScreen)


async def test_doctor_lists_findings_enter_opens_the_skill_and_i_the_inspector(
    tmp_path: Path,
) -> None:
    from aiq_tui.ui.screens.doctor import DoctorScreen

    skills = tmp_path / "skills"
    for name, description in (
        ("combine-docs", "Merge PDF files into one document."),
        ("pdf-merge", "Merge PDF files into one document, fast."),
    ):
        (skills / name).mkdir(parents=True)
        extra = 'triggers: ["merge pdf files"]\n' if name == "pdf-merge" else ""
        (skills / name / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: {description}\n{extra}---\nDo it.\n"
        )
    engine = Engine.create(
        Workspace.open(home_flag=tmp_path / "home", skills_dirs=(str(skills),))
    )
    app = AiqApp(engine, clock=fixed_clock, watch=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await say(pilot, "/doctor")
        await wait_until(
            pilot,
            lambda: (
                isinstance(app.screen, DoctorScreen) and app.screen.report is not None
            ),
        )
        screen = app.screen
        first = screen.report.findings[0]
        assert first.level.value == "error" and first.skills[:2] == (
            "combine-docs",
            "pdf-merge",
        )
        assert screen.selected() == first
        await pilot.press("i")
        await wait_until(pilot, lambda: isinstance(app.screen, InspectorScreen))
        assert app.screen.initial.startswith("Merge PDF files")
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, DoctorScreen))
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, SkillViewerScreen))
