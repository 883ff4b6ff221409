"""use_skill (seed 004) and instruction skills as skill_<name> tools (seed 002)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from aiq_tui.skill_tools.skill_as_tool import (
    InstructionSkillTool,
    render_content,
    skill_tools,
)
from aiq_tui.skill_tools.use_skill import UseSkillTool
from aiq_tui.skills.catalog import SkillCatalog
from aiq_tui.skills.tool_names import tool_name_for


async def test_use_skill_activate_by_exact_name_returns_instructions_and_resources(
    write_skill: Callable[..., Path],
    make_catalog: Callable[..., SkillCatalog],
    tmp_path: Path,
) -> None:
    write_skill(
        "deploy-staging",
        "Deploy app",
        body="Run the deploy script, then tick the checklist.",
        resources={"scripts/deploy.sh": "echo hi\n", "docs/checklist.md": "- x\n"},
    )
    activated: list[str] = []
    tool = UseSkillTool(make_catalog(tmp_path / "skills"), on_activate=activated.append)
    result = await tool.run({"skill_name": "deploy-staging"})
    assert result.ok
    assert "Run the deploy script, then tick the checklist." in result.content
    assert (
        "scripts/deploy.sh" in result.content and "docs/checklist.md" in result.content
    )
    assert "script" in result.content  # resource kinds are listed
    assert "SKILL.md" not in result.content.split("Resources", 1)[-1]
    assert activated == ["deploy-staging"]


async def test_use_skill_non_existent_skill_lists_close_names(
    write_skill: Callable[..., Path],
    make_catalog: Callable[..., SkillCatalog],
    tmp_path: Path,
) -> None:
    write_skill("deploy-staging")
    write_skill("run-tests")
    activated: list[str] = []
    tool = UseSkillTool(make_catalog(tmp_path / "skills"), on_activate=activated.append)
    result = await tool.run({"skill_name": "deploy-stagin"})
    assert (
        not result.ok
        and "not found" in result.error
        and "Did you mean: deploy-staging" in result.error
    )
    unknown = await tool.run({"skill_name": "unknown-skill"})
    assert not unknown.ok and "skill 'unknown-skill' not found" in unknown.error
    assert activated == []


def test_use_skill_spec_and_permission() -> None:
    tool = UseSkillTool(SkillCatalog.from_metas([]))
    assert tool.spec.parameters["required"] == ["skill_name"]
    assert tool.permission_key({"skill_name": "x"}) == "use_skill"


async def test_instruction_skill_tool_registration_uses_original_description(
    write_skill: Callable[..., Path],
    make_catalog: Callable[..., SkillCatalog],
    tmp_path: Path,
) -> None:
    write_skill(
        "sql-style",
        "How to write readable SQL",
        body="Use CTEs.",
        extra="source: https://example.com/s\n",
    )
    write_skill("runner", "Runs a script", extra="type: script\nscript: echo hi\n")
    tools = skill_tools(make_catalog(tmp_path / "skills"))
    assert [tool.spec.name for tool in tools] == [
        "skill_runner",
        "skill_sql-style",
    ]  # every type
    assert tools[1].spec.description == "How to write readable SQL"
    result = await tools[1].run({})
    assert result.content == {
        "name": "sql-style",
        "content": "Use CTEs.",
        "source": "https://example.com/s",
        "description": "How to write readable SQL",
        "type": "instruction",
    }


def test_instruction_skill_empty_description_fallback() -> None:
    tool = InstructionSkillTool("pdf", "", lambda: "x")
    assert tool.spec.description == "Reference guide for pdf"


def test_instruction_content_rendered_without_code_fences() -> None:
    assert render_content("```markdown\n# Title\nBody\n```\n") == "# Title\nBody"
    mixed = "Intro\n```sql\nSELECT 1\n```\nOutro"
    assert render_content(mixed) == mixed  # a fence inside prose stays


def test_tool_names_are_valid_function_names() -> None:
    assert tool_name_for("my skill.v2") == "skill_my_skill_v2"
    assert len(tool_name_for("x" * 100)) == 64


async def test_use_skill_on_an_executable_skill_names_its_tool_and_parameters(
    write_skill: Callable[..., Path],
    make_catalog: Callable[..., SkillCatalog],
    tmp_path: Path,
) -> None:
    """Issue 24: a template/script/composite skill's body may be empty; use_skill still says
    how to use it — the skill_<name> tool it provides and the parameters that tool takes."""
    write_skill(
        "greet",
        "Greets someone",
        body="",
        extra=(
            "type: template\ntemplate: Hello {{.who}}\nparameters:\n"
            "  who:\n    type: string\n    description: who to greet\n"
        ),
    )
    tool = UseSkillTool(make_catalog(tmp_path / "skills"))
    result = await tool.run({"skill_name": "greet"})
    assert result.ok
    assert (
        f"`{tool_name_for('greet')}`" in result.content and "template" in result.content
    )
    assert "- who (string, required): who to greet" in result.content
