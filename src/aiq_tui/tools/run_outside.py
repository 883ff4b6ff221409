"""Files that something runs outside the sandbox: git hooks, hook managers, direnv — and the
files that change what aiq-tui itself does (project skills, ``.mcp.json``).

A write to one of them is not an ordinary edit: git runs ``.githooks/pre-commit`` (when
``core.hooksPath`` points there) at the user's next commit, with the user's full rights. So
``file_operations`` names the runner in the approval and asks every time
(permission ``file_write:runs``), and the launcher keeps the existing ones read-only for
commands and scripts (:func:`protected_in`).

``core.hooksPath`` is read from the repository's own config (``.git/config``, or the common
dir of a worktree) after the user's global one, as git does; includes are not followed.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

WRITE_KEY = "file_write:runs"
"""The permission key of a write to such a file: asked every time, denied with ``file_write``."""


@dataclass(frozen=True)
class Runner:
    """Who runs a file, and when — as the approval says it."""

    name: str
    when: str
    outside: bool = True  # runs outside the sandbox (hooks); False: changes what aiq-tui does

    def warning(self) -> str:
        if self.outside:
            return f"⚠ {self.name} runs this file outside the sandbox {self.when}"
        return f"⚠ {self.when} ({self.name})"


_HOOK_MANAGERS: tuple[tuple[re.Pattern[str], Runner], ...] = (
    (re.compile(r"^\.husky(/|$)|^\.huskyrc"), Runner("husky", "at your next commit or push")),
    (re.compile(r"^\.?lefthook(-local)?\.(yml|yaml|json|toml)$|^\.lefthook(/|$)"),
     Runner("lefthook", "at your next commit or push (the hooks run the commands it lists)")),
    (re.compile(r"^\.pre-commit-(config|hooks)\.yaml$"),
     Runner("pre-commit", "at your next commit (the hooks run the commands it lists)")),
    (re.compile(r"^\.?simple-git-hooks\.(json|js|cjs|mjs)$"), Runner("simple-git-hooks", "at your next commit")),
    (re.compile(r"^\.overcommit\.yml$"), Runner("overcommit", "at your next commit")),
    (re.compile(r"^\.githooks(/|$)"), Runner("git", "once core.hooksPath points at .githooks")),
    (re.compile(r"(^|/)\.envrc$"), Runner("direnv", "when you enter the folder")),
    (re.compile(r"^\.(agents|aiq)/skills(/|$)"),
     Runner("aiq-tui", "aiq-tui loads this as a project skill: its instructions reach the model", outside=False)),
    (re.compile(r"^\.mcp\.json$"),
     Runner("aiq-tui", "agents start the MCP servers this file names", outside=False)),
)

PROTECTED_NAMES = (".husky", ".githooks", ".lefthook", "lefthook.yml", "lefthook.yaml", "lefthook.json",
                   "lefthook.toml", ".lefthook.yml", ".lefthook.yaml", "lefthook-local.yml", ".pre-commit-config.yaml",
                   ".simple-git-hooks.json", ".simple-git-hooks.js", ".simple-git-hooks.cjs", ".overcommit.yml",
                   ".envrc", ".agents/skills", ".aiq/skills", ".mcp.json")
"""What the launcher keeps read-only at the top of a writable project (when it exists)."""


def repository_of(path: str) -> tuple[str, str] | None:
    """(work tree, git dir) of the repository ``path`` (real, absolute) is in, or None."""
    folder = path if os.path.isdir(path) else os.path.dirname(path)
    while True:
        dot_git = os.path.join(folder, ".git")
        if os.path.isdir(dot_git):
            return folder, dot_git
        if os.path.isfile(dot_git):  # a worktree or submodule: "gitdir: <path>"
            try:
                with open(dot_git, encoding="utf-8", errors="replace") as handle:
                    line = handle.readline().strip()
            except OSError:
                return None
            if line.startswith("gitdir:"):
                target = line[len("gitdir:"):].strip()
                return folder, os.path.normpath(os.path.join(folder, target))
            return None
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


_SECTION = re.compile(r'^\s*\[\s*([A-Za-z0-9.-]+)(?:\s+"[^"]*")?\s*\]\s*(.*)$')
_ENTRY = re.compile(r"^\s*([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?$")


def _config_value(text: str, section: str, key: str) -> str | None:
    """The last ``section.key`` in a git config text (enough of git's syntax for core.hooksPath)."""
    current = ""
    found: str | None = None
    for raw in text.splitlines():
        line = raw
        match = _SECTION.match(line)
        if match:
            current = match.group(1).lower()
            line = match.group(2)
            if not line.strip():
                continue
        entry = _ENTRY.match(line)
        if entry and current == section and entry.group(1).lower() == key:
            found = _unquote(entry.group(2) or "")
    return found


def _unquote(value: str) -> str:
    out: list[str] = []
    quoted = False
    index = 0
    while index < len(value):
        char = value[index]
        if char == '"':
            quoted = not quoted
        elif char == "\\" and index + 1 < len(value):
            index += 1
            out.append({"n": "\n", "t": "\t"}.get(value[index], value[index]))
        elif char in "#;" and not quoted:
            break
        else:
            out.append(char)
        index += 1
    return "".join(out).strip()


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read(1_000_000)
    except OSError:
        return ""


def hooks_path(work_tree: str, git_dir: str) -> str | None:
    """The real folder git runs hooks from when ``core.hooksPath`` is set, else None."""
    common = git_dir
    common_file = os.path.join(git_dir, "commondir")
    if os.path.isfile(common_file):
        common = os.path.normpath(os.path.join(git_dir, _read(common_file).strip()))
    value = None
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.expanduser("~/.config")
    for config in (os.path.join(xdg, "git", "config"), os.path.expanduser("~/.gitconfig"),
                   os.path.join(common, "config"), os.path.join(git_dir, "config.worktree")):
        found = _config_value(_read(config), "core", "hookspath")
        if found is not None:
            value = found
    if not value:
        return None
    value = os.path.expanduser(value)
    return os.path.realpath(value if os.path.isabs(value) else os.path.join(work_tree, value))


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def runner_of(real_path: str) -> Runner | None:
    """Who runs the file at ``real_path`` (absolute, resolved) outside an ordinary edit, or None."""
    repository = repository_of(real_path)
    base = repository[0] if repository else os.path.dirname(real_path)
    if repository is not None:
        hooks = hooks_path(*repository)
        if hooks is not None and _inside(real_path, hooks) and real_path != hooks:
            shown = os.path.relpath(hooks, repository[0]) if _inside(hooks, repository[0]) else hooks
            return Runner("git", f"at your next commit, push or checkout (core.hooksPath = {shown})")
        if _inside(real_path, os.path.join(repository[1], "hooks")):
            return Runner("git", "at your next commit, push or checkout (.git/hooks)")
    relative = os.path.relpath(real_path, base).replace(os.sep, "/")
    for pattern, runner in _HOOK_MANAGERS:
        if pattern.search(relative):
            return runner
    return None


def protected_in(roots: Iterable[Path | str]) -> list[str]:
    """The existing run-outside files and folders at the top of each writable root, plus the
    repository's ``core.hooksPath`` folder when it lies inside one."""
    found: list[str] = []
    for root in roots:
        real = os.path.realpath(root)
        for name in PROTECTED_NAMES:
            path = os.path.join(real, name)
            if os.path.lexists(path):
                found.append(path)
        repository = repository_of(real)
        if repository is not None:
            hooks = hooks_path(*repository)
            if hooks is not None and _inside(hooks, real) and hooks != real and os.path.isdir(hooks):
                found.append(hooks)
    return list(dict.fromkeys(found))
