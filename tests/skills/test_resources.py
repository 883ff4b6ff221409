"""Level-3 resources: seed 004 "Support skill resource bundling" and file-size limits."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from aiq_tui.config import SkillsSettings
from aiq_tui.problems import Severity
from aiq_tui.skills.model import ResourceKind
from aiq_tui.skills.resources import ResourceError, list_resources, read_resource


@pytest.fixture
def skill(tmp_path: Path) -> Path:
    folder = tmp_path / "deploy"
    (folder / "scripts").mkdir(parents=True)
    (folder / "docs").mkdir()
    (folder / "SKILL.md").write_text("---\nname: deploy\ndescription: d\n---\n")
    (folder / "deploy.sh").write_text("echo deploy\n")
    (folder / "template.yaml").write_text("a: 1\n")
    (folder / "checklist.md").write_text("- [ ] check\n")
    (folder / "scripts" / "run.py").write_text("print(1)\n")
    (folder / "docs" / "notes.txt").write_text("notes\n")
    (folder / "image.png").write_bytes(b"\x89PNG")
    return folder


def test_discover_resources_in_skill_directory(skill: Path) -> None:
    resources, problems = list_resources(skill, SkillsSettings())
    assert [r.relpath for r in resources] == sorted(
        [
            "checklist.md",
            "deploy.sh",
            "docs/notes.txt",
            "image.png",
            "scripts/run.py",
            "template.yaml",
        ]
    )
    assert problems == ()


def test_classify_resource_types(skill: Path) -> None:
    kinds = {r.relpath: r.kind for r in list_resources(skill, SkillsSettings())[0]}
    assert (
        kinds["deploy.sh"] is ResourceKind.SCRIPT
        and kinds["scripts/run.py"] is ResourceKind.SCRIPT
    )
    assert kinds["template.yaml"] is ResourceKind.TEMPLATE
    assert (
        kinds["checklist.md"] is ResourceKind.REFERENCE
        and kinds["docs/notes.txt"] is ResourceKind.REFERENCE
    )
    assert kinds["image.png"] is ResourceKind.OTHER


def test_exclude_skill_md_from_resources(skill: Path) -> None:
    assert "SKILL.md" not in {
        r.relpath for r in list_resources(skill, SkillsSettings())[0]
    }


def test_hidden_files_and_pycache_are_not_resources(skill: Path) -> None:
    (skill / ".env").write_text("SECRET=1")
    (skill / "__pycache__").mkdir()
    (skill / "__pycache__" / "x.pyc").write_bytes(b"x")
    names = {r.relpath for r in list_resources(skill, SkillsSettings())[0]}
    assert ".env" not in names and "__pycache__/x.pyc" not in names


def test_configure_file_size_limits_rejects_large_resource_with_warning(
    skill: Path,
) -> None:
    (skill / "big.txt").write_text("x" * 50_001)
    resources, problems = list_resources(
        skill, SkillsSettings(max_resource_bytes=50_000)
    )
    big = next(r for r in resources if r.relpath == "big.txt")
    assert big.rejected and "50000" in big.rejected
    [warning] = problems
    assert warning.severity is Severity.WARNING
    with pytest.raises(ResourceError, match="limit"):
        read_resource(skill, "big.txt", SkillsSettings(max_resource_bytes=50_000))


def test_per_skill_size_limit_rejects_files_past_the_total(skill: Path) -> None:
    resources, problems = list_resources(skill, SkillsSettings(max_skill_bytes=30))
    assert any(r.rejected for r in resources) and problems


def test_include_and_exclude_globs(skill: Path) -> None:
    only_docs = SkillsSettings(resource_include=["docs/**", "*.md"])
    assert [r.relpath for r in list_resources(skill, only_docs)[0]] == [
        "checklist.md",
        "docs/notes.txt",
    ]
    no_scripts = SkillsSettings(resource_exclude=["**/*.py", "*.sh"])
    names = {r.relpath for r in list_resources(skill, no_scripts)[0]}
    assert (
        "scripts/run.py" not in names
        and "deploy.sh" not in names
        and "template.yaml" in names
    )


def test_symlink_out_of_the_folder_is_not_followed(skill: Path, tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_text("secret")
    os.symlink(tmp_path / "secret.txt", skill / "leak.txt")
    os.symlink(skill, skill / "loop")  # a directory link back to itself
    resources, _ = list_resources(skill, SkillsSettings())
    leak = next(r for r in resources if r.relpath == "leak.txt")
    assert leak.rejected and "outside" in leak.rejected
    with pytest.raises(ResourceError, match="outside"):
        read_resource(skill, "leak.txt", SkillsSettings())


def test_links_are_judged_against_the_resolved_folder_when_it_is_reached_through_a_link(
    skill: Path, tmp_path: Path
) -> None:
    """The folder is resolved only when a link needs it: a link inside the skill is followed,
    one outside is refused, also when the skill folder itself is listed through a link."""
    (tmp_path / "secret.txt").write_text("secret")
    os.symlink(tmp_path / "secret.txt", skill / "leak.txt")
    os.symlink(skill / "checklist.md", skill / "alias.md")
    os.symlink("../checklist.md", skill / "docs" / "up.md")  # relative, still inside
    linked = tmp_path / "linked-deploy"
    os.symlink(skill, linked)
    for folder in (skill, linked):
        resources = {r.relpath: r for r in list_resources(folder, SkillsSettings())[0]}
        assert "outside" in (resources["leak.txt"].rejected or "")
        assert resources["alias.md"].rejected is None and resources[
            "alias.md"
        ].size == len("- [ ] check\n")
        assert resources["docs/up.md"].rejected is None
        assert resources["checklist.md"].rejected is None


def test_read_resource_enforces_containment(skill: Path) -> None:
    assert read_resource(skill, "deploy.sh", SkillsSettings()) == "echo deploy\n"
    for bad in ("../deploy/../../etc/passwd", "/etc/passwd", "missing.md", "SKILL.md"):
        with pytest.raises(ResourceError):
            read_resource(skill, bad, SkillsSettings())


def test_level_3_binary_resource_is_refused_with_a_clear_message(skill: Path) -> None:
    (skill / "blob.bin").write_bytes(b"\x00\x01")
    with pytest.raises(ResourceError, match="binary"):
        read_resource(skill, "blob.bin", SkillsSettings())
