"""The skills the TUI lists before its engine is built are the ones the engine lists."""

from __future__ import annotations

from pathlib import Path

from aiq_tui.agent.engine import Engine
from aiq_tui.agent.views import starting_views
from aiq_tui.workspace import Workspace
from tests.agent.helpers import write_skill


def test_starting_views_are_what_a_new_engine_lists(tmp_path: Path) -> None:
    home = tmp_path / "home"
    skills = home / "skills"
    write_skill(
        skills,
        "alpha-report",
        "Summarise sales figures into a short report for the team.",
    )
    write_skill(skills, "zeta-draft", "Not ready yet.", extra="status: draft\n")
    write_skill(skills, "mid-long", "A longer description " * 40)
    workspace = Workspace.open(home_flag=home)

    listed = starting_views(workspace)
    engine = Engine.create(workspace, defer_tokenizer=True)

    assert listed == engine.skill_views()
    names = {view.name for view in listed}
    assert {
        "alpha-report",
        "zeta-draft",
        "mid-long",
    } <= names  # the bundled skills are there too
    assert next(v for v in listed if v.name == "zeta-draft").status == "draft"
    assert all(view.tokens > 0 for view in listed if view.status == "active")
