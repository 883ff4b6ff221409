"""The skill viewer says where an installed skill came from, and whether it was edited here."""

from __future__ import annotations

from pathlib import Path

from textual.app import App
from textual.widgets import Static

from aiq_tui.cli import main
from aiq_tui.locations import Home
from aiq_tui.skills.install.provenance import installed_line
from aiq_tui.ui.screens.skill_viewer import SkillDocument, SkillViewerScreen
from aiq_tui.workspace import Workspace
from tests.install.conftest import RepoFactory, git, skill_md


def one_skill(work: Path) -> None:
    (work / "skills" / "notes").mkdir(parents=True)
    (work / "skills" / "notes" / "SKILL.md").write_text(
        skill_md("notes", "Keep [b]notes[/b]")
    )


def test_the_viewer_line_names_source_commit_and_local_edits(
    make_repo: RepoFactory, home: Home, project: Path
) -> None:
    repo = make_repo("one", one_skill)
    assert main(["skills", "install", repo.url, "--yes"]) == 0
    meta = Workspace.open().catalog.get("notes")
    line = installed_line(meta, home)
    commit = git("rev-parse", "HEAD", cwd=repo.work).strip()[:12]
    assert line == f"installed from {repo.url} at {commit}"
    (home.skills_dir / "notes" / "SKILL.md").write_text(skill_md("notes", "Mine"))
    assert installed_line(meta, home).endswith(
        "· edited here (differs from the locked hash)"
    )
    own = Workspace.open().catalog.get("http-api")
    assert installed_line(own, home) == ""


async def test_the_viewer_shows_the_installed_line_as_plain_text(
    make_repo: RepoFactory, home: Home, project: Path
) -> None:
    repo = make_repo("one", one_skill)
    assert main(["skills", "install", repo.url, "--yes"]) == 0
    meta = Workspace.open().catalog.get("notes")
    line = installed_line(meta, home) + " [b]not markup[/b]"
    document = SkillDocument(meta, "Body", (), (), "notes/SKILL.md", (), line)

    class Host(App[None]):
        def on_mount(self) -> None:
            self.push_screen(SkillViewerScreen(document))

    app = Host()
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        shown = app.screen.query_one("#viewer-installed", Static)
        assert str(shown.render()) == line
