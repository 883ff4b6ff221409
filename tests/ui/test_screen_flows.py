"""Pilot tests of the secondary screens: sessions picker, match inspector, slash commands,
and the reason shown when a skill changes state."""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from conftest import fixed_clock
from fake_engine import FakeEngine
from helpers import notices, open_sessions_list, say, settle, wait_until
from textual.widgets import DataTable, Input, Static

from aiq_tui.ui.app import AiqApp
from aiq_tui.ui.screens.inspector import InspectorScreen
from aiq_tui.ui.screens.sessions import SessionsScreen


def make_app(engine: FakeEngine) -> AiqApp:
    return AiqApp(engine, clock=fixed_clock, watch=False)


def text_of(widget: Static) -> str:
    return str(widget.render())


async def open_sessions(pilot) -> SessionsScreen:
    return await open_sessions_list(pilot)


async def test_sessions_picker_renames_the_selected_session(
    fake_engine: FakeEngine,
) -> None:
    app = make_app(fake_engine)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_sessions(pilot)
        await pilot.press("down")  # the second row: s-0000
        await pilot.press("n")
        field = screen.query_one("#rename", Input)
        assert field.display and field.has_focus
        field.value = "Bookshop tables"
        await pilot.press("enter")
        await wait_until(
            lambda: text_of(screen.query_one("#sessions-status")) == "renamed s-0000",
            "the rename",
        )
        titles = {s.id: s.title for s in fake_engine.sessions.list()}
        assert titles["s-0000"] == "Bookshop tables"
        table = screen.query_one(DataTable)
        assert "Bookshop tables" in str(table.get_row("s-0000")[1])
        assert not field.display


async def test_sessions_picker_deletes_only_on_a_second_press(
    fake_engine: FakeEngine,
) -> None:
    app = make_app(fake_engine)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_sessions(pilot)
        await pilot.press("down")
        await pilot.press("d")
        await wait_until(
            lambda: "press d again" in text_of(screen.query_one("#sessions-status")),
            "the warning",
        )
        assert [s.id for s in fake_engine.sessions.list()] == ["s-0001", "s-0000"]
        await pilot.press("d")
        await wait_until(
            lambda: text_of(screen.query_one("#sessions-status")) == "deleted s-0000",
            "the delete",
        )
        assert [s.id for s in fake_engine.sessions.list()] == ["s-0001"]
        assert screen.query_one(DataTable).row_count == 1


class SlowSessionStore:
    """The fake store, whose scan waits until the test releases it (or 10 s pass: on a UI
    thread that would freeze the app, which is what the test then reports)."""

    def __init__(self, store: Any) -> None:
        self.store = store
        self.released = threading.Event()
        self.started = threading.Event()
        self.timed_out = False

    def scan(self) -> Any:
        self.started.set()
        self.timed_out = not self.released.wait(10)
        return self.store.scan()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)


async def test_sessions_picker_opens_and_answers_keys_while_the_sessions_are_still_read(
    fake_engine: FakeEngine,
) -> None:
    slow = SlowSessionStore(fake_engine.sessions)
    fake_engine.sessions = slow
    app = make_app(fake_engine)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("f4")
        await wait_until(lambda: slow.started.is_set(), "the read to start")
        screen = app.screen
        assert isinstance(screen, SessionsScreen)
        assert (
            text_of(screen.query_one("#sessions-status")) == "reading sessions…"
            and screen.reading
        )
        assert screen.query_one(DataTable).row_count == 0
        await pilot.press(
            "d", "n"
        )  # no rows yet: nothing to delete or rename, nothing breaks
        assert not screen.query_one("#rename", Input).display
        slow.released.set()
        await wait_until(lambda: not screen.reading, "the listing")
        await pilot.pause()
        assert not slow.timed_out, "the read blocked the app until it gave up"
        assert screen.query_one(DataTable).row_count == 2
        assert text_of(screen.query_one("#sessions-status")) == ""
        await pilot.press("escape")
        await wait_until(
            lambda: not isinstance(app.screen, SessionsScreen), "the dialog to close"
        )


async def test_sessions_picker_closes_while_the_sessions_are_still_read(
    fake_engine: FakeEngine,
) -> None:
    slow = SlowSessionStore(fake_engine.sessions)
    fake_engine.sessions = slow
    app = make_app(fake_engine)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("f4")
        await wait_until(lambda: slow.started.is_set(), "the read to start")
        await pilot.press("escape")
        await wait_until(
            lambda: not isinstance(app.screen, SessionsScreen), "the dialog to close"
        )
        slow.released.set()  # the listing arrives for a dialog that is gone: dropped, no error
        await wait_until(
            lambda: (
                not any(w.is_running for w in app.workers if w.group == "sessions-read")
            ),
            "the read to end",
        )
        await pilot.pause()
        assert not slow.timed_out and app.is_running


class SlowRenameStore:
    """The fake store, whose rename waits until the test releases it (or 10 s pass: on the UI
    thread that would freeze the dialog, which is what the test then reports)."""

    def __init__(self, store: Any) -> None:
        self.store = store
        self.released = threading.Event()
        self.started = threading.Event()
        self.timed_out = False

    def rename(self, session_id: str, title: str) -> None:
        self.started.set()
        self.timed_out = not self.released.wait(10)
        self.store.rename(session_id, title)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)


async def test_sessions_picker_answers_keys_while_a_rename_is_still_saved(
    fake_engine: FakeEngine,
) -> None:
    slow = SlowRenameStore(fake_engine.sessions)
    fake_engine.sessions = slow
    app = make_app(fake_engine)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_sessions(pilot)
        status = screen.query_one("#sessions-status")
        await pilot.press("n")
        screen.query_one("#rename", Input).value = "Renamed slowly"
        await pilot.press("enter")
        await wait_until(lambda: slow.started.is_set(), "the rename to start")
        assert text_of(status) == "renaming s-0001…" and screen.writing
        table = screen.query_one(DataTable)
        await pilot.press("down")  # the dialog answers keys meanwhile
        await wait_until(lambda: table.cursor_row == 1, "the cursor to move")
        await pilot.press(
            "d", "n"
        )  # one write at a time: no delete or second rename meanwhile
        assert (
            text_of(status) == "renaming s-0001…"
            and not screen.query_one("#rename", Input).display
        )
        slow.released.set()
        await wait_until(
            lambda: text_of(status) == "renamed s-0001", "the rename to finish"
        )
        assert not slow.timed_out, "the rename blocked the dialog until it gave up"
        assert "Renamed slowly" in str(table.get_row("s-0001")[1])
        assert {s.id: s.title for s in slow.list()}["s-0001"] == "Renamed slowly"
        assert [s.id for s in slow.list()] == ["s-0001", "s-0000"]


class SlowDeleteStore(SlowRenameStore):
    """The fake store, whose delete waits until the test releases it."""

    def delete(self, session_id: str) -> None:
        self.started.set()
        self.timed_out = not self.released.wait(10)
        self.store.delete(session_id)


async def test_deleting_the_current_session_reaches_the_app_after_the_dialog_closed(
    fake_engine: FakeEngine,
) -> None:
    slow = SlowDeleteStore(fake_engine.sessions)
    fake_engine.sessions = slow
    app = make_app(fake_engine)
    async with app.run_test(size=(120, 36)) as pilot:
        await open_sessions(pilot)
        assert (
            fake_engine.session.id == "s-0001"
        )  # the current session, on the first row
        await pilot.press("d", "d")
        await wait_until(lambda: slow.started.is_set(), "the delete to start")
        await pilot.press("escape")
        await wait_until(
            lambda: not isinstance(app.screen, SessionsScreen), "the dialog to close"
        )
        slow.released.set()
        await wait_until(lambda: fake_engine.session.id != "s-0001", "a new session")
        assert not slow.timed_out and [s.id for s in slow.list()] == ["s-0000"]
        await settle(pilot)


async def test_sessions_picker_enter_resumes_the_chosen_session(
    fake_engine: FakeEngine,
) -> None:
    app = make_app(fake_engine)
    async with app.run_test(size=(120, 36)) as pilot:
        await open_sessions(pilot)
        await pilot.press("down", "enter")
        await settle(pilot)
        assert not isinstance(app.screen, SessionsScreen)
        assert fake_engine.resumed == ["s-0000"]


async def test_inspector_explains_why_a_named_skill_did_not_match(
    fake_engine: FakeEngine,
) -> None:
    app = make_app(fake_engine)
    async with app.run_test(size=(120, 36)) as pilot:
        await say(pilot, "/match tables in the sample database")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, InspectorScreen)
        await pilot.press("ctrl+n")
        why_name = screen.query_one("#why-name", Input)
        assert why_name.has_focus
        why_name.value = "http-fetch"
        await pilot.press("enter")
        await pilot.pause()
        assert "http-fetch: no query term appears" in text_of(screen.query_one("#why"))
        why_name.value = "no-such-skill"
        await pilot.press("enter")
        await pilot.pause()
        assert "no-such-skill: no such skill." in text_of(screen.query_one("#why"))


async def test_a_state_change_shows_its_reason_under_the_skill_lists(
    fake_engine: FakeEngine,
) -> None:
    app = make_app(fake_engine)
    async with app.run_test(size=(120, 36)) as pilot:
        await say(pilot, "show the tables in the sample database")
        await settle(pilot)
        reason = text_of(app.query_one("#skills-reason"))
        assert "→" in reason and "—" in reason


async def test_slash_commands_open_their_screens_or_say_what_they_did(
    fake_engine: FakeEngine,
) -> None:
    from aiq_tui.ui.screens.help import HelpScreen
    from aiq_tui.ui.screens.settings import SettingsScreen

    app = make_app(fake_engine)
    async with app.run_test(size=(120, 36)) as pilot:
        for command, screen_type in (
            ("/model", SettingsScreen),
            ("/session", SessionsScreen),
            ("/help", HelpScreen),
        ):
            await say(pilot, command)
            await pilot.pause()
            assert isinstance(app.screen, screen_type), command
            await pilot.press("escape")
            await pilot.pause()
            assert app.screen is app.screen_stack[0]
        assert any(n.startswith("model: demo") for n in notices(app))
        await say(pilot, "/skills")
        await pilot.pause()
        assert "skills: 0 active, 0 relevant, 6 inactive" in notices(app)
        await say(pilot, "/skill")
        await pilot.pause()
        assert "usage: /skill NAME [ARGUMENTS]" in notices(app)
        name = next(iter(fake_engine._views))
        await say(pilot, f"/skill {name} the orders table")
        await wait_until(
            lambda: any(n.startswith(f"activated {name}") for n in notices(app)),
            "the activation notice",
        )
        assert fake_engine.activated_with == "the orders table"
        assert f"activated {name} with arguments 'the orders table'" in notices(app)
        await say(pilot, "/frobnicate")
        await pilot.pause()
        assert any(
            n.startswith("unknown command /frobnicate; try:") for n in notices(app)
        )


async def test_ctrl_n_in_the_inspector_starts_a_fresh_name(
    fake_engine: FakeEngine,
) -> None:
    """Asking why another skill did not match: Ctrl+N empties the name field, so the next
    name is typed alone, while the last answer stays shown."""
    app = make_app(fake_engine)
    async with app.run_test(size=(120, 36)) as pilot:
        await say(pilot, "/match tables in the sample database")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, InspectorScreen)
        await pilot.press("ctrl+n", *"http-fetch", "enter")
        await pilot.pause()
        assert "http-fetch" in text_of(screen.query_one("#why"))
        await pilot.press("ctrl+n", *"pdf")
        assert screen.query_one("#why-name", Input).value == "pdf"
        assert "http-fetch" in text_of(screen.query_one("#why"))
