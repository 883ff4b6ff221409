"""Workspace.open: seed 001 layout on first run, overrides, defaults, discovery."""

from __future__ import annotations

from pathlib import Path

import pytest

from aiq_tui.config import ConfigError
from aiq_tui.locations import Home
from aiq_tui.workspace import Workspace


def test_first_run_creates_layout_and_installs_defaults(
    isolated_home: Home, tmp_path: Path
) -> None:
    workspace = Workspace.open(cwd=tmp_path)
    assert workspace.home == isolated_home
    for directory in (
        isolated_home.config_dir,
        isolated_home.sessions_dir,
        isolated_home.skills_dir,
        isolated_home.tools_dir,
    ):
        assert directory.is_dir()
    assert "sql-explorer" in workspace.catalog and workspace.installed_defaults
    assert workspace.sources.default == "sample"
    assert workspace.problems == ()


def test_home_flag_overrides_aiq_home(tmp_path: Path) -> None:
    workspace = Workspace.open(home_flag=tmp_path / "elsewhere", cwd=tmp_path)
    assert workspace.home.root == (tmp_path / "elsewhere").resolve()


def test_env_mapping_selects_home(tmp_path: Path) -> None:
    workspace = Workspace.open(
        env={"AIQ_HOME": str(tmp_path / "from-env")}, cwd=tmp_path
    )
    assert workspace.home.root == (tmp_path / "from-env").resolve()


def test_deleted_default_skill_is_not_reinstalled(
    isolated_home: Home, tmp_path: Path
) -> None:
    import shutil

    Workspace.open(cwd=tmp_path)
    shutil.rmtree(isolated_home.skills_dir / "http-api")
    workspace = Workspace.open(cwd=tmp_path)
    assert "http-api" not in workspace.catalog and workspace.installed_defaults == ()


def test_bundled_false_installs_nothing(isolated_home: Home, tmp_path: Path) -> None:
    isolated_home.config_dir.mkdir(parents=True)
    isolated_home.config_file.write_text("skills:\n  bundled: false\n")
    workspace = Workspace.open(cwd=tmp_path)
    assert len(workspace.catalog) == 0


def test_skills_disabled_loads_no_skills(isolated_home: Home, tmp_path: Path) -> None:
    isolated_home.config_dir.mkdir(parents=True)
    isolated_home.config_file.write_text("skills:\n  enabled: false\n")
    assert len(Workspace.open(cwd=tmp_path).catalog) == 0


def _write_skill(root: Path, name: str) -> None:
    (root / name).mkdir(parents=True)
    (root / name / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: The {name} skill\n---\nBody\n"
    )


def test_project_and_flag_dirs_are_discovered(tmp_path: Path) -> None:
    _write_skill(tmp_path / "proj" / ".agents" / "skills", "project-skill")
    _write_skill(tmp_path / "extra", "flag-skill")
    _write_skill(Path.home() / ".claude" / "skills", "claude-skill")
    workspace = Workspace.open(skills_dirs=[tmp_path / "extra"], cwd=tmp_path / "proj")
    assert {"project-skill", "flag-skill", "claude-skill"} <= set(
        workspace.catalog.names()
    )
    assert workspace.skill_dirs[0].origin == "flag"


def test_flat_layout_is_migrated_on_open(isolated_home: Home, tmp_path: Path) -> None:
    isolated_home.root.mkdir(parents=True)
    (isolated_home.root / "session_1.json").write_text("{}")
    workspace = Workspace.open(cwd=tmp_path)
    assert (
        workspace.migration.moved
        and (isolated_home.sessions_dir / "session_1.json").is_file()
    )


def test_bad_config_yaml_raises_config_error_naming_file_and_line(
    isolated_home: Home, tmp_path: Path
) -> None:
    isolated_home.config_dir.mkdir(parents=True)
    isolated_home.config_file.write_text("skills:\n  dirs: [\n")
    with pytest.raises(ConfigError) as info:
        Workspace.open(cwd=tmp_path)
    assert "config.yaml" in str(info.value) and info.value.line is not None
