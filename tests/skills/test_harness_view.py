"""What each agent would load from this machine and project: its folders in its precedence,
the skills, shadows and the listing's cost — as ``sources list --harness`` and ``prompt
--harness`` say it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aiq_tui.cli import main
from aiq_tui.harnesses import profile
from aiq_tui.skills.harness_view import harness_view, listing_text
from tests.skills import collections
from tests.skills.collections import skill

Capsys = pytest.CaptureFixture[str]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    collections.skills_cli_install(project, ["alpha", "beta"])
    skill(project / ".github" / "skills" / "gh-only")
    skill(
        project / ".claude" / "skills" / "deploy",
        extra="disable-model-invocation: true\n",
    )
    return project


def test_claude_codes_personal_skill_shadows_the_projects(project: Path) -> None:
    personal = skill(Path.home() / ".claude" / "skills" / "alpha", description="Mine")
    view = harness_view(profile("claude-code"), project)
    [winner] = [s for s in view.loaded if s.name == "alpha"]
    assert winner.path == str(personal) and winner.scope == "user"
    [shadow] = view.shadowed
    assert shadow.shadowed_by == str(personal)
    assert [s.name for s in view.skills if s.manual_only] == ["deploy"]
    assert "gh-only" not in [s.name for s in view.skills]


def test_copilot_reads_github_skills_and_the_shared_folders(project: Path) -> None:
    view = harness_view(profile("copilot"), project)
    assert [s.name for s in view.loaded] == ["gh-only", "alpha", "beta", "deploy"]
    assert view.budget is None  # Copilot documents none


def test_a_linked_skill_is_loaded_once(project: Path) -> None:
    view = harness_view(
        profile("opencode"), project
    )  # .claude/skills and .agents/skills
    assert sorted(s.name for s in view.loaded) == ["alpha", "beta", "deploy"]
    assert not view.shadowed


def test_the_listing_keeps_every_name_past_the_budget(tmp_path: Path) -> None:
    project = tmp_path / "p"
    for index in range(30):
        skill(project / ".claude" / "skills" / f"s{index:02d}", description="x" * 400)
    view = harness_view(
        profile("claude-code"), project, env={"SLASH_COMMAND_TOOL_CHAR_BUDGET": "2000"}
    )
    text, bare = listing_text(profile("claude-code"), view)
    assert len(text.splitlines()) == 30 and bare > 0
    assert text.splitlines()[-1] == "- s29"


def test_sources_list_and_prompt_show_the_view(
    project: Path, capsys: Capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project)
    assert main(["sources", "list", "--harness", "claude-code"]) == 0
    out = capsys.readouterr().out
    assert "Claude Code would load" in out and "only you run it: not listed" in out
    assert main(["sources", "list", "--harness", "all", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [h["harness"] for h in data["harnesses"]][:3] == [
        "claude-code",
        "codex",
        "copilot",
    ]
    assert main(["prompt", "--harness", "codex", "--json"]) == 0
    listing = json.loads(capsys.readouterr().out)
    assert listing["listing"].splitlines() == [
        "- alpha: Does alpha",
        "- beta: Does beta",
    ]
    assert listing["budget"] == 32_000
