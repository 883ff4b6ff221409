"""Every file another program runs or auto-loads needs an interactive yes to be written.

The fourth review: with ``file_write: allow`` (or one "always") the model wrote
``.claude/settings.json`` (a SessionStart hook) and ``.vscode/tasks.json`` (a folderOpen task)
with no question, while ``.envrc`` was refused — the list was ad hoc. Now it is one list
(:mod:`aiq_tui.executed_files`), and each entry is tested here: by the path judge, through the
file tool (resolved links, ``..``, any case), and by effect through ``aiq-tui ask --yes`` with
``file_write: allow``.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
import yaml

from aiq_tui import executed_files
from aiq_tui.config import ToolSettings
from aiq_tui.locations import Home
from aiq_tui.skills.harnesses import PROFILES
from aiq_tui.tools.files import FileOperationsTool
from aiq_tui.tools.run_outside import runner_of
from tests.security.scripted import calls, of_type, run_session

ENTRIES = executed_files.entries()


def _ids(entry: executed_files.ExecutedFile) -> str:
    return entry.example


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def test_every_entry_says_who_runs_it_when_and_where_that_is_documented() -> None:
    for entry in ENTRIES:
        assert entry.runner and entry.when and entry.source, entry
        assert executed_files.match(entry.example) is entry, (
            f"{entry.example} is matched by an earlier entry"
        )


def test_every_project_skill_folder_of_every_harness_is_listed() -> None:
    folders = {
        folder.path
        for harness in PROFILES.values()
        for folder in harness.folders
        if folder.scope == "project"
    }
    for folder in folders:
        entry = executed_files.match(f"{folder}/any/SKILL.md")
        assert entry is not None and entry.kind == "skills", folder
        assert executed_files.match(f"packages/app/{folder}/x/SKILL.md") is not None


@pytest.mark.parametrize("entry", ENTRIES, ids=_ids)
def test_the_judge_names_the_runner_of_each_entry(
    repo: Path, entry: executed_files.ExecutedFile
) -> None:
    runner = runner_of(os.path.join(os.path.realpath(repo), entry.example))
    assert runner is not None


@pytest.mark.parametrize("entry", ENTRIES, ids=_ids)
def test_the_file_tool_asks_interactively_for_each_entry_however_the_path_is_spelt(
    repo: Path, isolated_home: Home, entry: executed_files.ExecutedFile
) -> None:
    tool = FileOperationsTool(ToolSettings(), home=isolated_home, cwd=repo)
    (repo / "sub").mkdir()
    spellings = [
        entry.example,
        _swapcase(entry.example),
        f"sub/../{entry.example}",
        str(repo / entry.example),
    ]
    for spelling in spellings:
        if entry.example.startswith(".git/"):
            # the tool never writes a .git directory at all: refused before any approval
            assert tool.refusal({"operation": "write", "path": spelling}), spelling
            continue
        key = tool.permission_key({"operation": "write", "path": spelling})
        assert key == "file_write:runs", spelling


def _swapcase(path: str) -> str:
    return path.swapcase()


@pytest.mark.parametrize(
    "entry", [entry for entry in ENTRIES if "/" not in entry.example], ids=_ids
)
def test_a_link_to_an_entry_is_judged_by_where_it_leads(
    repo: Path, isolated_home: Home, entry: executed_files.ExecutedFile
) -> None:
    (repo / "notes.txt").symlink_to(repo / entry.example)
    tool = FileOperationsTool(ToolSettings(), home=isolated_home, cwd=repo)
    assert (
        tool.permission_key({"operation": "write", "path": "notes.txt"})
        == "file_write:runs"
    )


def test_ordinary_files_stay_ordinary(repo: Path, isolated_home: Home) -> None:
    tool = FileOperationsTool(ToolSettings(), home=isolated_home, cwd=repo)
    for path in (
        "notes.txt",
        "src/app.py",
        "package.json",
        "Makefile",
        "docs/settings.json",
        "README.md",
    ):
        assert (
            tool.permission_key({"operation": "write", "path": path}) == "file_write"
        ), path


def _writes(*paths: str) -> list:
    return calls(
        *(
            (
                "file_operations",
                {"operation": "write", "path": path, "content": "touch pwned\n"},
            )
            for path in paths
        ),
        (
            "file_operations",
            {"operation": "write", "path": "notes.txt", "content": "ok"},
        ),
    )


@pytest.mark.parametrize(
    "entry",
    [entry for entry in ENTRIES if not entry.example.startswith(".git/")],
    ids=_ids,
)
def test_file_write_allow_and_yes_never_write_an_entry(
    repo: Path,
    isolated_home: Home,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    entry: executed_files.ExecutedFile,
) -> None:
    isolated_home.ensure()
    isolated_home.config_file.write_text(
        yaml.safe_dump({"tools": {"permissions": {"file_write": "allow"}}})
    )
    monkeypatch.chdir(repo)
    events, _, _ = run_session(_writes(entry.example), monkeypatch, capsys, "--yes")
    assert not (repo / entry.example).exists()
    assert (
        repo / "notes.txt"
    ).read_text() == "ok"  # the ordinary write still went through
    assert [event["name"] for event in of_type(events, "tool_call_denied")] == [
        "file_operations"
    ]


def test_the_reviews_reproduction_is_closed(
    repo: Path,
    isolated_home: Home,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """One approval (``file_write: allow``) and ``--yes``: the SessionStart hook, the folderOpen
    task and ``.envrc`` are all refused, with the runner named to the model."""
    isolated_home.ensure()
    isolated_home.config_file.write_text(
        yaml.safe_dump({"tools": {"permissions": {"file_write": "allow"}}})
    )
    monkeypatch.chdir(repo)
    planted = (".claude/settings.json", ".vscode/tasks.json", ".envrc")
    events, sent, _ = run_session(_writes(*planted), monkeypatch, capsys, "--yes")
    assert not any((repo / path).exists() for path in planted)
    assert len(of_type(events, "tool_call_denied")) == 3
    assert "Claude Code" in sent and "VS Code" in sent


@pytest.mark.needs("userns")
@pytest.mark.parametrize(
    "entry",
    [entry for entry in ENTRIES if entry.example.split("/")[0] in entry.protect],
    ids=_ids,
)
async def test_a_command_cannot_create_an_entry_either(
    repo: Path,
    isolated_home: Home,
    monkeypatch: pytest.MonkeyPatch,
    entry: executed_files.ExecutedFile,
) -> None:
    """The sandbox keeps the entries' top-level names read-only (or removes what a command
    made there): a command is no way around the file tool's question."""
    from aiq_tui.skills.executor import SkillExecutor

    monkeypatch.chdir(repo)
    path = entry.example
    result = await SkillExecutor(ToolSettings(), cwd=repo).run_script(
        f'mkdir -p "$(dirname {path})"; echo "touch pwned" > {path}; echo ok > notes.txt'
    )
    assert not (repo / path).exists(), result
    assert (repo / "notes.txt").read_text() == "ok\n"
