"""file_operations: read / write / list / exists inside the config home and cwd (seed 000, 004)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from aiq_tui.config import ToolSettings
from aiq_tui.locations import Home
from aiq_tui.tools.files import FileOperationsTool


@pytest.fixture
def tool(settings: ToolSettings, home: Home, project: Path) -> FileOperationsTool:
    return FileOperationsTool(settings, home=home, cwd=project)


async def test_file_write_then_read_in_project(
    tool: FileOperationsTool, project: Path
) -> None:
    written = await tool.run(
        {"operation": "write", "path": "notes/today.md", "content": "# Hello\n"}
    )
    assert written.ok and written.content["created"] and written.content["bytes"] == 8
    assert (project / "notes" / "today.md").read_text() == "# Hello\n"
    read = await tool.run({"operation": "read", "path": "notes/today.md"})
    assert (
        read.ok
        and read.content["content"] == "# Hello\n"
        and not read.content["truncated"]
    )


async def test_file_write_in_config_home_is_refused(
    tool: FileOperationsTool, home: Home
) -> None:
    """Finding 5: one approved write into the config home allowlisted a shell for later sessions."""
    target = home.tools_dir / "note.txt"
    result = await tool.run({"operation": "write", "path": str(target), "content": "x"})
    assert not result.ok and "refused" in result.error and not target.exists()


async def test_file_list_and_exists(tool: FileOperationsTool, project: Path) -> None:
    (project / "a.txt").write_text("abc")
    (project / "dir").mkdir()
    listing = await tool.run({"operation": "list", "path": "."})
    assert listing.ok
    assert [(e["name"], e["type"], e["size"]) for e in listing.content["entries"]] == [
        ("a.txt", "file", 3),
        ("dir", "dir", None),
    ]
    assert (await tool.run({"operation": "exists", "path": "a.txt"})).content == {
        "path": str((project / "a.txt").resolve()),
        "exists": True,
        "type": "file",
    }
    assert (await tool.run({"operation": "exists", "path": "nope"})).content[
        "exists"
    ] is False


async def test_file_write_is_atomic_and_keeps_mode(
    tool: FileOperationsTool, project: Path
) -> None:
    target = project / "script.sh"
    target.write_text("old")
    target.chmod(0o750)
    result = await tool.run(
        {"operation": "write", "path": "script.sh", "content": "new"}
    )
    assert result.ok and not result.content["created"]
    assert target.read_text() == "new" and (target.stat().st_mode & 0o777) == 0o750
    assert [p.name for p in project.iterdir()] == [
        "script.sh"
    ]  # no temp file left behind


async def test_file_size_caps(home: Home, project: Path) -> None:
    tool = FileOperationsTool(ToolSettings(file_max_bytes=10), home=home, cwd=project)
    (project / "big.txt").write_text("0123456789ABCDEF")
    read = await tool.run({"operation": "read", "path": "big.txt"})
    assert (
        read.ok
        and read.content["content"] == "0123456789"
        and read.content["truncated"]
    )
    write = await tool.run({"operation": "write", "path": "w.txt", "content": "x" * 11})
    assert (
        not write.ok
        and "tools.file_max_bytes" in write.error
        and not (project / "w.txt").exists()
    )


async def test_file_read_missing_is_a_clear_failure(tool: FileOperationsTool) -> None:
    result = await tool.run({"operation": "read", "path": "missing.txt"})
    assert not result.ok and "No such file" in result.error


async def test_file_read_of_directory_suggests_list(tool: FileOperationsTool) -> None:
    result = await tool.run({"operation": "read", "path": "."})
    assert not result.ok and "use operation list" in result.error


async def test_file_outside_roots_is_refused(tool: FileOperationsTool) -> None:
    result = await tool.run({"operation": "read", "path": "/etc/hostname"})
    assert not result.ok and "refused" in result.error and "outside" in result.error


def test_file_permission_keys(tool: FileOperationsTool) -> None:
    assert tool.permission_key({"operation": "write", "path": "x"}) == "file_write"
    for op in ("read", "list", "exists"):
        assert tool.permission_key({"operation": op, "path": "x"}) == "file_read"
    assert tool.describe({"operation": "read", "path": "a.txt"}) == "read a.txt"


async def test_skill_resources_are_readable_level_3_but_not_writable(
    settings: ToolSettings,
    home: Home,
    project: Path,
    write_skill: Callable[..., Path],
    make_catalog: Callable[..., object],
    tmp_path: Path,
) -> None:
    folder = write_skill(
        "deploy",
        resources={
            "scripts/deploy.sh": "echo deploy\n",
            "docs/checklist.md": "- [ ] tests\n",
        },
        root=tmp_path / "claude-skills",
    )
    tool = FileOperationsTool(
        settings,
        home=home,
        cwd=project,
        catalog=make_catalog(tmp_path / "claude-skills"),
    )
    read = await tool.run(
        {"operation": "read", "path": str(folder / "docs" / "checklist.md")}
    )
    assert read.ok and read.content["content"] == "- [ ] tests\n"
    listing = await tool.run({"operation": "list", "path": str(folder / "scripts")})
    assert listing.ok and listing.content["entries"][0]["name"] == "deploy.sh"
    write = await tool.run(
        {
            "operation": "write",
            "path": str(folder / "docs" / "checklist.md"),
            "content": "x",
        }
    )
    assert not write.ok and "outside what may be written" in write.error
    assert (folder / "docs" / "checklist.md").read_text() == "- [ ] tests\n"


async def test_symlink_inside_roots_pointing_inside_is_followed(
    tool: FileOperationsTool, project: Path
) -> None:
    (project / "real.txt").write_text("real")
    os.symlink(project / "real.txt", project / "link.txt")
    assert (await tool.run({"operation": "read", "path": "link.txt"})).content[
        "content"
    ] == "real"
