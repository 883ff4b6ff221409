"""Who invokes a skill, as Claude Code decides it: ``disable-model-invocation`` keeps a
side-effect skill away from the model (never listed, never loaded by a match, ``use_skill``
refused), the user still runs it (``/skill NAME``, ``/NAME ARGS``) with its ``$ARGUMENTS``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aiq_tui.cli import main
from aiq_tui.skill_tools.use_skill import UseSkillTool
from aiq_tui.skills.model import SkillState
from tests.agent.helpers import demo_engine, write_config, write_skill

DEPLOY_BODY = "Deploy $ARGUMENTS to production:\n1. Run the tests\n2. Push $0 live\n"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    write_config(home, "skills:\n  bundled: false\n")
    skills = home / "skills"
    write_skill(
        skills,
        "deploy-prod",
        "Deploy the application to production",
        DEPLOY_BODY,
        extra="disable-model-invocation: true\n",
    )
    write_skill(
        skills,
        "release-notes",
        "Write release notes for the application from the git log",
        "Summarise the changes.\n",
    )
    return home


def test_a_manual_only_skill_is_never_in_the_catalog_the_model_sees(home: Path) -> None:
    engine, _ = demo_engine(home)
    prompt = engine.preview("deploy the application to production")
    assert "deploy-prod" not in prompt.system
    assert "release-notes" in prompt.system
    assert engine.skills.state_of("deploy-prod") is SkillState.INACTIVE
    view = next(v for v in engine.skills.views() if v.name == "deploy-prod")
    assert "disable-model-invocation" in view.reason and view.tokens == 0


async def test_the_user_still_runs_it_with_arguments(home: Path) -> None:
    engine, _ = demo_engine(home)
    assert await engine.activate("deploy-prod", "web-api")
    assert engine.skills.state_of("deploy-prod") is SkillState.ACTIVE
    prompt = engine.current_prompt()
    assert "Deploy web-api to production" in prompt.system
    assert "Push web-api live" in prompt.system  # $0: the first word
    # a later match does not unload what the user ran
    engine.preview("write release notes")
    assert engine.skills.state_of("deploy-prod") is SkillState.ACTIVE


async def test_use_skill_refuses_a_manual_only_skill_and_lists_it_nowhere(
    home: Path,
) -> None:
    engine, _ = demo_engine(home)
    activated: list[str] = []
    tool = UseSkillTool(engine.workspace.catalog, on_activate=activated.append)
    result = await tool.run({"skill_name": "deploy-prod"})
    assert not result.ok and "only be run by the user" in result.error
    assert "Do not carry out its steps" in result.error and activated == []
    unknown = await tool.run({"skill_name": "nope"})
    assert "deploy-prod" not in unknown.error and "release-notes" in unknown.error


def test_the_model_cannot_call_a_manual_only_skills_tool(home: Path) -> None:
    write_skill(
        home / "skills",
        "push-live",
        "Push the build live",
        "```sh\necho pushed\n```\n",
        extra="type: script\ndisable-model-invocation: yes\n",
    )
    engine, _ = demo_engine(home)
    assert engine._manual_only_tool("skill_push-live") is not None
    assert engine._manual_only_tool("skill_release-notes") is None


def test_prompt_says_which_skills_the_model_is_not_shown(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--home", str(home), "prompt", "deploy to production", "--json"]) in (
        0,
        1,
    )
    data = json.loads(capsys.readouterr().out)
    assert data["catalog"]["manual_only"] == ["deploy-prod"]
    assert main(["--home", str(home), "prompt", "deploy to production"]) in (0, 1)
    out = capsys.readouterr().out
    assert "not listed to the model" in out and "deploy-prod" in out


def test_run_never_runs_a_manual_only_script_by_match(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_skill(
        home / "skills",
        "push-live",
        "Push the build live to production servers now",
        "```sh\necho pushed\n```\n",
        extra="type: script\ndisable-model-invocation: true\n",
    )
    code = main(
        [
            "--home",
            str(home),
            "run",
            "push the build live to production",
            "--yes",
            "--json",
        ]
    )
    assert code == 1
    assert "pushed" not in capsys.readouterr().out


async def test_use_skills_description_says_where_the_instructions_go(
    home: Path,
) -> None:
    from aiq_tui.conversation import Role, ToolCall

    engine, _ = demo_engine(home)
    spec = engine.tools.get("use_skill").spec
    assert "system prompt under `## Skill: <name>`" in spec.description
    await engine._run_tool(ToolCall("c1", "use_skill", {"skill_name": "release-notes"}))
    [reply] = [m for m in engine.session.messages if m.role is Role.TOOL]
    assert "in the system prompt under '## Skill: release-notes'" in reply.content
    assert "## Skill: release-notes" in engine.current_prompt().system


def test_resolve_takes_a_skills_name_or_its_tool_name(home: Path) -> None:
    engine, _ = demo_engine(home)
    texts = engine.skills.texts
    assert texts.resolve("skill_release-notes") == texts.resolve("release-notes")
    assert texts.resolve("skill_release-notes", 0.9).startswith("Summarise the changes")
