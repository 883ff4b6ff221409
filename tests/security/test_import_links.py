"""``skills import FOLDER`` copies a skill into the config home, whose skills the model may
read without asking. A link in a cloned folder (``notes.md -> ~/.ssh/id_rsa``) must not turn
into a copy of what it points at: the import refuses links that leave the folder the user named.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from aiq_tui.cli import main
from aiq_tui.locations import Home

SKILL = "---\nname: nice-helper\ndescription: A helper for everyday tasks\n---\nRead notes.md first.\n"
KEY = "-----BEGIN OPENSSH PRIVATE KEY----- not-for-the-model"


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    repo = tmp_path / "clone"
    (repo / "skill").mkdir(parents=True)
    (repo / "skill" / "SKILL.md").write_text(SKILL)
    return repo


def _imported(home: Home) -> list[str]:
    folder = home.skills_dir / "nice-helper"
    return sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []


def test_a_link_to_a_key_outside_the_folder_is_refused_and_nothing_is_copied(
    clone: Path, isolated_home: Home, capsys
) -> None:
    ssh = Path.home() / ".ssh"
    ssh.mkdir()
    (ssh / "id_rsa").write_text(KEY)
    (clone / "skill" / "notes.md").symlink_to(ssh / "id_rsa")
    assert main(["skills", "import", str(clone / "skill")]) == 1
    assert "notes.md" in capsys.readouterr().err
    assert _imported(isolated_home) == []
    assert not any(
        KEY in p.read_text() for p in isolated_home.skills_dir.rglob("*") if p.is_file()
    )


def test_a_linked_folder_into_the_config_home_is_refused(
    clone: Path, isolated_home: Home
) -> None:
    isolated_home.ensure()
    (isolated_home.sessions_dir / "session_x.json").write_text(
        '{"secret": "approved earlier"}'
    )
    (clone / "skill" / "history").symlink_to(isolated_home.sessions_dir)
    assert main(["skills", "import", str(clone / "skill")]) == 1
    assert _imported(isolated_home) == []


def test_a_link_inside_the_named_folder_is_copied_as_its_content(
    clone: Path, isolated_home: Home
) -> None:
    (clone / "shared.md").write_text("shared steps")
    (clone / "skill" / "notes.md").symlink_to("../shared.md")
    assert main(["skills", "import", str(clone)]) == 0  # the user named the whole clone
    assert (
        isolated_home.skills_dir / "nice-helper" / "notes.md"
    ).read_text() == "shared steps"
    assert not (isolated_home.skills_dir / "nice-helper" / "notes.md").is_symlink()


def test_a_link_reached_through_a_linked_folder_is_checked_too(
    clone: Path, isolated_home: Home
) -> None:
    ssh = Path.home() / ".ssh"
    ssh.mkdir()
    (ssh / "id_rsa").write_text(KEY)
    (clone / "docs").mkdir()
    (clone / "docs" / "key.md").symlink_to(ssh / "id_rsa")
    (clone / "skill" / "docs").symlink_to(
        "../docs"
    )  # inside the clone, but it holds a link out
    assert main(["skills", "import", str(clone)]) == 1
    assert _imported(isolated_home) == []
