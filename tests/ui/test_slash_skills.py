"""Running a skill from the prompt as in Claude Code: ``/NAME ARGS`` loads it with its
``$ARGUMENTS`` and asks the model; a skill not for the user (``user-invocable: false``) is not
offered or run; completion shows ``/NAME`` and its ``argument-hint``."""

from __future__ import annotations

from pathlib import Path

import pytest

from aiq_tui.agent.engine import Engine
from aiq_tui.conversation import Role
from aiq_tui.skills.model import SkillState
from aiq_tui.ui.app import AiqApp
from aiq_tui.ui.widgets.prompt import SlashSuggester
from aiq_tui.workspace import Workspace
from tests.agent.helpers import write_config, write_skill
from tests.ui.helpers import notices, say, settle

pytestmark = pytest.mark.slow


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    write_config(home, "skills:\n  bundled: false\n")
    write_skill(
        home / "skills",
        "fix-issue",
        "Fix a GitHub issue by number",
        "Fix GitHub issue $ARGUMENTS following our standards.\n",
        extra="disable-model-invocation: true\nargument-hint: '[issue-number]'\n",
    )
    write_skill(
        home / "skills",
        "legacy-context",
        "How the legacy billing system works",
        extra="user-invocable: false\n",
    )
    return home


def app_for(home: Path) -> AiqApp:
    return AiqApp(Engine.create(Workspace.open(home_flag=home)), watch=False)


async def test_slash_name_runs_a_manual_skill_with_its_arguments(home: Path) -> None:
    app = app_for(home)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await say(pilot, "/fix-issue 123")
        await settle(pilot, timeout=30)
        engine = app.engine
        assert engine.skills.state_of("fix-issue") is SkillState.ACTIVE
        assert "Fix GitHub issue 123 following" in engine.current_prompt().system
        users = [m.content for m in engine.session.messages if m.role is Role.USER]
        assert users == ["/fix-issue 123"]  # and the model was asked


async def test_a_skill_not_for_the_user_is_refused_by_name(home: Path) -> None:
    app = app_for(home)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await say(pilot, "/skill legacy-context")
        await settle(pilot)
        assert any("user-invocable: false" in n for n in notices(app))
        assert app.engine.skills.state_of("legacy-context") is SkillState.INACTIVE
        assert "legacy-context" not in list(app._skill_names())


async def test_completion_offers_the_skill_and_then_its_argument_hint() -> None:
    suggester = SlashSuggester(
        lambda: ["fix-issue"], lambda: {"fix-issue": "[issue-number]"}
    )
    assert await suggester.get_suggestion("/fix") == "/fix-issue"
    assert await suggester.get_suggestion("/fix-issue ") == "/fix-issue [issue-number]"
    assert await suggester.get_suggestion("/legacy") is None


async def test_the_viewer_says_what_claude_code_would_do_instead(
    tmp_path: Path,
) -> None:
    from textual.widgets import Static

    from aiq_tui.ui.screens.skill_viewer import SkillViewerScreen

    home = tmp_path / "home"
    write_config(home, "skills:\n  bundled: false\n")
    write_skill(
        home / "skills",
        "deep-research",
        "Research a topic thoroughly",
        extra="context: fork\nagent: Explore\n",
    )
    app = app_for(home)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        app.action_open_skill("deep-research")
        await pilot.pause()
        await settle(pilot)
        assert isinstance(app.screen, SkillViewerScreen)
        text = str(app.screen.query_one("#viewer-harness", Static).render())
        assert "context — Claude Code: runs the skill in a forked subagent" in text
        assert "aiq-tui: no subagents: runs inline" in text


async def test_slash_harness_shows_what_each_agent_would_load(home: Path) -> None:
    from aiq_tui.ui.screens.text_modal import TextModal

    app = app_for(home)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await say(pilot, "/harness claude-code")
        await settle(pilot)
        assert isinstance(app.screen, TextModal)
        assert "Claude Code would load" in app.screen.markdown
