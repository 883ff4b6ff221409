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


# -- item 5: every modal fits 80x24 and scrolls to its focused field ---------------------------

def assert_visible(widget, screen) -> None:  # noqa: ANN001
    """``widget`` is drawn in full: inside the screen and inside every scrolling container."""
    region = widget.region
    assert region.area > 0, f"{widget!r} is not drawn"
    assert screen.region.contains_region(region), f"{widget!r} at {region} is off-screen"
    for ancestor in widget.ancestors_with_self[1:]:
        if getattr(ancestor, "is_scrollable", False) and hasattr(ancestor, "scrollable_content_region"):
            clip = ancestor.scrollable_content_region
            assert clip.contains_region(region), f"{widget!r} at {region} is hidden in {ancestor!r} ({clip})"


async def tab_through(pilot, screen) -> list[str]:  # noqa: ANN001
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


async def test_settings_fits_80x24_and_tab_only_reaches_visible_fields(fake_engine: FakeEngine) -> None:
    from aiq_tui.ui.screens.settings import SettingsScreen

    app = make_app(fake_engine)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f2")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SettingsScreen)
        seen = await tab_through(pilot, screen)
        assert {"provider", "model", "window", "compress_at", "evict_at", "aggressive_at", "save", "cancel"} <= set(seen)
        assert_visible(screen.query_one("#settings-hint"), screen)


async def test_approval_of_a_file_write_shows_the_content_and_fits_80x24(fake_engine: FakeEngine) -> None:
    from aiq_tui.tools.base import ApprovalRequest
    from aiq_tui.ui.screens.approval import ApprovalScreen

    content = "".join(f"line {n}: the orders report\n" for n in range(40))
    request = ApprovalRequest("c1", "file_operations", "file_write", "Write a file", "write notes/orders.md",
                              {"operation": "write", "path": "notes/orders.md", "content": content})
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
        fake_engine: FakeEngine, monkeypatch) -> None:  # noqa: ANN001
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
        assert app.screen is screen and not config_file.exists(), "the first Save only warns"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is not screen and "openai" in config_file.read_text()
