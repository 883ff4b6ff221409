"""Main flows against the REAL engine on the offline demo provider, in a temp config home."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

engine_module = pytest.importorskip("aiq_tui.agent.engine")

from conftest import fixed_clock
from helpers import deny_approvals_until, say, settle, wait_until

from aiq_tui.skills.model import SkillState
from aiq_tui.ui.app import AiqApp
from aiq_tui.ui.widgets.budget_gauge import BudgetGauge
from aiq_tui.ui.widgets.conversation import Conversation, UserTurn
from aiq_tui.ui.widgets.skills_pane import SkillsPane
from aiq_tui.ui.widgets.timeline import Timeline
from aiq_tui.ui.widgets.tool_log import ToolLog
from aiq_tui.workspace import Workspace

pytestmark = pytest.mark.slow


def real_app(home: Path, *, watch: bool = False) -> AiqApp:
    engine = engine_module.Engine.create(Workspace.open(home_flag=home))
    return AiqApp(engine, clock=fixed_clock, watch=watch)


async def test_first_run_demo_conversation_loads_skills_runs_a_tool_and_moves_the_gauge(
    tmp_path: Path,
) -> None:
    app = real_app(tmp_path / "home")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert app.query_one("#banner").display
        before = app.query_one(BudgetGauge).breakdown
        await say(pilot, "show the tables in the sample database")
        await settle(pilot, timeout=20)
        pane = app.query_one(SkillsPane)
        assert pane.views_in(SkillState.ACTIVE) or pane.views_in(SkillState.RELEVANT)
        assert app.query_one(ToolLog).records, (
            "the demo model should have called a tool"
        )
        assert app.query_one(Conversation).last_answer
        assert app.query_one(BudgetGauge).breakdown != before


async def test_slash_skill_with_real_engine(tmp_path: Path) -> None:
    app = real_app(tmp_path / "home")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        name = sorted(app.engine.workspace.catalog.names())[0]
        await say(pilot, f"/skill {name}")
        await settle(pilot)
        assert name in [
            v.name for v in app.query_one(SkillsPane).views_in(SkillState.ACTIVE)
        ]


async def test_live_reload_shows_a_new_skill_and_keeps_going_after_a_broken_edit(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    app = real_app(home, watch=True)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(
            lambda: any(w.group == "watch" and w.is_running for w in app.workers),
            "the watcher",
        )
        folder = home / "skills" / "fresh-skill"
        folder.mkdir(parents=True)
        for attempt in range(
            60
        ):  # written again until seen: the watcher may still be starting
            (folder / "SKILL.md").write_text(
                f"---\nname: fresh-skill\ndescription: A new skill.\n---\nBody {attempt}.\n"
            )
            try:
                await wait_until(
                    lambda: "fresh-skill" in app.engine.workspace.catalog,
                    "the new skill",
                    timeout=2,
                )
                break
            except AssertionError:
                continue
        await settle(pilot)
        assert "fresh-skill" in [
            v.name for v in app.query_one(SkillsPane).views_in(SkillState.INACTIVE)
        ]
        (folder / "SKILL.md").write_text(
            "---\nname: fresh-skill\n---\nno description\n"
        )
        await wait_until(
            lambda: any(kind == "warn" for kind, _ in app.query_one(Timeline).entries),
            "the broken edit's warning",
        )


async def test_session_is_saved_and_resumed(tmp_path: Path) -> None:
    home = tmp_path / "home"
    app = real_app(home)
    async with app.run_test(size=(120, 36)) as pilot:
        await say(pilot, "show the tables in the sample database")
        await settle(pilot, timeout=20)
        saved_id = app.engine.session.id
        await say(pilot, "/clear")
        await settle(pilot)
        assert app.engine.session.id != saved_id
        app.session_control.resume(saved_id)
        await settle(pilot)
        assert app.engine.session.id == saved_id
        assert app.query_one(Conversation).last_answer


async def test_long_demo_shows_every_compression_stage_in_the_timeline_and_gauge(
    tmp_path: Path,
) -> None:
    app = real_app(tmp_path / "home")
    app.engine.config.ui.demo_turn_pause = 0
    app.engine.config.ui.demo_step_seconds = 0  # played live, not stepped
    async with app.run_test(size=(120, 36)) as pilot:
        await say(pilot, "/demo play")
        # On the engine's state, not on the screen going idle (that timed out under load);
        # the story's report write and command ask for approval: deny both, so the test's
        # working directory stays untouched.
        answered = await deny_approvals_until(
            pilot,
            lambda: not app._turn_running(),
            "the long demo to finish",
            timeout=600,
        )
        await app.drained()
        assert answered == 2
        summarised = [
            turn for turn in app.query(UserTurn) if turn.has_class("-summarised")
        ]
        assert (
            summarised
        )  # and the mark is drawn in the block's own first line, where it is seen
        first = summarised[0]
        assert (
            "summarised  Use the sql-explorer skill"
            in first.render_lines(first.content_region.reset_offset)[0].text
        )
        compressions = [
            text for kind, text in app.query_one(Timeline).entries if kind == "compress"
        ]
        for stage in ("stage 80%", "stage 90%", "stage 95%"):
            assert any(text.startswith(stage) for text in compressions), (
                stage,
                compressions,
            )
        assert app.query_one(BudgetGauge).stage_note.startswith("stage ")
        assert (
            app.query_one(BudgetGauge).breakdown.total
            <= app.query_one(BudgetGauge).breakdown.window
        )
        assert app.query(".user-turn.-summarised"), (
            "the conversation should mark the summarised turns"
        )


async def test_long_demo_needs_the_demo_model(tmp_path: Path) -> None:
    home = tmp_path / "home"
    engine = engine_module.Engine.create(Workspace.open(home_flag=home), "openai")
    app = AiqApp(engine, clock=fixed_clock, watch=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await say(pilot, "/demo")
        await settle(pilot)
        assert not app.busy
        assert "offline demo model" in str(
            list(app.query_one(Conversation).children)[-1].render()
        )
