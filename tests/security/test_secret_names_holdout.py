"""Secret files the first guard missed (held-out review of issue 23, finding 3): folders named
for secrets, password and token files, platform secret files, and the repository's own
``.git/config`` — where ``actions/checkout`` keeps the CI token (``http.extraheader``) and where
remotes keep ``https://user:token@…`` URLs. Under ``--deny-all`` none of them reaches the model;
with ``--yes`` a recursive grep of the project still finds none of them."""

from __future__ import annotations

from pathlib import Path

import pytest

from aiq_tui.config import ToolSettings
from aiq_tui.locations import Home
from aiq_tui.secret_guard import looks_secret
from aiq_tui.tools.files import FileOperationsTool
from tests.security.scripted import SECRET, calls, of_type, run_session

HELD_OUT = [
    "secrets/db.txt",
    ".secrets/api.txt",
    "credentials/prod.txt",
    "docker/secrets/db_root_password",
    "db_password.txt",
    "password.txt",
    "passwords.csv",
    "private_key.txt",
    "api_key.txt",
    "apikey.txt",
    "access_token",
    "github_token",
    "oauth_token.json",
    ".dev.vars",
    "local.settings.json",
    ".mylogin.cnf",
    ".git/config",
    ".hg/hgrc",
]
STILL_PLAIN = [
    "tokenizer.json",
    "design-tokens.json",
    "password_reset.py",
    "docs/api-keys.md",
    "keyboard.txt",
    "src/secrets_test.go",
    "passport.txt",
    ".github/config.yml",
    "git/config.py",
]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    monkeypatch.chdir(root)
    return root


@pytest.mark.parametrize("name", HELD_OUT)
def test_a_held_out_secret_name_looks_secret(name: str) -> None:
    assert looks_secret(name)


@pytest.mark.parametrize("name", STILL_PLAIN)
def test_code_and_ordinary_files_still_do_not(name: str) -> None:
    assert not looks_secret(name)


def test_none_reaches_the_model_under_deny_all(
    project: Path, isolated_home: Home, monkeypatch, capsys
) -> None:
    for name in HELD_OUT:
        path = project / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"value={SECRET}\n")
    steps = calls(
        *(("file_operations", {"operation": "read", "path": name}) for name in HELD_OUT)
    )
    events, sent, _ = run_session(steps, monkeypatch, capsys, "--deny-all")
    assert len(of_type(events, "tool_call_denied")) == len(HELD_OUT)
    assert SECRET not in sent


def test_a_recursive_grep_finds_none_of_them(
    project: Path, isolated_home: Home, monkeypatch, capsys
) -> None:
    for name in HELD_OUT:
        path = project / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"value={SECRET}\n")
    (project / "notes.txt").write_text(f"value=harmless {SECRET[:4]}\n")
    _events, sent, _ = run_session(
        calls(("execute_command", {"command": ["grep", "-r", "value=", "."]})),
        monkeypatch,
        capsys,
        "--yes",
    )
    assert "harmless" in sent  # the command ran
    assert SECRET not in sent


def test_a_repository_still_works_in_the_sandbox_with_its_config_hidden(
    project: Path, isolated_home: Home, monkeypatch, capsys
) -> None:
    import shutil
    import subprocess

    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    subprocess.run(
        [
            "git",
            "-C",
            str(project),
            "config",
            "http.extraheader",
            f"AUTHORIZATION: basic {SECRET}",
        ],
        check=True,
    )
    (project / "a.txt").write_text("a\n")
    tool = FileOperationsTool(ToolSettings(), home=isolated_home, cwd=project)
    assert (
        tool.permission_key({"operation": "read", "path": ".git/config"})
        == "file_read_secret"
    )
    import asyncio

    from aiq_tui.skills.executor import SkillExecutor

    result = asyncio.run(
        SkillExecutor(ToolSettings(), cwd=project).run_script(
            "git status --porcelain; cat .git/config; grep -r extraheader . || true"
        )
    )
    assert "?? a.txt" in result["stdout"]
    assert SECRET not in result["stdout"] + result["stderr"]
