"""The real start (``aiq-tui`` → commands.tui_cmd.create_app) draws its first frame from the config
alone; the catalog, the tools and the engine are built behind it in a worker thread. These
tests hold that build on an event so the "still starting" state can be looked at."""

from __future__ import annotations

import argparse
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from aiq_tui.commands.tui_cmd import create_app, run_tui
from aiq_tui.ui.app import AiqApp
from aiq_tui.ui.widgets.skills_pane import SkillsPane

sys.path.insert(0, str(Path(__file__).parent))
from helpers import wait_until


def held_app(home: Path) -> tuple[AiqApp, threading.Event]:
    """The CLI's app, whose engine build waits until the returned event is set."""
    app = create_app(argparse.Namespace(home=str(home)), watch=False)
    assert app is not None and app.starter.spec is not None
    release = threading.Event()
    start = app.starter.spec
    build = start.build

    def held_build() -> Any:
        release.wait(timeout=60)
        return build()

    app.starter.spec = type(start)(start.config, start.home, held_build)
    return app, release


async def test_the_first_frame_shows_before_the_engine_exists(tmp_path: Path) -> None:
    app, release = held_app(tmp_path)
    async with app.run_test(size=(120, 36)):
        await wait_until(lambda: app.first_frame_at is not None, "the first frame")
        assert app.engine is None
        assert "loading skills" in str(app.query_one("#skills-reason").render())
        assert app.sub_title == "starting…"
        release.set()
        await wait_until(lambda: app.engine is not None, "the engine")
        await wait_until(
            lambda: app.query_one(SkillsPane).views_in(
                app.engine.skill_views()[0].state
            ),
            "the skills in the pane",
        )
        assert "loading skills" not in str(app.query_one("#skills-reason").render())
        assert "new session" in app.sub_title


async def test_the_tools_tabs_follow_the_first_frame_in_its_place_and_the_timeline_the_engine(
    tmp_path: Path,
) -> None:
    # Issue 24 §3: the tabs (DataTable, TabbedContent) and the Timeline are not in the
    # first frame; a pane of the same height holds their place, so nothing moves when they come.
    app, release = held_app(tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(lambda: app.first_frame_at is not None, "the first frame")
        await wait_until(
            lambda: app.query("#activity"), "the tabs, mounted behind the first frame"
        )
        await pilot.pause()
        assert not app.query("#activity-pending")
        assert app.query_one("#activity").region.height == 11
        assert app.query_one("#tool-log") is not None
        assert not app.query("#timeline")  # with the engine
        await pilot.press("ctrl+o")  # the other tab, though its log is still to come
        assert app.query_one("#activity").active == "tab-timeline"
        release.set()
        await wait_until(
            lambda: app.engine is not None and app.query("#timeline"),
            "the timeline, with the engine",
        )
        assert app.query_one("#timeline").parent.id == "tab-timeline"


async def test_engine_actions_are_disabled_until_it_is_ready(tmp_path: Path) -> None:
    app, release = held_app(tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(lambda: app.first_frame_at is not None, "the first frame")
        assert app.check_action("settings", ()) is None
        assert app.check_action("quit", ()) is True
        await pilot.press(
            "f2"
        )  # does nothing yet: no settings screen without an engine
        assert len(app.screen_stack) == 1
        release.set()
        await wait_until(lambda: app.engine is not None, "the engine")
        assert app.check_action("settings", ()) is True


async def test_a_message_typed_while_starting_is_sent_once_ready(
    tmp_path: Path,
) -> None:
    app, release = held_app(tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(lambda: app.first_frame_at is not None, "the first frame")
        await pilot.click("#prompt")
        for key in "hello":
            await pilot.press(key)
        await pilot.press("enter")
        assert app.engine is None and app.starter.queued == ["hello"]
        release.set()
        await wait_until(
            lambda: (
                app.engine is not None
                and len(app.engine.session.messages) >= 2
                and not app._turn_running()
            ),
            "the queued message's answer",
        )
        await app.drained()
        assert app.engine.session.messages[0].content == "hello"


def test_a_broken_sources_file_found_behind_the_frame_exits_2_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sources = tmp_path / "config" / "sources.yaml"
    sources.parent.mkdir(parents=True)
    sources.write_text("sources:\n  shop:\n    engine: oracle\n")

    assert run_tui(argparse.Namespace(home=str(tmp_path))) == 2

    err = capsys.readouterr().err
    assert "sources.yaml" in err and "Traceback" not in err
