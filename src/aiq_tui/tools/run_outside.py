"""Files that something runs outside the sandbox: git hooks, hook managers, direnv — and the
files that change what aiq-tui itself does (project skills, ``.mcp.json``).

A write to one of them is not an ordinary edit: git runs ``.githooks/pre-commit`` (when
``core.hooksPath`` points there) at the user's next commit, with the user's full rights. So
``file_operations`` names the runner in the approval and asks every time
(permission ``file_write:runs``), and the launcher keeps the existing ones read-only for
commands and scripts (:func:`protected_in`).

``core.hooksPath`` is read from the repository's own config (``.git/config``, or the common
dir of a worktree) after the user's global one, as git does, following ``include.path`` and
``includeIf.*.path`` (every condition counted as met). A config file git includes from the work
tree is itself such a file: a ``core.fsmonitor``, ``core.pager`` or alias written there runs at
the user's next ``git`` command.

Existing files are kept read-only for commands and scripts; one that does not exist yet cannot
be held that way (a mount needs something to cover), so :func:`absent_in` names them before a
launch and :func:`remove_created` takes away whatever the launch created there — a ``.git``
in a project that is no repository, a ``core.hooksPath`` folder not made yet,
``lefthook-local.yml`` — before anything can run it.
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

REMOVED_WHY = ("the command created these, and something runs them outside the sandbox (git, a hook manager, "
               "direnv or aiq-tui itself); they were removed — the user can create them by hand")
"""What a command's or script's result says next to the run-outside paths it created and lost."""

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


def _config_entries(text: str) -> list[tuple[str, str, str]]:
    """``(section, key, value)`` of a git config text, in order (enough of git's syntax for the
    keys read here; a subsection such as ``includeIf "gitdir:…"`` counts as its section)."""
    current = ""
    found: list[tuple[str, str, str]] = []
    for raw in text.splitlines():
        line = raw
        match = _SECTION.match(line)
        if match:
            current = match.group(1).lower()
            line = match.group(2)
            if not line.strip():
                continue
        entry = _ENTRY.match(line)
        if entry:
            found.append((current, entry.group(1).lower(), _unquote(entry.group(2) or "")))
    return found


_INCLUDE_DEPTH = 10  # git's own limit


def _config_chain(path: str, depth: int = 0) -> list[tuple[str, list[tuple[str, str, str]]]]:
    """``path`` and every file it includes (``include.path``, ``includeIf.*.path`` — each
    condition counted as met), in the order git reads them, each with its entries."""
    if depth > _INCLUDE_DEPTH:
        return []
    entries = _config_entries(_read(path))
    chain = [(path, entries)]
    for section, key, value in entries:
        if section in ("include", "includeif") and key == "path" and value:
            included = os.path.expanduser(value)
            if not os.path.isabs(included):
                included = os.path.join(os.path.dirname(path), included)
            chain += _config_chain(os.path.realpath(included), depth + 1)
    return chain


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


def _common_dir(git_dir: str) -> str:
    common_file = os.path.join(git_dir, "commondir")
    if os.path.isfile(common_file):
        return os.path.normpath(os.path.join(git_dir, _read(common_file).strip()))
    return git_dir


def _repository_chain(git_dir: str) -> list[tuple[str, list[tuple[str, str, str]]]]:
    """The config files git reads for the repository at ``git_dir``, includes expanded: the
    user's global ones, then the repository's own (and a worktree's)."""
    common = _common_dir(git_dir)
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.expanduser("~/.config")
    chain: list[tuple[str, list[tuple[str, str, str]]]] = []
    for config in (os.path.join(xdg, "git", "config"), os.path.expanduser("~/.gitconfig"),
                   os.path.join(common, "config"), os.path.join(git_dir, "config.worktree")):
        chain += _config_chain(config)
    return chain


def hooks_path(work_tree: str, git_dir: str) -> str | None:
    """The real folder git runs hooks from when ``core.hooksPath`` is set, else None."""
    value = None
    for _, entries in _repository_chain(git_dir):
        for section, key, found in entries:
            if section == "core" and key == "hookspath":
                value = found
    if not value:
        return None
    value = os.path.expanduser(value)
    return os.path.realpath(value if os.path.isabs(value) else os.path.join(work_tree, value))


def included_configs(work_tree: str, git_dir: str) -> list[str]:
    """Config files the repository's own config includes from inside its work tree."""
    own = {os.path.realpath(os.path.join(_common_dir(git_dir), "config")),
           os.path.realpath(os.path.join(git_dir, "config.worktree"))}
    tree = os.path.realpath(work_tree)
    found = []
    for path, _ in _repository_chain(git_dir):
        real = os.path.realpath(path)
        if real not in own and _inside(real, tree) and not _inside(real, os.path.realpath(git_dir)):
            found.append(real)
    return list(dict.fromkeys(found))


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
        if real_path in included_configs(*repository):
            return Runner("git", "at your next git command: git reads this file as configuration (include.path), "
                                 "and a setting there (core.fsmonitor, core.pager, an alias) runs a program")
    relative = os.path.relpath(real_path, base).replace(os.sep, "/")
    for pattern, runner in _HOOK_MANAGERS:
        if pattern.search(relative):
            return runner
    return None


def _guarded_in(root: str) -> tuple[list[str], list[str]]:
    """(existing, absent) run-outside paths of the writable tree ``root`` (real)."""
    paths = [os.path.join(root, name) for name in PROTECTED_NAMES]
    repository = repository_of(root)
    if repository is None or repository[0] != root:
        paths.append(os.path.join(root, ".git"))  # a .git made here would be a repository of its own
    if repository is not None:
        work_tree, git_dir = repository
        hooks = hooks_path(work_tree, git_dir)
        if hooks is not None and _inside(hooks, root) and hooks != root:
            paths.append(hooks)
        paths += [path for path in included_configs(work_tree, git_dir) if _inside(path, root)]
        real_git_dir = os.path.realpath(git_dir)
        if _inside(real_git_dir, root) and real_git_dir != os.path.join(root, ".git"):
            paths.append(real_git_dir)  # `gitdir: .gitdata`: the repository lives inside the tree
    paths = list(dict.fromkeys(paths))
    existing = [path for path in paths if os.path.lexists(path)]
    return existing, [path for path in paths if path not in existing]


def protected_in(roots: Iterable[Path | str]) -> list[str]:
    """The existing run-outside files and folders of each writable root: the names at its top,
    the repository's ``core.hooksPath`` folder, config files it includes from the tree and a git
    dir a ``.git`` file points at, when they lie inside it."""
    found: list[str] = []
    for root in roots:
        found += _guarded_in(os.path.realpath(root))[0]
    return list(dict.fromkeys(found))


def absent_in(roots: Iterable[Path | str]) -> list[str]:
    """The same paths where they do not exist yet (and so cannot be kept read-only): a launch
    must not leave them behind (:func:`remove_created`). A project that is no repository gets
    ``.git`` among them."""
    found: list[str] = []
    for root in roots:
        found += _guarded_in(os.path.realpath(root))[1]
    return list(dict.fromkeys(found))


def remove_created(paths: Iterable[str]) -> list[str]:
    """Remove whichever of ``paths`` exists now (links themselves, never what they point at);
    returns what was removed. Called when a launch has ended and its processes are gone."""
    removed: list[str] = []
    for path in paths:
        try:
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path)
            elif os.path.lexists(path):
                os.unlink(path)
            else:
                continue
        except OSError:
            continue
        removed.append(path)
    return removed
