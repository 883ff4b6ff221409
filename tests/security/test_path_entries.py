"""A relative entry on the user's PATH (``bin``, ``node_modules/.bin``, an empty one meaning ``.``)
names whatever folder aiq-tui works in — the project, which a cloned repository fills. The
allowlisted ``ls`` the user approves must be the system's, not the repository's ``bin/ls``, and a
script's ``sh`` likewise (issue 23 held out): in "policy only" mode there is no sandbox around it."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from aiq_tui.config import ToolSettings
from aiq_tui.locations import Home
from aiq_tui.skills.executor import SkillExecutor
from aiq_tui.tools.command import CommandTool
from aiq_tui.tools.launcher import child_environment

FAKE = '#!/bin/sh\ntouch "$(dirname "$0")/../ran-the-repositorys-copy"\necho fake\n'


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "project"
    (root / "bin").mkdir(parents=True)
    for name in ("ls", "sh"):
        (root / "bin" / name).write_text(FAKE)
        (root / "bin" / name).chmod(0o755)
    monkeypatch.chdir(root)
    monkeypatch.setenv("PATH", f"bin::node_modules/.bin:{os.environ['PATH']}")
    return root


def test_the_child_path_keeps_only_absolute_entries(project: Path) -> None:
    entries = child_environment(os.environ)["PATH"].split(os.pathsep)
    assert entries and all(os.path.isabs(entry) for entry in entries)


@pytest.mark.parametrize("sandbox", ["landlock", "off"])
def test_an_allowlisted_program_is_never_the_projects_copy(
    project: Path, isolated_home: Home, monkeypatch: pytest.MonkeyPatch, sandbox: str
) -> None:
    if sandbox == "off":
        monkeypatch.setenv("AIQ_SANDBOX", "off")
    tool = CommandTool(ToolSettings(), home=isolated_home, cwd=project)
    result = asyncio.run(tool.run({"command": ["ls"]}))
    assert result.ok and "bin" in result.content["stdout"]
    assert not (project / "ran-the-repositorys-copy").exists()


def test_a_script_runs_the_systems_shell(project: Path, isolated_home: Home) -> None:
    result = asyncio.run(
        SkillExecutor(ToolSettings(), cwd=project).run_script("echo real")
    )
    assert result["stdout"] == "real\n"
    assert not (project / "ran-the-repositorys-copy").exists()
