"""The tool log of a long session holds rows for a window of its calls, not one per call of the
session (issue 32): the newest calls while it follows them, earlier ones as the cursor or the
wheel goes past the window's top; every call stays selectable and opens its own record."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.events import MouseScrollUp
from textual.widgets import DataTable

from aiq_tui.replay.state import ToolRow
from aiq_tui.ui.widgets.tool_log import TRIM_SLACK, WINDOW, ToolLog

CALLS = 300


class Host(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.selected: list[str] = []

    def compose(self) -> ComposeResult:
        yield ToolLog(id="tool-log")

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        self.selected.append(str(event.row_key.value))


def rows(count: int) -> tuple[ToolRow, ...]:
    return tuple(
        ToolRow(
            f"c{n}",
            "execute_sql",
            "ok",
            f"{n} rows",
            0.01,
            {"query": f"SELECT {n}"},
            "auto",
        )
        for n in range(count)
    )


def row_ids(log: ToolLog) -> list[str]:
    return [str(row.key.value) for row in log.ordered_rows]


async def test_three_hundred_calls_keep_a_bounded_table_that_follows_the_newest() -> (
    None
):
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        log = app.query_one(ToolLog)
        state = rows(CALLS)
        for count in range(
            1, CALLS + 1
        ):  # a call at a time, as a live session draws them
            log.show(state[:count])
            assert log.row_count <= WINDOW + TRIM_SLACK
        await pilot.pause()
        assert list(log.records) == [row.call_id for row in state], (
            "every call is kept as a record"
        )
        assert (
            row_ids(log)[-1] == f"c{CALLS - 1}" and log.cursor_row == log.row_count - 1
        )
        log.focus()
        await pilot.press("enter")
        assert app.selected == [f"c{CALLS - 1}"]


async def test_earlier_calls_come_in_past_the_top_and_open_their_own_record() -> None:
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        log = app.query_one(ToolLog)
        log.show(rows(CALLS))
        log.focus()
        await pilot.pause()
        first = int(row_ids(log)[0][1:])
        assert first > 0, "the earliest calls have no rows"
        log.move_cursor(row=0)
        await pilot.press("up")  # past the window's top: the earlier calls come in
        assert log.rows and row_ids(log)[0] == f"c{max(0, first - WINDOW)}"
        assert row_ids(log)[log.cursor_row] == f"c{first - 1}"
        await pilot.press("enter")
        assert app.selected[-1] == f"c{first - 1}"
        assert log.records[app.selected[-1]].summary == f"{first - 1} rows"
        await pilot.press("ctrl+home")
        assert row_ids(log)[log.cursor_row] == "c0" and log.row_count <= 2 * WINDOW
        await pilot.press("ctrl+end")
        assert (
            row_ids(log)[log.cursor_row] == f"c{CALLS - 1}"
            and log.row_count <= 2 * WINDOW
        )


async def test_the_wheel_at_the_windows_top_brings_in_earlier_calls() -> None:
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        log = app.query_one(ToolLog)
        log.show(rows(CALLS))
        await pilot.pause()
        first = int(row_ids(log)[0][1:])
        log.scroll_to(y=0, animate=False, immediate=True)
        await pilot.pause()
        log.post_message(
            MouseScrollUp(log, 5, 5, 0, -1, 0, False, False, False)
        )  # the wheel, one notch up
        await pilot.pause()
        assert int(row_ids(log)[0][1:]) < first


async def test_a_step_back_past_the_window_shows_the_newest_calls_left() -> None:
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        log = app.query_one(ToolLog)
        state = rows(CALLS)
        log.show(state)
        log.show(state[:50])  # the cursor stepped back before every call that had a row
        await pilot.pause()
        assert list(log.records) == [f"c{n}" for n in range(50)]
        assert row_ids(log) == [f"c{n}" for n in range(50)]
