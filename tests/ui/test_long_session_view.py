"""A long live session draws what a short one does (issue 32): the conversation keeps widgets for a
window of its newest entries (the rest are mounted as the view scrolls up to them, and go again
once it follows the newest), and drawing an event finds its widgets by reference, never by a query
over the screen."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from conftest import fixed_clock
from fake_engine import FakeEngine
from helpers import settle, wait_until

from aiq_tui.ui.app import AiqApp
from aiq_tui.ui.widgets.conversation import TRIM_SLACK, WINDOW, Conversation, UserTurn


async def ask(app: AiqApp, number: int) -> None:
    """One turn as its events arrive: the question, the streamed answer, the end."""
    await app.take(
        {
            "type": "turn_started",
            "text": f"question {number}",
            "message_id": f"m{number}",
        }
    )
    await app.take({"type": "token_streamed", "text": f"answer {number}"})
    await app.take({"type": "turn_finished", "text": f"answer {number}"})


def blocks(conversation: Conversation) -> list[Any]:
    return [
        widget for widget in conversation.children if not widget.has_class("earlier")
    ]


async def test_a_long_live_conversation_mounts_a_window_of_its_newest_entries(
    tmp_path: Path,
) -> None:
    app = AiqApp(FakeEngine(tmp_path), clock=fixed_clock, watch=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        turns = 2 * WINDOW
        for number in range(turns):
            await ask(app, number)
        conversation = app.query_one(Conversation)
        assert conversation.shown == app.cursor.head.conversation, (
            "every entry is known to the pane"
        )
        assert len(conversation.shown) == 2 * turns
        mounted = blocks(conversation)
        assert WINDOW <= len(mounted) <= WINDOW + TRIM_SLACK, (
            "a window of widgets, not one per entry"
        )
        assert (
            mounted[-1].text == f"answer {turns - 1}"
            and conversation.last_answer == f"answer {turns - 1}"
        )
        earlier = 2 * turns - len(mounted)
        assert f"{earlier:,} earlier entries" in str(
            conversation.query_one(".earlier").render()
        )

        conversation.to_top()  # scrolled up to the line: the earlier entries come in
        await wait_until(
            lambda: len(blocks(conversation)) > len(mounted), "earlier entries mounted"
        )
        await wait_until(
            lambda: (
                not conversation.scrolled_up
                or len(blocks(conversation)) >= len(mounted) + WINDOW
            ),
            "a window more",
        )
        more = blocks(conversation)
        assert len(more) == len(mounted) + WINDOW
        assert [w.text for w in more if isinstance(w, UserTurn)] == [
            f"question {n}" for n in range(turns - len(more) // 2, turns)
        ]

        conversation.to_end()  # following the newest again: what scrolling up mounted goes
        await wait_until(
            lambda: len(blocks(conversation)) <= WINDOW + TRIM_SLACK,
            "the window trimmed",
        )
        assert blocks(conversation)[-1].text == f"answer {turns - 1}"


async def test_drawing_an_event_queries_neither_the_screen_nor_the_conversation(
    tmp_path: Path,
) -> None:
    app = AiqApp(FakeEngine(tmp_path), clock=fixed_clock, watch=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        main = app.screen_stack[0]
        await wait_until(
            lambda: bool(main.query("#timeline")) and bool(main.query("#tool-log")),
            "the activity tabs mounted",
        )
        await ask(app, 0)  # the widgets are found (once)
        queries: list[Any] = []
        conversation = main.query_one(Conversation)
        for node in (main, conversation):
            original = node.query

            def counted(selector: Any = "*", original: Any = original) -> Any:
                queries.append(selector)
                return original(selector)

            node.query = counted  # type: ignore[method-assign]
        for number in range(1, 6):
            await ask(app, number)
            await app.note(f"note {number}")
        assert (
            app.view.drawn is app.cursor.head
            and conversation.shown is app.cursor.head.conversation
        )
        assert queries == [], f"drawing looked widgets up by query: {queries[:5]}"


async def test_a_pane_taller_than_the_window_still_fills_and_scrolls_to_the_earlier_entries(
    tmp_path: Path,
) -> None:
    """The window is never fewer entries than the pane has rows: on a tall terminal the newest
    entries still overflow the pane, so scrolling up is possible and brings the earlier ones."""
    app = AiqApp(FakeEngine(tmp_path), clock=fixed_clock, watch=False)
    async with app.run_test(size=(120, 3 * WINDOW)) as pilot:
        await settle(pilot)
        conversation = app.query_one(Conversation)
        assert conversation.size.height > WINDOW, (
            "a pane with more rows than WINDOW entries"
        )
        turns = 2 * conversation.size.height
        for number in range(turns):
            await ask(app, number)
        await settle(pilot)
        mounted = blocks(conversation)
        assert len(mounted) >= conversation.size.height, (
            "a pane-height of entries at least"
        )
        assert conversation.max_scroll_y > 0, (
            "they overflow the pane: it can be scrolled up"
        )
        conversation.to_top()
        await wait_until(
            lambda: len(blocks(conversation)) > len(mounted), "earlier entries mounted"
        )
