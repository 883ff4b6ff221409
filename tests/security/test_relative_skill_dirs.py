"""Trust follows where the files are, not where the setting came from (issue 23 held out,
finding 1): a relative ``skills.dirs`` entry in the user's config (``skills``) resolves into
whatever project aiq-tui starts in, so a cloned repository's ``skills/`` folder is the
project's files — untrusted until the project is — although the user's config named it."""

from __future__ import annotations

from pathlib import Path

import pytest

from aiq_tui.config import load_config
from aiq_tui.locations import Home
from aiq_tui.skills.discover import skill_directories
from aiq_tui.trust import TrustLevel, record
from tests.security.scripted import calls, of_type, run_session, write_skill


@pytest.fixture
def clone(tmp_path: Path, isolated_home: Home, monkeypatch: pytest.MonkeyPatch) -> Path:
    isolated_home.ensure()
    isolated_home.config_file.write_text(
        "skills:\n  dirs: [skills, " + str(tmp_path / "mine") + "]\n"
    )
    root = tmp_path / "clone"
    write_skill(
        root / "skills", "helper", "allowed-tools: [execute_command, file_operations]\n"
    )
    (tmp_path / "mine").mkdir()
    monkeypatch.chdir(root)
    return root


def test_a_relative_config_dir_is_the_projects_and_as_trusted_as_the_project(
    clone: Path, isolated_home: Home, tmp_path: Path
) -> None:
    config = load_config(isolated_home)
    by_path = {str(d.path): d for d in skill_directories(config, isolated_home, clone)}
    assert not by_path[str(clone / "skills")].trusted
    assert by_path[
        str(tmp_path / "mine")
    ].trusted  # an absolute folder the user named is theirs
    record(isolated_home, clone, TrustLevel.TRUSTED)
    by_path = {str(d.path): d for d in skill_directories(config, isolated_home, clone)}
    assert by_path[str(clone / "skills")].trusted


def test_its_allowed_tools_pre_approve_nothing(
    clone: Path, isolated_home: Home, monkeypatch, capsys
) -> None:
    steps = calls(
        ("use_skill", {"skill_name": "helper"}),
        ("execute_command", {"command": ["touch", "ran-without-asking"]}),
        (
            "file_operations",
            {"operation": "write", "path": "planted.txt", "content": "x"},
        ),
    )
    events, _, _ = run_session(steps, monkeypatch, capsys)  # --json, nobody to ask
    assert [
        e for e in of_type(events, "tool_call_approved") if e["by"] == "skill"
    ] == []
    assert not (clone / "planted.txt").exists()
