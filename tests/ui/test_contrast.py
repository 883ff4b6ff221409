"""Issue 31 item 10: every screen is readable as a 256-colour terminal draws it (tmux's
default): text at least 4.5:1 and borders at least 3:1 (WCAG 1.4.3 and 1.4.11), in both themes.

Each screen is rendered, its lines reduced to the 256-colour palette the way Rich reduces
truecolor there (tests/ui/contrast.py), and every run of text or border is measured.
Measured before the fix: the dark theme's Token budget border 1.04:1 (colour 17 on 233), the
light theme's footer keys 2.26:1, tool lines 3.4:1, summarised turns 2.24:1.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from conftest import fixed_clock
from contrast import measure
from fake_engine import FakeEngine
from helpers import say, settle, wait_for_approval

from aiq_tui.ui.app import AiqApp, DemoSteps

THEMES = ("textual-dark", "textual-light")


@pytest.fixture(autouse=True)
def colour_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """A colour terminal: the test session's NO_COLOR would draw every screen in greys."""
    monkeypatch.delenv("NO_COLOR", raising=False)


FIXTURE = Path(__file__).parent / "fixtures" / "demo_records.json"


async def measure_themes(app: Any, pilot: Any, name: str) -> list[str]:
    found: list[str] = []
    for theme in THEMES:
        app.theme = theme
        await pilot.pause()
        await pilot.pause()
        found += [str(low) for low in measure(app, f"{name} ({theme})")]
    return found


async def conversation(app: AiqApp, pilot: Any) -> None:
    engine = app.engine
    for question in ("show the tables in the sample database", "and the orders"):
        await say(pilot, question)
        await settle(pilot)
    await say(pilot, "/compact")
    await settle(pilot)
    engine.evict(
        next(v.name for v in engine.skill_views() if v.state.value != "inactive")
    )
    engine.fill_to(0.96)
    await settle(pilot)
    await pilot.press("space")  # the paused bar
    await pilot.pause()


async def demo_step(app: AiqApp, pilot: Any) -> None:
    await pilot.pause()
    start = len(app.cursor.records)
    for record in json.loads(FIXTURE.read_text(encoding="utf-8"))[:120]:
        await app.take(record)
    app.demo = DemoSteps(start=start)
    app.cursor.pause_at(len(app.cursor.records) - 1)
    await app.draw()
    await pilot.pause()


async def approval(app: AiqApp, pilot: Any) -> None:
    await say(pilot, "delete order 7")
    await wait_for_approval(pilot)


def key(*keys: str) -> Callable[[AiqApp, Any], Awaitable[None]]:
    async def press(app: AiqApp, pilot: Any) -> None:
        await say(pilot, "show the tables in the sample database")
        await settle(pilot)
        await pilot.press(*keys)
        await pilot.pause(0.2)

    return press


async def skill_viewer(app: AiqApp, pilot: Any) -> None:
    app.action_open_skill("sql-explorer")
    await pilot.pause(0.2)


async def trust_question(app: AiqApp, pilot: Any) -> None:
    from aiq_tui.ui.screens.trust import TrustScreen

    app.push_screen(
        TrustScreen(
            Path("/tmp/project"), ["project skills (.agents/skills)", ".mcp.json"]
        )
    )
    await pilot.pause(0.2)


async def welcome(app: AiqApp, pilot: Any) -> None:
    await pilot.pause()


SCREENS = {
    "welcome": welcome,
    "conversation, paused": conversation,
    "demo step": demo_step,
    "approval": approval,
    "help": key("f1"),
    "settings": key("f2"),
    "inspector": key("f3"),
    "sessions": key("f4"),
    "skill viewer": skill_viewer,
    "trust": trust_question,
}


@pytest.mark.parametrize("size", [(120, 36), (80, 24)], ids=["120x36", "80x24"])
@pytest.mark.parametrize("screen", list(SCREENS))
async def test_every_text_and_border_is_readable_in_256_colours(
    tmp_path: Path, screen: str, size: tuple[int, int]
) -> None:
    app = AiqApp(
        FakeEngine(tmp_path), clock=fixed_clock, watch=False, flash_seconds=3600
    )
    app.animation_level = "none"
    async with app.run_test(size=size) as pilot:
        await SCREENS[screen](app, pilot)
        found = await measure_themes(app, pilot, screen)
    assert not found, f"{len(found)} runs under the minimum:\n" + "\n".join(found[:20])


@pytest.mark.parametrize("size", [(120, 36), (80, 24)], ids=["120x36", "80x24"])
async def test_replay_is_readable_in_256_colours(size: tuple[int, int]) -> None:
    from aiq_tui.ui.screens.replay import ReplayApp
    from tests.replay.test_replay_snapshot import demo_turns

    app = ReplayApp(demo_turns(), "demo", turn=6)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await app.replay.go(6, 5)
        found = await measure_themes(app, pilot, "replay")
    assert not found, f"{len(found)} runs under the minimum:\n" + "\n".join(found[:20])
