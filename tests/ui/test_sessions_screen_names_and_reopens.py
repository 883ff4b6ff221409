"""The sessions screen (F4): renaming starts from the title, /replay of an unknown id points to F4, the columns fit 80 columns."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from conftest import fixed_clock
from fake_engine import FakeEngine
from helpers import open_sessions_list, say, screen_text, settle
from textual.widgets import Input, Label

from aiq_tui.ui.app import AiqApp
from aiq_tui.ui.screens.sessions import SessionsScreen


def make_app(engine: FakeEngine) -> AiqApp:
    return AiqApp(engine, clock=fixed_clock, watch=False)


def toasts(app: AiqApp) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def test_rename_has_a_label_and_starts_from_the_current_title(
    fake_engine: FakeEngine,
) -> None:
    app = make_app(fake_engine)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_sessions_list(pilot)
        await pilot.press("down", "n")
        await pilot.pause()
        label = screen.query_one("#rename-label", Label)
        assert label.display and "s-0000" in str(label.render())
        assert (
            screen.query_one("#rename", Input).value == "Tables in the sample database"
        )
        await pilot.press("escape")
        assert not label.display and isinstance(app.screen, SessionsScreen)


async def test_replay_of_an_unknown_session_points_to_f4(
    fake_engine: FakeEngine,
) -> None:
    app = make_app(fake_engine)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await say(pilot, "/replay nosuchid")
        await settle(pilot)
        [message] = [m for m in toasts(app) if "nosuchid" in m]
        assert "F4" in message and "aiq-tui sessions" not in message


async def test_sessions_keep_the_updated_column_visible_at_80_columns(
    fake_engine: FakeEngine,
) -> None:
    from fake_engine import FakeSummary

    fake_engine.sessions.items.insert(
        0,
        FakeSummary(
            "20261125105834-a1b2c3",
            "write a short report of the orders to notes/orders.md and then mail i…",
            "2026-11-25T10:58:34.123456+00:00",
            12,
        ),
    )
    app = make_app(fake_engine)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_sessions_list(pilot)
        shown = "\n".join(screen_text(app))
        assert (
            "2026-11-25 10:58" in shown
            and "12" in shown.split("2026-11-25 10:58")[1].split("\n")[0]
        )
