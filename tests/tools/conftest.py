"""Fixtures for tool tests: a project directory, a config home, settings and skill folders."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from aiq_tui.config import ToolSettings
from aiq_tui.events import Event
from aiq_tui.locations import Home
from aiq_tui.skills.catalog import SkillCatalog
from aiq_tui.skills.discover import SkillDir


@pytest.fixture
def home(isolated_home: Home) -> Home:
    isolated_home.ensure()
    return isolated_home


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


@pytest.fixture
def settings() -> ToolSettings:
    return ToolSettings()


@pytest.fixture
def events() -> list[Event]:
    return []


@pytest.fixture
def write_skill(tmp_path: Path) -> Callable[..., Path]:
    """Write ``<dir>/<name>/SKILL.md`` (+ resources) and return the folder."""

    def write(
        name: str,
        description: str = "A test skill",
        body: str = "Do the thing.",
        resources: dict[str, str] | None = None,
        root: Path | None = None,
        extra: str = "",
    ) -> Path:
        base = root or tmp_path / "skills"
        folder = base / name
        folder.mkdir(parents=True, exist_ok=True)
        desc = f"description: {description}\n" if description else ""
        (folder / "SKILL.md").write_text(
            f"---\nname: {name}\n{desc}{extra}---\n{body}\n", encoding="utf-8"
        )
        for relpath, text in (resources or {}).items():
            target = folder / relpath
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        return folder

    return write


@pytest.fixture
def make_catalog() -> Callable[[Path], SkillCatalog]:
    def make(*dirs: Path) -> SkillCatalog:
        return SkillCatalog([SkillDir(Path(d), "flag") for d in dirs])

    return make
