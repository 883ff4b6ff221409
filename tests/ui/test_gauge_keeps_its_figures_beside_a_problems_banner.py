"""The Token budget pane always shows its numbers: started as ``aiq-tui`` starts (the engine
built behind the first frame) with a broken skill, whose "⚠ 1 skill problem" banner takes a
row, the gauge at 120x36 showed its bar alone — its height was laid out for the one line of
"waiting for the first budget…" and not again when the budget came."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from helpers import wait_until

from aiq_tui.commands.tui_cmd import create_app
from aiq_tui.ui.widgets.budget_gauge import BudgetGauge


@pytest.mark.parametrize("broken", [True, False], ids=["problems-banner", "clean"])
async def test_the_gauge_shows_used_window_percent_and_legend_at_120x36(
    tmp_path: Path, broken: bool
) -> None:
    home = tmp_path / "home"
    if broken:
        skill = home / "skills" / "broken"
        skill.mkdir(parents=True)
        (skill / "SKILL.md").write_text("---\nname: broken\n---\nno description\n")
    app = create_app(argparse.Namespace(home=str(home), create=True), watch=False)
    assert app is not None
    async with app.run_test(size=(120, 36)) as pilot:
        gauge = app.query_one(BudgetGauge)
        await wait_until(lambda: gauge.breakdown is not None, "the first budget")
        if broken:
            await wait_until(
                lambda: app.query_one("#problems-banner").display, "the banner"
            )
        drawn = str(gauge.render())
        await wait_until(
            lambda: gauge.content_region.height >= drawn.count("\n") + 1,
            f"room for every line of the gauge: {drawn!r}",
            timeout=10,
        )
        await pilot.pause()
        lines = [
            app.screen.get_widget_at(gauge.content_region.x, y)[0] is gauge
            for y in range(
                gauge.content_region.y,
                gauge.content_region.y + drawn.count("\n") + 1,
            )
        ]
    assert "/ 8,192" in drawn and "■ sys" in drawn
    assert all(lines)  # every line of it on screen: the figures and the legend too
