"""What a new user found in tmux (issue 24, section 1), each pinned by a test that failed before."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from conftest import fixed_clock  # noqa: E402
from fake_engine import FakeEngine  # noqa: E402
from helpers import say, settle  # noqa: E402
from textual.widgets import Input, Label  # noqa: E402

from aiq_tui.ui.app import AiqApp  # noqa: E402
from aiq_tui.ui.screens.sessions import SessionsScreen  # noqa: E402
from aiq_tui.ui.widgets.timeline import Timeline  # noqa: E402


def make_app(engine: FakeEngine) -> AiqApp:
    return AiqApp(engine, clock=fixed_clock, watch=False)


def toasts(app: AiqApp) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def test_rename_has_a_label_and_starts_from_the_current_title(fake_engine: FakeEngine) -> None:
    app = make_app(fake_engine)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f4")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SessionsScreen)
        await pilot.press("down", "n")
        await pilot.pause()
        label = screen.query_one("#rename-label", Label)
        assert label.display and "s-0000" in str(label.render())
        assert screen.query_one("#rename", Input).value == "Tables in the sample database"
        await pilot.press("escape")
        assert not label.display and isinstance(app.screen, SessionsScreen)


async def test_f5_reloads_the_skills(fake_engine: FakeEngine) -> None:
    app = make_app(fake_engine)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("f5")
        await settle(pilot)
        assert any(kind == "reload" for kind, _ in app.query_one(Timeline).entries)


async def test_replay_of_an_unknown_session_points_to_f4(fake_engine: FakeEngine) -> None:
    app = make_app(fake_engine)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await say(pilot, "/replay nosuchid")
        await settle(pilot)
        [message] = [m for m in toasts(app) if "nosuchid" in m]
        assert "F4" in message and "aiq-tui sessions" not in message


def test_counts_read_in_the_right_number() -> None:
    from aiq_tui.ui.text_fit import counted

    assert counted(1, "step") == "1 step" and counted(2, "step") == "2 steps" and counted(0, "step") == "0 steps"
