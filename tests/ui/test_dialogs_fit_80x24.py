"""Every dialog fits 80x24 and scrolls to its focused field."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from conftest import fixed_clock
from fake_engine import FakeEngine
from helpers import say, settle
from textual.widgets import Label

from aiq_tui.ui.app import AiqApp


def make_app(engine: FakeEngine) -> AiqApp:
    return AiqApp(engine, clock=fixed_clock, watch=False)


def toasts(app: AiqApp) -> list[str]:
    return [str(n.message) for n in app._notifications]


def assert_visible(widget, screen) -> None:
    """``widget`` is drawn in full: inside the screen and inside every scrolling container."""
    region = widget.region
    assert region.area > 0, f"{widget!r} is not drawn"
    assert screen.region.contains_region(region), (
        f"{widget!r} at {region} is off-screen"
    )
    for ancestor in widget.ancestors_with_self[1:]:
        if getattr(ancestor, "is_scrollable", False) and hasattr(
            ancestor, "scrollable_content_region"
        ):
            clip = ancestor.scrollable_content_region
            assert clip.contains_region(region), (
                f"{widget!r} at {region} is hidden in {ancestor!r} ({clip})"
            )


async def tab_through(pilot, screen) -> list[str]:
    """Tab once per focusable field; each one, when focused, is on screen."""
    seen: list[str] = []
    for _ in range(len(screen.focus_chain) + 1):
        focused = screen.focused
        assert focused is not None
        await pilot.pause()
        assert_visible(focused, screen)
        seen.append(focused.id or type(focused).__name__)
        await pilot.press("tab")
        await pilot.pause()
    return seen


async def test_settings_fits_80x24_and_tab_only_reaches_visible_fields(
    fake_engine: FakeEngine,
) -> None:
    from aiq_tui.ui.screens.settings import SettingsScreen

    app = make_app(fake_engine)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f2")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SettingsScreen)
        seen = await tab_through(pilot, screen)
        assert {
            "provider",
            "model",
            "window",
            "compress_at",
            "evict_at",
            "aggressive_at",
            "save",
            "cancel",
        } <= set(seen)
        assert_visible(screen.query_one("#settings-hint"), screen)


async def test_approval_of_a_file_write_shows_the_content_and_fits_80x24(
    fake_engine: FakeEngine,
) -> None:
    from aiq_tui.tools.base import ApprovalRequest
    from aiq_tui.ui.screens.approval import ApprovalScreen

    content = "".join(f"line {n}: the orders report\n" for n in range(40))
    request = ApprovalRequest(
        "c1",
        "file_operations",
        "file_write",
        "Write a file",
        "write notes/orders.md",
        {"operation": "write", "path": "notes/orders.md", "content": content},
    )
    app = make_app(fake_engine)
    async with app.run_test(size=(80, 24)) as pilot:
        await app.push_screen(ApprovalScreen(request))
        await pilot.pause()
        screen = app.screen
        shown = str(screen.query_one("#approval-content Static").render())
        assert "line 0: the orders report" in shown and "line 39" in shown
        seen = await tab_through(pilot, screen)
        assert {"deny", "allow_once", "allow_always", "approval-content"} <= set(seen)


async def test_slash_model_opens_a_model_picker_that_warns_before_saving_a_provider_without_a_key(
    fake_engine: FakeEngine, monkeypatch
) -> None:
    from textual.widgets import Select

    from aiq_tui.ui.screens.settings import SettingsScreen

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    app = make_app(fake_engine)
    config_file = fake_engine.workspace.home.config_file
    async with app.run_test(size=(80, 24)) as pilot:
        await say(pilot, "/model")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, SettingsScreen) and screen.model_only
        assert not screen.query("#window") and not screen.query("#compress_at")
        screen.query_one("#provider", Select).value = "openai"
        await pilot.pause()
        warning = screen.query_one("#settings-warning", Label)
        assert warning.display and "OPENAI_API_KEY" in str(warning.render())
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is screen and not config_file.exists(), (
            "the first Save only warns"
        )
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is not screen and "openai" in config_file.read_text()
