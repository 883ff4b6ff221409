"""Files and the policy around them (findings 4 and 5): the config home is never writable,
secrets ask every time, FIFOs/devices are refused, listings and skill resources are capped."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest

from aiq_tui.config import ToolSettings, load_config
from aiq_tui.conversation import ToolCall
from aiq_tui.locations import Home
from aiq_tui.tools.base import ApprovalRequest, Decision
from aiq_tui.tools.files import FileOperationsTool
from aiq_tui.tools.policy import PermissionPolicy
from aiq_tui.tools.registry import ToolRegistry, approve_all, deny_all


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


def _registry(tool: Any, **permissions: str) -> ToolRegistry:
    return ToolRegistry(
        [tool], PermissionPolicy({**ToolSettings().permissions, **permissions})
    )


async def _call(
    registry: ToolRegistry, arguments: dict[str, Any], approver: Any
) -> Any:
    return await registry.invoke(
        ToolCall("1", "file_operations", arguments), approver, lambda e: None
    )


async def test_config_home_is_never_writable_even_approved_and_inside_the_project(
    tmp_path: Path,
) -> None:
    """Finding 5: the project contains the config home; an approved write still cannot reach it."""
    project = tmp_path / "work"
    home = Home(project / ".aiqconfig")
    home.ensure()
    tool = FileOperationsTool(ToolSettings(), home=home, cwd=project)
    registry = _registry(tool, file_write="allow")
    for target in (
        home.config_file,
        home.root / "skills" / "evil" / "SKILL.md",
        home.root / "x",
    ):
        result = await _call(
            registry,
            {"operation": "write", "path": str(target), "content": "x"},
            approve_all,
        )
        assert not result.ok and "config home" in result.error, target
    assert not home.config_file.exists()
    assert load_config(home).tools.command_allowlist == ToolSettings().command_allowlist


async def test_git_directory_is_never_writable(
    project: Path, isolated_home: Home
) -> None:
    (project / ".git" / "hooks").mkdir(parents=True)
    tool = FileOperationsTool(ToolSettings(), home=isolated_home, cwd=project)
    result = await tool.run(
        {
            "operation": "write",
            "path": ".git/hooks/pre-commit",
            "content": "#!/bin/sh\nid\n",
        }
    )
    assert not result.ok and ".git" in result.error


@pytest.mark.parametrize(
    "name",
    [
        ".env",
        ".env.production",
        "id_ed25519",
        "server.pem",
        "tls.key",
        "credentials.json",
        ".netrc",
        ".pgpass",
    ],
)
async def test_secret_looking_files_ask_every_time(
    project: Path, isolated_home: Home, name: str
) -> None:
    """Finding 4: .env was read with zero approvals."""
    (project / name).write_text("SECRET=1")
    tool = FileOperationsTool(ToolSettings(), home=isolated_home, cwd=project)
    registry = _registry(
        tool, file_read="allow", file_read_secret="allow"
    )  # allow cannot skip the question
    asked: list[ApprovalRequest] = []

    async def always(request: ApprovalRequest) -> Decision:
        asked.append(request)
        return Decision.ALLOW_ALWAYS

    for _ in range(2):
        assert (await _call(registry, {"operation": "read", "path": name}, always)).ok
    assert [request.permission for request in asked] == [
        "file_read_secret",
        "file_read_secret",
    ]
    refused = await _call(registry, {"operation": "read", "path": name}, deny_all)
    assert not refused.ok and "SECRET" not in str(refused.content)


async def test_ordinary_files_do_not_ask(project: Path, isolated_home: Home) -> None:
    (project / "notes.md").write_text("hello")
    (project / ".env.example").write_text("KEY=")
    registry = _registry(
        FileOperationsTool(ToolSettings(), home=isolated_home, cwd=project)
    )
    for name in ("notes.md", ".env.example"):
        assert (await _call(registry, {"operation": "read", "path": name}, deny_all)).ok


async def test_started_in_the_user_home_every_read_asks(
    isolated_home: Home, tmp_path: Path
) -> None:
    user_home = Path(os.path.expanduser("~"))
    (user_home / ".ssh").mkdir(exist_ok=True)
    (user_home / ".ssh" / "id_ed25519").write_text("PRIVATE KEY")
    (user_home / "todo.txt").write_text("x")
    tool = FileOperationsTool(ToolSettings(), home=isolated_home, cwd=user_home)
    assert (
        tool.permission_key({"operation": "read", "path": ".ssh/id_ed25519"})
        == "file_read_secret"
    )
    assert (
        tool.permission_key({"operation": "read", "path": "todo.txt"})
        == "file_read_unscoped"
    )
    result = await _call(
        _registry(tool), {"operation": "read", "path": ".ssh/id_ed25519"}, deny_all
    )
    assert not result.ok


async def test_a_fifo_is_refused_without_hanging(
    project: Path, isolated_home: Home
) -> None:
    os.mkfifo(project / "pipe")
    tool = FileOperationsTool(ToolSettings(), home=isolated_home, cwd=project)
    read = await asyncio.wait_for(tool.run({"operation": "read", "path": "pipe"}), 10)
    assert not read.ok and "not a regular file" in read.error
    write = await asyncio.wait_for(
        tool.run({"operation": "write", "path": "pipe", "content": "x"}), 10
    )
    assert not write.ok and "not a regular file" in write.error


async def test_directory_listings_are_capped(
    project: Path, isolated_home: Home
) -> None:
    for index in range(30):
        (project / f"f{index:02}").write_text("")
    tool = FileOperationsTool(
        ToolSettings(file_list_max_entries=10), home=isolated_home, cwd=project
    )
    result = await tool.run({"operation": "list", "path": "."})
    assert (
        result.ok
        and len(result.content["entries"]) == 10
        and result.content["truncated"]
    )


async def test_reads_inside_a_skill_folder_are_capped_at_max_resource_bytes(
    project: Path, isolated_home: Home, tmp_path: Path
) -> None:
    skill = tmp_path / "skills" / "big"
    skill.mkdir(parents=True)
    (skill / "data.txt").write_text("x" * 5000)
    (project / "local.txt").write_text("y" * 5000)

    class Meta:
        folder = skill
        trusted_source = (
            True  # a user's skill folder: an untrusted project's adds no read root
        )

    tool = FileOperationsTool(
        ToolSettings(),
        home=isolated_home,
        cwd=project,
        catalog=[Meta()],
        resource_cap=1000,
    )
    capped = await tool.run({"operation": "read", "path": str(skill / "data.txt")})
    assert capped.ok and capped.content["bytes"] == 1000 and capped.content["truncated"]
    assert "skills.max_resource_bytes" in capped.content["limit"]
    whole = await tool.run({"operation": "read", "path": "local.txt"})
    assert whole.content["bytes"] == 5000


def test_a_command_naming_a_secret_file_asks_every_time(
    project: Path, isolated_home: Home
) -> None:
    from aiq_tui.tools.command import CommandTool

    (project / ".env").write_text("K=1")
    tool = CommandTool(ToolSettings(), home=isolated_home, cwd=project)
    assert tool.permission_key({"command": ["cat", ".env"]}) == "file_read_secret"
    assert (
        tool.permission_key({"command": ["grep", "--file=.env", "x"]})
        == "file_read_secret"
    )
    assert tool.permission_key({"command": ["cat", "notes.md"]}) == "execute_command"
