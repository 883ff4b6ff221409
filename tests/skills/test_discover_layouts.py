"""Discovery where skills really live: repository layouts, harness folders, links, monorepos."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from aiq_tui.config import AppConfig, SkillsSettings
from aiq_tui.locations import Home
from aiq_tui.skills.catalog_cache import CatalogCache
from aiq_tui.skills.discover import SkillDir, discover, scan, skill_directories
from tests.skills import collections
from tests.skills.collections import skill


def _scan(*dirs: Path, origin: str = "flag", **settings: object):
    return scan([SkillDir(d, origin) for d in dirs], SkillsSettings(**settings))


@pytest.mark.parametrize(
    "build",
    [
        collections.anthropic_like,
        collections.openai_like,
        collections.obra_like,
        collections.composio_like,
        lambda root: collections.mattpocock_like(root)[0],
    ],
    ids=["anthropics", "openai-hidden", "obra", "composio", "mattpocock"],
)
def test_a_collections_repository_root_given_finds_every_skill(
    tmp_path: Path, build
) -> None:
    written = build(tmp_path)
    result = _scan(tmp_path)
    assert sorted(result.metas) == sorted(written)
    assert not [p for p in result.problems if "also defined" in p.message]


def test_the_same_search_with_a_warm_catalog_cache(tmp_path: Path) -> None:
    written = collections.openai_like(tmp_path / "repo")
    past = time.time() - 60  # older than the cache's racy window
    for folder, _subfolders, files in os.walk(tmp_path / "repo"):
        for name in files:
            os.utime(os.path.join(folder, name), (past, past))
        os.utime(folder, (past, past))
    cache = CatalogCache(tmp_path / "cache.json")
    dirs = [SkillDir(tmp_path / "repo", "flag")]
    assert sorted(cache.scan(dirs, SkillsSettings()).metas) == sorted(written)
    again = cache.scan(dirs, SkillsSettings())
    assert sorted(again.metas) == sorted(written) and cache.last.hits == len(written)


def test_only_direct_sub_folders_when_layout_search_is_off(tmp_path: Path) -> None:
    collections.obra_like(tmp_path)
    assert _scan(tmp_path, search_layouts=False).metas == {}


def test_a_folder_of_stray_skill_files_says_where_they_are(tmp_path: Path) -> None:
    skill(tmp_path / "node_modules" / "pkg" / "skills" / "vendored")
    result = _scan(tmp_path)
    assert result.metas == {}
    [problem] = result.problems
    assert "SKILL.md files further down: node_modules/pkg/skills/vendored/SKILL.md" in (
        problem.message
    )


def test_a_harness_folder_is_read_one_level_deep_as_the_harness_reads_it(
    tmp_path: Path,
) -> None:
    skill(tmp_path / "category" / "nested")
    skill(tmp_path / "direct")
    assert sorted(_scan(tmp_path, origin="user").metas) == ["direct"]


def test_the_skills_cli_layout_is_one_skill_per_name_without_warnings(
    tmp_path: Path,
) -> None:
    collections.skills_cli_install(tmp_path, ["alpha", "beta", "gamma"])
    result = scan(
        [
            SkillDir(tmp_path / ".agents" / "skills", "project", True),
            SkillDir(tmp_path / ".claude" / "skills", "project", True),
        ],
        SkillsSettings(),
    )
    assert sorted(result.metas) == ["alpha", "beta", "gamma"]
    assert result.problems == ()


def test_two_different_files_of_one_name_still_clash(tmp_path: Path) -> None:
    skill(tmp_path / "a" / "same")
    skill(tmp_path / "b" / "same")
    result = scan(
        [SkillDir(tmp_path / "a", "user"), SkillDir(tmp_path / "b", "user")],
        SkillsSettings(),
    )
    assert any("also defined" in p.message for p in result.problems)


def test_a_claude_code_skill_without_name_is_named_after_its_folder_with_a_warning(
    tmp_path: Path,
) -> None:
    claude = tmp_path / ".claude" / "skills"
    skill(claude / "release-notes", name="")
    result = _scan(claude, origin="project")
    assert list(result.metas) == ["release-notes"]
    [problem] = result.problems
    assert problem.field == "name" and "as Claude Code does" in problem.message
    # elsewhere a missing name still skips the skill, as the seeds ask
    skill(tmp_path / "plain" / "nameless", name="")
    assert _scan(tmp_path / "plain").metas == {}


# -- where a project's folders are -------------------------------------------------------------


def _dirs(home: Home, cwd: Path, **skills: object) -> list[SkillDir]:
    config = AppConfig(skills=SkillsSettings(**skills))
    return skill_directories(config, home, cwd, project_trusted=True)


def test_ancestor_claude_skills_up_to_the_repository_root_are_read(
    tmp_path: Path, isolated_home: Home
) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    skill(repo / ".claude" / "skills" / "root-skill")
    package = repo / "packages" / "web"
    skill(package / ".claude" / "skills" / "web-skill")
    (tmp_path / ".claude" / "skills").mkdir(
        parents=True
    )  # above the repository: not read
    dirs = _dirs(isolated_home, package)
    paths = [d.path for d in dirs]
    assert repo / ".claude" / "skills" in paths
    assert tmp_path / ".claude" / "skills" not in paths
    ancestor = next(d for d in dirs if d.path == repo / ".claude" / "skills")
    assert ancestor.origin == "project" and ancestor.trusted
    names = discover(dirs, SkillsSettings()).names()
    assert {"root-skill", "web-skill"} <= set(names)


def test_nested_claude_skills_below_the_project_are_read_with_its_trust(
    tmp_path: Path, isolated_home: Home
) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    skill(repo / "apps" / "web" / ".claude" / "skills" / "deploy-web")
    skill(repo / "node_modules" / "x" / ".claude" / "skills" / "vendored")
    config = AppConfig(skills=SkillsSettings())
    dirs = skill_directories(config, isolated_home, repo, project_trusted=False)
    nested = next(
        d for d in dirs if d.path == repo / "apps" / "web" / ".claude" / "skills"
    )
    assert nested.origin == "project" and not nested.trusted
    assert all("node_modules" not in str(d.path) for d in dirs)
    assert "deploy-web" in discover(dirs, SkillsSettings()).names()
    off = _dirs(isolated_home, repo, nested_dirs=False)
    assert repo / "apps" / "web" / ".claude" / "skills" not in [d.path for d in off]


def test_claude_config_dir_is_the_users_claude_folder(
    tmp_path: Path, isolated_home: Home, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude-work"))
    paths = [d.path for d in _dirs(isolated_home, tmp_path)]
    assert tmp_path / "claude-work" / "skills" in paths
    assert Path.home() / ".claude" / "skills" not in paths


def test_other_harnesses_folders_are_read_when_configured(
    tmp_path: Path, isolated_home: Home
) -> None:
    project = tmp_path / "p"
    skill(project / ".github" / "skills" / "copilot-skill")
    skill(Path.home() / ".copilot" / "skills" / "personal-copilot")
    assert (
        "copilot-skill"
        not in discover(_dirs(isolated_home, project), SkillsSettings()).names()
    )
    dirs = _dirs(isolated_home, project, harnesses=["copilot"])
    github = next(d for d in dirs if d.path == project / ".github" / "skills")
    assert github.origin == "project"
    names = discover(dirs, SkillsSettings()).names()
    assert {"copilot-skill", "personal-copilot"} <= set(names)


def test_the_config_accepts_exactly_the_harness_profiles() -> None:
    from typing import get_args

    from aiq_tui.config import HarnessName
    from aiq_tui.harnesses import PROFILES

    assert set(get_args(HarnessName)) == set(PROFILES) - {"aiq"}


def test_an_unknown_harness_in_config_is_refused_by_name(tmp_path: Path) -> None:
    from aiq_tui.config import ConfigError, load_config

    home = Home(tmp_path / "h")
    home.config_dir.mkdir(parents=True)
    home.config_file.write_text("skills:\n  harnesses: [copilot, emacs]\n")
    with pytest.raises(ConfigError, match="harnesses"):
        load_config(home)
