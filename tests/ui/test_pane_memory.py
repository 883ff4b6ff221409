"""What a day-long session leaves in the panes it is not showing (issue 32): a timeline behind
the Tools tab keeps nothing drawn until it is shown, and then draws its newest rows, not every
row the session added; the tool log's rendered rows are bounded by what a few screens show."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.widgets import TabbedContent, TabPane

from aiq_tui.replay.state import ToolRow
from aiq_tui.ui.widgets.timeline import KEEP_ROWS, Timeline
from aiq_tui.ui.widgets.tool_log import RENDER_CACHE_ROWS, ToolLog

ROWS = 1_000


class Activity(App[None]):
    """The workbench's activity tabs: the tool log in front, the timeline behind it."""

    def compose(self) -> ComposeResult:
        with TabbedContent(initial="tools"):
            with TabPane("Tools", id="tools"):
                yield ToolLog(id="tool-log")
            with TabPane("Timeline", id="timeline-tab"):
                yield Timeline(id="timeline")


def timeline_rows(count: int) -> tuple[tuple[str, str, str], ...]:
    return tuple(
        ("12:00:00", "tool", f"execute_sql call {number}") for number in range(count)
    )


async def test_a_timeline_never_shown_draws_only_its_newest_rows_when_it_is() -> None:
    app = Activity()
    async with app.run_test(size=(100, 30)) as pilot:
        timeline = app.query_one(Timeline)
        rows: tuple[tuple[str, str, str], ...] = ()
        for number in range(ROWS):  # a row at a time, as a live session adds them
            rows = rows + timeline_rows(ROWS)[number : number + 1]
            timeline.show(rows)
        await pilot.pause()
        assert not timeline.lines, "nothing is drawn behind the Tools tab"
        app.query_one(TabbedContent).active = "timeline-tab"
        await pilot.pause()
        await pilot.pause()
        assert timeline.lines, "the timeline draws once it is shown"
        assert len(timeline.lines) <= KEEP_ROWS + 2, (
            "its newest rows, not the thousand the session added"
        )
        assert f"execute_sql call {ROWS - 1}" in timeline.lines[-1].text
        assert "earlier rows" in timeline.lines[0].text


async def test_the_tool_logs_rendered_rows_stay_a_few_screens_however_many_calls() -> (
    None
):
    app = Activity()
    async with app.run_test(size=(100, 30)) as pilot:
        log = app.query_one(ToolLog)
        caches = {
            name: getattr(log, name, None)
            for name in ("_row_render_cache", "_line_cache", "_cell_render_cache")
        }
        if any(
            cache is None or not hasattr(cache, "maxsize") for cache in caches.values()
        ):
            pytest.skip(
                "this Textual's DataTable keeps its renderings under other names"
            )
        state: tuple[ToolRow, ...] = ()
        for number in range(600):
            running = ToolRow(
                f"c{number}",
                "execute_sql",
                "running",
                arguments={"query": f"SELECT {number}"},
            )
            state = state + (running,)
            log.show(state)
            state = state[:-1] + (
                ToolRow(
                    f"c{number}",
                    "execute_sql",
                    "ok",
                    f"{number} rows",
                    0.01,
                    {"query": f"SELECT {number}"},
                    "auto",
                ),
            )
            log.show(state)
            if number % 20 == 0:
                await pilot.pause()  # painted as the turns go by
        await pilot.pause()
        assert len(caches["_row_render_cache"]) <= RENDER_CACHE_ROWS
        assert len(caches["_line_cache"]) <= RENDER_CACHE_ROWS
        assert len(caches["_cell_render_cache"]) <= 4 * RENDER_CACHE_ROWS


async def test_blocks_that_left_the_conversation_leave_no_renderings_behind() -> None:
    """The conversation's window removes its oldest blocks as a session goes on; what Textual
    drew for them goes with them (it kept the last 1,024 widgets' rendered lines)."""
    import gc

    from textual.widget import Widget

    from aiq_tui.replay.state import Entry
    from aiq_tui.ui.widgets.conversation import Conversation

    class Chat(App[None]):
        def compose(self) -> ComposeResult:
            yield Conversation(id="conversation")

    app = Chat()
    async with app.run_test(size=(100, 30)) as pilot:
        conversation = app.query_one(Conversation)
        entries: tuple[Entry, ...] = ()
        for number in range(150):  # a turn at a time: question, tool notice, answer
            entries += (
                Entry("user", f"question {number}", message_id=f"u{number}"),
                Entry("notice", f"⚙ execute_sql(query=SELECT {number})", "tool"),
                Entry("answer", f"answer {number}\n\n" + "a line of the answer\n" * 5),
            )
            await conversation.show(entries)
            await pilot.pause()  # drawn, as each turn is
        gc.collect()
        widgets = sum(1 for thing in gc.get_objects() if isinstance(thing, Widget))
        drawn = sum(
            1 for thing in gc.get_objects() if type(thing).__name__ == "StylesCache"
        )
        assert drawn <= widgets, (
            f"{drawn - widgets} removed widgets' renderings are still held"
        )
