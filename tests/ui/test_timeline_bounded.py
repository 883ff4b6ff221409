"""A live timeline that follows its newest row keeps a bounded number of rows drawn (issue 32):
a day-long session adds thousands of rows, and each drawn row is strips and caches in memory.
Every row stays known; the earlier ones are counted on the first line."""

from __future__ import annotations

from textual.app import App, ComposeResult

from aiq_tui.ui.widgets.timeline import KEEP_ROWS, TAIL_ROWS, Timeline

ROWS = 1_000


class Host(App[None]):
    def compose(self) -> ComposeResult:
        yield Timeline(id="timeline")


def row(number: int) -> tuple[str, str, str]:
    return ("12:00:00", "load", f"skill number {number} loaded")


async def test_a_growing_live_timeline_keeps_its_newest_rows_drawn_not_all() -> None:
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        timeline = app.query_one(Timeline)
        rows: tuple[tuple[str, str, str], ...] = ()
        for number in range(ROWS):
            rows = rows + (row(number),)
            timeline.show(rows)
            if number % 25 == 0:
                await (
                    pilot.pause()
                )  # the pane scrolls to its newest row, as it does between turns
        await pilot.pause()
        assert len(timeline.entries) == ROWS, "every row is known"
        assert len(timeline.lines) <= KEEP_ROWS + 2, "the drawn rows are bounded"
        hidden = len(timeline.entries) - len(timeline.lines) + 1
        assert (
            hidden >= ROWS - KEEP_ROWS
            and f"{hidden:,} earlier rows" in timeline.lines[0].text
        )
        assert f"skill number {ROWS - 1} loaded" in timeline.lines[-1].text
        assert len(timeline.lines) - 1 >= TAIL_ROWS
