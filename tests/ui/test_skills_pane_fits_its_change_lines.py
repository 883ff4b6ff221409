"""The skills pane at every size: the change lines take the rows the lists leave (all of them
at 200x60, where they were cut at three rows beside twenty blank ones), a line cut for room ends
with "…", the Inactive list keeps rows of its own, and at 80x24 the pane keeps its titled top
border."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from conftest import fixed_clock
from helpers import deny_approvals_until, say, settle
from rich.text import Text
from textual.widgets import Static

from aiq_tui.agent.engine import Engine
from aiq_tui.skills.model import SkillState
from aiq_tui.ui.app import AiqApp
from aiq_tui.ui.widgets.skills_pane import SkillsPane

INACTIVE_KEEP = 3  # rows the Inactive list keeps however many change lines there are
from aiq_tui.workspace import Workspace

pytestmark = pytest.mark.slow

QUESTIONS = (
    "show the tables in the sample database",
    "check the supplier invoices against the purchase orders",
)


async def two_questions(tmp_path: Path, size: tuple[int, int]) -> dict[str, object]:
    engine = Engine.create(Workspace.open(home_flag=tmp_path / "home"))
    app = AiqApp(engine, clock=fixed_clock, watch=False)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        for question in QUESTIONS:
            turns = len(engine.session.messages)
            await say(pilot, question)
            await deny_approvals_until(
                pilot,
                lambda: len(engine.session.messages) > turns and not engine.busy,
                "the turn",
            )
            await settle(pilot)
        await pilot.pause()
        pane = app.query_one(SkillsPane)
        reason = pane.query_one("#skills-reason", Static)
        inactive = pane.section(SkillState.INACTIVE)
        return {
            "whole": " ".join(
                f"{c.name}: {c.old} → {c.new}" for c in app.cursor.shown.changes
            ),
            "lines": str(reason.render()).splitlines(),
            "rows_needed": len(
                Text(str(reason.render())).wrap(
                    app.console, reason.content_size.width, overflow="fold"
                )
            ),
            "shown_rows": reason.size.height,
            "inactive_rows": inactive.size.height,  # its title is its top border
            "inactive_count": len(inactive.rows),
            "top_border": pane.styles.border_top[0],
            "title": pane.border_title,
        }


@pytest.mark.parametrize("size", [(120, 36), (200, 60), (80, 24)], ids=str)
async def test_change_lines_are_whole_or_end_with_an_ellipsis(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    seen = await two_questions(tmp_path, size)
    lines = seen["lines"]
    assert lines
    cut = lines[-1].rstrip().endswith("…")
    # Every row drawn is on screen, or the last one on screen says it was cut.
    assert seen["rows_needed"] <= seen["shown_rows"] or cut, seen
    text = " ".join(" ".join(lines).split())
    assert str(seen["whole"]).split(":")[0] in text  # the first change is named
    if size == (200, 60):
        assert not cut, lines  # room to spare: nothing is cut
        assert "not in top 3" in text  # the demoted skills' reasons too
    assert seen["inactive_rows"] >= min(
        int(seen["inactive_count"]), INACTIVE_KEEP, 2
    ), seen


async def test_at_80x24_the_pane_keeps_its_titled_top_border(tmp_path: Path) -> None:
    seen = await two_questions(tmp_path, (80, 24))
    assert seen["top_border"] not in ("", "none") and seen["title"] == "Skills"
