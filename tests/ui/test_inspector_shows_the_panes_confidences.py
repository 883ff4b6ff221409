"""The match inspector (F3) and the skills pane show one ranking: after earlier questions the
engine ranks a question with them as context, and the inspector ranks it the same way (and
says so), so each skill has one confidence on both."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from conftest import fixed_clock
from helpers import deny_approvals_until, say, settle, wait_until
from textual.widgets import DataTable, Static

from aiq_tui.agent.engine import Engine
from aiq_tui.skills.model import SkillState
from aiq_tui.ui.app import AiqApp
from aiq_tui.ui.screens.inspector import InspectorScreen
from aiq_tui.ui.widgets.skills_pane import SkillsPane
from aiq_tui.workspace import Workspace

pytestmark = pytest.mark.slow

SECOND = "check the supplier invoices against the purchase orders"


async def test_after_an_earlier_question_f3_shows_the_confidences_the_pane_shows(
    tmp_path: Path,
) -> None:
    engine = Engine.create(Workspace.open(home_flag=tmp_path / "home"))
    app = AiqApp(engine, clock=fixed_clock, watch=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        for question in ("show the tables in the sample database", SECOND):
            turns = len(engine.session.messages)
            await say(pilot, question)
            await deny_approvals_until(
                pilot,
                lambda: len(engine.session.messages) > turns and not engine.busy,
                "the turn",
            )
            await settle(pilot)
        pane = {
            view.name: round(view.confidence, 2)
            for state in SkillState
            for view in app.query_one(SkillsPane).views_in(state)
            if view.confidence is not None
        }
        await pilot.press("f3")
        await wait_until(lambda: isinstance(app.screen, InspectorScreen), "F3")
        screen = app.screen
        await wait_until(lambda: screen.ranking is not None, "the ranking")
        table = screen.query_one("#ranking", DataTable)
        shown = {
            str(table.get_row(key)[1]): round(float(str(table.get_row(key)[3])), 2)
            for key in table.rows
        }
        summary = str(screen.query_one("#inspect-summary", Static).render())
    assert pane and shown == pane
    assert "with 1 earlier question as context" in summary


def test_the_pane_shows_a_confidence_with_the_inspectors_digits() -> None:
    from aiq_tui.skills.model import Phase
    from aiq_tui.skills.skill_view import SkillView
    from aiq_tui.ui.screens.inspector import decisive
    from aiq_tui.ui.widgets.skill_list import skill_line

    view = SkillView(
        "csv-tidy", "", SkillState.INACTIVE, Phase.METADATA, 40, 1.0, 0.149
    )
    line = skill_line(view, 43, thresholds=(0.15, 0.7)).plain
    assert line.rstrip().endswith(decisive(0.149, (0.15, 0.7))) and "0.149" in line


async def test_f3_says_when_the_pane_shows_a_state_after_the_ranking(
    tmp_path: Path,
) -> None:
    engine = Engine.create(Workspace.open(home_flag=tmp_path / "home"))
    app = AiqApp(engine, clock=fixed_clock, watch=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        turns = len(engine.session.messages)
        await say(pilot, SECOND)
        await deny_approvals_until(
            pilot,
            lambda: len(engine.session.messages) > turns and not engine.busy,
            "the turn",
        )
        await settle(pilot)
        ranked = {m.name for m in engine.rank(SECOND).matches}
        quiet = next(
            v.name
            for v in engine.skill_views()
            if v.name in ranked and v.phase.label != "full"
        )
        engine._on_use_skill(quiet)  # what the use_skill tool does mid-turn
        await settle(pilot)
        await pilot.press("f3")
        await wait_until(lambda: isinstance(app.screen, InspectorScreen), "F3")
        screen = app.screen
        await wait_until(lambda: screen.ranking is not None, "the ranking")
        summary = " ".join(
            str(screen.query_one("#inspect-summary", Static).render()).split()
        )
    assert "the pane shows the state after this turn's tool calls" in summary
    assert f"{quiet} full" in summary, summary
