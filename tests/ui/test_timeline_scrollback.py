"""Every row of a long timeline is reachable by scrolling, while only a window is rendered
(issue 32): at the window's top the earlier rows come in, the view staying on the row being
read; Home shows the first rows, End the newest (followed again, the window bounded again);
rows that arrive while earlier ones are read never move the view. Replay's timeline is the
same widget: a step back redraws it at the newest rows of the state stepped to."""

from __future__ import annotations

import sys
from pathlib import Path

from textual.app import App, ComposeResult

sys.path.insert(0, str(Path(__file__).parent))

from conftest import fixed_clock
from fake_engine import FakeEngine
from helpers import settle, wait_until

from aiq_tui.events import CatalogReloaded
from aiq_tui.ui.app import AiqApp
from aiq_tui.ui.widgets.timeline import KEEP_ROWS, TAIL_ROWS, Timeline

ROWS = 1_000
SIZE = (100, 30)


class Host(App[None]):
    def compose(self) -> ComposeResult:
        yield Timeline(id="timeline")


def rows(count: int, start: int = 0) -> tuple[tuple[str, str, str], ...]:
    return tuple(
        ("12:00:00", "load", f"skill number {number} loaded")
        for number in range(start, start + count)
    )


def on_screen(timeline: Timeline) -> list[str]:
    """The pane's lines as drawn now."""
    return [
        timeline.render_line(y).text.rstrip()
        for y in range(timeline.scrollable_content_region.height)
    ]


async def test_scrolling_up_repeatedly_reaches_the_first_row_of_a_long_timeline() -> (
    None
):
    app = Host()
    async with app.run_test(size=SIZE) as pilot:
        timeline = app.query_one(Timeline)
        timeline.show(rows(ROWS))
        timeline.focus()
        await pilot.pause()
        assert "skill number 999 loaded" in on_screen(timeline)[-1]
        assert "900 earlier rows" in timeline.lines[0].text
        for _ in range(
            ROWS
        ):  # far more Page Ups than the timeline has pages: it must end at the top
            await pilot.press("pageup")
            assert len(timeline.lines) <= KEEP_ROWS + 2, (
                "a window being browsed stays bounded"
            )
            if "skill number 0 loaded" in on_screen(timeline)[0]:
                break
        assert "skill number 0 loaded" in on_screen(timeline)[0], (
            "the very first row is reachable"
        )
        assert "earlier row" not in timeline.lines[0].text
        assert "800 later rows — scroll down to show them" in timeline.lines[-1].text


async def test_the_rows_on_screen_stay_put_when_earlier_rows_come_in_above_them() -> (
    None
):
    app = Host()
    async with app.run_test(size=SIZE) as pilot:
        timeline = app.query_one(Timeline)
        timeline.show(rows(ROWS))
        await pilot.pause()
        timeline.scroll_to(
            y=1, animate=False
        )  # the scrollbar dragged to just under the marker line
        await pilot.pause()
        before = on_screen(timeline)
        assert before[0].endswith("skill number 900 loaded")
        timeline.scroll_to(
            y=0, animate=False
        )  # … and onto it: the earlier rows come in above
        await pilot.pause()
        assert f"{ROWS - 2 * TAIL_ROWS:,} earlier rows" in timeline.lines[0].text
        assert on_screen(timeline)[1:] == before[:-1], (
            "the view is one line up, on the same rows"
        )
        assert "skill number 899 loaded" in on_screen(timeline)[0]


async def test_home_shows_the_first_rows_and_end_the_newest_with_the_window_bounded_again() -> (
    None
):
    app = Host()
    async with app.run_test(size=SIZE) as pilot:
        timeline = app.query_one(Timeline)
        timeline.show(rows(ROWS))
        timeline.focus()
        await pilot.press("home")
        assert "skill number 0 loaded" in on_screen(timeline)[0]
        assert f"{ROWS - TAIL_ROWS:,} later rows" in timeline.lines[-1].text
        for _ in range(3):
            await pilot.press("pagedown")
        await pilot.press("end")
        assert "skill number 999 loaded" in on_screen(timeline)[-1]
        assert (
            len(timeline.lines) == TAIL_ROWS + 1
        )  # the newest rows and the line counting the rest
        assert f"{ROWS - TAIL_ROWS:,} earlier rows" in timeline.lines[0].text
        timeline.show(
            rows(ROWS + 1)
        )  # at the newest row again: a new row is drawn and followed
        await pilot.pause()
        assert "skill number 1000 loaded" in on_screen(timeline)[-1]


async def test_rows_arriving_while_earlier_rows_are_read_leave_the_view_where_it_is() -> (
    None
):
    app = Host()
    async with app.run_test(size=SIZE) as pilot:
        timeline = app.query_one(Timeline)
        shown = rows(ROWS)
        timeline.show(shown)
        timeline.focus()
        await pilot.press("home", "pagedown")
        before = on_screen(timeline)
        for _more in range(3):
            shown += rows(TAIL_ROWS, len(shown))
            timeline.show(shown)
            await pilot.pause()
            assert on_screen(timeline) == before, (
                "reading is never yanked to the newest row"
            )
        assert "later rows — scroll down to show them" in timeline.lines[-1].text
        for _ in range(
            len(shown)
        ):  # scrolling down reaches the newest row, window by window
            await pilot.press("pagedown")
            if "skill number 1299 loaded" in on_screen(timeline)[-1]:
                break
        assert "skill number 1299 loaded" in on_screen(timeline)[-1]
        assert "later row" not in timeline.lines[-1].text
        shown += rows(
            1, len(shown)
        )  # at the bottom again: the newest rows are followed
        timeline.show(shown)
        await pilot.pause()
        assert "skill number 1300 loaded" in on_screen(timeline)[-1]


async def test_the_live_timeline_tab_scrolls_back_to_its_first_row_and_end_follows_the_newest(
    tmp_path: Path,
) -> None:
    engine = FakeEngine(tmp_path)
    app = AiqApp(engine, clock=fixed_clock, watch=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        app.query_one("#activity").active = "tab-timeline"
        timeline = app.query_one(Timeline)
        reloads = KEEP_ROWS + TAIL_ROWS + 50
        for number in range(
            reloads
        ):  # one "reload" row each, as a day of edited skills adds them
            engine.emit(
                CatalogReloaded(added=(f"skill-{number}",), changed=(), removed=())
            )
            if number % 25 == 0:
                await pilot.pause()  # drawn as they come, between turns
        await wait_until(
            lambda: sum(kind == "reload" for kind, _ in timeline.entries) == reloads,
            "every reload row",
        )
        await settle(pilot)
        assert "skill-349" in "\n".join(on_screen(timeline))
        timeline.focus()
        for _ in range(reloads):
            await pilot.press("pageup")  # the timeline's own keys while it has focus
            if "earlier row" not in timeline.lines[0].text and timeline.scroll_y == 0:
                break
        assert "skill-0" in "\n".join(on_screen(timeline)), (
            "the first reload is reached"
        )
        await pilot.press("end")
        await pilot.pause()
        assert "skill-349" in "\n".join(on_screen(timeline))
        first, end = timeline.window
        assert end - first == TAIL_ROWS and end == len(timeline.entries)


async def test_a_step_back_drops_the_later_rows_and_keeps_the_rest_rendered() -> None:
    app = Host()
    async with app.run_test(size=SIZE) as pilot:
        timeline = app.query_one(Timeline)
        shown = rows(ROWS)
        timeline.show(shown)
        await pilot.pause()
        kept = timeline.lines[-2]
        timeline.show(shown[:-1])  # the cursor one event back: the newest row goes
        await pilot.pause()
        assert "skill number 998 loaded" in on_screen(timeline)[-1]
        assert timeline.lines[-1] is kept, "the rows that stay are not rendered again"
        assert f"{ROWS - 1 - TAIL_ROWS:,} earlier rows" in timeline.lines[0].text
        assert len(timeline.lines) == TAIL_ROWS + 1
        timeline.focus()
        await pilot.press("home")
        before = on_screen(timeline)
        timeline.show(
            shown[:500]
        )  # stepped back while the first rows are read: they stay in view
        await pilot.pause()
        assert on_screen(timeline) == before
        assert "400 later rows" in timeline.lines[-1].text
        assert [text for _, text in timeline.entries] == [
            text for _, _, text in shown[:500]
        ]
