"""Harness profiles: each agent's folders (with the variables it honours), fields and budget."""

from __future__ import annotations

from pathlib import Path

import pytest

from aiq_tui import harnesses
from aiq_tui.harnesses import (
    UnknownHarness,
    infer_harness,
    install_dir,
    listing_budget,
    profile,
    skill_folders,
)


def test_every_harness_the_issue_names_has_a_profile() -> None:
    assert {
        "claude-code",
        "codex",
        "copilot",
        "cursor",
        "gemini",
        "opencode",
        "agentskills",
        "aiq",
    } <= set(harnesses.names())
    assert profile("Claude").name == "claude-code"  # aliases, any case
    with pytest.raises(UnknownHarness, match="known: claude-code"):
        profile("emacs")


def test_claude_config_dir_moves_claude_codes_user_folder(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(tmp_path / "work")}
    assert install_dir("claude-code", "user", env=env) == tmp_path / "work" / "skills"
    assert install_dir("claude-code", "user", env={"HOME": str(tmp_path)}) == (
        tmp_path / ".claude" / "skills"
    )


def test_codex_installs_into_codex_home_and_reads_the_shared_folders(
    tmp_path: Path,
) -> None:
    env = {"HOME": str(tmp_path), "CODEX_HOME": str(tmp_path / "cx")}
    assert install_dir("codex", "user", env=env) == tmp_path / "cx" / "skills"
    assert install_dir("codex", "project", tmp_path / "p") == (
        tmp_path / "p" / ".agents" / "skills"
    )
    user = [
        f.path for f in skill_folders(profile("codex"), None, env, scopes=("user",))
    ]
    assert user == [tmp_path / ".agents" / "skills", tmp_path / "cx" / "skills"]


def test_xdg_config_home_moves_opencodes_user_folder(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    assert install_dir("opencode", "user", env=env) == (
        tmp_path / "xdg" / "opencode" / "skills"
    )


@pytest.mark.parametrize(
    ("name", "project_folder", "user_folder"),
    [
        ("copilot", ".github/skills", ".copilot/skills"),
        ("cursor", ".cursor/skills", ".cursor/skills"),
        ("gemini", ".agents/skills", ".agents/skills"),
        ("opencode", ".opencode/skills", ".config/opencode/skills"),
    ],
)
def test_each_harness_installs_into_its_first_documented_folder(
    tmp_path: Path, name: str, project_folder: str, user_folder: str
) -> None:
    env = {"HOME": str(tmp_path)}
    assert (
        install_dir(name, "project", tmp_path / "p") == tmp_path / "p" / project_folder
    )
    assert install_dir(name, "user", env=env) == tmp_path / user_folder


def test_project_folders_that_walk_up_stop_at_the_repository_root(
    tmp_path: Path,
) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    package = repo / "packages" / "web"
    package.mkdir(parents=True)
    found = [
        f.path
        for f in skill_folders(profile("claude-code"), package, scopes=("project",))
    ]
    assert found == [
        package / ".claude" / "skills",
        repo / "packages" / ".claude" / "skills",
        repo / ".claude" / "skills",
    ]
    outside = tmp_path / "loose"
    outside.mkdir()
    assert [
        f.path
        for f in skill_folders(profile("claude-code"), outside, scopes=("project",))
    ] == [outside / ".claude" / "skills"]


def test_claude_codes_personal_skills_come_before_the_projects() -> None:
    scopes = [f.scope for f in profile("claude-code").folders]
    assert scopes == ["user", "project"]
    assert profile("codex").folders[0].scope == "project"


def test_listing_budgets_follow_the_documented_share_of_the_window() -> None:
    claude = listing_budget(profile("claude-code"), env={})
    assert claude.chars == 8_000  # 1 % of 200,000 tokens, four characters a token
    assert listing_budget(profile("codex"), env={}).chars == 32_000  # 2 % of 400,000
    assert (
        listing_budget(
            profile("claude-code"), env={"SLASH_COMMAND_TOOL_CHAR_BUDGET": "500"}
        ).chars
        == 500
    )
    assert listing_budget(profile("gemini"), env={}).chars is None


@pytest.mark.parametrize(
    ("where", "expected"),
    [
        ("proj/.claude/skills/deploy/SKILL.md", "claude-code"),
        ("proj/.github/skills/deploy", "copilot"),
        ("proj/.agents/skills/deploy", "agentskills"),
        ("repo/skills/.curated/gh", "codex"),
        ("home/.config/opencode/skills/x", "opencode"),
        ("somewhere/else/x", "agentskills"),
    ],
)
def test_the_harness_a_skill_is_for_is_read_from_where_it_lives(
    tmp_path: Path, where: str, expected: str
) -> None:
    assert infer_harness(tmp_path / where).name == expected


def test_a_plugin_manifest_above_a_skill_makes_it_claude_codes(tmp_path: Path) -> None:
    (tmp_path / ".claude-plugin").mkdir()
    (tmp_path / "skills" / "pdf").mkdir(parents=True)
    assert infer_harness(tmp_path / "skills" / "pdf" / "SKILL.md").name == "claude-code"
