"""Issue 34, row 6: what an MCP server prints on stderr (tokens, request bodies) is readable by
this user only — its log is 0600 and every folder of the config home 0700 — whatever the umask,
and the folders and log an earlier version made are tightened."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest
import yaml

from aiq_tui.cli import main
from aiq_tui.locations import Home

TOKEN = "ghp_LOGGED-BY-THE-SERVER-0123456789"


@pytest.fixture
def loose_umask():
    """The usual 022: files 0644 and folders 0755 unless the code asks for less."""
    previous = os.umask(0o022)
    yield
    os.umask(previous)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _others_can_read(path: Path) -> bool:
    return bool(_mode(path) & 0o077)


def _server_that_logs(home: Home) -> None:
    """A stdio server that prints a token on stderr and exits."""
    home.ensure()
    script = f"import sys; print('auth token {TOKEN}', file=sys.stderr, flush=True); sys.exit(3)"
    home.config_file.write_text(
        yaml.safe_dump(
            {
                "mcp": {
                    "servers": {
                        "leaky": {"command": sys.executable, "args": ["-c", script]}
                    },
                    "startup_timeout_seconds": 30,
                }
            }
        )
    )


def test_a_servers_stderr_log_is_readable_by_this_user_only(
    isolated_home: Home, tmp_path: Path, monkeypatch, loose_umask, capsys
) -> None:
    monkeypatch.chdir(tmp_path)
    _server_that_logs(isolated_home)
    main(["mcp", "list"])
    capsys.readouterr()
    log = isolated_home.data_dir / "mcp" / "leaky.log"
    assert TOKEN in log.read_text()  # the server did log it …
    assert _mode(log) == 0o600  # … where no other user can read it
    for folder in (log.parent, isolated_home.data_dir, isolated_home.root):
        assert _mode(folder) == 0o700, folder


def test_a_home_and_log_from_before_are_tightened(
    isolated_home: Home, tmp_path: Path, monkeypatch, loose_umask, capsys
) -> None:
    for folder in (
        isolated_home.root,
        *isolated_home.layout_dirs(),
        isolated_home.data_dir / "mcp",
    ):
        folder.mkdir(parents=True, exist_ok=True)
        os.chmod(folder, 0o755)
    old_log = isolated_home.data_dir / "mcp" / "leaky.log"
    old_log.write_text(f"yesterday's {TOKEN}\n")
    os.chmod(old_log, 0o644)
    monkeypatch.chdir(tmp_path)
    _server_that_logs(isolated_home)
    main(["mcp", "list"])
    capsys.readouterr()
    assert not _others_can_read(old_log)
    for folder in (*isolated_home.layout_dirs(), isolated_home.data_dir / "mcp"):
        assert _mode(folder) == 0o700, folder
    assert _mode(isolated_home.root) == 0o755  # a folder the user chose keeps its mode


def test_a_new_home_is_private_from_its_first_start(
    isolated_home: Home, tmp_path: Path, monkeypatch, loose_umask, capsys
) -> None:
    monkeypatch.chdir(tmp_path)
    assert not isolated_home.root.exists()
    main(["skills", "list"])
    capsys.readouterr()
    for folder in (isolated_home.root, *isolated_home.layout_dirs()):
        assert _mode(folder) == 0o700, folder


@pytest.mark.parametrize("shared", ["sticky", "home"])
def test_a_folder_that_is_everyones_is_never_closed(
    tmp_path: Path, monkeypatch, shared: str
) -> None:
    """``--home /tmp`` (run as root, which owns /tmp) made /tmp 0700: every other user, and the
    PostgreSQL server the tests start, was locked out. A sticky folder, ``/`` and the user's
    home are left as they are; the config home's own folders are still tightened."""
    from aiq_tui.locations import private_dir

    folder = tmp_path / "shared"
    folder.mkdir()
    if shared == "sticky":
        os.chmod(folder, 0o1777)
        expected = 0o1777
    else:
        os.chmod(folder, 0o755)
        expected = 0o755
        monkeypatch.setenv("HOME", str(folder))
    private_dir(folder)
    assert _mode(folder) == expected
    inside = folder / "aiq-home"
    inside.mkdir(mode=0o755)
    os.chmod(inside, 0o755)
    private_dir(inside)
    assert _mode(inside) == 0o700
