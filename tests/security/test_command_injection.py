"""Command probes against execute_command: nothing runs outside the policy.

Every probe tries to create a canary file. A probe is either *refused* by the policy (and we
assert it was) or *inert*: an allowlisted program ran with the metacharacters as plain
arguments. After every probe the canary must not exist.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from aiq_tui.config import ToolSettings
from aiq_tui.conversation import ToolCall
from aiq_tui.locations import Home
from aiq_tui.tools.command import CommandTool
from aiq_tui.tools.policy import PermissionPolicy
from aiq_tui.tools.registry import ToolRegistry, deny_all

C = "{canary}"

REFUSED: list[Any] = [
    f"touch {C}",
    f"sh -c 'touch {C}'",
    f"bash -c 'touch {C}'",
    f"/bin/sh -c 'touch {C}'",
    f"env touch {C}",
    "LD_PRELOAD=/tmp/x.so ls",
    "PATH=/tmp ls",
    f"FOO=bar touch {C}",
    f"xargs touch {C}",
    f"nohup touch {C}",
    f"sudo touch {C}",
    f"timeout 5 touch {C}",
    f"busybox touch {C}",
    f"perl -e 'open F,\">{C}\"'",
    f"tee {C}",
    f"cp /etc/hostname {C}",
    f"python3 -c \"open('{C}','w')\"",
    "python3 -m http.server",
    "python3 -",
    "python3",
    f"python3 -I -c \"open('{C}','w')\"",
    "python3 {outside_script}",
    "python3 link_to_outside.py",
    f"find . -exec touch {C} ;",
    f"find . -execdir touch {C} ;",
    f"find . -ok touch {C} ;",
    f"find . -okdir touch {C} ;",
    "find . -delete",
    f"find . -fprint {C}",
    f"find . -fprintf {C} %p",
    f"find . -fls {C}",
    f"find . -fprint0 {C}",
    f"sort -o {C} data.txt",
    f"sort --output={C} data.txt",
    f"sort -uo {C} data.txt",
    "sort --compress-program=touch data.txt",
    f"uniq data.txt {C}",
    "date -s 2000-01-01",
    "date --set=2000-01-01",
    "file -C -m data.txt",
    ["{touch_path}", C],
    ["{fake_ls}"],
    ["./ls"],
    ["echo", "a\x00b"],
    ["ls\x00", "."],
    ["", C],
    [],
    [" touch", C],
    ["ls ", "."],
    ["LS", "."],
    ["Echo", "x"],
    "echo 'unterminated",
    {"command": ["ls"], "cwd": f"/tmp; touch {C}"},
    {"command": ["ls"], "cwd": "/"},
    {"command": ["ls"], "cwd": "../.."},
    {"command": ["ls"], "cwd": "~"},
    # path operands outside the readable roots, /proc, /sys and /etc's secrets
    f"ls & touch {C}",
    f"cat < {C}",
    ["wc", f"--files0-from=/dev/null; touch {C}"],
    "cat /etc/shadow",
    "cat /proc/1/environ",
    "cat /proc/self/environ",
    "ls /sys/kernel",
    "cat ../../x",
    "head -c 10 /dev/mem",
    "grep -r root /etc/ssh",
    ["grep", "-f", "/etc/shadow", "data.txt"],
    "du --files0-from=data.txt",
    "file -f data.txt",
    "date -f /etc/shadow",
    "date --file=/etc/gshadow",
    "date --fi=/etc/shadow",
]

INERT: list[Any] = [
    f"echo hi; touch {C}",
    f"echo hi && touch {C}",
    f"echo hi || touch {C}",
    f"echo hi | touch {C}",
    f"echo $(touch {C})",
    f"echo `touch {C}`",
    f"echo 'hi\ntouch {C}'",
    f"echo hi > {C}",
    f"echo hi >> {C}",
    f"echo ${{IFS}}touch${{IFS}}{C}",
    ["echo", f"a;touch {C}"],
    ["ls", f"$(touch {C})"],
    ["ls", f"`touch {C}`"],
    ["echo", f"\ntouch {C}"],
    ["grep", "-e", f"x; touch {C}", "data.txt"],
    ["echo", "--", f"-exec touch {C}"],
    ["cat", f"data.txt; touch {C}"],
]


def _fill(probe: Any, env: dict[str, str]) -> Any:
    if isinstance(probe, str):
        for key, value in env.items():
            probe = probe.replace("{" + key + "}", value)
        return probe
    if isinstance(probe, list):
        return [_fill(part, env) for part in probe]
    return {key: _fill(value, env) for key, value in probe.items()}


@pytest.fixture
def setup(tmp_path: Path, isolated_home: Home) -> dict[str, Any]:
    project = tmp_path / "project"
    project.mkdir()
    (project / "data.txt").write_text("b\na\n")
    canary = tmp_path / "canary"
    outside = tmp_path / "outside"
    outside.mkdir()
    script = outside / "evil.py"
    script.write_text(f"open({str(canary)!r}, 'w').close()\n")
    (project / "link_to_outside.py").symlink_to(script)
    fake = tmp_path / "bin" / "ls"
    fake.parent.mkdir()
    fake.write_text(f"#!/bin/sh\ntouch {canary}\n")
    fake.chmod(0o755)
    (project / "ls").write_text(f"#!/bin/sh\ntouch {canary}\n")
    (project / "ls").chmod(0o755)
    env = {
        "canary": str(canary),
        "outside_script": str(script),
        "fake_ls": str(fake),
        "touch_path": shutil.which("touch") or "/usr/bin/touch",
    }
    tool = CommandTool(ToolSettings(), home=isolated_home, cwd=project)
    return {
        "tool": tool,
        "canary": canary,
        "env": env,
        "home": isolated_home,
        "project": project,
    }


def test_command_probe_count_is_at_least_50() -> None:
    assert len(REFUSED) + len(INERT) >= 50


async def test_refused_probes_never_run(setup: dict[str, Any]) -> None:
    tool: CommandTool = setup["tool"]
    ran: list[str] = []
    for probe in REFUSED:
        filled = _fill(probe, setup["env"])
        arguments = filled if isinstance(filled, dict) else {"command": filled}
        result = await tool.run(arguments)
        if result.ok or not (result.error or "").startswith("refused"):
            ran.append(repr(probe))
        assert not setup["canary"].exists(), f"canary created by {probe!r}"
    assert ran == []


async def test_inert_probes_run_only_the_allowlisted_program(
    setup: dict[str, Any],
) -> None:
    tool: CommandTool = setup["tool"]
    for probe in INERT:
        result = await tool.run({"command": _fill(probe, setup["env"])})
        assert result.ok, f"{probe!r}: {result.error}"
        assert not setup["canary"].exists(), f"canary created by {probe!r}"


async def test_shell_strings_need_approval_every_time(setup: dict[str, Any]) -> None:
    tool = CommandTool(
        ToolSettings(shell_programs=["sh"]), home=setup["home"], cwd=setup["project"]
    )
    policy = PermissionPolicy(
        {
            **ToolSettings().permissions,
            "execute_command": "allow",
            "execute_shell": "allow",
        }
    )
    registry = ToolRegistry([tool], policy)
    command = ["sh", "-c", f"touch {setup['canary']}"]
    for approver in (None, deny_all):
        result = await registry.invoke(
            ToolCall("1", "execute_command", {"command": command}),
            approver,
            lambda e: None,
        )
        assert not result.ok
    assert not setup["canary"].exists()


async def test_execute_command_denied_in_config_never_runs(
    setup: dict[str, Any],
) -> None:
    registry = ToolRegistry(
        [setup["tool"]], PermissionPolicy({"execute_command": "deny"})
    )

    async def yes(request: Any) -> Any:
        from aiq_tui.tools.base import Decision

        return Decision.ALLOW_ALWAYS

    result = await registry.invoke(
        ToolCall("1", "execute_command", {"command": ["echo", "x"]}),
        yes,
        lambda e: None,
    )
    assert not result.ok and "deny" in result.error
