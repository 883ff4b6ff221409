"""The step-through ``/demo`` (issue 22 item 3's view): the live view paused after every step.

Stepping with → alone (approvals answered "n"), a user sees skills climb to Active and full,
data-report at brief and then at full, the gauge stand in each stage's band (80–89, 90–94,
95–100 %) when that stage acts — fresh, and after a question (the demo then starts its own
session) — an evicted skill marked as evicted, and at the end a summary saying how to replay it.
The frames where a stage fires are snapshots.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

sys.path.insert(0, str(Path(__file__).parent))

from conftest import fixed_clock
from helpers import answer_approval, notices, say, wait_until

from aiq_tui.agent.engine import Engine
from aiq_tui.ui.app import AiqApp
from aiq_tui.ui.screens.approval import ApprovalScreen
from aiq_tui.ui.widgets.skills_pane import SkillsPane
from aiq_tui.workspace import Workspace
from tests.replay.bands import compressions, out_of_band

pytestmark = pytest.mark.slow
SIZE = (120, 36)


def demo_app(home: Path) -> AiqApp:
    # Keyword matching only: semantic vectors embed in a thread, and a ranking that depends on
    # whether they were ready would change the story's figures from run to run.
    (home / "config").mkdir(parents=True, exist_ok=True)
    (home / "config" / "config.yaml").write_text(
        "matching:\n  semantic: off\n", encoding="utf-8"
    )
    engine = Engine.create(Workspace.open(home_flag=home))
    engine.config.ui.demo_turn_pause = 0
    engine.session.id = "demo-session"  # the header shows it: fixed for the pictures
    app = AiqApp(engine, clock=fixed_clock, watch=False, flash_seconds=3600)
    app.animation_level = "none"
    return app


def bar(app: AiqApp) -> str:
    return str(app.screen_stack[0].query_one("#cursor-bar").render())


async def step_until(
    pilot: Pilot, done: Callable[[AiqApp], bool], limit: int = 400
) -> list[tuple[str, Any]]:
    """Press → (and "n" on approval dialogs) until ``done``; returns (bar, state) per step."""
    app = pilot.app
    seen: list[tuple[str, Any]] = []
    for _ in range(limit):
        if done(app):
            return seen
        if isinstance(app.screen, ApprovalScreen):
            # the step on screen is the one that asks (issue 31: never ahead of its caption)
            assert "asks for your approval" in bar(app), bar(app)
            await answer_approval(pilot, "n")
        else:
            await pilot.press("right")
        await pilot.pause()
        seen.append((bar(app), app.cursor.shown))
    raise AssertionError(f"not reached in {limit} steps; last bar: {bar(app)}")


def finished(app: AiqApp) -> bool:
    return app.demo is not None and app.demo.finished and app.cursor.after == 0


async def test_stepping_the_demo_shows_every_stage_an_eviction_and_a_skill_climbing(
    tmp_path: Path,
) -> None:
    app = demo_app(tmp_path / "home")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"/demo", "enter")
        await pilot.pause()
        assert app.cursor.paused and "step" in bar(app)
        seen = await step_until(pilot, finished)
        for stage in (80, 90, 95):
            at = [
                index
                for index, (text, _) in enumerate(seen)
                if f"stage {stage}" in text and "→" in text
            ]
            assert at, f"no step's caption names stage {stage}"
            # the gauge stood past the threshold on the step before the stage acted (on its own
            # step the gauge follows the caption's "→ N %")
            before = seen[at[0] - 1][1].budget
            assert before.fraction * 100 >= stage, (stage, before.total)
        journeys: dict[str, list[str]] = {}
        for _, state in seen:
            for row in state.skills:
                if not journeys.get(row.name) or journeys[row.name][-1] != row.state:
                    journeys.setdefault(row.name, []).append(row.state)
        full = {
            row.name
            for _, state in seen
            for row in state.skills
            if (row.state, row.phase) == ("active", "full")
        }
        assert {"sql-explorer", "data-report"} <= full, journeys  # they climb to full
        assert any("relevant" in j for j in journeys.values()), journeys
        # one skill is seen at brief on one step and at full on a later one, its caption saying so
        phases: dict[str, list[str]] = {}
        for _text, state in seen:
            for row in state.skills:
                if (
                    row.state != "inactive"
                    and phases.get(row.name, [""])[-1] != row.phase
                ):
                    phases.setdefault(row.name, []).append(row.phase)
        assert phases.get("data-report", [])[:2] == ["brief", "full"], phases
        assert any(
            "data-report" in text and "climbs from brief to full" in text
            for text, _ in seen
        )
        assert not out_of_band(app.cursor.records[app.demo.start :]), compressions(
            app.cursor.records[app.demo.start :]
        )
        evicted = [
            state for _, state in seen if any(row.evicted for row in state.skills)
        ]
        assert evicted and any(
            r.evicted.startswith("evicted at 9") for r in evicted[-1].skills
        )
        pane = app.query_one(SkillsPane)
        # the end: the summary says how to replay, and the pane marks what was evicted
        assert (
            bar(app).splitlines()[-1] == "the end · ← back · End live"
        )  # nothing offered that does nothing
        last = app.cursor.shown.conversation[-1].text
        assert "Replay it" in last and "aiq-tui replay" in last
        from aiq_tui.skills.model import SkillState

        assert any(v.evicted for v in pane.views_in(SkillState.INACTIVE))


async def test_after_a_question_the_demo_starts_its_own_session_and_each_stage_fires_in_its_band(
    tmp_path: Path,
) -> None:
    app = demo_app(tmp_path / "home")
    async with app.run_test(size=SIZE) as pilot:
        await say(
            pilot, "show the tables in the sample database"
        )  # the README's first question
        await wait_until(
            lambda: not app._turn_running() and len(app.engine.session.messages) > 1,
            "the question answered",
        )
        asked_in = app.engine.session.id
        await pilot.press(*"/demo", "enter")
        await pilot.pause()
        await step_until(pilot, finished)
        assert app.engine.session.id != asked_in
        assert any(
            "/demo starts its own session" in text and asked_in in text
            for text in notices(app)
        ), notices(app)
        records = app.cursor.records[app.demo.start :]
        fired = compressions(records)
        assert {stage for stage, _ in fired} == {80, 90, 95}, fired
        assert not out_of_band(records), fired


async def test_space_plays_the_demo_and_pauses_again(tmp_path: Path) -> None:
    app = demo_app(tmp_path / "home")
    app.engine.config.ui.demo_step_seconds = 0.2
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"/demo", "enter")
        await pilot.pause()
        start = app.cursor.index
        await pilot.press("space")
        assert app.demo.playing and "playing" in bar(app)
        await wait_until(lambda: app.cursor.index > start, "a step played")
        await pilot.press("space")
        assert not app.demo.playing and app.cursor.paused
        assert app.cursor.index > start
        await pilot.press("escape")  # stops the demo: back to the live view


FRAMES = Path(__file__).parent / "fixtures" / "demo_records.json"


def recorded_demo_app(tmp_path: Path) -> AiqApp:
    """The step-through view over a recorded ``/demo`` run (tests/ui/fixtures/demo_records.json,
    the events a run folds): the same frames every time, whatever this machine's token counts."""
    from fake_engine import FakeEngine

    app = AiqApp(
        FakeEngine(tmp_path), clock=fixed_clock, watch=False, flash_seconds=3600
    )
    app.animation_level = "none"
    return app


def stage_frame(stage: int) -> Callable[[Pilot], Any]:
    async def run_before(pilot: Pilot) -> None:
        import json

        from aiq_tui.ui.app import DemoSteps

        app = pilot.app
        await pilot.pause()
        start = len(app.cursor.records)
        for record in json.loads(FRAMES.read_text(encoding="utf-8")):
            await app.take(record)
        app.demo = DemoSteps(start=start, finished=True)
        app.cursor.position = start
        await app.draw()
        await step_until(
            pilot, lambda app: f"stage {stage}" in bar(app) and "→" in bar(app)
        )
        await pilot.press("ctrl+o")  # the timeline tab
        await pilot.pause()

    return run_before


@pytest.mark.parametrize("stage", [80, 90, 95])
def test_the_demo_frame_where_a_stage_fires(
    snap_compare, tmp_path: Path, stage: int
) -> None:
    assert snap_compare(
        recorded_demo_app(tmp_path), terminal_size=SIZE, run_before=stage_frame(stage)
    )


async def test_a_command_typed_in_the_paused_demo_keeps_the_step_and_the_text(
    tmp_path: Path,
) -> None:
    """/clear typed while the stepped demo is paused on a step: the demo stays paused on that
    step (no live play without captions), the note says how to end it, the line stays typed."""
    app = demo_app(tmp_path / "home")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        prompt = app.query_one("#prompt")
        prompt.value = "/demo"
        await pilot.press("enter")
        await wait_until(lambda: app.demo is not None and app.cursor.paused, "/demo")
        for _ in range(8):
            if isinstance(app.screen, ApprovalScreen):
                break
            await pilot.press("right")
            await pilot.pause()
        index = app.cursor.index
        shown = bar(app)
        prompt.value = "/clear"
        await pilot.press("enter")
        await pilot.pause()
        assert app.cursor.paused and app.cursor.index == index, "the demo went live"
        assert bar(app) == shown
        assert prompt.value == "/clear", "the typed command was lost"
        toasts = [str(n.message) for n in app._notifications]
        assert any("Esc ends the demo" in t and "/clear" in t for t in toasts), toasts
