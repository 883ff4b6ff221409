"""What a skill's ``allowed-tools`` may pre-approve (issue 34, row 9 and an "also found").

Row 9: a skill from ``skills import ZIP|URL`` landed in the config home and counted as the
user's own: its ``allowed-tools`` (a bare ``"*"`` matched every tool through ``fnmatch``)
pre-approved a file write, a command and a POST in later sessions; the import said nothing.
Also found: ``allowed-tools`` pre-approved as soon as a keyword match made a skill Active —
nobody invoked it. Claude Code applies them once the skill is invoked (``use_skill``,
``/skill``, a tool of the skill called).
Each test runs ``aiq-tui ask --json`` (nobody to ask: a call runs only when pre-approved) and
looks at the file the model tried to write.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from aiq_tui.cli import main
from aiq_tui.locations import Home
from tests.security.scripted import (
    KEY,
    ScriptedModel,
    calls,
    of_type,
    run_session,
    write_skill,
)

WRITE = (
    "file_operations",
    {"operation": "write", "path": "written.txt", "content": "x"},
)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    monkeypatch.chdir(root)
    return root


def _zip(tmp_path: Path, name: str, allowed: str) -> Path:
    archive = tmp_path / f"{name}.zip"
    with zipfile.ZipFile(archive, "w") as handle:
        handle.writestr(
            f"{name}/SKILL.md",
            f"---\nname: {name}\ndescription: Formats the project's notes nicely\n"
            f"allowed-tools: {allowed}\n---\nFormat the notes.\n",
        )
    return archive


def _import(archive: Path, capsys, *flags: str) -> str:
    assert main(["skills", "import", str(archive), *flags]) == 0
    return capsys.readouterr().out


def test_an_imported_skills_allowed_tools_pre_approve_nothing_until_confirmed(
    project: Path, tmp_path: Path, monkeypatch, capsys
) -> None:
    _import(
        _zip(tmp_path, "notes", "[file_operations, execute_command, http_request]"),
        capsys,
    )
    steps = calls(("use_skill", {"skill_name": "notes"}), WRITE)
    run_session(steps, monkeypatch, capsys)
    assert not (project / "written.txt").exists()
    assert (
        main(["skills", "trust", "notes"]) == 0
    )  # the user has seen them and says yes
    run_session(steps, monkeypatch, capsys)
    assert (project / "written.txt").read_text() == "x"


def test_the_import_shows_the_allowed_tools_it_brings(tmp_path: Path, capsys) -> None:
    out = _import(
        _zip(tmp_path, "notes", "[file_operations, execute_command, http_request]"),
        capsys,
    )
    assert all(
        tool in out for tool in ("file_operations", "execute_command", "http_request")
    )
    data = json.loads(_import(_zip(tmp_path, "other", "[Bash]"), capsys, "--json"))
    assert data["imported"][0]["allowed_tools"] == ["Bash"]


def test_importing_again_needs_confirming_again(
    project: Path, tmp_path: Path, monkeypatch, capsys
) -> None:
    archive = _zip(tmp_path, "notes", "[file_operations]")
    _import(archive, capsys)
    assert main(["skills", "trust", "notes"]) == 0
    _import(archive, capsys, "--force")  # whatever the archive holds now is new input
    run_session(
        calls(("use_skill", {"skill_name": "notes"}), WRITE), monkeypatch, capsys
    )
    assert not (project / "written.txt").exists()


@pytest.mark.parametrize("allowed", ['"*"', '["*"]', '"**"'])
def test_a_bare_star_pre_approves_nothing(
    project: Path, isolated_home: Home, monkeypatch, capsys, allowed: str
) -> None:
    isolated_home.ensure()
    write_skill(
        isolated_home.skills_dir, "mine", f"allowed-tools: {allowed}\n"
    )  # the user's own skill
    run_session(
        calls(("use_skill", {"skill_name": "mine"}), WRITE), monkeypatch, capsys
    )
    assert not (project / "written.txt").exists()


def test_a_bare_star_is_a_validation_warning(isolated_home: Home, capsys) -> None:
    isolated_home.ensure()
    path = write_skill(isolated_home.skills_dir, "mine", 'allowed-tools: "*"\n')
    main(["skills", "validate", "--json", str(path.parent)])
    report = json.loads(capsys.readouterr().out)
    problems = [problem for skill in report["skills"] for problem in skill["problems"]]
    assert [(p["field"], p["severity"]) for p in problems] == [
        ("allowed-tools", "warning")
    ]


# -- also found: only a skill someone invoked pre-approves ------------------------------------------

QUESTION = "draft the changelog entry for the new release in the changelog file"


def _keyword_active_skill(home: Home) -> None:
    home.ensure()
    write_skill(
        home.skills_dir,
        "changelog-drafter",
        "allowed-tools: [file_operations]\ntags: [changelog, release]\n"
        "triggers: [changelog entry, new release]\n",
        body="Draft the changelog entry for the new release.\n",
    )


def _ask(steps, monkeypatch, capsys) -> list[dict]:
    with ScriptedModel(steps) as model:
        monkeypatch.setenv("OPENAI_BASE_URL", model.server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        main(["ask", "--provider", "openai", "--json", QUESTION])
    return [
        json.loads(line)
        for line in capsys.readouterr().out.splitlines()
        if line.startswith("{")
    ]


def test_a_skill_made_active_by_a_keyword_match_pre_approves_nothing(
    project: Path, isolated_home: Home, monkeypatch, capsys
) -> None:
    _keyword_active_skill(isolated_home)
    events = _ask(calls(WRITE), monkeypatch, capsys)
    active = [
        e
        for e in of_type(events, "skill_state_changed")
        if e["name"] == "changelog-drafter"
    ]
    assert active and active[-1]["new"] == "active"  # matched well enough to be Active…
    assert not (project / "written.txt").exists()  # …but nobody invoked it


def test_the_same_skill_pre_approves_once_the_model_invokes_it(
    project: Path, isolated_home: Home, monkeypatch, capsys
) -> None:
    _keyword_active_skill(isolated_home)
    _ask(
        calls(("use_skill", {"skill_name": "changelog-drafter"}), WRITE),
        monkeypatch,
        capsys,
    )
    assert (project / "written.txt").read_text() == "x"


@pytest.mark.slow
async def test_the_tui_skill_viewer_offers_the_confirmation(
    tmp_path: Path, isolated_home: Home, capsys
) -> None:
    from aiq_tui.agent.engine import Engine
    from aiq_tui.skills.imported import granted_tools
    from aiq_tui.ui.app import AiqApp
    from aiq_tui.ui.screens.skill_viewer import SkillViewerScreen
    from aiq_tui.workspace import Workspace
    from tests.ui.helpers import settle

    _import(_zip(tmp_path, "notes", "[file_operations]"), capsys)
    app = AiqApp(Engine.create(Workspace.open()), watch=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        meta = app.engine.workspace.catalog.get("notes")
        assert granted_tools(isolated_home, meta) == ()
        app.action_open_skill("notes")
        await pilot.pause()
        assert isinstance(
            app.screen, SkillViewerScreen
        ) and app.screen.document.pending_tools == ("file_operations",)
        await pilot.press("c")
        for _ in range(200):
            if granted_tools(isolated_home, meta):
                break
            await pilot.pause(0.05)
        assert granted_tools(isolated_home, meta) == ("file_operations",)


# -- an imported skill's script is someone else's code ---------------------------------------------


def _script_zip(tmp_path: Path) -> Path:
    archive = tmp_path / "build.zip"
    with zipfile.ZipFile(archive, "w") as handle:
        handle.writestr(
            "build/SKILL.md",
            "---\nname: build\ndescription: Builds the project's notes\n"
            "type: script\n---\n```sh\ntouch ran\n```\n",
        )
    return archive


@pytest.mark.parametrize(
    "confirmed", [False, True], ids=["as-imported", "after-skills-trust"]
)
def test_an_imported_skills_script_asks_even_when_scripts_are_allowed(
    project: Path,
    isolated_home: Home,
    tmp_path: Path,
    monkeypatch,
    capsys,
    confirmed: bool,
) -> None:
    """``execute_skill_script: allow`` is for the user's own scripts. An imported skill lands in
    the config home, but its script was written elsewhere: its first run asks a person (here
    nobody can answer, so it is refused)."""
    isolated_home.ensure()
    isolated_home.config_file.write_text(
        "tools:\n  permissions:\n    execute_skill_script: allow\n"
    )
    assert "its script's first run asks you" in _import(_script_zip(tmp_path), capsys)
    if confirmed:  # confirming allowed-tools is not a yes to the script
        assert main(["skills", "trust", "build"]) == 0
    events, _, _ = run_session(
        calls(("skill_build", {})), monkeypatch, capsys, "--deny-all"
    )
    assert not (project / "ran").exists()
    assert [event["name"] for event in of_type(events, "tool_call_denied")] == [
        "skill_build"
    ]


def test_the_users_own_script_still_runs_when_scripts_are_allowed(
    project: Path, isolated_home: Home, monkeypatch, capsys
) -> None:
    isolated_home.ensure()
    isolated_home.config_file.write_text(
        "tools:\n  permissions:\n    execute_skill_script: allow\n"
    )
    write_skill(
        isolated_home.skills_dir,
        "build",
        "type: script\n",
        body="```sh\ntouch ran\n```\n",
    )
    run_session(calls(("skill_build", {})), monkeypatch, capsys, "--deny-all")
    assert (project / "ran").exists()


def test_the_approval_of_an_imported_script_says_where_it_came_from(
    isolated_home: Home, tmp_path: Path, capsys
) -> None:
    from aiq_tui.skill_tools.skill_as_tool import ExecutableSkillTool
    from aiq_tui.skills.catalog import SkillCatalog
    from aiq_tui.skills.discover import SkillDir

    isolated_home.ensure()
    _import(_script_zip(tmp_path), capsys)
    catalog = SkillCatalog([SkillDir(isolated_home.skills_dir, "user")])
    tool = ExecutableSkillTool(catalog.get("build"), catalog, executor=None)
    assert not tool.source_trusted({})
    assert "imported from" in tool.describe({}) and "build.zip" in tool.describe({})


class _Terminal:
    """stdin as a terminal: ask's own approver prompts (input() is patched to answer)."""

    def isatty(self) -> bool:
        return True

    def read(self) -> str:
        return ""


def _allow_scripts(home: Home) -> None:
    home.ensure()
    home.config_file.write_text(
        "tools:\n  permissions:\n    execute_skill_script: allow\n"
    )


def test_yes_never_approves_an_imported_scripts_first_run(
    project: Path, isolated_home: Home, tmp_path: Path, monkeypatch, capsys
) -> None:
    _allow_scripts(isolated_home)
    _import(_script_zip(tmp_path), capsys)
    events, _, _ = run_session(calls(("skill_build", {})), monkeypatch, capsys, "--yes")
    assert not (project / "ran").exists()
    denied = of_type(events, "tool_call_denied")
    assert [event["name"] for event in denied] == ["skill_build"]
    assert "interactive yes" in denied[0]["reason"]


def test_one_interactive_yes_per_content_then_the_users_config_applies(
    project: Path, isolated_home: Home, tmp_path: Path, monkeypatch, capsys
) -> None:
    """Asked once, at a terminal; the yes is kept in the config home for that content, so the
    next session runs it under ``execute_skill_script: allow`` without a question — until a byte
    of the skill changes."""
    import sys

    from aiq_tui.skills.imported import approved_scripts_file

    _allow_scripts(isolated_home)
    _import(_script_zip(tmp_path), capsys)
    prompts: list[str] = []
    monkeypatch.setattr(sys, "stdin", _Terminal())
    monkeypatch.setattr(
        "builtins.input", lambda prompt="": prompts.append(prompt) or "y"
    )
    with ScriptedModel(calls(("skill_build", {}))) as model:  # at a terminal: no --json
        monkeypatch.setenv("OPENAI_BASE_URL", model.server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        assert main(["ask", "--provider", "openai", "build the notes"]) == 0
    asked = capsys.readouterr().err
    assert (project / "ran").exists() and len(prompts) == 1
    assert "its first run" in asked and "[a]lways" not in "".join(prompts)
    assert approved_scripts_file(isolated_home).is_file()
    (project / "ran").unlink()

    run_session(calls(("skill_build", {})), monkeypatch, capsys, "--deny-all")
    assert (project / "ran").exists(), "approved once: the config's allow applies now"
    (project / "ran").unlink()

    skill_md = isolated_home.skills_dir / "build" / "SKILL.md"
    skill_md.write_text(
        skill_md.read_text().replace("touch ran", "touch ran # changed")
    )
    events, _, _ = run_session(
        calls(("skill_build", {})), monkeypatch, capsys, "--deny-all"
    )
    assert not (project / "ran").exists(), "a changed skill asks again"
    assert [event["name"] for event in of_type(events, "tool_call_denied")] == [
        "skill_build"
    ]
