"""One Tab stop per pane, arrows across the skill sections, focus back to the prompt after every dialog."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from conftest import fixed_clock
from fake_engine import FakeEngine
from helpers import say, settle

from aiq_tui.ui.app import AiqApp


def make_app(engine: FakeEngine) -> AiqApp:
    return AiqApp(engine, clock=fixed_clock, watch=False)


def toasts(app: AiqApp) -> list[str]:
    return [str(n.message) for n in app._notifications]


def pane_of(widget) -> str:
    for pane in ("prompt", "skills", "activity", "conversation"):
        if widget.id == pane or any(a.id == pane for a in widget.ancestors):
            return pane
    return widget.id or type(widget).__name__


async def test_tab_stops_once_per_pane_and_shift_tab_goes_back(
    fake_engine: FakeEngine,
) -> None:
    app = make_app(fake_engine)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await say(pilot, "/skill pdf-tools")  # Active and Inactive both have skills now
        await settle(pilot)
        app.query_one("#prompt").focus()
        await pilot.pause()
        visited = [pane_of(app.focused)]
        for _ in range(3):
            await pilot.press("tab")
            await pilot.pause()
            visited.append(pane_of(app.focused))
        assert visited == ["prompt", "skills", "activity", "prompt"]
        await pilot.press("shift+tab")
        await pilot.pause()
        assert pane_of(app.focused) == "activity"


async def test_arrow_keys_cross_the_skill_sections(fake_engine: FakeEngine) -> None:
    app = make_app(fake_engine)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await say(pilot, "/skill pdf-tools")
        await settle(pilot)
        app.query_one("#prompt").focus()
        await pilot.press("tab")
        await pilot.pause()
        assert app.focused.id == "skills-active"
        await pilot.press("down")
        await pilot.pause()
        assert app.focused.id == "skills-inactive" and app.focused.cursor == 0
        await pilot.press("up")
        await pilot.pause()
        assert app.focused.id == "skills-active"


async def test_focus_returns_to_the_prompt_after_the_viewer_help_and_settings(
    fake_engine: FakeEngine,
) -> None:
    app = make_app(fake_engine)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        app.query_one("#prompt").focus()
        await pilot.press("tab", "enter")  # Enter on a skill opens the viewer
        await pilot.pause()
        assert app.screen is not app.screen_stack[0]
        for keys in (["escape"], ["f1"], ["escape"], ["f2"], ["escape"]):
            await pilot.press(*keys)
            await pilot.pause()
            await pilot.pause()
        assert app.screen is app.screen_stack[0] and app.focused.id == "prompt"
