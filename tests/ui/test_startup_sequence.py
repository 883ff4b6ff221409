"""Issue 24 §3: the skills are listed from the catalog before the engine is built, the engine
waits for the first frame, and the footer redraws once however often the bindings change."""

from __future__ import annotations

import sys
import threading
from concurrent.futures import Future
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from conftest import fixed_clock
from fake_engine import FakeEngine
from helpers import wait_until

from aiq_tui.skills.model import SkillState
from aiq_tui.ui.app import AiqApp
from aiq_tui.ui.widgets.footer import CoalescedFooter
from aiq_tui.ui.widgets.skills_pane import SkillsPane


def held_start(
    tmp_path: Path, ahead: Future[list[object]] | None = None
) -> tuple[AiqApp, FakeEngine, threading.Event, list[str]]:
    """An app whose engine build is held until ``release`` is set; ``calls`` records the order.
    With ``ahead``, the listing is also read ahead by a thread, as ``aiq-tui`` does from a
    catalog cache (the listing then waits for that read)."""
    engine = FakeEngine(tmp_path)
    release = threading.Event()
    calls: list[str] = []

    def listing() -> list[object]:
        calls.append("listing")
        return ahead.result() if ahead is not None else engine.skill_views()

    def build() -> FakeEngine:
        calls.append(f"build (framed: {app.first_frame_at is not None})")
        while app.is_running and not release.wait(0.02):
            pass
        return engine

    app = AiqApp.starting(
        engine.config,
        engine.workspace.home,
        build,
        listing=listing,
        read_ahead=ahead,
        clock=fixed_clock,
        watch=False,
    )
    return app, engine, release, calls


async def test_the_skills_are_listed_before_the_engine_is_built(tmp_path: Path) -> None:
    app, engine, release, calls = held_start(tmp_path)
    try:
        async with app.run_test(size=(120, 36)) as pilot:
            inactive = app.query_one(SkillsPane).section(SkillState.INACTIVE)
            await wait_until(lambda: len(calls) == 2, "the build to start")
            assert app.engine is None
            assert inactive.border_title == f"Inactive ({len(engine.skill_views())})"
            assert calls == [
                "listing",
                "build (framed: True)",
            ]  # the engine waits for the first frame
            await pilot.press(
                "enter"
            )  # a listed skill does not open before the engine is there
            release.set()
            await wait_until(lambda: app.engine is engine, "the engine")
            await pilot.pause()
            assert inactive.border_title == f"Inactive ({len(engine.skill_views())})"
    finally:
        release.set()


async def test_changes_of_bindings_before_a_refresh_redraw_the_footer_once(
    tmp_path: Path,
) -> None:
    composed: list[int] = []

    class CountingFooter(CoalescedFooter):
        def compose(self):  # type: ignore[no-untyped-def]
            composed.append(1)
            return super().compose()

    engine = FakeEngine(tmp_path)
    app = AiqApp(engine, clock=fixed_clock, watch=False)
    async with app.run_test(size=(120, 36)) as pilot:
        footer = app.query_one(CoalescedFooter)
        counting = CountingFooter()
        await footer.remove()
        await app.screen.mount(counting)
        await pilot.pause()
        composed.clear()
        for _ in range(5):
            app.refresh_bindings()
        await pilot.pause()
        await pilot.pause()
        # One recompose for the five (Textual's footer: five); on a loaded machine one left
        # over from mounting the footer may land in the same window.
        assert 1 <= len(composed) <= 2
        before = len(composed)
        app.refresh_bindings()  # a later change still redraws it
        await pilot.pause()
        await pilot.pause()
        assert len(composed) > before


async def test_a_catalog_read_ahead_is_listed_in_the_first_frame(
    tmp_path: Path,
) -> None:
    ahead: Future[list[object]] = Future()
    app, engine, release, calls = held_start(tmp_path, ahead)
    ahead.set_result(engine.skill_views())
    listed_at_first_frame: list[str] = []
    first_frame = app._first_frame

    def record_then_frame() -> None:
        listed_at_first_frame.append(
            str(app.query_one(SkillsPane).section(SkillState.INACTIVE).border_title)
        )
        first_frame()

    app._first_frame = record_then_frame  # type: ignore[method-assign]
    try:
        async with app.run_test(size=(120, 36)):
            await wait_until(
                lambda: calls == ["build (framed: True)"], "the build to start"
            )
            assert listed_at_first_frame == [f"Inactive ({len(engine.skill_views())})"]
            assert "listing" not in calls  # listed once, not again by the start worker
    finally:
        release.set()


async def test_a_late_read_ahead_is_listed_by_the_start_worker_after_the_frame(
    tmp_path: Path,
) -> None:
    ahead: Future[list[object]] = Future()
    app, engine, release, calls = held_start(tmp_path, ahead)
    try:
        async with app.run_test(size=(120, 36)):
            inactive = app.query_one(SkillsPane).section(SkillState.INACTIVE)
            await wait_until(
                lambda: app.first_frame_at is not None and calls == ["listing"],
                "the frame",
            )
            assert (
                inactive.border_title == "Inactive (0)"
            )  # drawn without waiting for the read
            ahead.set_result(engine.skill_views())
            await wait_until(
                lambda: calls == ["listing", "build (framed: True)"],
                "the build to start",
            )
            assert inactive.border_title == f"Inactive ({len(engine.skill_views())})"
    finally:
        ahead.done() or ahead.set_result([])
        release.set()
