"""A change on one side of the screen repaints that side, not the panes beside it (issue 32:
one ← step of the time cursor repainted every widget on the screen).

Textual repaints the rectangle around every dirty cell. At each layout pass it handed every
scrolling pane (the tool log, the skill lists, the timeline, the MCP tab, the prompt) a
"virtual size" that pane does not use, and the pane, seeing a difference, repainted its
scrollbar: a dirty cell at the far right of the screen on every step.
"""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.containers import Horizontal
from textual.widgets import Static

from aiq_tui.replay.state import ToolRow
from aiq_tui.ui.widgets.mcp_pane import McpPane
from aiq_tui.ui.widgets.own_virtual_size import OwnVirtualSize
from aiq_tui.ui.widgets.prompt import PromptInput
from aiq_tui.ui.widgets.skill_list import SkillList
from aiq_tui.ui.widgets.timeline import Timeline
from aiq_tui.ui.widgets.tool_log import ToolLog


class Host(App[None]):
    CSS = "#left { width: 1fr; } ToolLog { width: 30; height: 6; }"

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield Static("one line", id="left")
            yield ToolLog(id="tool-log")


def calls(count: int) -> tuple[ToolRow, ...]:
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


async def _scrollbar_refreshes_while(app: Host, pilot, change) -> int:
    log = app.query_one(ToolLog)
    scrollbar = log.vertical_scrollbar
    counted = []
    original = scrollbar.refresh

    def counting(*args, **kwargs):
        counted.append(args)
        return original(*args, **kwargs)

    scrollbar.refresh = counting
    change()
    await pilot.pause()
    await app.screen.wait_for_refresh()
    scrollbar.refresh = original
    return len(counted)


async def _log_showing(app: Host, pilot, count: int) -> ToolLog:
    """The tool log showing ``count`` calls, with the scrollbar that many rows in 6 give it."""
    log = app.query_one(ToolLog)
    log.show(calls(count))
    await pilot.pause()
    assert log.show_vertical_scrollbar
    return log


async def test_a_relayout_beside_the_tool_log_leaves_its_scrollbar_alone() -> None:
    app = Host()
    async with app.run_test(size=(80, 12)) as pilot:
        await _log_showing(app, pilot, 20)
        left = app.query_one("#left", Static)
        texts = iter(["two\nlines", "three\nlines\nnow", "one"])
        for _ in range(
            3
        ):  # the conversation's height changes: a layout pass of the whole screen
            assert (
                await _scrollbar_refreshes_while(
                    app, pilot, lambda: left.update(next(texts))
                )
                == 0
            )


async def test_the_scrollbar_still_follows_the_pane_s_own_rows() -> None:
    app = Host()
    async with app.run_test(size=(80, 12)) as pilot:
        log = await _log_showing(app, pilot, 10)
        before = log.vertical_scrollbar.window_virtual_size
        log.show(calls(30))
        await pilot.pause()
        await app.screen.wait_for_refresh()
        assert (
            log.vertical_scrollbar.window_virtual_size
            == log.virtual_size.height
            > before
        )


@pytest.mark.parametrize("pane", [ToolLog, SkillList, Timeline, McpPane, PromptInput])
def test_every_scrolling_pane_keeps_its_own_virtual_size(pane: type) -> None:
    assert issubclass(pane, OwnVirtualSize)
