"""``skills install`` from real git repositories shaped like each public collection."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aiq_tui import harnesses
from aiq_tui.cli import main
from aiq_tui.locations import Home
from aiq_tui.skills.install.folder_hash import skill_folder_hash
from tests.install.conftest import RepoFactory, skill_md
from tests.skills import collections

Capsys = pytest.CaptureFixture[str]


def vercel_like(root: Path) -> list[str]:
    """vercel-labs/agent-skills: ``skills/NAME`` with rules/ folders and a root AGENTS.md."""
    names = ["react-best-practices", "web-design-guidelines", "vercel-deploy"]
    for name in names:
        collections.skill(root / "skills" / name)
        (root / "skills" / name / "rules").mkdir()
        (root / "skills" / name / "rules" / "rule-1.md").write_text("A rule.\n")
    (root / "AGENTS.md").write_text("# Agents\n")
    return names


def marketplace_like(root: Path) -> list[str]:
    """A plugin marketplace: plugins/NAME/skills/SKILL beside .claude-plugin/marketplace.json."""
    names = ["lint-fix", "prose-polish"]
    for plugin, name in zip(("dev-tools", "writing"), names):
        collections.skill(root / "plugins" / plugin / "skills" / name)
        manifest = root / "plugins" / plugin / ".claude-plugin" / "plugin.json"
        manifest.parent.mkdir(parents=True)
        manifest.write_text(json.dumps({"name": plugin}))
    (root / ".claude-plugin").mkdir()
    (root / ".claude-plugin" / "marketplace.json").write_text(
        json.dumps(
            {
                "name": "market",
                "plugins": [
                    {"name": "dev-tools", "source": "./plugins/dev-tools"},
                    {"name": "writing", "source": "./plugins/writing"},
                ],
            }
        )
    )
    return names


LAYOUTS = {
    "anthropics-skills": collections.anthropic_like,
    "openai-skills": collections.openai_like,
    "obra-superpowers": collections.obra_like,
    "vercel-agent-skills": vercel_like,
    "plugin-marketplace": marketplace_like,
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_every_skill_of_a_public_layout_is_listed_and_installed(
    layout: str, make_repo: RepoFactory, home: Home, project: Path, capsys: Capsys
) -> None:
    written: list[str] = []
    repo = make_repo(layout, lambda work: written.extend(LAYOUTS[layout](work)))
    assert main(["skills", "install", repo.url, "--list", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert sorted(s["name"] for s in listed["skills"]) == sorted(written)
    assert main(["skills", "install", repo.url, "--yes", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert sorted(item["name"] for item in out["installed"]) == sorted(written)
    for name in written:
        assert (home.skills_dir / name / "SKILL.md").is_file()
    lock = json.loads((home.root / "skills-lock.json").read_text())
    assert lock["version"] == 1 and sorted(lock["skills"]) == sorted(written)


def test_list_fetches_only_the_skill_files_of_a_large_repository(
    make_repo: RepoFactory, home: Home, project: Path, capsys: Capsys
) -> None:
    def build(work: Path) -> None:
        collections.anthropic_like(work)
        (work / "media").mkdir()
        (work / "media" / "video.bin").write_bytes(b"\0" * 3_000_000)

    repo = make_repo("big-media", build)
    assert main(["skills", "install", repo.url, "--list"]) == 0
    cached = sum(
        f.stat().st_size for f in (home.data_dir / "git").rglob("*") if f.is_file()
    )
    assert cached < 1_000_000  # the 3 MB file outside every skill was never fetched


def test_hidden_sub_collections_install_under_their_own_names(
    make_repo: RepoFactory, home: Home, project: Path
) -> None:
    repo = make_repo("openai", collections.openai_like)
    assert main(["skills", "install", repo.url, "--skill", "notion-spec", "--yes"]) == 0
    assert (home.skills_dir / "notion-spec" / "agents" / "openai.yaml").is_file()
    assert not (home.skills_dir / ".curated").exists()


def test_tree_url_path_limits_the_install_to_that_folder(
    make_repo: RepoFactory, home: Home, project: Path, capsys: Capsys
) -> None:
    repo = make_repo("anthropic", collections.anthropic_like)
    source = f"{repo.url}#main"
    assert main(["skills", "install", source, "--list", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["skills"]) == 6
    # owner/repo/tree/<ref>/<path>, through install.github_url pointing at the served folder
    config = home.config_file
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f"install:\n  github_url: {repo.bare.parent.parent.as_uri()}\n")
    owner_repo = "https://github.com/served/anthropic/tree/main/skills/pdf"
    assert main(["skills", "install", owner_repo, "--list", "--json"]) == 0
    assert [s["name"] for s in json.loads(capsys.readouterr().out)["skills"]] == ["pdf"]


def test_owner_repo_shorthand_is_fetched_from_a_git_daemon(
    make_repo: RepoFactory, home: Home, project: Path, git_daemon, capsys: Capsys
) -> None:
    repo = make_repo("superpowers", collections.obra_like)
    base = repo.bare.parent.parent  # served/superpowers.git
    url = git_daemon(base)
    home.config_file.parent.mkdir(parents=True, exist_ok=True)
    home.config_file.write_text(f"install:\n  github_url: {url}\n")
    assert main(["skills", "install", "served/superpowers", "--yes", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {item["name"] for item in out["installed"]} == {
        "brainstorming",
        "systematic-debugging",
        "test-driven-development",
    }
    lock = json.loads((home.root / "skills-lock.json").read_text())
    entry = lock["skills"]["brainstorming"]
    assert entry["source"] == "served/superpowers" and entry["sourceType"] == "github"
    assert entry["skillPath"] == "skills/brainstorming/SKILL.md"
    assert entry["computedHash"] == skill_folder_hash(
        repo.work / "skills" / "brainstorming"
    )
    assert len(entry["commit"]) == 40


def test_agents_get_one_copy_and_links_in_the_folders_their_profiles_name(
    make_repo: RepoFactory, home: Home, project: Path
) -> None:
    repo = make_repo("anthropic", collections.anthropic_like)
    assert (
        main(
            [
                "skills", "install", repo.url, "--skill", "pdf", "--scope", "project",
                "--agent", "claude-code", "--agent", "cursor", "--agent", "codex", "--yes",
            ]
        )
        == 0
    )  # fmt: skip
    copy = project / ".claude" / "skills" / "pdf"
    assert copy.is_dir() and not copy.is_symlink()
    for agent in ("cursor", "codex"):
        folder = harnesses.install_dir(agent, "project", project) / "pdf"
        assert folder.is_symlink() and folder.resolve() == copy.resolve()
        read = [
            f.path for f in harnesses.skill_folders(harnesses.profile(agent), project)
        ]
        assert folder.parent in read  # what the harness reads is what was written
    lock = json.loads((project / "skills-lock.json").read_text())
    assert lock["skills"]["pdf"]["agents"] == ["claude-code", "cursor", "codex"]


def test_copy_writes_a_full_copy_into_each_folder(
    make_repo: RepoFactory, home: Home, project: Path
) -> None:
    repo = make_repo("anthropic", collections.anthropic_like)
    args = ["skills", "install", repo.url, "--skill", "docx", "--scope", "user"]
    assert (
        main([*args, "--agent", "aiq", "--agent", "claude-code", "--copy", "--yes"])
        == 0
    )
    claude = Path.home() / ".claude" / "skills" / "docx"
    assert claude.is_dir() and not claude.is_symlink()
    assert (home.skills_dir / "docx").is_dir()
    assert skill_folder_hash(claude) == skill_folder_hash(home.skills_dir / "docx")


def test_a_folder_the_user_made_is_not_replaced_without_force(
    make_repo: RepoFactory, home: Home, project: Path, capsys: Capsys
) -> None:
    repo = make_repo("anthropic", collections.anthropic_like)
    mine = home.skills_dir / "pdf"
    mine.mkdir(parents=True)
    (mine / "SKILL.md").write_text(skill_md("pdf", "My own PDF skill"))
    assert main(["skills", "install", repo.url, "--skill", "pdf", "--yes"]) == 1
    assert "already exists" in capsys.readouterr().err
    assert "My own PDF skill" in (mine / "SKILL.md").read_text()
    assert (
        main(["skills", "install", repo.url, "--skill", "pdf", "--yes", "--force"]) == 0
    )
    assert "My own PDF skill" not in (mine / "SKILL.md").read_text()


def test_a_local_folder_and_a_git_work_tree_install_with_their_commit(
    make_repo: RepoFactory, home: Home, project: Path, capsys: Capsys
) -> None:
    repo = make_repo("local", collections.obra_like)
    assert (
        main(
            [
                "skills",
                "install",
                str(repo.work),
                "--skill",
                "brainstorming",
                "--yes",
                "--json",
            ]
        )
        == 0
    )
    item = json.loads(capsys.readouterr().out)["installed"][0]
    assert item["sourceType"] == "local" and len(item["commit"]) == 40
    repo.write("skills/brainstorming/notes.md", "uncommitted\n")
    assert (
        main(
            [
                "skills",
                "install",
                str(repo.work),
                "--skill",
                "brainstorming",
                "--yes",
                "--json",
            ]
        )
        == 0
    )
    assert json.loads(capsys.readouterr().out)["installed"][0]["commit"] is None


def test_unknown_skill_names_what_the_source_has(
    make_repo: RepoFactory, home: Home, project: Path, capsys: Capsys
) -> None:
    repo = make_repo("obra", collections.obra_like)
    assert main(["skills", "install", repo.url, "--skill", "nope", "--yes"]) == 1
    err = capsys.readouterr().err
    assert "no skill named nope" in err and "brainstorming" in err


def test_a_description_with_escape_sequences_is_shown_inert(
    make_repo: RepoFactory, home: Home, project: Path, capsys: Capsys
) -> None:
    def build(work: Path) -> None:
        (work / "skills" / "sly").mkdir(parents=True)
        (work / "skills" / "sly" / "SKILL.md").write_text(
            skill_md("sly", '"Clears \\e[2J the [bold]screen[/bold]"')
        )

    repo = make_repo("sly", build)
    assert main(["skills", "install", repo.url, "--list"]) == 0
    out = capsys.readouterr().out
    # made visible, not dropped: the user sees that the description holds an escape sequence
    assert "\x1b" not in out and "\\x1b[2J" in out and "[bold]screen[/bold]" in out


@pytest.mark.parametrize("agent", ["claude-code", "cursor", "copilot", "gemini"])
def test_what_is_installed_for_an_agent_is_what_its_harness_view_loads(
    agent: str, make_repo: RepoFactory, home: Home, project: Path, capsys: Capsys
) -> None:
    repo = make_repo("obra", collections.obra_like)
    args = ["skills", "install", repo.url, "--skill", "brainstorming"]
    assert main([*args, "--agent", agent, "--scope", "project", "--yes"]) == 0
    capsys.readouterr()
    assert main(["sources", "list", "--harness", agent]) == 0
    out = capsys.readouterr().out
    folder = harnesses.install_dir(agent, "project", project) / "brainstorming"
    assert f"✓ brainstorming  {folder / 'SKILL.md'}" in out
