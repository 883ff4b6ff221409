"""Issue 14, defects 1, 2 and 9: the long demo can be stopped, never crashes the app, and
its tests wait on conditions (the engine's state), never on the screen being idle in time."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

engine_module = pytest.importorskip("aiq_tui.agent.engine")

from conftest import fixed_clock
from helpers import deny_approvals_until, notices, say, wait_until
from textual.command import CommandPalette

from aiq_tui.ui.app import AiqApp
from aiq_tui.workspace import Workspace

pytestmark = pytest.mark.slow


def demo_app(home: Path) -> AiqApp:
    engine = engine_module.Engine.create(Workspace.open(home_flag=home))
    engine.config.ui.demo_turn_pause = (
        0  # turn after turn, as fast as the machine allows
    )
    engine.config.ui.demo_step_seconds = 0  # played live, not stepped
    return AiqApp(engine, clock=fixed_clock, watch=False)


def turns_done(app: AiqApp) -> int:
    """Turns the demo has finished, from the session's recorded turns: its messages are no
    count, as compression summarises the earliest of them away."""
    return len(app.engine.session.replay)


def planned_turns(app: AiqApp) -> int:
    from aiq_tui.llm.demo import DemoScript

    script = DemoScript.from_settings(
        app.engine.breakdown.window, app.engine.config.context
    )
    return sum(1 for _ in iter(lambda: script.next_turn(0.0), None))


async def start_demo(pilot) -> asyncio.Event:
    """Play /demo to the end of its first turn, where Esc reaches the app rather than an
    approval dialog. The second turn is held until the returned gate is set: the demo model
    answers at once, so without it the story can reach its end before the test's key arrives
    (a turn already on its way still runs: its approval is refused)."""
    from aiq_tui.ui.screens.approval import ApprovalScreen

    app = pilot.app
    gate = asyncio.Event()
    send = app.engine.send

    async def held(text: str, *args: object, **kwargs: object) -> object:
        if turns_done(app) >= 1:
            await gate.wait()
        return await send(text, *args, **kwargs)

    app.engine.send = held
    await say(pilot, "/demo play")
    await deny_approvals_until(
        pilot, lambda: turns_done(app) >= 1, "the demo's first turn done"
    )
    await wait_until(
        lambda: not isinstance(app.screen, ApprovalScreen), "no approval dialog"
    )
    return gate


@pytest.mark.parametrize("key", ["escape", "ctrl+c"])
async def test_esc_and_ctrl_c_stop_the_long_demo(tmp_path: Path, key: str) -> None:
    app = demo_app(tmp_path / "home")
    async with app.run_test(size=(120, 36)) as pilot:
        planned = planned_turns(app)
        gate = await start_demo(pilot)
        await pilot.press(key)
        gate.set()
        # the held second turn asks to write its report: refused, if it starts before the stop lands
        await deny_approvals_until(
            pilot, lambda: not app._turn_running(), "the demo to stop"
        )
        assert turns_done(app) < planned, (
            "the demo played to its end instead of stopping"
        )
        await app.drained()
        assert any("long demo stopped" in text for text in notices(app))
        assert app.is_running and app.return_code is None


async def test_palette_cancel_turn_stops_the_long_demo_and_the_app_keeps_running(
    tmp_path: Path,
) -> None:
    app = demo_app(tmp_path / "home")
    async with app.run_test(size=(120, 36)) as pilot:
        planned = planned_turns(app)
        gate = await start_demo(pilot)
        await pilot.press("ctrl+p")
        await wait_until(
            lambda: isinstance(app.screen, CommandPalette), "the command palette"
        )
        await pilot.press(*"Cancel turn")
        await wait_until(
            lambda: app.screen.query("CommandList Option").results() is not None,
            "palette hits",
        )
        await pilot.press("enter")
        gate.set()
        # the held second turn asks to write its report: refused, if it starts before the stop lands
        await deny_approvals_until(
            pilot, lambda: not app._turn_running(), "the demo to stop"
        )
        assert not isinstance(app.screen, CommandPalette)
        assert turns_done(app) < planned
        assert app.is_running and app.return_code is None
        await say(pilot, "/skills")  # still answering
        assert app.is_running
