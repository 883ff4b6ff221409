"""Opening Replay stays instant on long sessions, and stepping keeps up with the keys.

A long session (the recorded fixture's turns repeated to thousands of events) is read and
folded behind a loading bar by a thread worker; the result comes back as a message and the
screen lands on the last event. Only what the panes show is built: the conversation mounts its
newest entries (earlier ones as the view scrolls up to them), the timeline its newest rows.
The timing itself is measured by ``make bench`` (bench/replay.py), never here.
"""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

from textual.app import App

from aiq_tui.replay.state import SessionStates, all_states
from aiq_tui.ui.screens.replay import (
    Recorded,
    ReplayApp,
    ReplayScreen,
    ReplayUnavailable,
)
from aiq_tui.ui.widgets.conversation import WINDOW, Conversation, UserTurn
from aiq_tui.ui.widgets.timeline import KEEP_ROWS, TAIL_ROWS, Timeline

FIXTURE = Path(__file__).parent / "fixtures" / "session_demo.json"
SIZE = (120, 36)


def long_turns(events: int) -> list[dict[str, Any]]:
    """The fixture's turns repeated until they hold ``events`` events (message ids kept unique)."""
    fixture = json.loads(FIXTURE.read_text(encoding="utf-8"))["replay"]["turns"]
    turns: list[dict[str, Any]] = []
    copy = 0
    while sum(len(t["events"]) for t in turns) < events:
        copy += 1
        for turn in fixture:
            turns.append(
                json.loads(
                    json.dumps(turn).replace(
                        '"message_id": "', f'"message_id": "c{copy}-'
                    )
                )
            )
    return turns


async def until(condition, what: str, timeout: float = 60.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        assert loop.time() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.02)


def bar(screen: ReplayScreen) -> str:
    return str(screen.query_one("#replay-bar").render())


def test_the_kept_turn_starts_give_every_state_the_full_fold_gives() -> None:
    turns = long_turns(400)
    states, every = SessionStates(turns), all_states(turns)
    for number, per_event in enumerate(every, 1):
        for event, expected in enumerate(per_event):
            assert states.at(number, event) == expected
    assert states.at(0, 0) == states.at(
        len(turns) + 1, 0
    )  # outside the session: the empty state


async def test_a_long_session_shows_a_loading_bar_until_the_worker_has_folded_it() -> (
    None
):
    turns = long_turns(3_000)
    release = threading.Event()

    def load() -> (
        Recorded
    ):  # the worker's read of the file, held until the test lets it go
        assert release.wait(30)
        return Recorded(turns, "a long session")

    app = ReplayApp(None, "session-x", load=load)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.replay
        await until(lambda: screen.is_mounted, "the screen")
        assert "loading" in bar(screen) and not screen.loaded
        await pilot.press(
            "left", "up"
        )  # keys while it loads do nothing (nothing to step through)
        assert not screen.loaded and screen.view is None
        release.set()
        await until(
            lambda: screen.loaded and screen._drawn is not None,
            "the folded session drawn",
        )
        last = len(turns)
        assert (screen.turn, screen.event) == (last, len(turns[-1]["events"]))
        assert f"turn {last}/{last}" in bar(screen)
        assert screen.state == all_states(turns)[-1][-1]


async def test_a_session_that_cannot_be_read_closes_the_screen_and_says_why() -> None:
    said: list[tuple[str, str]] = []

    class Host(App[None]):
        def notify(
            self, message: str, *, severity: str = "information", **kwargs: Any
        ) -> None:  # type: ignore[override]
            said.append((message, severity))

        def on_mount(self) -> None:
            def load() -> Recorded:
                raise ReplayUnavailable("no such session", "error")

            self.push_screen(ReplayScreen(None, "gone", load=load))

    app = Host()
    async with app.run_test(size=SIZE):
        await until(lambda: bool(said), "the notification")
        await until(
            lambda: not isinstance(app.screen, ReplayScreen), "the screen to close"
        )
        assert said == [("no such session", "error")]


async def test_a_long_session_mounts_only_the_newest_entries_and_rows_then_more_on_scrolling_up() -> (
    None
):
    turns = long_turns(3_000)
    app = ReplayApp(turns, "a long session")
    async with app.run_test(size=SIZE):
        screen = app.replay
        await until(
            lambda: screen.loaded and screen._drawn is not None,
            "the folded session drawn",
        )
        conversation = screen.query_one(Conversation)
        entries = len(screen.state.conversation)
        assert entries > 2 * WINDOW
        blocks = [w for w in conversation.children if not w.has_class("earlier")]
        # the newest entries (WINDOW, or the pane's height in rows when that is more); one line
        # counts the rest
        window = len(blocks)
        assert (
            WINDOW <= window <= max(WINDOW, conversation.size.height + 2)
            and window < entries // 2
        )
        assert len(conversation.query(".earlier")) == 1
        timeline = screen.query_one(Timeline)
        assert len(timeline.entries) == len(
            screen.state.timeline
        )  # every row is known …
        hidden = (
            len(timeline.entries) - TAIL_ROWS
        )  # … the newest are drawn (a row is a line or more)
        assert len(timeline.lines) < len(timeline.entries)
        assert f"{hidden:,} earlier rows" in timeline.lines[0].text
        conversation.to_top()  # scrolled up to the line: the earlier entries come in
        await until(
            lambda: len(conversation.children) > window + 1, "earlier entries mounted"
        )
        # up to a window more: WINDOW, or the pane's height when that is more (a row or two
        # taller or shorter than when the first window was mounted)
        more = len(conversation.children) - window - 1
        assert 0 < more <= max(WINDOW, conversation.size.height + 2)


async def test_the_wheel_reaches_a_long_timelines_first_row_and_steps_back_keep_the_view() -> (
    None
):
    from textual.events import MouseScrollUp

    turns = long_turns(3_000)
    app = ReplayApp(turns, "a long session")
    async with app.run_test(size=SIZE) as pilot:
        screen = app.replay
        await until(
            lambda: screen.loaded and screen._drawn is not None,
            "the folded session drawn",
        )
        timeline = screen.query_one(Timeline)
        height = timeline.scrollable_content_region.height

        def on_screen() -> list[str]:
            return [timeline.render_line(y).text for y in range(height)]

        async def turn_back() -> None:
            await pilot.press("up")
            await until(
                lambda: (
                    screen._drawn == (screen.turn, screen.event) and not screen._drawing
                ),
                "the step drawn",
            )
            assert [text for _, text in timeline.entries] == [
                text for _, _, text in screen.state.timeline
            ]

        await turn_back()  # at the newest rows: they are followed back
        assert timeline.lines[-1].text == on_screen()[-1]
        assert (
            f"{len(timeline.entries) - TAIL_ROWS:,} earlier rows"
            in timeline.lines[0].text
        )
        time, kind, text = screen.state.timeline[0]
        assert len(screen.state.timeline) > 5 * TAIL_ROWS
        for _ in range(
            len(screen.state.timeline)
        ):  # the wheel (the cursor has the keys in Replay)
            timeline.scroll_to(
                y=2, animate=False
            )  # the scrollbar dragged near the top …
            await pilot.pause()
            timeline.post_message(
                MouseScrollUp(timeline, 1, 1, 0, -1, 0, False, False, False)
            )  # … a turn of the wheel
            await pilot.pause()
            if on_screen()[0] == timeline.lines[0].text:
                break
        assert "earlier row" not in timeline.lines[0].text, "the first row is reached"
        assert (
            on_screen()[0].startswith(f"{time} {kind}")
            and text.split()[0] in on_screen()[0]
        )
        first, end = timeline.window
        assert end - first <= KEEP_ROWS  # a window of rows rendered, not every row
        reading = on_screen()
        await turn_back()  # reading the first rows: a step leaves them in view
        assert on_screen() == reading


async def test_stepping_back_an_event_keeps_the_drawn_widgets_that_did_not_change() -> (
    None
):
    turns = long_turns(1_500)
    app = ReplayApp(turns, "a long session")
    async with app.run_test(size=SIZE) as pilot:
        screen = app.replay
        await until(
            lambda: screen.loaded and screen._drawn is not None,
            "the folded session drawn",
        )
        conversation = screen.query_one(Conversation)
        users = list(conversation.query(UserTurn))
        for _ in range(3):  # within the last turn: the question stays, the answer goes
            await pilot.press("left")
        await until(
            lambda: screen._drawn == (screen.turn, screen.event), "the step drawn"
        )
        assert screen.event == len(turns[-1]["events"]) - 3
        assert (
            list(conversation.query(UserTurn)) == users
        )  # the same widgets, not drawn afresh


async def test_held_keys_skip_positions_and_land_where_the_last_key_points() -> None:
    turns = long_turns(1_500)
    app = ReplayApp(turns, "a long session")
    async with app.run_test(size=SIZE) as pilot:
        screen = app.replay
        await until(
            lambda: screen.loaded and screen._drawn is not None,
            "the folded session drawn",
        )
        await pilot.press(
            *["up"] * 20
        )  # as fast as key repeat: drawing catches up with the newest
        await until(
            lambda: (
                screen._drawn == (screen.turn, screen.event) and not screen._drawing
            ),
            "caught up",
        )
        assert screen.turn == len(turns) - 20
        assert screen.state == all_states(turns)[screen.turn - 1][-1]


async def test_replay_has_the_live_views_tools_tab_drawn_from_the_state_at_the_cursor() -> (
    None
):
    from textual.widgets import TabbedContent

    from aiq_tui.ui.widgets.tool_log import ToolLog

    turns = json.loads(FIXTURE.read_text(encoding="utf-8"))["replay"]["turns"]
    app = ReplayApp(turns, "the demo session")
    async with app.run_test(size=SIZE) as pilot:
        screen = app.replay
        await until(lambda: screen._drawn is not None, "the session drawn")
        tabs = screen.query_one("#activity", TabbedContent)
        assert tabs.active == "tab-timeline"
        await pilot.press("ctrl+o")
        assert tabs.active == "tab-tools"
        log = screen.query_one(ToolLog)
        assert (
            list(log.records) == [row.call_id for row in screen.state.tools]
            and log.records
        )
        await pilot.press("home")  # the first event: no tool has been called yet
        await until(lambda: screen._drawn == (1, 1), "the first event drawn")
        assert not log.records


async def test_esc_while_a_session_loads_goes_back_to_live() -> None:
    release = threading.Event()

    class Host(App[None]):
        def on_mount(self) -> None:
            def load() -> Recorded:
                assert release.wait(30)
                return Recorded(long_turns(100), "late")

            self.push_screen(ReplayScreen(None, "late", load=load))

    app = Host()
    try:
        async with app.run_test(size=SIZE) as pilot:
            await until(
                lambda: isinstance(app.screen, ReplayScreen) and app.screen.is_mounted,
                "the loading screen",
            )
            await pilot.press("escape")
            await until(
                lambda: not isinstance(app.screen, ReplayScreen), "back to live"
            )
            release.set()  # the read finishes after the screen closed: its result goes nowhere
            await pilot.pause()
            assert not isinstance(app.screen, ReplayScreen)
    finally:
        release.set()
