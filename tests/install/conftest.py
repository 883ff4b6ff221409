"""Real git repositories for install tests, made in tmp_path: a work tree, a bare repository
served as ``file://`` (partial clone allowed, as GitHub allows it) and, for the network path,
``git daemon`` on 127.0.0.1."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from aiq_tui.locations import Home

GIT = shutil.which("git")


def git(*args: str, cwd: Path | None = None) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout


@dataclass
class Repo:
    """A work tree with a bare repository beside it that tests clone from."""

    work: Path
    bare: Path

    @property
    def url(self) -> str:
        return self.bare.as_uri()

    def commit(self, message: str = "change", tag: str | None = None) -> str:
        git("add", "-A", cwd=self.work)
        git("commit", "-q", "--allow-empty", "-m", message, cwd=self.work)
        if tag:
            git("tag", "-f", tag, cwd=self.work)
        git("push", "-q", "--force", "origin", "HEAD:main", "--tags", cwd=self.work)
        return git("rev-parse", "HEAD", cwd=self.work).strip()

    def write(self, relative: str, text: str) -> Path:
        path = self.work / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path


RepoFactory = Callable[..., Repo]


@pytest.fixture(autouse=True)
def git_identity(monkeypatch: pytest.MonkeyPatch) -> None:
    if GIT is None:
        pytest.skip("git is not installed")
    for name, value in {
        "GIT_AUTHOR_NAME": "Test",
        "GIT_AUTHOR_EMAIL": "test@example.invalid",
        "GIT_COMMITTER_NAME": "Test",
        "GIT_COMMITTER_EMAIL": "test@example.invalid",
        "GIT_CONFIG_NOSYSTEM": "1",
    }.items():
        monkeypatch.setenv(name, value)
    for variable in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "XDG_CONFIG_HOME", "GIT_DIR"):
        monkeypatch.delenv(variable, raising=False)


@pytest.fixture
def make_repo(tmp_path: Path) -> RepoFactory:
    """make_repo(name, build) → a committed repository whose files ``build(work)`` wrote."""

    def make(name: str, build: Callable[[Path], object] | None = None) -> Repo:
        work = tmp_path / "repos" / name
        bare = tmp_path / "served" / f"{name}.git"
        work.mkdir(parents=True)
        git("init", "-q", "-b", "main", str(work))
        if build is not None:
            build(work)
        git("init", "-q", "--bare", "-b", "main", str(bare))
        git("config", "uploadpack.allowFilter", "true", cwd=bare)
        git("config", "uploadpack.allowAnySHA1InWant", "true", cwd=bare)
        git("remote", "add", "origin", str(bare), cwd=work)
        repo = Repo(work, bare)
        repo.commit("first")
        return repo

    return make


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    monkeypatch.chdir(folder)
    return folder


@pytest.fixture
def git_daemon(tmp_path: Path) -> Iterator[Callable[[Path], str]]:
    """serve(base) → the ``git://127.0.0.1:PORT`` URL of ``base`` (repositories in it)."""
    processes: list[subprocess.Popen[bytes]] = []

    def serve(base: Path) -> str:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        process = subprocess.Popen(
            [
                "git", "daemon", "--reuseaddr", "--export-all", "--listen=127.0.0.1",
                f"--port={port}", f"--base-path={base}", str(base),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )  # fmt: skip
        processes.append(process)
        assert process.stderr is not None
        _wait_for_port(port, process)
        return f"git://127.0.0.1:{port}"

    yield serve
    for process in processes:
        process.terminate()
        process.wait(timeout=10)


def _wait_for_port(port: int, process: subprocess.Popen[bytes]) -> None:
    """Until the daemon accepts connections (condition, not a sleep), or it died."""
    import time

    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError("git daemon exited at start")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            continue
    raise RuntimeError("git daemon did not start")


@pytest.fixture
def home(isolated_home: Home) -> Home:
    return isolated_home


def skill_md(
    name: str, description: str, extra: str = "", body: str = "Steps.\n"
) -> str:
    return f"---\nname: {name}\ndescription: {description}\n{extra}---\n\n# {name}\n\n{body}"


def tree(folder: Path) -> list[str]:
    """Every path under ``folder`` (links marked ``@``), sorted, for comparisons."""
    out = []
    for path in sorted(folder.rglob("*")):
        out.append(
            path.relative_to(folder).as_posix() + ("@" if path.is_symlink() else "")
        )
    return out


def environ_path() -> str:
    return os.environ.get("PATH", "")
