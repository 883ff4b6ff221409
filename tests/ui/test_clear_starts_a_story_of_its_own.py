"""After ``/clear`` the time cursor holds the new session only: stepped back to its first
event, the screen shows the new session's budget, no history and no skill changes — the old
session's unloads ("active → inactive — new conversation") end the old story instead of
opening the new one (they stayed on screen into the next /demo)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from conftest import fixed_clock
from helpers import deny_approvals_until, say, settle, wait_until

from aiq_tui.agent.engine import Engine
from aiq_tui.ui.app import AiqApp
from aiq_tui.ui.widgets.budget_gauge import BudgetGauge
from aiq_tui.ui.widgets.skills_pane import SkillsPane
from aiq_tui.workspace import Workspace

pytestmark = pytest.mark.slow


async def test_stepping_back_after_clear_never_shows_the_old_session(
    tmp_path: Path,
) -> None:
    engine = Engine.create(Workspace.open(home_flag=tmp_path / "home"))
    app = AiqApp(engine, clock=fixed_clock, watch=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        for question in (
            "show the tables in the sample database",
            "what are the top 5 books by rating?",
        ):
            turns = len(engine.session.messages)
            await say(pilot, question)
            await deny_approvals_until(
                pilot,
                lambda: len(engine.session.messages) > turns and not engine.busy,
                "the turn",
            )
            await settle(pilot)
        old_total = app.query_one(BudgetGauge).breakdown.total
        await say(pilot, "/clear")
        await settle(pilot)
        new_total = engine.breakdown.total
        assert new_total < old_total
        app.cursor.pause()
        app.cursor.step(-len(app.cursor.states))
        await app.draw()
        await wait_until(lambda: app.cursor.index == 0, "the first event")
        seen = [app.cursor.states[i] for i in range(len(app.cursor.states))]
        pane = app.query_one(SkillsPane)
        reason = str(pane.query_one("#skills-reason").render())
        gauge = app.query_one(BudgetGauge).breakdown
    assert all(s.budget is None or s.budget.total == new_total for s in seen), [
        s.budget.total for s in seen if s.budget
    ]
    assert gauge is not None and gauge.total == new_total
    assert all(not s.changes for s in seen), [s.changes for s in seen]
    assert all(e.kind != "user" for s in seen for e in s.conversation)
    assert "new conversation" not in reason
