"""What runs outside the sandbox is found by the project's own layout (issue 34, rows 1 and 3,
and F08 of the second review).

Row 1: in a trusted project that is a subfolder of a repository, or no repository, or that
configures its own skills folder, one ``file_write: allow`` (or one "always") let the model write
``.mcp.json`` / a skill as an ordinary write; the next session started the planted server
outside the sandbox. Commands could write a configured skills folder too.
F08: ``--yes`` approved a write to the ``core.hooksPath`` folder, run at the next commit.
Row 3: a ``.git/config`` including itself six times hung a refused write.
Every test drives ``aiq-tui ask`` against a scripted model and looks at what happened on disk.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from aiq_tui.locations import Home
from aiq_tui.tools import launcher
from aiq_tui.trust import TrustLevel, record
from tests.security.scripted import (
    KEY,
    ScriptedModel,
    calls,
    of_type,
    run_session,
    write_skill,
)

namespaces_only = pytest.mark.skipif(
    not launcher._namespaces_work(), reason="needs unprivileged namespaces"
)


class _Terminal:
    """stdin as a terminal: ask's own approver prompts (input() is patched to answer)."""

    def isatty(self) -> bool:
        return True

    def read(self) -> str:
        return ""


def _config(home: Home, **sections: object) -> None:
    home.ensure()
    home.config_file.write_text(yaml.safe_dump(sections, sort_keys=False))


def _git_init(folder: Path, *config: str) -> None:
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    for line in config:
        key, value = line.split("=", 1)
        subprocess.run(["git", "-C", str(folder), "config", key, value], check=True)


def _planted_server(marker: Path) -> str:
    """A .mcp.json whose server, once started, leaves ``marker`` behind."""
    code = f"open({str(marker)!r}, 'w').write('ran outside the sandbox')"
    return json.dumps(
        {"mcpServers": {"helper": {"command": sys.executable, "args": ["-c", code]}}}
    )


SKILL = "---\nname: x\ndescription: Project helper\nallowed-tools: Bash Write\n---\nDo it.\n"


@pytest.fixture
def layouts(tmp_path: Path, isolated_home: Home, monkeypatch: pytest.MonkeyPatch):
    """Build a trusted project of the named layout, chdir into it, return its root."""

    def build(kind: str) -> Path:
        if kind == "monorepo-subfolder":
            repo = tmp_path / "repo"
            repo.mkdir()
            _git_init(repo)
            root = repo / "apps" / "web"
        else:
            root = tmp_path / "project"
        root.mkdir(parents=True)
        settings: dict = {"tools": {"permissions": {"file_write": "allow"}}}
        if kind == "configured-skills-folder":
            settings["skills"] = {"project_dirs": ["tools/agent-skills"]}
        _config(isolated_home, **settings)
        record(isolated_home, root, TrustLevel.TRUSTED)
        monkeypatch.chdir(root)
        return root

    return build


WRITES = {
    "monorepo-subfolder": [".mcp.json", ".agents/skills/x/SKILL.md"],
    "no-repository": [
        ".mcp.json",
        ".agents/skills/x/SKILL.md",
        ".aiq/skills/x/SKILL.md",
    ],
    "configured-skills-folder": ["tools/agent-skills/x/SKILL.md"],
}


@pytest.mark.parametrize(
    ("kind", "path"), [(kind, path) for kind, paths in WRITES.items() for path in paths]
)
def test_file_write_allow_never_writes_what_aiq_tui_will_run(
    layouts, kind: str, path: str, monkeypatch, capsys
) -> None:
    root = layouts(kind)
    content = SKILL if path.endswith("SKILL.md") else _planted_server(root / "pwned")
    events, _, _ = run_session(
        calls(
            (
                "file_operations",
                {"operation": "write", "path": path, "content": content},
            )
        ),
        monkeypatch,
        capsys,
        "--deny-all",
    )
    assert not (root / path).exists()
    assert of_type(events, "tool_call_finished") == []


def test_a_planted_mcp_json_never_reaches_the_next_session(
    layouts, tmp_path: Path, monkeypatch, capsys
) -> None:
    """The whole chain of row 1: write allowed in config, next session with --deny-all."""
    layouts("monorepo-subfolder")
    marker = tmp_path / "pwned-by-server"
    run_session(
        calls(
            (
                "file_operations",
                {
                    "operation": "write",
                    "path": ".mcp.json",
                    "content": _planted_server(marker),
                },
            )
        ),
        monkeypatch,
        capsys,
        "--deny-all",
    )
    run_session(calls(), monkeypatch, capsys, "--deny-all")
    assert not marker.exists()


@pytest.mark.parametrize("kind", ["no-repository", "monorepo-subfolder"])
def test_always_to_an_ordinary_write_does_not_cover_a_skill_or_the_mcp_file(
    layouts, kind: str, monkeypatch, capsys
) -> None:
    root = layouts(kind)
    _config(
        Home(Path(os.environ["AIQ_HOME"]))
    )  # file_write asks again: the "always" decides
    answers = iter(["a", "n", "n"])
    monkeypatch.setattr(sys, "stdin", _Terminal())
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    steps = calls(
        (
            "file_operations",
            {"operation": "write", "path": "notes.txt", "content": "ok"},
        ),
        (
            "file_operations",
            {
                "operation": "write",
                "path": ".agents/skills/x/SKILL.md",
                "content": SKILL,
            },
        ),
        (
            "file_operations",
            {
                "operation": "write",
                "path": ".mcp.json",
                "content": _planted_server(root / "pwned"),
            },
        ),
    )
    with ScriptedModel(steps) as model:
        monkeypatch.setenv("OPENAI_BASE_URL", model.server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        from aiq_tui.cli import main

        main(["ask", "--provider", "openai", "do the thing"])
    capsys.readouterr()
    assert (root / "notes.txt").read_text() == "ok"
    assert not (root / ".agents/skills/x/SKILL.md").exists()
    assert not (root / ".mcp.json").exists()


@namespaces_only
def test_a_command_cannot_write_a_configured_skills_folder(
    tmp_path: Path, isolated_home: Home, monkeypatch, capsys
) -> None:
    root = tmp_path / "project"
    (root / "tools" / "agent-skills").mkdir(parents=True)
    (root / "team-skills").mkdir()
    _config(
        isolated_home,
        skills={"project_dirs": ["tools/agent-skills"], "dirs": ["team-skills"]},
    )
    write_skill(
        isolated_home.skills_dir,
        "setup",
        "type: script\n",
        body="```sh\nmkdir -p tools/agent-skills/x team-skills/y\n"
        "printf 'planted' > tools/agent-skills/x/SKILL.md\nprintf 'planted' > team-skills/y/SKILL.md\n"
        "printf 'ordinary' > notes.txt\n```\n",
    )
    monkeypatch.chdir(root)
    events, _, _ = run_session(calls(("skill_setup", {})), monkeypatch, capsys, "--yes")
    assert of_type(events, "tool_call_finished")[0]["ok"] is True
    assert (root / "notes.txt").read_text() == "ordinary"  # the script ran
    assert not (root / "tools/agent-skills/x").exists()
    assert not (root / "team-skills/y").exists()


# -- F08: --yes never approves a write something will run ----------------------------------------


@pytest.mark.parametrize(
    "path", [".githooks/pre-commit", ".agents/skills/x/SKILL.md", ".mcp.json"]
)
def test_yes_never_approves_a_write_that_git_or_aiq_tui_will_run(
    tmp_path: Path, monkeypatch, capsys, path: str
) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    _git_init(root, "core.hooksPath=.githooks")
    (root / ".githooks").mkdir()
    monkeypatch.chdir(root)
    events, _, _ = run_session(
        calls(
            (
                "file_operations",
                {
                    "operation": "write",
                    "path": path,
                    "content": "#!/bin/sh\ntouch pwned\n",
                },
            ),
            (
                "file_operations",
                {"operation": "write", "path": "notes.txt", "content": "ordinary"},
            ),
        ),
        monkeypatch,
        capsys,
        "--yes",
    )
    assert not (root / path).exists()
    assert (
        root / "notes.txt"
    ).read_text() == "ordinary"  # --yes still approves an ordinary write
    assert [event["name"] for event in of_type(events, "tool_call_denied")] == [
        "file_operations"
    ]


def test_an_interactive_yes_still_writes_the_hook(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    _git_init(root, "core.hooksPath=.githooks")
    monkeypatch.chdir(root)
    prompts: list[str] = []
    monkeypatch.setattr(sys, "stdin", _Terminal())
    monkeypatch.setattr(
        "builtins.input", lambda prompt="": prompts.append(prompt) or "y"
    )
    with ScriptedModel(
        calls(
            (
                "file_operations",
                {
                    "operation": "write",
                    "path": ".githooks/pre-commit",
                    "content": "#!/bin/sh\nexit 0\n",
                },
            )
        )
    ) as model:
        monkeypatch.setenv("OPENAI_BASE_URL", model.server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        from aiq_tui.cli import main

        main(["ask", "--provider", "openai", "do the thing"])
    err = capsys.readouterr().err
    assert (root / ".githooks/pre-commit").read_text() == "#!/bin/sh\nexit 0\n"
    assert len(prompts) == 1 and "git runs this file outside the sandbox" in err


def test_following_the_denial_hint_works_or_the_hint_names_no_setting(
    tmp_path: Path, isolated_home: Home, monkeypatch, capsys
) -> None:
    """The hint once said "set tools.permissions.file_write:runs: allow", which nothing honours."""
    root = tmp_path / "project"
    root.mkdir()
    monkeypatch.chdir(root)
    step = calls(
        (
            "file_operations",
            {"operation": "write", "path": ".envrc", "content": "export X=1\n"},
        )
    )
    events, _, _ = run_session(step, monkeypatch, capsys)
    reason = of_type(events, "tool_call_denied")[0]["reason"]
    named = re.search(r"tools\.permissions\.(\S+): allow", reason)
    if named:
        _config(isolated_home, tools={"permissions": {named.group(1): "allow"}})
        run_session(step, monkeypatch, capsys)
        assert (root / ".envrc").exists(), (
            f"the hint named {named.group(1)}: allow, and it changed nothing"
        )
    assert not named or (root / ".envrc").exists()


# -- row 3: git config includes are bounded -------------------------------------------------------


def _self_including_repository(root: Path) -> None:
    (root / ".git" / "hooks").mkdir(parents=True)
    (root / ".git" / "objects").mkdir()
    (root / ".git" / "refs").mkdir()
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (root / ".git" / "config").write_text(
        "[core]\n\thooksPath = hooks\n" + "[include]\n\tpath = config\n" * 6
    )


@pytest.mark.parametrize(
    ("flag", "step"),
    [
        (
            "--deny-all",
            (
                "file_operations",
                {"operation": "write", "path": "notes.txt", "content": "x"},
            ),
        ),
        ("--yes", ("execute_command", {"command": ["ls"]})),
    ],
    ids=["refused-write", "approved-command"],
)
def test_a_git_config_that_includes_itself_does_not_hang_the_turn(
    tmp_path: Path, monkeypatch, flag: str, step: tuple
) -> None:
    root = tmp_path / "project"
    root.mkdir()
    _self_including_repository(root)
    with ScriptedModel(calls(step)) as model:
        env = {
            **os.environ,
            "OPENAI_BASE_URL": model.server.base_url,
            "OPENAI_API_KEY": KEY,
        }
        try:
            done = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "aiq_tui",
                    "ask",
                    "--provider",
                    "openai",
                    "--json",
                    flag,
                    "do the thing",
                ],
                cwd=root,
                env=env,
                capture_output=True,
                text=True,
                timeout=60,
            )
        except subprocess.TimeoutExpired:
            pytest.fail(
                "the turn hung reading .git/config's includes (killed after 60 s)"
            )
    assert done.returncode == 0, done.stderr[-2000:]
    assert any(
        json.loads(line)["type"] == "turn_finished"
        for line in done.stdout.splitlines()
        if line.startswith("{")
    )


@pytest.mark.slow
async def test_the_approval_dialog_offers_no_always_for_a_write_that_will_run(
    tmp_path: Path,
) -> None:
    """The TUI: `a` must not approve (nor be remembered for) a hook write; `y` approves it once."""
    from textual.app import App

    from aiq_tui.tools.base import ApprovalRequest, Decision
    from aiq_tui.ui.screens.approval import ApprovalScreen

    request = ApprovalRequest(
        "c1",
        "file_operations",
        "file_write:runs",
        "Write a file",
        "write .githooks/pre-commit\n⚠ git runs this file outside the sandbox",
        {"operation": "write", "path": ".githooks/pre-commit", "content": "x"},
        rememberable=False,
    )
    answers: list[Decision] = []

    class Host(App[None]):
        def on_mount(self) -> None:
            self.push_screen(ApprovalScreen(request), answers.append)

    async with Host().run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("a")
        await pilot.pause()
        assert answers == [] and isinstance(pilot.app.screen, ApprovalScreen)
        await pilot.press("y")
        await pilot.pause()
    assert answers == [Decision.ALLOW_ONCE]
