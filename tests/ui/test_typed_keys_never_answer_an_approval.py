"""An approval needs a deliberate key: what the user types without looking up — the next
question, while the turn before it opens an approval — stays in the prompt, decides no tool call
and pauses nothing; once typing has stopped and the grace is over, y / a / n answer as before.
Enter sends the line as it is when pressed: the keys typed behind it start the next one."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import pytest
from conftest import fixed_clock
from fake_engine import FakeEngine
from helpers import settle, wait_until

from aiq_tui.tools.base import Decision
from aiq_tui.ui.app import AiqApp
from aiq_tui.ui.screens.approval import ApprovalScreen
from aiq_tui.ui.widgets.prompt import PromptInput
from aiq_tui.ui.widgets.tool_log import ToolLog

pytestmark = pytest.mark.typing_grace


def keys(text: str) -> list[str]:
    return ["space" if char == " " else char for char in text]


async def test_typing_on_while_an_approval_opens_decides_nothing_and_keeps_the_text(
    fake_engine: FakeEngine,
) -> None:
    fake_engine.config.ui.typing_grace = 1.0
    now = [100.0]  # the clock stands still: every key comes while the user is typing
    app = AiqApp(fake_engine, clock=fixed_clock, watch=False)
    decisions: list[Decision] = []
    async with app.run_test(size=(120, 36)) as pilot:
        app.typing.clock = lambda: now[0]
        original = app.bridge.approve

        async def recording(request):
            decision = await original(request)
            decisions.append(decision)
            return decision

        await settle(pilot)
        fake_engine.approver = recording
        prompt = app.query_one("#prompt", PromptInput)
        await pilot.press(*keys("write a new order"), "enter")
        await pilot.press(*keys("what a"))  # the a of "what", then "a" itself: Always?
        await wait_until(
            lambda: isinstance(app.screen, ApprovalScreen), "the approval dialog"
        )
        dialog = app.screen
        assert not dialog.armed
        assert dialog.query_one(
            "#deliberate-wait"
        ).display  # it says why keys do nothing
        await pilot.press(*keys("re the top 5 books by rating?"), "enter")
        await pilot.press("y", "a", "n", "space")
        await pilot.pause()
        assert app.screen is dialog and decisions == [], "a typed key decided the call"
        assert prompt.value == "what are the top 5 books by rating?yan "
        assert not app.cursor.paused, "a typed space paused the screen"
        assert app.query_one(ToolLog).records["c-2"].status == "asking"

        now[0] += 5  # the user stops typing and reads the dialog
        await wait_until(lambda: dialog.armed, "the dialog armed")
        await pilot.press("y")
        await settle(pilot)
        assert decisions == [Decision.ALLOW_ONCE]
        assert prompt.value == "what are the top 5 books by rating?yan "


async def test_enter_sends_the_line_as_it_was_when_enter_was_pressed(
    fake_engine: FakeEngine,
) -> None:
    """Keys typed straight after Enter belong to the next line, not to the one sent."""
    app = AiqApp(fake_engine, clock=fixed_clock, watch=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        sent: list[str] = []
        app.send = sent.append  # type: ignore[method-assign]
        from textual import events

        prompt = app.query_one("#prompt", PromptInput)
        prompt.focus()
        await pilot.pause()
        for key, character in [
            ("h", "h"),
            ("i", "i"),
            ("enter", "\r"),
            ("w", "w"),
            ("h", "h"),
            ("a", "a"),
            ("t", "t"),
            ("space", " "),
            ("a", "a"),
        ]:
            app.post_message(events.Key(key, character))
        await wait_until(lambda: prompt.value == "what a", "the next line typed")
        assert sent == ["hi"]
        assert not app.cursor.paused, "the next line's space paused the screen"
