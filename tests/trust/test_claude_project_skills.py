"""A Claude Code project's skills (``.claude/skills``) are read, under the project's trust, and
``sources list`` says which project skill folders were found and whether they are trusted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aiq_tui.cli import main
from aiq_tui.config import SkillsSettings
from aiq_tui.locations import Home
from aiq_tui.trust import needs_decision

Capsys = pytest.CaptureFixture[str]


@pytest.fixture
def claude_project(tmp_path: Path) -> Path:
    project = tmp_path / "repo"
    skill = project / ".claude" / "skills" / "x"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: x\ndescription: Does x things. Use when asked about x.\n---\n# X\n"
    )
    return project


def test_claude_skills_is_a_default_project_folder() -> None:
    assert ".claude/skills" in SkillsSettings().project_dirs


def test_untrusted_sources_list_says_the_folder_was_found_and_is_not_trusted(
    claude_project: Path, capsys: Capsys
) -> None:
    assert main(["sources", "list", "--cwd", str(claude_project)]) == 0
    out = capsys.readouterr().out
    assert ".claude/skills: found, 1 skill, not trusted" in out
    assert (
        "you have not decided" in out
        and f"aiq-tui trust {claude_project.resolve()}" in out
    )

    assert main(["sources", "list", "--json", "--cwd", str(claude_project)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["project_trust"] == "undecided"
    assert data["project_folders"] == [
        {
            "folder": ".claude/skills",
            "path": str(claude_project.resolve() / ".claude/skills"),
            "skills": 1,
            "trusted": False,
            "own": False,
        }
    ]


def test_trusted_project_lists_its_claude_skill(
    claude_project: Path, capsys: Capsys
) -> None:
    assert main(["trust", str(claude_project)]) == 0
    capsys.readouterr()
    assert main(["sources", "list", "--json", "--cwd", str(claude_project)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (
        data["project_trust"] == "trusted"
        and data["project_folders"][0]["trusted"] is True
    )

    assert main(["skills", "list", "--json", "--cwd", str(claude_project)]) == 0
    skills = {s["name"]: s for s in json.loads(capsys.readouterr().out)["skills"]}
    assert "x" in skills
    assert skills["x"]["path"].startswith(
        str(claude_project.resolve() / ".claude" / "skills")
    )


def test_the_trust_question_names_the_claude_folder(
    isolated_home: Home, claude_project: Path
) -> None:
    assert needs_decision(
        isolated_home, claude_project, SkillsSettings().project_dirs
    ) == (".claude/skills (1 skill)",)


def test_sources_list_with_no_project_folders_says_so(
    tmp_path: Path, capsys: Capsys
) -> None:
    assert main(["sources", "list", "--cwd", str(tmp_path)]) == 0
    assert "project skill folders: none in" in capsys.readouterr().out
