"""check_paths reports each skill once, however many paths and links reach it."""

from __future__ import annotations

import os
from pathlib import Path

from aiq_tui.config import SkillsSettings
from aiq_tui.skills.check import _resolved_skill_file, check_paths


def _skill(folder: Path, name: str) -> Path:
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: d\n---\n")
    return folder


def test_the_cheap_key_is_the_resolved_path_for_every_kind_of_entry(
    tmp_path: Path,
) -> None:
    real = tmp_path / "real"
    _skill(real / "plain", "plain")
    _skill(tmp_path / "elsewhere" / "away", "away")
    os.symlink(tmp_path / "elsewhere" / "away", real / "linked-folder")
    (real / "linked-file").mkdir()
    os.symlink(real / "plain" / "SKILL.md", real / "linked-file" / "SKILL.md")
    (real / "broken").mkdir()
    os.symlink(real / "missing.md", real / "broken" / "SKILL.md")
    (real / "empty").mkdir()
    (real / "dir-not-file" / "SKILL.md").mkdir(parents=True)
    (real / "a-file").write_text("not a folder")
    via = tmp_path / "via"
    os.symlink(real, via)  # the collection itself reached through a link
    for parent in (real, via):
        real_parent = os.path.realpath(parent)
        for child in sorted(parent.iterdir()):
            expected = (
                os.path.realpath(child / "SKILL.md")
                if (child / "SKILL.md").is_file()
                else None
            )
            assert _resolved_skill_file(child, real_parent) == expected, child


def test_a_skill_reached_twice_is_reported_once(tmp_path: Path) -> None:
    collection = tmp_path / "skills"
    _skill(collection / "one", "one")
    _skill(collection / "two", "two")
    os.symlink(collection / "one", collection / "one-again")
    link = tmp_path / "link"
    os.symlink(collection, link)
    reports = check_paths(
        [collection, link, collection / "two" / "SKILL.md"],
        SkillsSettings(),
        containers=True,
    )
    assert sorted(report.name for report in reports) == ["one", "two"]
