"""Git's progress reaches the user, a hanging server meets the deadline, links are handled."""

from __future__ import annotations

import json
import socket
import threading
from pathlib import Path

import pytest

from aiq_tui.cli import main
from aiq_tui.commands import install_cmd
from aiq_tui.locations import Home
from aiq_tui.skills.install.folder_hash import skill_folder_hash
from aiq_tui.skills.install.git_fetch import FetchLimits, GitCache, GitError
from tests.install.conftest import RepoFactory, skill_md

Capsys = pytest.CaptureFixture[str]


def one_skill(work: Path) -> None:
    (work / "skills" / "notes").mkdir(parents=True)
    (work / "skills" / "notes" / "SKILL.md").write_text(skill_md("notes", "Keep notes"))


def test_git_progress_lines_reach_the_callback(
    make_repo: RepoFactory, tmp_path: Path
) -> None:
    repo = make_repo("one", one_skill)
    lines: list[str] = []
    cache = GitCache(tmp_path / "cache", FetchLimits(), lines.append)
    checkout = cache.checkout(repo.url)
    assert any(line.startswith("fetching ") for line in lines)
    assert any("objects" in line for line in lines)  # git's own progress
    assert len(checkout.commit) == 40


def test_progress_is_shown_only_once_an_operation_took_a_second(
    monkeypatch: pytest.MonkeyPatch, capsys: Capsys
) -> None:
    now = [100.0]
    monkeypatch.setattr(install_cmd.time, "monotonic", lambda: now[0])
    progress = install_cmd._Progress(quiet=False)
    progress("Receiving objects:  10% (1/10)")
    progress("fetching file:///x")
    assert capsys.readouterr().err == ""
    now[0] += 1.5
    progress(
        "Receiving objects:  50% (5/10)"
    )  # percentages only rewrite a terminal's line
    progress("checking out 1 skill folder(s)")
    assert capsys.readouterr().err == "checking out 1 skill folder(s)\n"


def test_a_server_that_never_answers_meets_the_deadline(
    home: Home, project: Path, capsys: Capsys
) -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                accepted.append(listener.accept()[0])  # and say nothing, ever
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    home.config_file.parent.mkdir(parents=True, exist_ok=True)
    home.config_file.write_text("install:\n  timeout_seconds: 1\n")
    try:
        url = f"git://127.0.0.1:{listener.getsockname()[1]}/silent.git"
        assert main(["skills", "install", url, "--yes"]) == 1
    finally:
        stop.set()
        thread.join(timeout=5)
        for conn in accepted:
            conn.close()
        listener.close()
    assert "install.timeout_seconds" in capsys.readouterr().err


def test_a_fetch_past_max_bytes_is_stopped(
    make_repo: RepoFactory, tmp_path: Path
) -> None:
    def build(work: Path) -> None:
        one_skill(work)
        (work / "skills" / "notes" / "blob.bin").write_bytes(bytes(range(256)) * 8000)

    repo = make_repo("big", build)
    cache = GitCache(tmp_path / "cache", FetchLimits(max_bytes=100_000))
    checkout = cache.checkout(repo.url)  # trees and SKILL.md files only: small
    with pytest.raises(GitError) as caught:
        cache.widen(checkout, ["skills/notes"])
    assert caught.value.kind == "too-large"


def linked_skill(work: Path) -> None:
    one_skill(work)
    folder = work / "skills" / "notes"
    (work / "shared").mkdir()
    (work / "shared" / "style.md").write_text("house style\n")
    (folder / "alias.md").symlink_to("SKILL.md")  # inside the skill: stays a link
    (folder / "style.md").symlink_to(
        "../../shared/style.md"
    )  # elsewhere in the repo: copied


def test_links_inside_a_skill_stay_links_and_links_elsewhere_become_files(
    make_repo: RepoFactory, home: Home, project: Path, capsys: Capsys
) -> None:
    repo = make_repo("links", linked_skill)
    assert main(["skills", "install", repo.url, "--yes"]) == 0
    installed = home.skills_dir / "notes"
    assert (installed / "alias.md").is_symlink()
    assert not (installed / "style.md").is_symlink()
    assert (installed / "style.md").read_text() == "house style\n"
    entry = json.loads((home.root / "skills-lock.json").read_text())["skills"]["notes"]
    assert entry["computedHash"] == skill_folder_hash(repo.work / "skills" / "notes")
    assert entry["installedHash"] == skill_folder_hash(installed)
    capsys.readouterr()
    assert main(["skills", "check", "--json"]) == 0  # not "edited here"


def test_a_link_leading_out_of_the_repository_refuses_the_install(
    home: Home, project: Path, tmp_path: Path, capsys: Capsys
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("token\n")
    source = tmp_path / "collection"
    (source / "notes").mkdir(parents=True)
    (source / "notes" / "SKILL.md").write_text(skill_md("notes", "Keep notes"))
    (source / "notes" / "key.md").symlink_to(secret)
    assert main(["skills", "install", str(source), "--yes"]) == 1
    assert "outside the repository" in capsys.readouterr().err
    assert not (home.skills_dir / "notes").exists()
