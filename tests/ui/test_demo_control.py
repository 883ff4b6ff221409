"""Issue 14, defects 1, 2 and 9: the long demo can be stopped, never crashes the app, and
its tests wait on conditions (the engine's state), never on the screen being idle in time."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

engine_module = pytest.importorskip("aiq_tui.agent.engine")

from conftest import fixed_clock  # noqa: E402
from helpers import deny_approvals_until, notices, say, wait_until  # noqa: E402
from textual.command import CommandPalette  # noqa: E402

from aiq_tui.conversation import Role  # noqa: E402
from aiq_tui.ui.app import AiqApp  # noqa: E402
from aiq_tui.workspace import Workspace  # noqa: E402

pytestmark = pytest.mark.slow


def demo_app(home: Path) -> AiqApp:
    engine = engine_module.Engine.create(Workspace.open(home_flag=home))
    engine.config.ui.demo_turn_pause = 0  # turn after turn, as fast as the machine allows
    engine.config.ui.demo_step_seconds = 0  # played live, not stepped
    return AiqApp(engine, clock=fixed_clock, watch=False)


def user_turns(app: AiqApp) -> int:
    return sum(1 for m in app.engine.session.messages if m.role is Role.USER)


def planned_turns(app: AiqApp) -> int:
    from aiq_tui.llm.demo import DemoScript

    script = DemoScript.from_settings(app.engine.breakdown.window, app.engine.config.context)
    return sum(1 for _ in iter(lambda: script.next_turn(0.0), None))


async def start_demo(pilot) -> None:  # noqa: ANN001
    """Play /demo past the story's two approvals (denied, so nothing is written or run) into
    its follow-up questions, where Esc reaches the app rather than an approval dialog."""
    from aiq_tui.ui.screens.approval import ApprovalScreen

    app = pilot.app
    await say(pilot, "/demo play")
    await deny_approvals_until(pilot, lambda: user_turns(app) >= 4, "the demo's fourth turn")
    await wait_until(lambda: not isinstance(app.screen, ApprovalScreen), "no approval dialog")


@pytest.mark.parametrize("key", ["escape", "ctrl+c"])
async def test_esc_and_ctrl_c_stop_the_long_demo(tmp_path: Path, key: str) -> None:
    app = demo_app(tmp_path / "home")
    async with app.run_test(size=(120, 36)) as pilot:
        planned = planned_turns(app)
        await start_demo(pilot)
        await pilot.press(key)
        await wait_until(lambda: not app._turn_running(), "the demo to stop")
        assert user_turns(app) < planned, "the demo played to its end instead of stopping"
        await app.drained()
        assert any("long demo stopped" in text for text in notices(app))
        assert app.is_running and app.return_code is None


async def test_palette_cancel_turn_stops_the_long_demo_and_the_app_keeps_running(tmp_path: Path) -> None:
    app = demo_app(tmp_path / "home")
    async with app.run_test(size=(120, 36)) as pilot:
        planned = planned_turns(app)
        await start_demo(pilot)
        await pilot.press("ctrl+p")
        await wait_until(lambda: isinstance(app.screen, CommandPalette), "the command palette")
        await pilot.press(*"Cancel turn")
        await wait_until(lambda: app.screen.query("CommandList Option").results() is not None, "palette hits")
        await pilot.press("enter")
        await wait_until(lambda: not app._turn_running(), "the demo to stop")
        assert not isinstance(app.screen, CommandPalette)
        assert user_turns(app) < planned
        assert app.is_running and app.return_code is None
        await say(pilot, "/skills")  # still answering
        assert app.is_running
