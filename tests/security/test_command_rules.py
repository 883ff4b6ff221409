"""Argument rules: getopt-style long options, short clusters, path operands (finding 1 and 7).

The programs here are allowlisted *for the test* (sort, find, tar, git are off the default
list); the rules still apply when a user adds them.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from aiq_tui.config import ToolSettings
from aiq_tui.locations import Home
from aiq_tui.tools.command import CommandTool
from aiq_tui.tools.command_rules import CommandRefused, check_arguments

EXTRA = [
    "sort",
    "find",
    "tar",
    "git",
    "date",
    "file",
    "uniq",
    "du",
    "grep",
    "cut",
    "ls",
    "cat",
    "head",
    "wc",
]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "data.txt").write_text("b\na\n")
    return root


@pytest.fixture
def tool(isolated_home: Home, project: Path) -> CommandTool:
    return CommandTool(
        ToolSettings(command_allowlist=EXTRA), home=isolated_home, cwd=project
    )


@pytest.mark.parametrize(
    "argv",
    [
        # finding 1: every unambiguous abbreviation getopt accepts for --compress-program / --output
        ["sort", "--compress=sh", "data.txt"],
        ["sort", "--compress-prog=sh", "data.txt"],
        ["sort", "--compress-program", "sh", "data.txt"],
        ["sort", "--com=sh", "data.txt"],
        ["sort", "--outp=/tmp/x", "data.txt"],
        ["sort", "--ou=/tmp/x", "data.txt"],
        ["sort", "--o", "x", "data.txt"],
        ["sort", "-uo", "x", "data.txt"],
        ["sort", "-T", "/tmp", "data.txt"],
        ["sort", "--temp=/tmp", "data.txt"],
        ["sort", "--files0=data.txt"],
        ["find", ".", "-exec", "sh", "-c", "id", ";"],
        ["find", ".", "-ok", "id", ";"],
        ["find", ".", "-delete"],
        ["find", "/etc/ssh"],
        ["find", "/proc/1"],
        ["tar", "--to-command=sh", "-f", "a.tar"],
        ["tar", "-I", "sh", "-tf", "a.tar"],
        ["tar", "--use-comp=sh"],
        ["tar", "--checkpoint-act=exec=id"],
        ["tar", "-xf", "a.tar"],
        ["git", "-c", "core.pager=sh", "log"],
        ["git", "--config-env=core.pager=X", "log"],
        ["git", "--exec-pa=/tmp", "log"],
        ["date", "-s", "2000-01-01"],
        ["date", "--se=2000-01-01"],
        ["file", "--comp", "data.txt"],
        ["uniq", "data.txt", "out.txt"],
        ["du", "--files0=data.txt"],
        ["du", "--exclude-f=data.txt"],
        ["cat", "/etc/shadow"],
        ["cat", "/proc/self/environ"],
        ["ls", "/sys"],
        ["head", "/dev/sda"],
        ["grep", "-rf", "/etc/gshadow", "."],
        ["grep", "--file=/root/.ssh/id_ed25519", "."],
        ["cut", "-d", ",", "-f1", "/etc/shadow"],
    ],
)
async def test_refused(tool: CommandTool, argv: list[str]) -> None:
    result = await tool.run({"command": argv})
    assert not result.ok and result.error.startswith("refused"), (argv, result.error)


@pytest.mark.parametrize(
    "argv",
    [
        ["sort", "-k", "1,1", "data.txt"],
        ["sort", "-k1,1o", "data.txt"],
        ["sort", "-t", "/", "data.txt"],
        ["sort", "--key=1", "--reverse", "data.txt"],
        ["find", ".", "-name", "*.txt"],
        ["grep", "-r", "/api/", "."],
        ["grep", "-e", "a", "data.txt"],
        ["cut", "-d", "/", "-f", "1", "data.txt"],
        ["date", "+%Y"],
        ["ls", "/usr/bin/env"],
        ["cat", "/etc/hostname"],
        ["uniq", "data.txt"],
        ["head", "-n", "1", "data.txt"],
        ["wc", "-l", "data.txt"],
        ["du", "-s", "."],
    ],
)
def test_allowed(tool: CommandTool, argv: list[str], project: Path) -> None:
    name = argv[0]
    check_arguments(name, argv[1:], project, (project,))  # raises when refused


def test_a_symlink_out_of_the_project_is_followed_and_refused(
    project: Path, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("x")
    (project / "link").symlink_to(secret)
    with pytest.raises(CommandRefused, match="outside the readable roots"):
        check_arguments("cat", ["link"], project, (project,))
    (project / "proc").symlink_to("/proc/self")
    with pytest.raises(CommandRefused, match="/proc is never readable"):
        check_arguments("cat", ["proc/environ"], project, (project,))


async def test_default_allowlist_has_no_program_that_runs_code() -> None:
    from aiq_tui.tools.command_rules import INTERPRETERS

    default = set(ToolSettings().command_allowlist)
    assert not default & (INTERPRETERS | {"sort", "find", "tar", "git"})


async def test_a_shell_string_through_an_allowed_program_stays_an_argument(
    tool: CommandTool, project: Path
) -> None:
    result = await tool.run({"command": "sort --key=1 data.txt; id"})
    assert (
        result.content["exit_code"] != 0
    )  # "data.txt;" does not exist — and no shell ever ran
    assert "uid=" not in result.content["stdout"]
    assert os.path.exists(project / "data.txt")
