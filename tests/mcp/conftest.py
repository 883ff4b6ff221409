"""Shared pieces of the MCP tests: the in-test server, real third-party servers, config files."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from aiq_tui.locations import Home

FIXTURE_SERVER = Path(__file__).with_name("fixture_server.py")


def fixture_server(*flags: str) -> dict[str, Any]:
    """A config entry for the in-test server (run by this interpreter)."""
    return {"command": sys.executable, "args": [str(FIXTURE_SERVER), *flags]}


def installed(program: str) -> str:
    """The path of a console script installed beside this interpreter (pip install …), or skip."""
    found = shutil.which(
        program, path=str(Path(sys.executable).parent)
    ) or shutil.which(program)
    if found is None:
        pytest.skip(f"{program} is not installed (pip install -e '.[dev]' brings it)")
    return found


def write_config(
    home: Home, servers: dict[str, dict[str, Any]], **sections: Any
) -> Path:
    """config.yaml with ``mcp.servers`` (and other sections) in the test's config home."""
    home.ensure()
    data: dict[str, Any] = dict(sections)
    data.setdefault("mcp", {})["servers"] = servers
    home.config_file.write_text(yaml.safe_dump(data, sort_keys=False))
    return home.config_file


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty project folder as the working directory."""
    root = tmp_path / "project"
    root.mkdir()
    monkeypatch.chdir(root)
    return root
