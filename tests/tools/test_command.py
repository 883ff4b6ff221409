"""execute_command: allowlist, argv only, dangerous arguments, timeout, cwd, output cap, env (seed 000)."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from aiq_tui.config import ToolSettings
from aiq_tui.locations import Home
from aiq_tui.tools.command import CommandTool
from tests.processes import until_none_in


@pytest.fixture
def tool(settings: ToolSettings, home: Home, project: Path) -> CommandTool:
    return CommandTool(settings, home=home, cwd=project)


async def test_command_runs_allowlisted_program_with_argv(
    tool: CommandTool, project: Path
) -> None:
    (project / "a.txt").write_text("one\ntwo\n")
    result = await tool.run({"command": ["wc", "-l", "a.txt"]})
    assert result.ok and result.content["exit_code"] == 0
    assert result.content["stdout"].split()[0] == "2"
    assert result.content["duration_s"] >= 0 and result.summary.startswith("exit 0")


async def test_command_string_is_split_but_never_run_by_a_shell(
    tool: CommandTool,
) -> None:
    result = await tool.run({"command": "echo hello; whoami"})
    assert result.ok and result.content["stdout"] == "hello; whoami\n"


async def test_command_not_in_allowlist_is_refused(tool: CommandTool) -> None:
    result = await tool.run({"command": ["rm", "-rf", "x"]})
    assert not result.ok and "'rm' is not in tools.command_allowlist" in result.error
    assert "ls" in result.error  # lists what is allowed


async def test_command_nonzero_exit_is_reported(tool: CommandTool) -> None:
    result = await tool.run({"command": ["ls", "does-not-exist"]})
    assert (
        result.ok
        and result.content["exit_code"] != 0
        and "does-not-exist" in result.content["stderr"]
    )


async def test_command_path_to_same_executable_is_accepted(tool: CommandTool) -> None:
    result = await tool.run({"command": [os.path.realpath(shutil.which("echo")), "ok"]})
    assert result.ok and result.content["stdout"] == "ok\n"


async def test_command_path_to_other_binary_with_allowlisted_name_is_refused(
    tool: CommandTool, tmp_path: Path
) -> None:
    fake = tmp_path / "bin" / "ls"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\ntouch /tmp/never\n")
    fake.chmod(0o755)
    result = await tool.run({"command": [str(fake)]})
    assert not result.ok and "is not the allowlisted 'ls'" in result.error


async def test_command_timeout_kills_the_whole_process_group(
    home: Home, project: Path
) -> None:
    # The child starts a grandchild that would run for ten minutes, says so, and waits.
    tool = CommandTool(
        ToolSettings(command_timeout_seconds=2, command_allowlist=["sh"]),
        home=home,
        cwd=project,
    )
    started = time.perf_counter()
    result = await tool.run(
        {"command": ["sh", "-c", "sleep 600 & echo forked; sleep 30"]}
    )
    assert (
        not result.ok
        and "timed out after 2 s" in result.error
        and result.content["timed_out"]
    )
    assert result.content["stdout"] == "forked\n", (
        result.content
    )  # the grandchild was started
    assert time.perf_counter() - started < 10
    await until_none_in(project, "a grandchild")


async def test_command_per_call_timeout_cannot_exceed_config(
    home: Home, project: Path
) -> None:
    tool = CommandTool(
        ToolSettings(command_allowlist=["sleep"]), home=home, cwd=project
    )
    result = await tool.run({"command": ["sleep", "5"], "timeout": 0.3})
    assert not result.ok and "0.3 s" in result.error


async def test_command_output_is_capped(home: Home, project: Path) -> None:
    (project / "big.txt").write_text("x" * 5000)
    tool = CommandTool(ToolSettings(command_output_bytes=100), home=home, cwd=project)
    result = await tool.run({"command": ["cat", "big.txt"]})
    assert (
        result.ok
        and len(result.content["stdout"]) == 100
        and result.content["stdout_truncated"]
    )
    assert not result.content["stderr_truncated"]


async def test_command_cwd_inside_roots(
    tool: CommandTool, project: Path, home: Home
) -> None:
    (project / "sub").mkdir()
    inside = await tool.run({"command": ["pwd"], "cwd": "sub"})
    assert inside.ok and inside.content["stdout"].strip() == str(
        (project / "sub").resolve()
    )
    home.skills_dir.mkdir(parents=True, exist_ok=True)
    in_skills = await tool.run({"command": ["pwd"], "cwd": str(home.skills_dir)})
    assert in_skills.ok
    # The rest of the config home is never the model's to read (sessions, config).
    in_home = await tool.run({"command": ["pwd"], "cwd": str(home.root)})
    assert not in_home.ok and "refused" in in_home.error


@pytest.mark.parametrize("cwd", ["/", "..", "/tmp", "~", "../..", "sub/../../"])
async def test_command_cwd_outside_roots_is_refused(
    tool: CommandTool, cwd: str
) -> None:
    result = await tool.run({"command": ["pwd"], "cwd": cwd})
    assert not result.ok and "refused" in result.error


async def test_command_environment_is_scrubbed_of_secrets(
    home: Home, project: Path
) -> None:
    environ = {
        "PATH": os.environ["PATH"],
        "HOME": "/h",
        "LANG": "C.UTF-8",
        "OPENAI_API_KEY": "sk-1",
        "GITHUB_TOKEN": "t",
        "DB_PASSWORD": "p",
        "MY_SECRET": "s",
        "AWS_CREDENTIALS": "c",
        "HTTP_AUTH": "a",
        "LD_PRELOAD": "/evil.so",
        "PYTHONPATH": "/evil",
        "BASH_ENV": "/evil",
    }
    tool = CommandTool(
        ToolSettings(command_allowlist=["env"]), home=home, cwd=project, environ=environ
    )
    result = await tool.run({"command": ["env"]})
    names = {line.split("=", 1)[0] for line in result.content["stdout"].splitlines()}
    assert {"PATH", "HOME", "LANG"} <= names
    assert not names & {
        "OPENAI_API_KEY",
        "GITHUB_TOKEN",
        "DB_PASSWORD",
        "MY_SECRET",
        "AWS_CREDENTIALS",
        "HTTP_AUTH",
        "LD_PRELOAD",
        "PYTHONPATH",
        "BASH_ENV",
    }


async def test_interpreters_are_off_the_default_allowlist(
    tool: CommandTool, project: Path
) -> None:
    """Finding 7: python3 on the default allowlist ran any code the model wrote to a .py file."""
    (project / "hello.py").write_text("print('hi from script')\n")
    for argv in (
        ["python3", "hello.py"],
        ["sh", "-c", "id"],
        ["sort", "x"],
        ["find", "."],
    ):
        result = await tool.run({"command": argv})
        assert not result.ok and "not in tools.command_allowlist" in result.error, argv


@pytest.mark.parametrize(
    "argv",
    [
        ["python3", "-c", "print(1)"],
        ["python3", "-m", "http.server"],
        ["python3"],
        ["python3", "-"],
        ["python3", "/etc/hostname"],
        ["python3", "-Wall", "x.py"],
    ],
)
async def test_python3_inline_code_modules_and_outside_scripts_are_refused(
    home: Home, project: Path, argv: list[str]
) -> None:
    tool = CommandTool(
        ToolSettings(command_allowlist=["python3"]), home=home, cwd=project
    )
    result = await tool.run({"command": argv})
    assert not result.ok and "python3" in result.error


def test_command_permission_keys_and_description(home: Home, project: Path) -> None:
    tool = CommandTool(ToolSettings(shell_programs=["sh"]), home=home, cwd=project)
    assert tool.permission_key({"command": ["ls"]}) == "execute_command"
    assert tool.permission_key({"command": ["sh", "-c", "ls | wc"]}) == "execute_shell"
    assert (
        tool.describe({"command": ["grep", "-r", "two words", "."]})
        == "grep -r 'two words' ."
    )


async def test_allowlisted_shell_runs_a_command_string(
    home: Home, project: Path
) -> None:
    tool = CommandTool(ToolSettings(shell_programs=["sh"]), home=home, cwd=project)
    result = await tool.run({"command": ["sh", "-c", "echo a | tr a b"]})
    assert result.ok and result.content["stdout"] == "b\n"


async def test_shell_is_refused_unless_listed_in_shell_programs(
    tool: CommandTool,
) -> None:
    result = await tool.run({"command": ["sh", "-c", "echo hi"]})
    assert not result.ok and "not in tools.command_allowlist" in result.error
