"""Installed skills are imported skills; where they came from lives in the lockfile only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aiq_tui.cli import main
from aiq_tui.locations import Home
from aiq_tui.skill_tools.skill_as_tool import skill_tools
from aiq_tui.skills.imported import granted_tools, is_imported, source_of
from aiq_tui.workspace import Workspace
from tests.install.conftest import RepoFactory, skill_md

Capsys = pytest.CaptureFixture[str]

SUPERPOWERS = [
    "brainstorming", "condition-based-waiting", "defense-in-depth", "dispatching-parallel-agents",
    "executing-plans", "finishing-a-development-branch", "receiving-code-review",
    "requesting-code-review", "root-cause-tracing", "subagent-driven-development",
    "systematic-debugging", "test-driven-development", "using-git-worktrees", "writing-plans",
]  # fmt: skip


def superpowers_like(work: Path) -> None:
    """14 skills in skills/, each valid under --strict, plus a plugin manifest."""
    for name in SUPERPOWERS:
        folder = work / "skills" / name
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(
            skill_md(
                name, f"Use when {name.replace('-', ' ')} is needed", "license: MIT\n"
            )
        )
    (work / ".claude-plugin").mkdir()
    (work / ".claude-plugin" / "plugin.json").write_text(
        json.dumps({"name": "superpowers"})
    )


def tools_skill(work: Path) -> None:
    folder = work / "skills" / "deployer"
    (folder / "scripts").mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        skill_md("deployer", "Deploy the app", "allowed-tools: Bash(git:*) Read\n")
    )
    (folder / "scripts" / "deploy.sh").write_text("#!/bin/sh\necho deploy\n")
    (folder / "scripts" / "deploy.sh").chmod(0o755)
    runner = work / "skills" / "runner"
    runner.mkdir(parents=True)
    (runner / "SKILL.md").write_text(
        skill_md("runner", "Run the report script", "type: script\nscript: echo hi\n")
    )


def strict_valid(folder: Path, capsys: Capsys) -> tuple[int, int]:
    capsys.readouterr()
    main(["skills", "validate", str(folder), "--strict", "--json"])
    skills = json.loads(capsys.readouterr().out)["skills"]
    return sum(s["valid"] for s in skills), len(skills)


def test_superpowers_stays_strictly_valid_after_import_and_after_install(
    make_repo: RepoFactory, home: Home, tmp_path: Path, project: Path, capsys: Capsys
) -> None:
    repo = make_repo("superpowers", superpowers_like)
    assert strict_valid(repo.work / "skills", capsys) == (14, 14)
    imported = tmp_path / "imported"
    assert (
        main(["skills", "import", str(repo.work / "skills"), "--dir", str(imported)])
        == 0
    )
    assert strict_valid(imported, capsys) == (14, 14)
    assert main(["skills", "install", repo.url, "--scope", "project", "--yes"]) == 0
    assert strict_valid(project / ".agents" / "skills", capsys) == (14, 14)
    for name in SUPERPOWERS:  # byte for byte as the author wrote it
        installed = (project / ".agents" / "skills" / name / "SKILL.md").read_bytes()
        assert installed == (repo.work / "skills" / name / "SKILL.md").read_bytes()


def test_import_records_where_a_skill_came_from_in_the_home_lockfile(
    home: Home, tmp_path: Path, capsys: Capsys
) -> None:
    source = tmp_path / "ext"
    source.mkdir()
    (source / "SKILL.md").write_text(skill_md("ext", "From elsewhere"))
    assert main(["skills", "import", str(source)]) == 0
    entry = json.loads((home.root / "skills-lock.json").read_text())["skills"]["ext"]
    assert entry["source"] == str(source.resolve()) and entry["sourceType"] == "local"
    assert "source:" not in (home.skills_dir / "ext" / "SKILL.md").read_text()
    meta = Workspace.open().catalog.get("ext")
    assert is_imported(meta, home) and source_of(meta, home) == str(source.resolve())


def test_installed_allowed_tools_grant_nothing_until_trusted(
    make_repo: RepoFactory, home: Home, project: Path, capsys: Capsys
) -> None:
    repo = make_repo("tools", tools_skill)
    assert main(["skills", "install", repo.url, "--skill", "deployer", "--yes"]) == 0
    meta = Workspace.open().catalog.get("deployer")
    assert (
        meta is not None and meta.trusted_source
    )  # the home's folder, the user's own…
    assert is_imported(meta, home)  # …but brought from elsewhere
    assert granted_tools(home, meta) == ()
    assert main(["skills", "trust", "deployer"]) == 0
    assert granted_tools(home, Workspace.open().catalog.get("deployer")) == (
        "Bash(git:*)",
        "Read",
    )


def test_installed_script_skills_always_ask(
    make_repo: RepoFactory, home: Home, project: Path
) -> None:
    repo = make_repo("tools", tools_skill)
    assert main(["skills", "install", repo.url, "--skill", "runner", "--yes"]) == 0
    catalog = Workspace.open().catalog
    tool = next(t for t in skill_tools(catalog) if t.spec.name == "skill_runner")
    assert tool.source_trusted({}) is False
    assert "imported from" in (tool._origin() or "")


def test_installing_shows_what_each_skill_may_run_before_writing(
    make_repo: RepoFactory, home: Home, project: Path, capsys: Capsys
) -> None:
    repo = make_repo("tools", tools_skill)
    assert (
        main(["skills", "install", repo.url, "--skill", "deployer"]) == 1
    )  # no terminal
    err = capsys.readouterr().err
    assert (
        "scripts: scripts/deploy.sh" in err and "allowed-tools: Bash(git:*) Read" in err
    )
    assert "--yes" in err
    assert not (home.skills_dir / "deployer").exists()
    assert not (home.root / "skills-lock.json").exists()


def test_a_typed_yes_in_a_terminal_installs(
    make_repo: RepoFactory, home: Home, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    repo = make_repo("tools", tools_skill)
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
    answers = iter(["no"])
    monkeypatch.setattr("builtins.input", lambda _prompt: next(answers))
    assert main(["skills", "install", repo.url, "--skill", "deployer"]) == 1
    assert not (home.skills_dir / "deployer").exists()
    answers = iter(["yes"])
    assert main(["skills", "install", repo.url, "--skill", "deployer"]) == 0
    assert (home.skills_dir / "deployer" / "scripts" / "deploy.sh").is_file()


def test_skills_list_shows_source_commit_and_local_edits(
    make_repo: RepoFactory, home: Home, project: Path, capsys: Capsys
) -> None:
    repo = make_repo("tools", tools_skill)
    assert main(["skills", "install", repo.url, "--skill", "deployer", "--yes"]) == 0
    commit = json.loads((home.root / "skills-lock.json").read_text())["skills"][
        "deployer"
    ]["commit"]
    capsys.readouterr()
    assert main(["skills", "list", "--json"]) == 0
    row = next(
        s
        for s in json.loads(capsys.readouterr().out)["skills"]
        if s["name"] == "deployer"
    )
    assert (
        row["installed"]["source"] == repo.url and row["installed"]["commit"] == commit
    )
    assert row["installed"]["locally_modified"] is False
    (home.skills_dir / "deployer" / "SKILL.md").write_text(
        skill_md("deployer", "Changed here")
    )
    assert main(["skills", "list"]) == 0
    assert f"{commit[:7]} (edited)" in capsys.readouterr().out
    own = next(
        s for s in (json.loads(_list_json(capsys))["skills"]) if s["name"] == "http-api"
    )
    assert "installed" not in own


def _list_json(capsys: Capsys) -> str:
    capsys.readouterr()
    main(["skills", "list", "--json"])
    return capsys.readouterr().out


def test_a_project_lockfile_marks_project_installs_as_imported(
    make_repo: RepoFactory, home: Home, project: Path
) -> None:
    repo = make_repo("tools", tools_skill)
    assert main(
        ["skills", "install", repo.url, "--skill", "deployer", "--scope", "project",
         "--agent", "claude-code", "--agent", "codex", "--yes"]
    ) == 0  # fmt: skip
    from aiq_tui.skills.install.provenance import provenance

    for folder in (
        project / ".claude" / "skills" / "deployer",
        project / ".agents" / "skills" / "deployer",
    ):
        found = provenance(folder, home)
        assert (
            found is not None
            and found.scope == "project"
            and found.entry.source == repo.url
        )
    assert provenance(project / ".claude" / "skills" / "other", home) is None
