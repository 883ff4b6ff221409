"""Seed 004 (SISU): explicit directories, lenient loading with warnings, frontmatter parsing,
validation, ``use_skill``, level-3 resources, size limits, include/exclude."""

from __future__ import annotations

from pathlib import Path

import pytest

from aiq_tui.config import ConfigError, SkillsSettings, parse_settings
from aiq_tui.events import SkillStateChanged, ToolCallFinished
from aiq_tui.skills.model import Skill, SkillMeta
from aiq_tui.workspace import Workspace
from tests.seeds.seed_support import call_tool, config


def names(cli_json, *argv: str) -> list[str]:
    return [s["name"] for s in cli_json("skills", "list", *argv)[1]["skills"]]


# -- Require explicit directory configuration --------------------------------------------------


def test_reject_initialization_without_directories(home: Path, add) -> None:
    """Deliberate difference: aiq has documented defaults (the home's skills/, project .agents/skills,
    .aiq/skills and .claude/skills); with none configured it scans exactly those and says which it scanned."""
    add("in-home")
    workspace = Workspace.open()
    # An undecided project is untrusted: its folders come after the user's (issue 23).
    assert [d.origin for d in workspace.skill_dirs] == [
        "home",
        "project",
        "project",
        "project",
    ]
    assert workspace.catalog.names() == ["in-home"]


def test_accept_single_directory_configuration(tmp_path: Path, add, cli_json) -> None:
    add("only-here", root=tmp_path / "one")
    assert names(cli_json, "--skills-dir", str(tmp_path / "one")) == ["only-here"]


def test_accept_multiple_directories_configuration(
    tmp_path: Path, add, cli_json
) -> None:
    add("a", root=tmp_path / "one")
    add("b", root=tmp_path / "two")
    assert names(
        cli_json,
        "--skills-dir",
        str(tmp_path / "one"),
        "--skills-dir",
        str(tmp_path / "two"),
    ) == ["a", "b"]


def test_user_controls_ecosystem_compatibility(home: Path, add) -> None:
    add("from-claude", root=Path.home() / ".claude" / "skills")
    assert (
        "from-claude" not in Workspace.open().catalog
    )  # include_user_agent_dirs: false
    config(home, "  include_user_agent_dirs: true\n")
    assert "from-claude" in Workspace.open().catalog


# -- Discover skills from configured directories -----------------------------------------------


def test_scan_configured_directories(tmp_path: Path, add, cli_json) -> None:
    add("inside", root=tmp_path / "configured")
    add("outside", root=tmp_path / "elsewhere")
    assert names(cli_json, "--skills-dir", str(tmp_path / "configured")) == ["inside"]


def test_handle_missing_directories_gracefully(
    home: Path, tmp_path: Path, add, cli, cli_json
) -> None:
    # Deliberate difference (issue 14): a directory the user names on the command line and
    # that does not exist is a usage error naming it; a configured one is skipped with a warning.
    add("fine")
    code, _, err = cli("skills", "list", "--skills-dir", str(tmp_path / "missing"))
    assert code == 2 and str(tmp_path / "missing") in err
    config(home, f"  dirs: [{tmp_path / 'gone'}]\n")
    code, data = cli_json("skills", "list")
    assert code == 0 and [s["name"] for s in data["skills"]] == ["fine"]
    assert any("does not exist" in p["message"] for p in data["problems"])


def test_handle_invalid_skill_md_files(skills: Path, add, cli_json) -> None:
    add("fine")
    (skills / "broken").mkdir()
    (skills / "broken" / "SKILL.md").write_text(
        "---\nname: broken\ndescription: [oops\n---\n"
    )
    _code, data = cli_json("skills", "list")
    assert [s["name"] for s in data["skills"]] == ["fine"] and data["problems"]


def test_resolve_relative_paths_from_cwd(home: Path, tmp_path: Path, add) -> None:
    add("rel", root=tmp_path / "project" / "my-skills")
    config(home, "  dirs: [my-skills]\n")
    assert "rel" in Workspace.open(cwd=tmp_path / "project").catalog


# -- Parse SKILL.md frontmatter ----------------------------------------------------------------


def test_parse_simple_key_value_pairs(add, cli_json) -> None:
    add("deploy-staging", "Deploy app")
    data = cli_json("skills", "show", "deploy-staging")[1]
    assert (data["name"], data["description"]) == ("deploy-staging", "Deploy app")


def test_parse_array_values(add, cli_json) -> None:
    add("t", extra="tags: [deployment, staging, devops]\n")
    assert cli_json("skills", "show", "t")[1]["tags"] == [
        "deployment",
        "staging",
        "devops",
    ]


def test_parse_multiline_arrays(add, cli_json) -> None:
    add("t", extra="tags:\n  - item1\n  - item2\n")
    assert cli_json("skills", "show", "t")[1]["tags"] == ["item1", "item2"]


def test_handle_missing_frontmatter(skills: Path, cli_json) -> None:
    """Deliberate difference: a skill needs a name to be activated, so a SKILL.md without
    frontmatter is skipped with a warning that says to add one (not loaded nameless)."""
    (skills / "plain").mkdir()
    (skills / "plain" / "SKILL.md").write_text("# Just instructions\n")
    _code, data = cli_json("skills", "list")
    assert data["skills"] == [] and any(
        "name" in p["message"] for p in data["problems"]
    )


# -- Validate skill metadata -------------------------------------------------------------------


def test_validate_required_fields(skills: Path, cli_json) -> None:
    (skills / "nameless").mkdir()
    (skills / "nameless" / "SKILL.md").write_text("---\ndescription: d\n---\n")
    data = cli_json("skills", "list")[1]
    assert data["skills"] == [] and any(p["field"] == "name" for p in data["problems"])


def test_validate_field_types(add, cli_json) -> None:
    add("t", extra="tags: deployment\n")
    data = cli_json("skills", "list")[1]
    assert data["skills"] == [] and any(p["field"] == "tags" for p in data["problems"])


def test_accept_valid_metadata(add, cli_json) -> None:
    add("t", extra='version: "1.0.0"\nauthor: Ada\ntags: [a, b]\n')
    data = cli_json("skills", "list")[1]
    assert [s["name"] for s in data["skills"]] == ["t"] and data["problems"] == []


# -- use_skill ---------------------------------------------------------------------------------


async def test_activate_skill_by_exact_name(skills: Path, add, engine) -> None:
    add("deploy-staging", "Deploy", body="Run the deploy.\n")
    (skills / "deploy-staging" / "deploy.sh").write_text("echo deploy\n")
    eng, _ = engine()
    result = await call_tool(eng, "use_skill", {"skill_name": "deploy-staging"})
    assert (
        result.ok
        and "Run the deploy." in result.content
        and "deploy.sh" in result.content
    )


async def test_handle_non_existent_skill(add, engine) -> None:
    add("deploy-staging")
    eng, _ = engine()
    result = await call_tool(eng, "use_skill", {"skill_name": "unknown-skill"})
    assert not result.ok and "not found" in result.error


async def test_return_skill_resources_list(skills: Path, add, engine) -> None:
    add("deploy-staging")
    for rel in ("scripts/deploy.sh", "docs/checklist.md"):
        (skills / "deploy-staging" / rel).parent.mkdir(parents=True, exist_ok=True)
        (skills / "deploy-staging" / rel).write_text("x\n")
    eng, _ = engine()
    text = (await call_tool(eng, "use_skill", {"skill_name": "deploy-staging"})).content
    assert (
        "- scripts/deploy.sh (script" in text
        and "- docs/checklist.md (reference" in text
    )
    assert (
        str(skills / "deploy-staging") in text
    )  # the folder is named, so paths can be read


# -- Inject skill metadata into system prompt --------------------------------------------------


def test_list_skills_in_system_prompt(add, engine) -> None:
    for name in ("one", "two", "three"):
        add(name, f"The {name} skill")
    eng, _ = engine()
    system = eng.current_prompt().system
    assert all(
        f"{name}: The {name} skill" in system for name in ("one", "two", "three")
    )


def test_include_usage_instructions(add, engine) -> None:
    add("one")
    assert "use_skill" in engine()[0].current_prompt().system


def test_handle_zero_skills_gracefully(engine) -> None:
    eng, _ = engine()
    assert "use_skill" not in eng.current_prompt().system and eng.breakdown.catalog == 0


# -- Progressive disclosure levels -------------------------------------------------------------


def test_level_1_always_load_metadata(add, engine) -> None:
    add("deploy", "Deploy it", body="SECRET-BODY-TEXT\n")
    eng, _ = engine()
    assert (
        "Deploy it" in eng.current_prompt().system
        and "SECRET-BODY-TEXT" not in eng.current_prompt().system
    )


async def test_level_2_load_instructions_on_activation(add, engine) -> None:
    add("deploy", "Deploy it", body="SECRET-BODY-TEXT\n")
    eng, _ = engine()
    result = await call_tool(eng, "use_skill", {"skill_name": "deploy"})
    assert "SECRET-BODY-TEXT" in result.content


async def test_level_3_load_resources_on_demand(skills: Path, add, engine) -> None:
    add("deploy")
    (skills / "deploy" / "checklist.md").write_text("- check the tests\n")
    eng, _ = engine()
    result = await call_tool(
        eng, "read_skill_resource", {"skill_name": "deploy", "path": "checklist.md"}
    )
    assert result.ok and result.content == "- check the tests\n"
    by_url = await call_tool(
        eng,
        "read_skill_resource",
        {"skill_name": "", "path": "skill://deploy/checklist.md"},
    )
    assert by_url.content == "- check the tests\n"
    (skills / "deploy" / "big.md").write_text(
        "x" * 60_000
    )  # over skills.max_resource_bytes (50,000)
    big = await call_tool(
        eng, "read_skill_resource", {"skill_name": "deploy", "path": "big.md"}
    )
    assert not big.ok


# -- Resource bundling -------------------------------------------------------------------------


def test_discover_resources_in_skill_directory(skills: Path, add) -> None:
    add("deploy")
    for name in ("deploy.sh", "template.yaml", "checklist.md"):
        (skills / "deploy" / name).write_text("x")
    listed = {r.relpath for r in Workspace.open().catalog.resources("deploy")}
    assert listed == {"deploy.sh", "template.yaml", "checklist.md"}


def test_classify_resource_types(skills: Path, add) -> None:
    add("deploy")
    for name in ("a.sh", "b.bash", "c.py"):
        (skills / "deploy" / name).write_text("x")
    assert {r.kind.value for r in Workspace.open().catalog.resources("deploy")} == {
        "script"
    }


def test_exclude_skill_md_from_resources(skills: Path, add) -> None:
    add("deploy")
    (skills / "deploy" / "notes.md").write_text("x")
    assert [r.relpath for r in Workspace.open().catalog.resources("deploy")] == [
        "notes.md"
    ]


# -- Configuration options ---------------------------------------------------------------------


def test_configure_custom_working_directory(tmp_path: Path, add) -> None:
    add("project-skill", root=tmp_path / "custom" / ".agents" / "skills")
    assert "project-skill" in Workspace.open(cwd=tmp_path / "custom").catalog
    assert "project-skill" not in Workspace.open(cwd=tmp_path).catalog


def test_configure_custom_working_directory_with_cwd_or_tools_cwd(
    home: Path, tmp_path: Path, add, cli, cli_json
) -> None:
    """``{ cwd: '/custom/path' }`` as aiq-tui has it: ``--cwd DIR`` for a run, ``tools.cwd`` in
    config.yaml; relative skill directories resolve against it."""
    project = tmp_path / "custom"
    add("project-skill", root=project / ".agents" / "skills")
    assert "project-skill" not in names(cli_json)
    assert "project-skill" in names(cli_json, "--cwd", str(project))
    config(home, f"tools:\n  cwd: {project}\n")
    assert "project-skill" in names(cli_json)
    assert Workspace.open().cwd == project
    code, _, err = cli("skills", "list", "--cwd", str(tmp_path / "nowhere"))
    assert code == 2 and "--cwd" in err and "does not exist" in err
    config(home, f"tools:\n  cwd: {tmp_path / 'nowhere'}\n")
    code, _, err = cli("skills", "list")
    assert code == 2 and "tools.cwd" in err


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    (project / "notes").mkdir(parents=True)
    (project / "notes" / "todo.txt").write_text("ship it\n")
    return project


def test_skill_scripts_run_in_the_directory_cwd_names(tmp_path: Path, add, cli) -> None:
    import json

    project = _project(tmp_path)
    add(
        "where",
        "Print the working directory",
        body="```sh\npwd\nls notes\n```\n",
        extra="type: script\n",
    )
    code, out, _ = cli("run", "where", "--cwd", str(project), "--yes", "--json")
    assert code == 0
    assert json.loads(out)["result"]["stdout"].splitlines() == [
        str(project.resolve()),
        "todo.txt",
    ]


async def test_file_and_command_tools_work_in_the_directory_cwd_names(
    tmp_path: Path, engine
) -> None:
    project = _project(tmp_path)
    eng, _ = engine(cwd=project)
    read = await call_tool(
        eng, "file_operations", {"operation": "read", "path": "notes/todo.txt"}
    )
    assert read.ok and "ship it" in str(read.content)
    from aiq_tui.tools.registry import approve_all

    listed = await call_tool(
        eng, "execute_command", {"command": ["ls", "notes"]}, approve_all
    )
    assert listed.ok and "todo.txt" in str(listed.content)


def test_configure_file_size_limits(home: Path, skills: Path, add) -> None:
    config(home, "  max_resource_bytes: 50000\n")
    add("deploy")
    (skills / "deploy" / "big.txt").write_text("x" * 60_000)
    (skills / "deploy" / "small.txt").write_text("x")
    catalog = Workspace.open().catalog
    rejected = {r.relpath: r.rejected for r in catalog.resources("deploy")}
    assert rejected["big.txt"] and rejected["small.txt"] is None
    assert any(
        "big.txt" in str(p.path) or "big.txt" in p.message
        for p in catalog.resource_problems("deploy")
    )


def test_configure_skill_inclusion_filter(home: Path, add) -> None:
    for name in ("deploy-staging", "run-tests", "other"):
        add(name)
    config(home, "  include: [deploy-staging, run-tests]\n")
    assert Workspace.open().catalog.names() == ["deploy-staging", "run-tests"]


def test_configure_skill_exclusion_filter(home: Path, add) -> None:
    add("legacy-deploy")
    add("deploy")
    config(home, "  exclude: [legacy-deploy]\n")
    assert Workspace.open().catalog.names() == ["deploy"]


# -- Integrate with the middleware stack (here: the engine's events and tools) -----------------


async def test_compose_with_tracing_middleware(add, engine) -> None:
    add("deploy")
    eng, recorder = engine()
    await eng.activate("deploy")
    await call_tool(eng, "use_skill", {"skill_name": "deploy"})
    assert [e.name for e in recorder.of(SkillStateChanged)] == [
        "deploy"
    ]  # activation is an event
    events: list = []
    from aiq_tui.conversation import ToolCall

    await eng.tools.invoke(
        ToolCall("t", "read_skill_resource", {"skill_name": "deploy", "path": "x"}),
        None,
        events.append,
    )
    assert any(
        isinstance(e, ToolCallFinished) for e in events
    )  # resource loading is traced


async def test_compose_with_error_boundary(skills: Path, add, engine) -> None:
    add("vanishing")
    eng, _ = engine()
    (skills / "vanishing" / "SKILL.md").unlink()
    result = await call_tool(eng, "use_skill", {"skill_name": "vanishing"})
    assert not result.ok and "cannot be loaded" in result.error


def test_compose_with_tool_calling(add, engine) -> None:
    add("deploy")
    eng, _ = engine()
    assert "use_skill" in [spec.name for spec in eng.current_prompt().tools]


# -- Type safety (Python: typed, validated models) ---------------------------------------------


def test_export_typed_interfaces() -> None:
    """Python equivalent: configuration is a typed, validated model; a wrong type is refused."""
    with pytest.raises(ConfigError, match="must be an integer"):
        parse_settings(SkillsSettings, {"max_resource_bytes": "lots"})
    assert SkillsSettings().max_resource_bytes == 50_000


def test_type_skill_objects(add) -> None:
    add("deploy", body="Steps.\n")
    catalog = Workspace.open().catalog
    skill = catalog.load("deploy")
    assert (
        isinstance(skill, Skill)
        and isinstance(skill.meta, SkillMeta)
        and skill.body == "Steps.\n"
    )
    with pytest.raises(AttributeError):
        skill.body = "changed"  # type: ignore[misc]  # frozen


async def test_type_tool_handlers(add, engine) -> None:
    add("deploy")
    eng, _ = engine()
    schema = eng.tools.get("use_skill").spec.parameters
    assert (
        schema["required"] == ["skill_name"]
        and schema["properties"]["skill_name"]["type"] == "string"
    )
    wrong = await call_tool(eng, "use_skill", {"skill_name": 3})
    assert not wrong.ok and "must be string" in wrong.error
