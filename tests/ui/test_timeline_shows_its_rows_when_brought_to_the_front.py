"""The Timeline tab shows its rows the moment Ctrl+O brings it to the front — also after PgUp
on the conversation, which left it blank until F7 was pressed twice."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from conftest import fixed_clock
from helpers import say, settle, wait_until

from aiq_tui.agent.engine import Engine
from aiq_tui.ui.app import AiqApp
from aiq_tui.ui.widgets.timeline import Timeline
from aiq_tui.workspace import Workspace


@pytest.mark.parametrize("before", [[], ["pageup"], ["pageup", "pagedown"]])
async def test_ctrl_o_shows_the_timeline_rows(
    tmp_path: Path, before: list[str]
) -> None:
    engine = Engine.create(Workspace.open(home_flag=tmp_path / "home"))
    app = AiqApp(engine, clock=fixed_clock, watch=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await say(pilot, "show the tables in the sample database")
        await settle(pilot)
        timeline = app.query_one(Timeline)
        assert timeline.entries
        for key in before:
            await pilot.press(key)
            await pilot.pause()
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert app.query_one("#activity").active == "tab-timeline"

        def drawn() -> str:
            height = timeline.scrollable_content_region.height
            return "".join(timeline.render_line(y).text for y in range(height))

        await wait_until(lambda: drawn().strip() != "", "the timeline's rows drawn")
        newest = timeline.entries[-1][1].split()[0]
        assert newest in drawn()
