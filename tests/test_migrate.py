"""Seed 001: migration of the old flat config home into config/ and sessions/."""

from __future__ import annotations

from pathlib import Path

from aiq_tui.locations import Home
from aiq_tui.migrate import migrate_flat_layout


def flat_home(tmp_path: Path) -> Home:
    home = Home(tmp_path / "aiq")
    home.root.mkdir()
    (home.root / "config.yaml").write_text("llm: old\n")
    (home.root / "sources.yaml").write_text("sources: {}\n")
    (home.root / "session_1.json").write_text("{}")
    (home.root / "session_2.json").write_text("[]")
    (home.root / "notes.txt").write_text("not part of the old layout")
    return home


def test_migration_moves_flat_files_into_new_layout_and_reports(tmp_path: Path) -> None:
    home = flat_home(tmp_path)
    report = migrate_flat_layout(home)
    assert home.config_file.read_text() == "llm: old\n"
    assert home.sources_file.read_text() == "sources: {}\n"
    assert (home.sessions_dir / "session_1.json").read_text() == "{}"
    assert (home.sessions_dir / "session_2.json").is_file()
    assert not (home.root / "config.yaml").exists()
    assert (home.root / "notes.txt").exists()
    assert {new for _, new in report.moved} == {
        home.config_file,
        home.sources_file,
        home.sessions_dir / "session_1.json",
        home.sessions_dir / "session_2.json",
    }
    assert "moved 4 file(s)" in report.summary()


def test_migration_backs_up_originals_first(tmp_path: Path) -> None:
    home = flat_home(tmp_path)
    report = migrate_flat_layout(home, now=0)
    assert report.backup_dir is not None and report.backup_dir.name.startswith(
        "backup-"
    )
    assert sorted(p.name for p in report.backup_dir.iterdir()) == [
        "config.yaml",
        "session_1.json",
        "session_2.json",
        "sources.yaml",
    ]
    assert (report.backup_dir / "config.yaml").read_text() == "llm: old\n"


def test_migration_is_idempotent(tmp_path: Path) -> None:
    home = flat_home(tmp_path)
    migrate_flat_layout(home)
    again = migrate_flat_layout(home)
    assert again.moved == () and again.skipped == () and again.backup_dir is None
    assert again.summary() == "nothing to migrate"
    assert len([p for p in home.root.iterdir() if p.name.startswith("backup-")]) == 1


def test_migration_never_overwrites_and_reports_conflict(tmp_path: Path) -> None:
    home = flat_home(tmp_path)
    home.config_dir.mkdir()
    home.config_file.write_text("skills: {}\n")
    report = migrate_flat_layout(home)
    assert home.config_file.read_text() == "skills: {}\n"
    assert (home.root / "config.yaml").read_text() == "llm: old\n"  # left in place
    assert report.skipped == (home.root / "config.yaml",)
    [problem] = report.problems
    assert (
        problem.path == home.root / "config.yaml"
        and "already exists" in problem.message
    )
    assert home.sources_file.exists()  # the rest still moved


def test_fresh_home_has_nothing_to_migrate(tmp_path: Path) -> None:
    home = Home(tmp_path / "fresh")
    home.ensure()
    report = migrate_flat_layout(home)
    assert report == type(report)()
