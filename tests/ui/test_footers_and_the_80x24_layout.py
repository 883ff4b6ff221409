"""Each screen's footer shows its own keys; the 80x24 layout; a full-screen Tools / Timeline."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from conftest import fixed_clock
from fake_engine import FakeEngine
from helpers import settle

from aiq_tui.ui.app import AiqApp


def make_app(engine: FakeEngine) -> AiqApp:
    return AiqApp(engine, clock=fixed_clock, watch=False)


def toasts(app: AiqApp) -> list[str]:
    return [str(n.message) for n in app._notifications]


def footer_keys(screen) -> str:
    from textual.widgets import Footer

    footer = screen.query_one(Footer)
    return " ".join(f"{key.key} {key.description}" for key in footer.query("FooterKey"))


async def test_each_dialog_footer_shows_its_own_keys(fake_engine: FakeEngine) -> None:
    from aiq_tui.tools.base import ApprovalRequest
    from aiq_tui.ui.screens.approval import ApprovalScreen

    app = make_app(fake_engine)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("f2")
        await pilot.pause()
        keys = footer_keys(app.screen)
        assert "ctrl+s Save" in keys and "Inspector" not in keys
        await pilot.press("escape")
        request = ApprovalRequest(
            "c1", "execute_command", "execute_command", "Run command", "ls", {}
        )
        await app.push_screen(ApprovalScreen(request))
        await pilot.pause()
        keys = footer_keys(app.screen)
        assert (
            "y Allow once" in keys
            and "a Always" in keys
            and "n Deny" in keys
            and "Settings" not in keys
        )


async def test_80x24_shows_more_than_two_skills_and_the_whole_welcome_card(
    fake_engine: FakeEngine,
) -> None:
    from aiq_tui.ui.widgets.skill_list import SkillList

    app = make_app(fake_engine)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        inactive = app.query_one("#skills-inactive", SkillList)
        assert inactive.scrollable_content_region.height >= 5
        welcome = app.query_one(".welcome")
        assert app.query_one("#conversation").scrollable_content_region.contains_region(
            welcome.region
        )


async def test_f7_shows_tools_and_timeline_full_screen_and_esc_gives_the_layout_back(
    fake_engine: FakeEngine,
) -> None:
    app = make_app(fake_engine)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        activity = app.query_one("#activity")
        small = activity.region.height
        await pilot.press("f7")
        await pilot.pause()
        assert app.screen.maximized is activity and activity.region.height > 2 * small
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen.maximized is None and activity.region.height == small


async def test_no_stray_scrollbar_mark_above_the_footer(
    fake_engine: FakeEngine,
) -> None:
    for size in ((120, 36), (80, 24)):
        app = make_app(fake_engine)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            lines = [
                "".join(seg.text for seg in strip)
                for strip in app.screen._compositor.render_strips()
            ]
            assert not [line for line in lines[:-1] if "▏" in line or "▊" in line], size
