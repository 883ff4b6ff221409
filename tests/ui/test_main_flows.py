"""Pilot tests of the workbench's main flows, against the scripted fake engine."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from conftest import fixed_clock
from fake_engine import FakeEngine
from helpers import notices, say, settle, wait_for_approval, wait_until

from aiq_tui.skills.model import SkillState
from aiq_tui.tools.base import Decision
from aiq_tui.ui.app import AiqApp
from aiq_tui.ui.screens.help import HelpScreen
from aiq_tui.ui.screens.inspector import InspectorScreen
from aiq_tui.ui.widgets.budget_gauge import BudgetGauge
from aiq_tui.ui.widgets.conversation import Conversation
from aiq_tui.ui.widgets.prompt import PromptInput, SlashSuggester
from aiq_tui.ui.widgets.skills_pane import SkillsPane
from aiq_tui.ui.widgets.timeline import Timeline
from aiq_tui.ui.widgets.tool_log import ToolLog


def make_app(engine: FakeEngine) -> AiqApp:
    return AiqApp(engine, clock=fixed_clock, watch=False)


async def test_sending_a_message_moves_skills_to_active_and_relevant(
    fake_engine: FakeEngine,
) -> None:
    app = make_app(fake_engine)
    async with app.run_test(size=(120, 36)) as pilot:
        pane = app.query_one(SkillsPane)
        await settle(pilot)
        assert pane.views_in(SkillState.ACTIVE) == []
        await say(pilot, "show the tables in the sample database")
        await settle(pilot)
        assert [v.name for v in pane.views_in(SkillState.ACTIVE)] == ["sql-analyst"]
        assert pane.section(SkillState.ACTIVE).border_title == "Active (1)"
        assert "sql-analyst" in pane.flashing
        assert "The sample database has" in app.query_one(Conversation).last_answer
        assert app.query_one(ToolLog).records["c-1"].status == "ok"
        assert any(kind == "load" for kind, _ in app.query_one(Timeline).entries)


async def test_streamed_answer_is_one_widget_and_ui_stays_responsive(
    tmp_path: Path,
) -> None:
    engine = FakeEngine(tmp_path)
    engine.stream_gate = (
        asyncio.Event()
    )  # the stream holds after its first piece until we open it
    app = make_app(engine)
    async with app.run_test(size=(120, 36)) as pilot:
        app.send(
            "hello there"
        )  # not via a key press: the pilot would wait for the whole stream
        await wait_until(lambda: engine.streamed >= 1, "the first streamed piece")
        assert app.busy
        await pilot.press("f1")  # the UI handles keys while tokens stream in
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        assert app.busy and engine.streamed == 1, "the keys were handled mid-stream"
        engine.stream_gate.set()
        await settle(pilot)
        assert len(app.query(".answer")) == 1
        assert "The sample database has" in app.query_one(Conversation).last_answer


async def test_ask_tool_call_opens_approval_modal_and_deny_is_logged(
    fake_engine: FakeEngine,
) -> None:
    app = make_app(fake_engine)
    async with app.run_test(size=(120, 36)) as pilot:
        await say(pilot, "delete order 7 from the sample database")
        await wait_for_approval(pilot)
        assert "DELETE FROM orders" in app.screen.request.detail
        await pilot.press("n")
        await settle(pilot)
        assert app.query_one(ToolLog).records["c-2"].status == "denied"


@pytest.mark.parametrize(
    ("key", "decision"), [("y", Decision.ALLOW_ONCE), ("a", Decision.ALLOW_ALWAYS)]
)
async def test_allowing_runs_the_tool_and_passes_the_choice_on(
    fake_engine: FakeEngine, key: str, decision: Decision
) -> None:
    decisions: list[Decision] = []
    app = make_app(fake_engine)
    async with app.run_test(size=(120, 36)) as pilot:
        original = app.bridge.approve

        async def recording(request):
            decision = await original(request)
            decisions.append(decision)
            return decision

        await settle(pilot)
        fake_engine.approver = recording
        await say(pilot, "write a new order")
        await wait_for_approval(pilot)
        await pilot.press(key)
        await settle(pilot)
        assert decisions == [decision]
        assert app.query_one(ToolLog).records["c-2"].status == "ok"


async def test_slash_skill_activates_the_named_skill(fake_engine: FakeEngine) -> None:
    app = make_app(fake_engine)
    async with app.run_test(size=(120, 36)) as pilot:
        await say(pilot, "/skill pdf-tools")
        await settle(pilot)
        assert [
            v.name for v in app.query_one(SkillsPane).views_in(SkillState.ACTIVE)
        ] == ["pdf-tools"]
        await say(pilot, "/skill nope")
        await settle(pilot)
        assert any("no skill named 'nope'" in text for text in notices(app))


async def test_compression_stage_is_visible_in_gauge_and_timeline(
    fake_engine: FakeEngine,
) -> None:
    app = make_app(fake_engine)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        fake_engine.fill_to(0.96)
        fake_engine.aggressive()
        await settle(pilot)
        gauge = app.query_one(BudgetGauge)
        assert gauge.stage_note.startswith("stage 95%")
        assert any(kind == "compress" for kind, _ in app.query_one(Timeline).entries)
        await say(pilot, "/compact")
        await settle(pilot)
        assert gauge.stage_note.startswith("stage 80%")


async def test_editing_a_skill_folder_triggers_reload(tmp_path: Path) -> None:
    engine = FakeEngine(tmp_path)
    calls: list[int] = []
    original = engine.reload
    engine.reload = lambda: calls.append(1) or original()  # type: ignore[method-assign]
    skills_dir = engine.workspace.catalog.dirs[0]
    skills_dir.mkdir(parents=True, exist_ok=True)
    app = AiqApp(engine, clock=fixed_clock, watch=True)
    async with app.run_test(size=(120, 36)):
        await wait_until(
            lambda: any(w.group == "watch" and w.is_running for w in app.workers),
            "the watcher",
        )
        (skills_dir / "new-skill").mkdir()
        skill_md = skills_dir / "new-skill" / "SKILL.md"
        for attempt in range(
            60
        ):  # written again until seen: the watcher may still be starting
            skill_md.write_text(
                f"---\nname: new-skill\ndescription: x\n---\nbody {attempt}\n"
            )
            try:
                await wait_until(lambda: bool(calls), "a reload", timeout=2)
                break
            except AssertionError:
                continue
        assert calls, "the watcher never reloaded"
        # The reload reaches the timeline as a message after the call: wait for it, on a loaded machine too.
        await wait_until(
            lambda: any(
                kind == "reload" for kind, _ in app.query_one(Timeline).entries
            ),
            "the reload on the timeline",
        )


async def test_session_resume_renders_the_saved_conversation(
    fake_engine: FakeEngine,
) -> None:
    app = make_app(fake_engine)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("f4")
        await pilot.pause()
        await pilot.press("down", "enter")
        await settle(pilot)
        assert fake_engine.resumed == ["s-0000"]
        assert "4 tables" in app.query_one(Conversation).last_answer
        assert "s-0000" in app.sub_title


async def test_prompt_history_walks_back_and_forward(fake_engine: FakeEngine) -> None:
    app = make_app(fake_engine)
    async with app.run_test(size=(120, 36)) as pilot:
        prompt = app.query_one(PromptInput)
        await say(pilot, "/skills")
        await say(pilot, "/help")
        await pilot.press("escape")
        prompt.focus()
        await pilot.press("up")
        assert prompt.value == "/help"
        await pilot.press("up")
        assert prompt.value == "/skills"
        await pilot.press("down", "down")
        assert prompt.value == ""


async def test_slash_suggester_completes_commands_and_skill_names() -> None:
    suggester = SlashSuggester(lambda: ["pdf-tools", "sql-analyst"])
    assert await suggester.get_suggestion("/com") == "/compact"
    assert await suggester.get_suggestion("/skill sq") == "/skill sql-analyst"
    assert await suggester.get_suggestion("hello") is None


async def test_slash_match_opens_the_inspector_with_live_ranking(
    fake_engine: FakeEngine,
) -> None:
    app = make_app(fake_engine)
    async with app.run_test(size=(120, 36)) as pilot:
        await say(pilot, "/match sql tables")
        await pilot.pause()
        assert isinstance(app.screen, InspectorScreen)
        assert (
            app.screen.ranking is not None
            and app.screen.ranking.matches[0].name == "sql-analyst"
        )


async def test_copy_last_answer_uses_the_clipboard(fake_engine: FakeEngine) -> None:
    app = make_app(fake_engine)
    async with app.run_test(size=(120, 36)) as pilot:
        await say(pilot, "show the tables")
        await settle(pilot)
        await pilot.press("ctrl+y")
        assert "4 tables" in app.clipboard


async def test_escape_cancels_a_running_turn(tmp_path: Path) -> None:
    engine = FakeEngine(tmp_path)
    engine.stream_gate = (
        asyncio.Event()
    )  # held mid-stream: only the cancel lets it go on
    app = make_app(engine)
    async with app.run_test(size=(120, 36)) as pilot:
        app.send("hello there")
        await wait_until(lambda: engine.streamed >= 1, "the first streamed piece")
        assert app.busy
        await pilot.press("ctrl+c")
        await settle(pilot)
        assert engine.cancelled and not app.busy
        assert engine.streamed == 1, "the turn stopped where it was cancelled"


async def test_theme_toggles_between_dark_and_light(fake_engine: FakeEngine) -> None:
    app = make_app(fake_engine)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("ctrl+t")
        assert app.theme == "textual-light"
        await pilot.press("ctrl+t")
        assert app.theme == "textual-dark"


async def test_skills_pane_handles_ten_thousand_skills(tmp_path: Path) -> None:
    engine = FakeEngine(tmp_path, extra_skills=10_000)
    app = make_app(engine)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        inactive = app.query_one(SkillsPane).section(SkillState.INACTIVE)
        assert inactive.border_title == "Inactive (10006)"
        inactive.focus()
        await pilot.press("end", "enter")
        await pilot.pause()
        assert app.screen.document.meta.name == "sql-analyst"  # last by name  # type: ignore[attr-defined]


@pytest.mark.parametrize("key", ["f2", "f3", "f4", "f6", "f1"])
async def test_every_screen_opens_and_closes(fake_engine: FakeEngine, key: str) -> None:
    app = make_app(fake_engine)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press(key)
        await pilot.pause()
        assert app.screen is not app.screen_stack[0]
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is app.screen_stack[0]
