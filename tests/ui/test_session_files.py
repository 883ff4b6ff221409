"""Session files in the TUI are input, never authority: an oversized file and a FIFO named like a
session are named in a notice when F4 lists the sessions (never waited on), and resuming or
replaying one that cannot be read says why while the app keeps running its own session."""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

engine_module = pytest.importorskip("aiq_tui.agent.engine")

from conftest import fixed_clock
from helpers import open_sessions_list, say, settle, wait_until
from textual.widgets import DataTable

from aiq_tui.agent.sessions import Session, SessionStore
from aiq_tui.ui.app import AiqApp
from aiq_tui.ui.screens.sessions import SessionsScreen
from aiq_tui.workspace import Workspace

pytestmark = pytest.mark.slow

GOOD, BIG, FIFO = (
    "20250101000000-good00",
    "20250101000000-bigbig",
    "20250101000000-fifo00",
)


@contextmanager
def released_if_stuck(fifo: Path, after: float = 60) -> Iterator[threading.Event]:
    """A reader stuck opening ``fifo`` is let go after ``after`` seconds (a writer opens and
    closes it), so a regression fails the test instead of hanging the suite; the event says so."""
    done, stuck = threading.Event(), threading.Event()

    def watch() -> None:
        wait = after
        while not done.wait(wait):  # every later read of it is let go too, at once
            stuck.set()
            try:
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            except OSError:  # no reader right now (ENXIO)
                pass
            wait = 0.5

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        yield stuck
    finally:
        done.set()
        watcher.join()


def toasts(app: AiqApp) -> list[str]:
    return [f"{n.title}: {n.message}" for n in app._notifications]


async def test_unreadable_session_files_are_named_and_the_app_keeps_its_own_session(
    tmp_path: Path,
) -> None:
    engine = engine_module.Engine.create(Workspace.open(home_flag=tmp_path / "home"))
    folder = engine.workspace.home.sessions_dir
    folder.mkdir(parents=True, exist_ok=True)
    SessionStore(folder).save(Session(id=GOOD, title="the good one"))
    with (folder / f"session_{BIG}.json").open("wb") as handle:
        handle.truncate(
            100_000_000
        )  # sparse: over the 64 MB default without using the disk
    fifo = folder / f"session_{FIFO}.json"
    os.mkfifo(fifo)
    app = AiqApp(engine, clock=fixed_clock, watch=False)
    with released_if_stuck(fifo) as stuck:
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await open_sessions_list(pilot)
            table = app.screen.query_one(DataTable)
            listed = {row.value for row in table.rows}
            assert GOOD in listed and BIG not in listed and FIFO not in listed
            await wait_until(
                lambda: any("skipped" in t for t in toasts(app)),
                "the notice of skipped files",
            )
            notice = next(t for t in toasts(app) if "skipped" in t)
            assert "2 session file(s) skipped" in notice
            assert (
                f"session_{BIG}.json" in notice
                and "over the 64,000,000-byte limit" in notice
            )
            assert f"session_{FIFO}.json" in notice and "not a regular file" in notice
            await pilot.press("escape")

            current = engine.session.id
            app.session_control.resume(BIG)
            await wait_until(
                lambda: any(t.startswith("Cannot resume") for t in toasts(app)),
                "the resume error",
            )
            assert any(
                f"session_{BIG}.json" in t and "sessions.max_file_bytes" in t
                for t in toasts(app)
            )
            assert engine.session.id == current

            await say(pilot, f"/replay {BIG}")
            await wait_until(
                lambda: sum(f"session_{BIG}.json" in t for t in toasts(app)) >= 3,
                "the replay error",
            )
            await settle(pilot)
            assert not isinstance(app.screen, SessionsScreen)
            await say(pilot, "hello")  # the app goes on with its own session
            await settle(pilot)
            assert engine.session.id == current and len(engine.session.messages) >= 2
    assert not stuck.is_set(), "the sessions list waited on a FIFO"


async def test_renaming_a_session_whose_file_went_bad_says_why_in_the_dialog(
    tmp_path: Path,
) -> None:
    from fake_engine import FakeEngine

    engine = FakeEngine(tmp_path)
    engine.sessions = SessionStore(tmp_path / "sessions")
    engine.sessions.save(Session(id=GOOD, title="the good one"))
    app = AiqApp(engine, clock=fixed_clock, watch=False)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_sessions_list(pilot)
        (tmp_path / "sessions" / f"session_{GOOD}.json").write_text(
            "[" * 100_000
        )  # changed meanwhile
        await pilot.press("n")
        await pilot.pause()
        await pilot.press("x", "enter")
        await wait_until(
            lambda: str(screen.query_one("#sessions-status").render()).startswith(
                "not renamed:"
            ),
            "the rename to fail",
        )
        status = str(screen.query_one("#sessions-status").render())
        assert status.startswith("not renamed:") and f"session_{GOOD}.json" in status
        assert "nested deeper than 100 levels" in status
        assert app.screen is screen and app.is_running
