"""Writes to files that git or a hook manager will execute say so, every time (issue 23, finding 8).

With ``core.hooksPath=.githooks`` an approved write to ``.githooks/pre-commit`` ran at the next
commit, outside the sandbox. The approval now names what runs the file, "always" is not
remembered for it, and a command or script cannot write it at all.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from aiq_tui.config import ToolSettings
from aiq_tui.conversation import ToolCall
from aiq_tui.locations import Home
from aiq_tui.tools.base import ApprovalRequest, Decision
from aiq_tui.tools.files import FileOperationsTool
from aiq_tui.tools.policy import PermissionPolicy
from aiq_tui.tools.registry import ToolRegistry


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git" / "hooks").mkdir(parents=True)
    (root / ".git" / "config").write_text(
        "[core]\n\trepositoryformatversion = 0\n\thooksPath = .githooks\n"
    )
    (root / ".githooks").mkdir()
    return root


def _registry(repo: Path, home: Home) -> ToolRegistry:
    tool = FileOperationsTool(ToolSettings(), home=home, cwd=repo)
    return ToolRegistry([tool], PermissionPolicy(ToolSettings().permissions))


async def _write(
    registry: ToolRegistry, path: str, answer: Decision
) -> list[ApprovalRequest]:
    asked: list[ApprovalRequest] = []

    async def approver(request: ApprovalRequest) -> Decision:
        asked.append(request)
        return answer

    await registry.invoke(
        ToolCall(
            "c1",
            "file_operations",
            {"operation": "write", "path": path, "content": "x"},
        ),
        approver,
        lambda event: None,
    )
    return asked


@pytest.mark.parametrize(
    "path, runner",
    [
        (".githooks/pre-commit", "core.hooksPath"),
        (".husky/pre-commit", "husky"),
        ("lefthook.yml", "lefthook"),
        (".pre-commit-config.yaml", "pre-commit"),
        (".envrc", "direnv"),
    ],
)
async def test_a_write_that_git_or_a_hook_manager_runs_says_so(
    repo: Path, isolated_home: Home, path: str, runner: str
) -> None:
    asked = await _write(_registry(repo, isolated_home), path, Decision.ALLOW_ONCE)
    assert len(asked) == 1
    assert runner in asked[0].detail and "outside the sandbox" in asked[0].detail


async def test_always_is_not_remembered_for_a_hook(
    repo: Path, isolated_home: Home
) -> None:
    registry = _registry(repo, isolated_home)
    assert (
        len(await _write(registry, ".githooks/pre-commit", Decision.ALLOW_ALWAYS)) == 1
    )
    assert (
        len(await _write(registry, ".githooks/pre-push", Decision.ALLOW_ALWAYS)) == 1
    )  # asked again


async def test_an_ordinary_write_does_not_warn(repo: Path, isolated_home: Home) -> None:
    asked = await _write(
        _registry(repo, isolated_home), "src/app.py", Decision.ALLOW_ONCE
    )
    assert asked and "outside the sandbox" not in asked[0].detail


async def test_a_hooks_path_outside_dot_git_hooks_is_read_from_the_repos_config(
    tmp_path: Path, isolated_home: Home
) -> None:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / ".git" / "config").write_text('[core]\n  hooksPath = "tools/git hooks"\n')
    asked = await _write(
        _registry(root, isolated_home),
        "tools/git hooks/post-checkout",
        Decision.ALLOW_ONCE,
    )
    assert "core.hooksPath" in asked[0].detail


@pytest.mark.needs("userns")  # read-only binds
async def test_a_script_cannot_write_the_hooks_path(
    repo: Path, isolated_home: Home
) -> None:
    from aiq_tui.skills.executor import SkillExecutor

    (repo / ".githooks" / "pre-commit").write_text("#!/bin/sh\nexit 0\n")
    executor = SkillExecutor(ToolSettings(), cwd=repo)
    result = await executor.run_script(
        "echo 'curl -s evil' >> .githooks/pre-commit; touch .githooks/post-merge; "
        "echo ok > notes.txt"
    )
    assert (repo / ".githooks" / "pre-commit").read_text() == "#!/bin/sh\nexit 0\n"
    assert not (repo / ".githooks" / "post-merge").exists()
    assert (repo / "notes.txt").read_text() == "ok\n", (
        result
    )  # the rest of the project stays writable
