"""Where skills live in a tree: every layout public collections use is found, with bounds."""

from __future__ import annotations

import os
from pathlib import Path

from aiq_tui.skills.layouts import Limits, find_skills, skill_files
from tests.skills import collections
from tests.skills.collections import skill


def _names(root: Path) -> list[str]:
    return sorted(Path(p).parent.name for p in skill_files(find_skills(root)))


def test_a_repository_root_finds_the_skills_folder_and_the_root_level_template(
    tmp_path: Path,
) -> None:
    written = collections.anthropic_like(tmp_path)
    assert _names(tmp_path) == sorted(
        ["algorithmic-art", "docx", "pdf", "skill-creator", "xlsx", "template"]
    )
    assert len(written) == 6


def test_hidden_sub_collections_of_skills_are_found(tmp_path: Path) -> None:
    written = collections.openai_like(tmp_path)
    layout = find_skills(tmp_path)
    assert sorted(_names(tmp_path)) == sorted(written)
    assert [c.layout for c in layout.collections] == [
        "skills/.curated",
        "skills/.system",
        "skills/.experimental",
    ]


def test_category_folders_are_searched_to_a_bounded_depth(tmp_path: Path) -> None:
    everything, _manual = collections.mattpocock_like(tmp_path)
    assert _names(tmp_path) == sorted(everything)
    deep = tmp_path / "a" / "b" / "c" / "d" / "e" / "f"
    skill(deep / "too-deep")
    assert "too-deep" not in _names(tmp_path)
    assert "too-deep" in [
        Path(p).parent.name for p in skill_files(find_skills(tmp_path, Limits(depth=8)))
    ]


def test_skills_at_the_root_and_in_a_sub_collection_are_found_together(
    tmp_path: Path,
) -> None:
    written = collections.composio_like(tmp_path, apps=12)
    assert _names(tmp_path) == sorted(written)


def test_plugin_manifest_paths_name_skills_outside_the_usual_folders(
    tmp_path: Path,
) -> None:
    skill(tmp_path / "custom" / "one")
    skill(tmp_path / "tools" / "lone")
    (tmp_path / ".claude-plugin").mkdir()
    (tmp_path / ".claude-plugin" / "plugin.json").write_text(
        '{"name": "p", "skills": ["./custom/", "./tools/lone", "../escape", "/etc"]}'
    )
    layout = find_skills(tmp_path, Limits(depth=0))  # only what the manifest names
    assert sorted(Path(p).parent.name for p in skill_files(layout)) == ["lone", "one"]
    assert "plugin p" in layout.summary() or layout.singles


def test_a_broken_manifest_is_a_warning_and_the_rest_is_still_found(
    tmp_path: Path,
) -> None:
    skill(tmp_path / "skills" / "kept")
    (tmp_path / ".claude-plugin").mkdir()
    (tmp_path / ".claude-plugin" / "marketplace.json").write_text("{not json")
    layout = find_skills(tmp_path)
    assert _names(tmp_path) == ["kept"]
    assert layout.problems and "marketplace.json" in str(layout.problems[0].path)


def test_the_same_folder_reached_twice_is_one_collection(tmp_path: Path) -> None:
    collections.skills_cli_install(tmp_path, ["alpha", "beta"])
    layout = find_skills(tmp_path)
    assert _names(tmp_path) == ["alpha", "beta"]  # the links are the same files
    assert sum(c.skills for c in layout.collections) == 4  # both folders list them
    os.symlink(tmp_path, tmp_path / "loop")  # a link back up does not loop
    assert _names(tmp_path) == ["alpha", "beta"]


def test_a_folder_that_is_one_skill_is_that_skill(tmp_path: Path) -> None:
    skill(tmp_path / "only")
    layout = find_skills(tmp_path / "only")
    assert layout.singles == ((str(tmp_path / "only"), "the folder itself"),)


def test_when_nothing_is_found_the_stray_skill_files_are_named(tmp_path: Path) -> None:
    skill(tmp_path / "node_modules" / "pkg" / "hidden-skill")
    layout = find_skills(tmp_path)
    assert layout.count == 0
    assert layout.deeper == (
        str(tmp_path / "node_modules" / "pkg" / "hidden-skill" / "SKILL.md"),
    )


def test_the_walk_stops_at_its_folder_budget_and_says_so(tmp_path: Path) -> None:
    for index in range(30):
        (tmp_path / f"empty{index:02d}" / "deeper").mkdir(parents=True)
    skill(tmp_path / "zz" / "late")
    layout = find_skills(tmp_path, Limits(folders=5))
    assert layout.truncated == "stopped after 5 folders"
