"""Project trust: decided by the user, kept in the config home, inherited by sub-folders."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aiq_tui.cli import main
from aiq_tui.locations import Home
from aiq_tui.trust import (
    TrustFileError,
    TrustLevel,
    load_decisions,
    project_trust,
    record,
    trust_file,
)


def test_an_undecided_project_is_not_trusted(
    isolated_home: Home, tmp_path: Path
) -> None:
    decision = project_trust(isolated_home, tmp_path)
    assert decision.undecided and not decision.trusted


def test_trusting_a_folder_trusts_the_folders_below_it(
    isolated_home: Home, tmp_path: Path
) -> None:
    (tmp_path / "app" / "src").mkdir(parents=True)
    record(isolated_home, tmp_path, TrustLevel.TRUSTED)
    decision = project_trust(isolated_home, tmp_path / "app" / "src")
    assert decision.trusted and decision.decided_at == tmp_path.resolve()


def test_an_untrusted_sub_folder_wins_over_a_trusted_parent(
    isolated_home: Home, tmp_path: Path
) -> None:
    (tmp_path / "clone").mkdir()
    record(isolated_home, tmp_path, TrustLevel.TRUSTED)
    record(isolated_home, tmp_path / "clone", TrustLevel.UNTRUSTED)
    assert not project_trust(isolated_home, tmp_path / "clone").trusted
    assert project_trust(isolated_home, tmp_path).trusted


def test_a_symlink_is_remembered_by_its_target(
    isolated_home: Home, tmp_path: Path
) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    record(isolated_home, tmp_path / "link", TrustLevel.TRUSTED)
    assert project_trust(isolated_home, tmp_path / "real").trusted


def test_forgetting_a_decision_makes_the_folder_undecided_again(
    isolated_home: Home, tmp_path: Path
) -> None:
    record(isolated_home, tmp_path, TrustLevel.TRUSTED)
    record(isolated_home, tmp_path, None)
    assert project_trust(isolated_home, tmp_path).undecided


def test_a_broken_trust_file_trusts_nothing_and_names_the_file(
    isolated_home: Home, tmp_path: Path
) -> None:
    isolated_home.ensure()
    trust_file(isolated_home).write_text(
        f'{{"projects": {{"{tmp_path}": "yes please"}}}}'
    )
    assert not project_trust(isolated_home, tmp_path).trusted
    with pytest.raises(TrustFileError, match="trusted-projects.json"):
        load_decisions(isolated_home)


def test_the_trust_file_is_private_to_the_user(
    isolated_home: Home, tmp_path: Path
) -> None:
    record(isolated_home, tmp_path, TrustLevel.TRUSTED)
    assert trust_file(isolated_home).stat().st_mode & 0o077 == 0


def test_trust_command_records_and_reports(
    isolated_home: Home, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["trust", str(tmp_path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["level"] == "trusted"
    assert main(["trust", str(tmp_path), "--untrust"]) == 0
    assert capsys.readouterr().out.startswith("untrusted: ")
    assert main(["trust", "--list", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {
        "projects": [{"path": str(tmp_path.resolve()), "level": "untrusted"}]
    }
    assert main(["trust", str(tmp_path), "--forget", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["level"] == "undecided"


def test_trust_command_refuses_a_path_that_is_not_a_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["trust", str(tmp_path / "nope")]) == 2
    assert "not a folder" in capsys.readouterr().err


def test_a_decision_about_home_covers_home_only(isolated_home: Home) -> None:
    """Trusting ~ must not trust every repository ever cloned below it."""
    clone = Path.home() / "code" / "clone"
    clone.mkdir(parents=True)
    record(isolated_home, Path.home(), TrustLevel.TRUSTED)
    assert project_trust(isolated_home, Path.home()).trusted
    assert project_trust(isolated_home, clone).undecided


def test_only_a_folder_that_brings_something_needs_a_decision(
    isolated_home: Home, tmp_path: Path
) -> None:
    from aiq_tui.trust import needs_decision

    dirs = [".agents/skills", ".aiq/skills"]
    assert needs_decision(isolated_home, tmp_path, dirs) == ()
    (tmp_path / ".agents" / "skills" / "a").mkdir(parents=True)
    assert (
        needs_decision(isolated_home, tmp_path, dirs) == ()
    )  # an empty folder is no skill
    (tmp_path / ".agents" / "skills" / "a" / "SKILL.md").write_text(
        "---\nname: a\ndescription: d\n---\n"
    )
    (tmp_path / ".mcp.json").write_text("{}")
    assert needs_decision(isolated_home, tmp_path, dirs) == (
        ".agents/skills (1 skill)",
        ".mcp.json",
    )
    record(isolated_home, tmp_path, TrustLevel.UNTRUSTED)
    assert needs_decision(isolated_home, tmp_path, dirs) == ()


def test_home_root_and_the_config_home_are_no_projects(isolated_home: Home) -> None:
    from aiq_tui.trust import is_project_folder

    assert not is_project_folder(isolated_home, Path.home())
    assert not is_project_folder(isolated_home, "/")
    assert not is_project_folder(isolated_home, isolated_home.root / "skills")
    assert is_project_folder(isolated_home, Path.home() / "code")
