"""Issue 31: what the screen says is what happened — a new session starts a new story, the
paused bar counts what arrived, an approval opens on the step that asks, trust comes first."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from conftest import fixed_clock
from fake_engine import FakeEngine
from helpers import answer_approval, say, settle, wait_until

from aiq_tui.skills.model import SkillState
from aiq_tui.ui.app import AiqApp
from aiq_tui.ui.widgets.conversation import Conversation
from aiq_tui.ui.widgets.skills_pane import SkillsPane


def bar(app: AiqApp) -> str:
    return str(app.screen_stack[0].query_one("#cursor-bar").render())


async def test_after_clear_space_shows_turn_1_of_the_new_session_and_nothing_of_the_old(
    tmp_path: Path,
) -> None:
    engine = FakeEngine(tmp_path)
    app = AiqApp(engine, clock=fixed_clock, watch=False, flash_seconds=3600)
    async with app.run_test(size=(120, 36)) as pilot:
        for question in (
            "show the tables in the sample database",
            "which sql tables hold orders",
        ):
            await say(pilot, question)
            await settle(pilot)
        engine.evict(engine.rank("which sql tables hold orders").matches[0].name)
        await settle(pilot)
        conversation = app.query_one(Conversation)
        conversation.to_top()  # the user was reading the old story
        await say(pilot, "/clear")
        await settle(pilot)
        await say(pilot, "show the tables in the sample database")
        await settle(pilot)
        await pilot.press("space")
        assert app.cursor.paused and "turn 1 ·" in bar(app), bar(app)
        for _ in range(3):  # ↑ steps back through the new session only
            await pilot.press("up")
            shown = app.cursor.shown
            assert shown.turn <= 1 and "which sql tables" not in " ".join(
                e.text for e in shown.conversation
            ), bar(app)
        assert not any(
            view.evicted
            for view in app.query_one(SkillsPane).views_in(SkillState.INACTIVE)
        )
        await pilot.press("end")
        await settle(pilot)
        assert not conversation.scrolled_up, (
            "the new session's conversation follows its newest message"
        )
        users = [e.text for e in app.cursor.head.conversation if e.kind == "user"]
        assert users == ["show the tables in the sample database"]


async def test_after_a_demo_clear_pauses_in_the_plain_style_at_turn_1(
    tmp_path: Path,
) -> None:
    import json

    from aiq_tui.ui.app import DemoSteps

    app = AiqApp(
        FakeEngine(tmp_path), clock=fixed_clock, watch=False, flash_seconds=3600
    )
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        start = len(app.cursor.records)
        for record in json.loads(
            (Path(__file__).parent / "fixtures" / "demo_records.json").read_text(
                "utf-8"
            )
        ):
            await app.take(record)
        app.demo = DemoSteps(start=start, finished=True)  # a /demo seen to its end
        await app.draw()
        await say(pilot, "/clear")
        await settle(pilot)
        await say(pilot, "show the tables in the sample database")
        await settle(pilot)
        await pilot.press("space")
        assert bar(app).startswith("⏸ paused · turn 1 ·"), bar(app)
        assert app.demo is None


async def test_a_stepped_demo_opens_the_approval_on_the_step_that_asks(
    tmp_path: Path,
) -> None:
    from helpers import wait_until

    from aiq_tui.ui.app import DemoSteps
    from aiq_tui.ui.screens.approval import ApprovalScreen

    app = AiqApp(
        FakeEngine(tmp_path), clock=fixed_clock, watch=False, flash_seconds=3600
    )
    async with app.run_test(size=(120, 36)) as pilot:
        await say(pilot, "show the tables in the sample database")
        await settle(pilot)
        app.demo = DemoSteps(
            start=len(app.cursor.records) - 1
        )  # stepped: paused on its first step
        app.cursor.pause_at(app.demo.start)
        await app.draw()
        app.send(
            "write it down: delete order 7"
        )  # the engine runs ahead to the write, which asks
        await wait_until(
            lambda: any(r.get("permission") == "ask" for r in app.cursor.records),
            "the asking call",
        )
        await app.drained()
        await pilot.pause()
        assert not isinstance(app.screen, ApprovalScreen), (
            "opened ahead of its caption: " + bar(app)
        )
        for _ in range(40):
            if isinstance(app.screen, ApprovalScreen):
                break
            assert "asks for your approval" not in bar(app), (
                "its step is on screen and nothing asks"
            )
            await pilot.press("right")
            await pilot.pause()
        assert isinstance(app.screen, ApprovalScreen)
        assert "asks for your approval" in bar(app), bar(app)
        await answer_approval(pilot, "n")
        await pilot.press("escape")


async def test_a_summarised_question_is_labelled_where_it_is_drawn(
    tmp_path: Path,
) -> None:
    from aiq_tui.ui.widgets.conversation import UserTurn

    engine = FakeEngine(tmp_path)
    app = AiqApp(engine, clock=fixed_clock, watch=False, flash_seconds=3600)
    async with app.run_test(size=(120, 36)) as pilot:
        for question in ("show the tables in the sample database", "and the orders"):
            await say(pilot, question)
            await settle(pilot)
        await say(
            pilot, "/compact"
        )  # the fake folds m-0 and m-1 (the first question, its answer)
        await settle(pilot)
        first, second = list(app.query(UserTurn))[:2]
        # in the block's own lines: a title on a left-border-only block is never drawn
        lines = [
            strip.text
            for strip in first.render_lines(first.content_region.reset_offset)
        ]
        assert "summarised  show the tables" in lines[0], lines
        assert "summarised" not in " ".join(
            s.text for s in second.render_lines(second.content_region.reset_offset)
        )
        await pilot.press("ctrl+t")  # and in the other theme
        await pilot.pause()
        assert (
            "summarised  show the tables"
            in first.render_lines(first.content_region.reset_offset)[0].text
        )


def screen_text(app) -> str:
    """What the terminal shows, as text (the compositor's lines)."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def assert_every_section_and_the_figures_show(app, views) -> None:
    text = screen_text(app)
    for state in SkillState:
        rows = [v for v in views if v.state is state]
        assert f"{state.value.title()} ({len(rows)})" in text, text
        if rows:  # its first skill is on screen, not only its title
            assert any(
                line.find(rows[0].name[:12]) >= 0
                for line in text.splitlines()
                if "Conversation" not in line
            ), (state, text)
    assert "/ 8,192" in text, text


async def test_replay_shows_the_demos_caption_for_every_event(tmp_path: Path) -> None:
    from aiq_tui.replay.captions import turn_captions
    from aiq_tui.ui.screens.replay import ReplayApp
    from tests.replay.test_replay_snapshot import demo_turns

    turns = demo_turns()
    expected = turn_captions(turns)
    app = ReplayApp(turns, "demo", turn=3)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        replay = app.replay
        for event in range(1, len(turns[2]["events"]) + 1):
            await replay.go(3, event)
            bar = str(replay.query_one("#replay-bar").render())
            caption = expected[2][event - 1]
            if caption is not None:
                assert caption in bar, (event, bar)
            else:
                assert len(bar.splitlines()) == 2 and bar.splitlines()[1].strip(), (
                    event,
                    bar,
                )


async def test_at_80x24_replay_shows_every_skill_section_and_the_gauges_figures(
    tmp_path: Path,
) -> None:
    from aiq_tui.replay.state import skill_views
    from aiq_tui.ui.screens.replay import ReplayApp
    from tests.replay.test_replay_snapshot import demo_turns

    turns = demo_turns()
    app = ReplayApp(turns, "demo", turn=3)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        for turn, event in ((3, 4), (6, None), (len(turns), None)):
            await app.replay.go(turn, event)
            await pilot.pause()
            assert_every_section_and_the_figures_show(
                app, skill_views(app.replay.state)
            )


async def test_at_80x24_the_live_demo_shows_every_skill_section_and_the_gauges_figures(
    tmp_path: Path,
) -> None:
    import json

    from aiq_tui.ui.app import DemoSteps

    app = AiqApp(
        FakeEngine(tmp_path), clock=fixed_clock, watch=False, flash_seconds=3600
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        start = len(app.cursor.records)
        for record in json.loads(
            (Path(__file__).parent / "fixtures" / "demo_records.json").read_text(
                "utf-8"
            )
        )[:140]:
            await app.take(record)
        app.demo = DemoSteps(start=start)
        app.cursor.pause_at(len(app.cursor.records) - 1)
        await app.draw()
        pane = app.query_one(SkillsPane)
        views = [v for s in SkillState for v in pane.views_in(s)]

        def shown() -> bool:  # the pane's layout settles over a few refreshes
            try:
                assert_every_section_and_the_figures_show(app, views)
            except AssertionError:
                return False
            return True

        await wait_until(shown, "every skill section and the gauge's figures", 30)
        assert_every_section_and_the_figures_show(app, views)


async def test_the_welcome_card_goes_with_the_first_question_after_notices(
    tmp_path: Path,
) -> None:
    from aiq_tui.ui.widgets.conversation import Welcome

    app = AiqApp(FakeEngine(tmp_path), clock=fixed_clock, watch=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await say(pilot, "/skills")  # a notice first: the card stays above it
        await settle(pilot)
        assert app.query(Welcome)
        await say(pilot, "show the tables in the sample database")
        await settle(pilot)
        assert not app.query(Welcome), (
            "the 'Try:' card stayed at the top of the conversation"
        )


def test_a_caption_says_where_a_long_argument_was_cut() -> None:
    from aiq_tui.replay.captions import caption

    sql = "SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name LIMIT 50"
    text = caption(
        {
            "type": "tool_call_requested",
            "name": "execute_sql",
            "permission": "allow",
            "arguments": {"sql": sql, "source": "sample"},
        }
    )
    assert text is not None and "…, source=sample" in text, text
