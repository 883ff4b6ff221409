"""skills-lock.json restores exactly; update and check say what changed and replace safely."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from aiq_tui.cli import main
from aiq_tui.locations import Home
from aiq_tui.skills.install import staging
from tests.install.conftest import RepoFactory, git, skill_md

Capsys = pytest.CaptureFixture[str]


def two_skills(work: Path) -> None:
    (work / "skills" / "alpha").mkdir(parents=True)
    (work / "skills" / "alpha" / "SKILL.md").write_text(
        skill_md("alpha", "Summarise alpha reports")
    )
    (work / "skills" / "alpha" / "notes.md").write_text("alpha notes\n")
    (work / "skills" / "beta").mkdir(parents=True)
    (work / "skills" / "beta" / "SKILL.md").write_text(
        skill_md("beta", "Draft beta emails")
    )


def lock_of(folder: Path) -> dict:
    return json.loads((folder / "skills-lock.json").read_text())


def install_project(repo_url: str, *extra: str) -> int:
    return main(["skills", "install", repo_url, "--scope", "project", "--yes", *extra])


def test_lockfile_is_written_as_the_skills_cli_writes_it(
    make_repo: RepoFactory, project: Path
) -> None:
    repo = make_repo("two", two_skills)
    assert install_project(repo.url, "--ref", "main") == 0
    text = (project / "skills-lock.json").read_text()
    assert text.endswith("}\n") and text.startswith(
        '{\n  "version": 1,\n  "skills": {\n'
    )
    lock = json.loads(text)
    assert list(lock["skills"]) == ["alpha", "beta"]  # sorted by name
    assert list(lock["skills"]["alpha"])[:5] == [
        "source", "ref", "sourceType", "skillPath", "computedHash",
    ]  # fmt: skip


def test_restore_installs_exactly_the_locked_commit_after_the_branch_moved(
    make_repo: RepoFactory, project: Path, capsys: Capsys
) -> None:
    repo = make_repo("two", two_skills)
    assert install_project(repo.url) == 0
    locked = lock_of(project)["skills"]["alpha"]
    repo.write("skills/alpha/SKILL.md", skill_md("alpha", "Something else entirely"))
    repo.commit("moved on")
    shutil.rmtree(project / ".agents")
    capsys.readouterr()
    assert (
        main(["skills", "install", "--yes", "--json"]) == 0
    )  # ./skills-lock.json: project
    out = json.loads(capsys.readouterr().out)
    assert sorted(item["name"] for item in out["installed"]) == ["alpha", "beta"]
    text = (project / ".agents" / "skills" / "alpha" / "SKILL.md").read_text()
    assert "Summarise alpha reports" in text
    assert lock_of(project)["skills"]["alpha"]["commit"] == locked["commit"]


def test_restore_leaves_skills_that_match_their_hash_alone(
    make_repo: RepoFactory, project: Path, capsys: Capsys
) -> None:
    repo = make_repo("two", two_skills)
    assert install_project(repo.url) == 0
    capsys.readouterr()
    assert main(["skills", "install", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["installed"] == [] and out["up_to_date"] == ["alpha", "beta"]


def test_a_hash_mismatch_on_restore_is_an_error_naming_the_lockfile_skill_and_file(
    make_repo: RepoFactory, project: Path, capsys: Capsys
) -> None:
    repo = make_repo("two", two_skills)
    assert install_project(repo.url) == 0
    lock = lock_of(project)
    lock["skills"]["alpha"]["computedHash"] = "0" * 64
    (project / "skills-lock.json").write_text(json.dumps(lock, indent=2) + "\n")
    (project / ".agents" / "skills" / "alpha" / "notes.md").write_text("edited here\n")
    assert main(["skills", "install", "--yes"]) == 1
    err = capsys.readouterr().out
    assert "skills-lock.json" in err and "'alpha'" in err and "computedHash" in err
    assert "notes.md" in err  # the file that differs from the installed copy
    assert (
        project / ".agents" / "skills" / "alpha" / "notes.md"
    ).read_text() == "edited here\n"


def test_a_moved_tag_is_reported_and_restore_still_gets_the_locked_commit(
    make_repo: RepoFactory, project: Path, capsys: Capsys
) -> None:
    repo = make_repo("two", two_skills)
    first = repo.commit("release", tag="v1")
    assert install_project(repo.url, "--ref", "v1") == 0
    repo.write("skills/alpha/SKILL.md", skill_md("alpha", "Retagged alpha"))
    second = repo.commit("retag", tag="v1")
    capsys.readouterr()
    assert main(["skills", "check", "--json"]) == 1
    alpha = next(
        s for s in json.loads(capsys.readouterr().out)["skills"] if s["name"] == "alpha"
    )
    assert alpha["moved_ref"] and alpha["locked_commit"] == first
    assert alpha["new_commit"] == second and alpha["state"] == "update-available"
    shutil.rmtree(project / ".agents")
    assert main(["skills", "install", "--yes"]) == 0
    text = (project / ".agents" / "skills" / "alpha" / "SKILL.md").read_text()
    assert "Summarise alpha reports" in text  # v1 as locked, not as retagged


def test_update_shows_the_description_change_first_then_files(
    make_repo: RepoFactory, project: Path, capsys: Capsys
) -> None:
    repo = make_repo("two", two_skills)
    assert install_project(repo.url) == 0
    repo.write(
        "skills/alpha/SKILL.md", skill_md("alpha", "Summarise alpha and gamma reports")
    )
    repo.write("skills/alpha/extra.md", "more\n")
    new = repo.commit("describe more")
    capsys.readouterr()
    assert main(["skills", "check"]) == 1
    out = capsys.readouterr().out
    lines = [line.strip() for line in out.splitlines()]
    at = lines.index("description changed (this changes when the skill is matched):")
    assert lines[at + 1] == "- Summarise alpha reports"
    assert lines[at + 2] == "+ Summarise alpha and gamma reports"
    assert lines.index("+ extra.md") > at and any(
        line.startswith("~ SKILL.md") for line in lines
    )
    assert main(["skills", "update", "alpha", "--yes"]) == 0
    text = (project / ".agents" / "skills" / "alpha" / "SKILL.md").read_text()
    assert (
        "gamma" in text
        and (project / ".agents" / "skills" / "alpha" / "extra.md").is_file()
    )
    entry = lock_of(project)["skills"]["alpha"]
    assert entry["commit"] == new
    capsys.readouterr()
    assert main(["skills", "check", "--json"]) == 0


def test_update_that_fails_validation_keeps_the_old_version(
    make_repo: RepoFactory, project: Path, capsys: Capsys
) -> None:
    repo = make_repo("two", two_skills)
    assert install_project(repo.url) == 0
    before = lock_of(project)["skills"]["alpha"]
    repo.write("skills/alpha/SKILL.md", "---\nname: alpha\n---\nno description\n")
    repo.commit("broken")
    assert main(["skills", "update", "--yes"]) == 1
    assert "description" in capsys.readouterr().out
    text = (project / ".agents" / "skills" / "alpha" / "SKILL.md").read_text()
    assert "Summarise alpha reports" in text
    assert lock_of(project)["skills"]["alpha"] == before


def test_update_that_the_doctor_refuses_keeps_the_old_version(
    make_repo: RepoFactory, project: Path, capsys: Capsys
) -> None:
    repo = make_repo("two", two_skills)
    assert install_project(repo.url) == 0
    repo.write("skills/beta/scripts/clean.sh", "#!/bin/sh\nrm -rf /\n")
    repo.commit("dangerous")
    assert main(["skills", "update", "beta", "--yes"]) == 1
    assert "rm -rf" in capsys.readouterr().out
    assert not (project / ".agents" / "skills" / "beta" / "scripts").exists()


def test_update_refuses_to_overwrite_local_edits_without_force(
    make_repo: RepoFactory, project: Path, capsys: Capsys
) -> None:
    repo = make_repo("two", two_skills)
    assert install_project(repo.url) == 0
    edited = project / ".agents" / "skills" / "alpha" / "notes.md"
    edited.write_text("my notes\n")
    repo.write("skills/alpha/notes.md", "upstream notes\n")
    repo.commit("upstream")
    assert main(["skills", "update", "alpha", "--yes"]) == 1
    assert (
        "edited here" in capsys.readouterr().out and edited.read_text() == "my notes\n"
    )
    assert main(["skills", "update", "alpha", "--yes", "--force"]) == 0
    assert edited.read_text() == "upstream notes\n"


def test_check_reports_local_edits(
    make_repo: RepoFactory, project: Path, capsys: Capsys
) -> None:
    repo = make_repo("two", two_skills)
    assert install_project(repo.url) == 0
    (project / ".agents" / "skills" / "beta" / "SKILL.md").write_text(
        skill_md("beta", "Mine now")
    )
    capsys.readouterr()
    assert main(["skills", "check", "--json"]) == 1
    beta = next(
        s for s in json.loads(capsys.readouterr().out)["skills"] if s["name"] == "beta"
    )
    assert beta["locally_modified"] and beta["state"] == "up-to-date"


def test_a_name_no_lockfile_holds_is_a_usage_error_never_every_skill(
    make_repo: RepoFactory, project: Path, capsys: Capsys
) -> None:
    repo = make_repo("two", two_skills)
    assert install_project(repo.url) == 0
    locked = lock_of(project)["skills"]["beta"]["commit"]
    repo.write("skills/beta/SKILL.md", skill_md("beta", "Draft beta letters"))
    repo.commit("beta changes")
    capsys.readouterr()
    for command in ("check", "update"):
        # a typo with --scope once read as "no names", so every skill was checked or updated
        assert main(["skills", command, "--scope", "project", "gamma"]) == 2
        err = capsys.readouterr().err
        assert "skills-lock.json of the project scope names gamma" in err
        # and a typo beside a real name was dropped without a word
        assert main(["skills", command, "alpha", "gamma"]) == 2
        assert "names gamma" in capsys.readouterr().err
    assert lock_of(project)["skills"]["beta"]["commit"] == locked  # nothing updated
    assert (
        "beta letters"
        not in (project / ".agents" / "skills" / "beta" / "SKILL.md").read_text()
    )


def test_remove_takes_the_skill_out_of_every_agent_folder_and_the_lockfile(
    make_repo: RepoFactory, project: Path, capsys: Capsys
) -> None:
    repo = make_repo("two", two_skills)
    assert (
        install_project(
            repo.url,
            "--agent",
            "claude-code",
            "--agent",
            "cursor",
            "--agent",
            "copilot",
        )
        == 0
    )
    mine = project / ".github" / "skills" / "own"
    mine.mkdir(parents=True)
    assert main(["skills", "remove", "alpha", "--yes"]) == 0
    for folder in (".claude", ".cursor", ".github"):
        assert not (project / folder / "skills" / "alpha").exists()
        assert (project / folder / "skills" / "beta").exists()
    assert mine.is_dir()
    assert list(lock_of(project)["skills"]) == ["beta"]
    assert main(["skills", "remove", "alpha", "--yes"]) == 2


def test_remove_without_yes_outside_a_terminal_changes_nothing(
    make_repo: RepoFactory, project: Path, capsys: Capsys
) -> None:
    repo = make_repo("two", two_skills)
    assert install_project(repo.url) == 0
    assert main(["skills", "remove", "alpha"]) == 2
    assert (project / ".agents" / "skills" / "alpha").is_dir()


def test_an_interrupted_install_leaves_nothing_half_written(
    make_repo: RepoFactory,
    project: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: Capsys,
) -> None:
    repo = make_repo("two", two_skills)
    real_copy = shutil.copyfile
    copied: list[str] = []

    def copy_then_die(source: str, target: object) -> object:
        copied.append(source)
        if len(copied) == 2:
            raise KeyboardInterrupt  # the user pressed Ctrl+C in the middle of the copy
        return real_copy(source, target)  # type: ignore[arg-type]

    monkeypatch.setattr(staging.shutil, "copyfile", copy_then_die)
    assert install_project(repo.url) != 0
    folder = project / ".agents" / "skills"
    assert not folder.exists() or list(folder.iterdir()) == []
    assert not (project / "skills-lock.json").exists()


def test_an_update_interrupted_between_renames_is_put_back(tmp_path: Path) -> None:
    parent = tmp_path / "skills"
    (parent / f"{staging.OLD_PREFIX}alpha-x1y2z3").mkdir(parents=True)
    (parent / f"{staging.OLD_PREFIX}alpha-x1y2z3" / "SKILL.md").write_text("old")
    (parent / f"{staging.STAGE_PREFIX}beta-q").mkdir()
    notes = staging.recover(parent)
    assert (parent / "alpha" / "SKILL.md").read_text() == "old"
    assert sorted(p.name for p in parent.iterdir()) == ["alpha"]
    assert len(notes) == 2


def test_a_repository_too_large_is_refused_before_anything_is_written(
    make_repo: RepoFactory, home: Home, project: Path, capsys: Capsys
) -> None:
    def build(work: Path) -> None:
        two_skills(work)
        (work / "skills" / "alpha" / "model.bin").write_bytes(b"\1" * 2_000_000)

    repo = make_repo("large", build)
    home.config_file.parent.mkdir(parents=True, exist_ok=True)
    home.config_file.write_text("install:\n  max_bytes: 500000\n")
    assert install_project(repo.url) == 1
    assert "install.max_bytes" in capsys.readouterr().err
    assert (
        not (project / ".agents").exists()
        and not (project / "skills-lock.json").exists()
    )
    assert install_project(repo.url, "--skill", "beta") == 0  # the small one alone fits


def test_too_many_files_are_refused(
    make_repo: RepoFactory, home: Home, project: Path, capsys: Capsys
) -> None:
    def build(work: Path) -> None:
        two_skills(work)
        for i in range(30):
            (work / "skills" / "alpha" / f"f{i}.md").write_text("x")

    repo = make_repo("many", build)
    home.config_file.parent.mkdir(parents=True, exist_ok=True)
    home.config_file.write_text("install:\n  max_files: 10\n")
    assert install_project(repo.url, "--json") == 1
    assert "install.max_files" in capsys.readouterr().out


def test_an_unknown_ref_says_so(
    make_repo: RepoFactory, project: Path, capsys: Capsys
) -> None:
    repo = make_repo("two", two_skills)
    assert install_project(repo.url, "--ref", "no-such-branch") == 1
    assert "no branch, tag or commit named 'no-such-branch'" in capsys.readouterr().err


def test_a_missing_repository_says_it_may_be_private(
    tmp_path: Path, project: Path, capsys: Capsys
) -> None:
    assert install_project((tmp_path / "nothing.git").as_uri()) == 1
    assert "private repository" in capsys.readouterr().err


def test_an_http_server_asking_for_credentials_gets_a_clear_auth_message(
    project: Path, capsys: Capsys
) -> None:
    import http.server
    import threading

    class AskForPassword(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Basic realm="private"')
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), AskForPassword)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/team/private.git"
        assert install_project(url) == 1
    finally:
        server.shutdown()
    err = capsys.readouterr().err
    assert "access denied" in err and "credential" in err


def test_work_tree_of_the_cache_has_no_hooks(
    make_repo: RepoFactory, home: Home, project: Path
) -> None:
    repo = make_repo("two", two_skills)
    assert install_project(repo.url) == 0
    caches = list((home.data_dir / "git").iterdir())
    assert len(caches) == 1
    hooks = caches[0] / ".git" / "hooks"
    assert not hooks.exists() or not any(hooks.iterdir())
    assert (
        git("config", "--get", "remote.origin.promisor", cwd=caches[0]).strip()
        == "true"
    )


def test_an_install_interrupted_between_two_skills_keeps_the_lock_true(
    make_repo: RepoFactory, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = make_repo("two", two_skills)
    real = staging.put_in_place
    calls: list[Path] = []

    def second_dies(staged: staging.Staged) -> None:
        calls.append(staged.destination)
        if len(calls) == 2:
            raise KeyboardInterrupt
        real(staged)

    monkeypatch.setattr(staging, "put_in_place", second_dies)
    assert install_project(repo.url) != 0
    folder = project / ".agents" / "skills"
    assert sorted(p.name for p in folder.iterdir()) == ["alpha"]  # no hidden stage left
    assert list(lock_of(project)["skills"]) == ["alpha"]


def test_install_without_source_or_lockfile_is_a_usage_error(
    project: Path, capsys: Capsys
) -> None:
    assert main(["skills", "install"]) == 2
    assert "give a SOURCE" in capsys.readouterr().err


def test_ref_may_be_a_full_commit_id(
    make_repo: RepoFactory, project: Path, capsys: Capsys
) -> None:
    repo = make_repo("two", two_skills)
    first = git("rev-parse", "HEAD", cwd=repo.work).strip()
    repo.write("skills/alpha/SKILL.md", skill_md("alpha", "Later alpha"))
    repo.commit("later")
    assert install_project(repo.url, "--ref", first, "--skill", "alpha") == 0
    text = (project / ".agents" / "skills" / "alpha" / "SKILL.md").read_text()
    assert "Summarise alpha reports" in text
    assert lock_of(project)["skills"]["alpha"]["commit"] == first


def test_a_copy_that_does_not_hash_like_its_source_is_not_installed(
    make_repo: RepoFactory,
    project: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: Capsys,
) -> None:
    repo = make_repo("two", two_skills)
    real_stage = staging.stage

    def corrupting_stage(
        source: Path, destination: Path, bound: Path
    ) -> staging.Staged:
        staged = real_stage(source, destination, bound)
        (staged.folder / "SKILL.md").write_text("changed under the copy\n")
        return staging.Staged(
            staged.folder, destination, staging.skill_folder_hash(staged.folder)
        )

    monkeypatch.setattr(staging, "stage", corrupting_stage)
    assert install_project(repo.url) == 1
    assert "does not hash like its source" in capsys.readouterr().err
    folder = project / ".agents" / "skills"
    assert not folder.exists() or list(folder.iterdir()) == []
    assert not (project / "skills-lock.json").exists()
