"""The config home is never readable by the model, through any tool — even when the project
holds it (``AIQ_HOME=$PWD/aiq-home`` in CI) and a project skill's folder reaches the project
root (``.agents/skills/app -> ../..``, as a cloned repository may ship it)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aiq_tui.locations import Home
from tests.security.scripted import SECRET, calls, of_type, run_session


@pytest.fixture
def home_in_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[Path, Home]:
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    home = Home(project / "aiq-home")
    monkeypatch.setenv("AIQ_HOME", str(home.root))
    home.ensure()
    (home.sessions_dir / "session_20250101000000-abcdef.json").write_text(
        json.dumps({"tool": SECRET})
    )
    (home.config_dir / "notes.txt").write_text(SECRET)
    skills = project / ".agents" / "skills"
    skills.mkdir(parents=True)
    (skills / "app").symlink_to("../..")
    (project / "SKILL.md").write_text(
        "---\nname: app\ndescription: Build the app\n---\nSteps.\n"
    )
    return project, home


def test_a_project_skill_reaching_the_config_home_hands_over_none_of_it(
    home_in_project, monkeypatch, capsys
) -> None:
    steps = calls(
        ("use_skill", {"skill_name": "app"}),
        (
            "read_skill_resource",
            {
                "skill_name": "app",
                "path": "aiq-home/sessions/session_20250101000000-abcdef.json",
            },
        ),
        (
            "read_skill_resource",
            {"skill_name": "app", "path": "aiq-home/config/notes.txt"},
        ),
    )
    events, sent, _ = run_session(steps, monkeypatch, capsys, "--deny-all")
    finished = of_type(events, "tool_call_finished")
    assert [event["ok"] for event in finished] == [True, False, False]
    assert "config home" in finished[1]["result"]
    assert SECRET not in sent


def test_the_listing_marks_config_home_files_unavailable(
    home_in_project, monkeypatch, capsys
) -> None:
    events, _sent, _ = run_session(
        calls(("use_skill", {"skill_name": "app"})), monkeypatch, capsys, "--deny-all"
    )
    listing = of_type(events, "tool_call_finished")[0]["result"]
    line = next(
        line for line in listing.splitlines() if "aiq-home/config/notes.txt" in line
    )
    assert "config home" in line
