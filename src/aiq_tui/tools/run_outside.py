"""What will run a file besides an ordinary edit: git (hooks, ``core.hooksPath``, a config file
it includes), every file of :mod:`aiq_tui.executed_files` (agent harnesses' settings, hooks and
skill folders, editors' tasks, hook managers, direnv, package managers' configs — the one list)
— and aiq-tui itself (the configured skill folders, the project's ``.mcp.json``, whose servers
start outside the sandbox). Paths are compared without case.

One function answers for any path, :func:`runner_of`, judged from the project root *and* the
top of the git work tree (a project may be a folder of a monorepo, or no repository at all),
with the project's own :class:`ProjectLayout` (its skill folders as configured, not as named
here). Three callers ask it:

* ``file_operations``: such a write is permission ``file_write:runs``; the approval names the
  runner, and only a person's interactive yes approves it — never ``--yes``, a config ``allow``
  or an "always" (:data:`~aiq_tui.tools.policy.INTERACTIVE_ONLY_KEYS`);
* the launcher: the existing ones are bound read-only for commands and scripts
  (:func:`protected_in`); one that does not exist yet cannot be held that way (a mount needs
  something to cover), so :func:`absent_in` names them before a launch and
  :func:`remove_created` takes away whatever the launch created there — a ``.git`` in a project
  that is no repository, a ``core.hooksPath`` folder or a configured skill folder not made yet,
  ``lefthook-local.yml`` — before anything can run it.

``core.hooksPath`` is read from the repository's own config (``.git/config``, or the common
dir of a worktree) after the user's global one, as git does, following ``include.path`` and
``includeIf.*.path`` (every condition counted as met) — each file once, 10 deep as git, at most
``_INCLUDE_FILES`` files, regular files only, opened non-blocking (a config that includes
itself must not hang a turn). A config file git includes from the work tree is itself such a
file: a ``core.fsmonitor``, ``core.pager`` or alias written there runs at the user's next
``git`` command.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiq_tui import executed_files

REMOVED_WHY = (
    "the command created these, and something runs them outside the sandbox (git, a hook manager, "
    "direnv or aiq-tui itself); they were removed — the user can create them by hand"
)
"""What a command's or script's result says next to the run-outside paths it created and lost."""

WRITE_KEY = "file_write:runs"
"""The permission key of a write to such a file: approved only by an interactive yes, denied
with ``file_write``."""


@dataclass(frozen=True)
class Runner:
    """Who runs a file, and when — as the approval says it."""

    name: str
    when: str
    outside: bool = (
        True  # runs outside the sandbox (hooks); False: changes what aiq-tui does
    )
    kind: str = "computed"
    """``computed`` (git's hooks and configs, aiq-tui's own folders) or the
    :data:`~aiq_tui.executed_files.Kind` of a listed file."""

    def warning(self) -> str:
        if not self.outside:
            return f"⚠ {self.when} ({self.name})"
        if self.kind == "computed":
            return f"⚠ {self.name} runs this file outside the sandbox {self.when}"
        if self.kind == "skills":
            return f"⚠ a skill folder of {self.name}: {self.when}"
        return f"⚠ {self.name} {self.when}"

    @property
    def loads_skills(self) -> bool:
        """A skill loader (aiq-tui's skill folders, a harness's): a SKILL.md there is a skill."""
        return self.kind == "skills" or self == SKILL_RUNNER


def _listed_runner(entry: executed_files.ExecutedFile) -> Runner:
    """The runner of a file of :mod:`aiq_tui.executed_files`, as the approval says it."""
    if entry.kind == "runs":
        return Runner(entry.runner, f"{entry.when} — outside the sandbox", kind="runs")
    return Runner(entry.runner, entry.when, kind=entry.kind)


SKILL_RUNNER = Runner(
    "aiq-tui",
    "aiq-tui loads this as a skill: its instructions reach the model and its "
    "allowed-tools and scripts act for it",
    outside=False,
)
MCP_RUNNER = Runner(
    "aiq-tui", "at its next start in this project (the MCP servers this file names)"
)

MCP_FILE = ".mcp.json"  # tools.mcp.servers.PROJECT_FILE (not imported: that module is the MCP layer's)


@dataclass(frozen=True)
class ProjectLayout:
    """Where aiq-tui itself reads what it will act on, for one project: the skill folders as
    configured (``skills.project_dirs``, ``skills.dirs``, ``--skills-dir``, the user's agent
    folders) and the project's ``.mcp.json``. A relative folder is judged from the project root
    *and* from the top of the git work tree holding it (aiq-tui may be started in either)."""

    root: str
    """The project folder (real path)."""
    skill_dirs: tuple[str, ...] = (".agents/skills", ".aiq/skills")
    """Configured skill folders as written (relative: to the project)."""

    def bases(self) -> tuple[str, ...]:
        """The project root and, when it lies in a repository, the top of its work tree."""
        repository = repository_of(self.root)
        return tuple(
            dict.fromkeys((self.root, *((repository[0],) if repository else ())))
        )

    def skill_folders(self) -> tuple[str, ...]:
        """Every configured skill folder, resolved (absolute ones once, relative ones per base)."""
        found: list[str] = []
        bases = self.bases()
        for raw in self.skill_dirs:
            path = os.path.expanduser(raw)
            for base in (None,) if os.path.isabs(path) else bases:
                found.append(
                    os.path.realpath(path if base is None else os.path.join(base, path))
                )
        return tuple(dict.fromkeys(found))

    def mcp_files(self) -> tuple[str, ...]:
        return tuple(
            dict.fromkeys(
                os.path.realpath(os.path.join(base, MCP_FILE)) for base in self.bases()
            )
        )

    def aiq_runner(self, real_path: str) -> Runner | None:
        """aiq-tui's own runner of ``real_path``: a skill folder's file, a ``.mcp.json``."""
        if any(_same(real_path, mcp) for mcp in self.mcp_files()):
            return MCP_RUNNER
        if any(_inside_nocase(real_path, folder) for folder in self.skill_folders()):
            return SKILL_RUNNER
        return None


def project_layout(
    project: str | os.PathLike[str],
    skills: Any = None,
    extra_dirs: Iterable[str | os.PathLike[str]] = (),
) -> ProjectLayout:
    """The layout of ``project`` under ``skills`` (a :class:`~aiq_tui.config.SkillsSettings`;
    None: the defaults), plus ``extra_dirs`` (``--skills-dir`` flags)."""
    if skills is None:
        from aiq_tui.config import SkillsSettings

        skills = SkillsSettings()
    dirs = [os.fspath(raw) for raw in extra_dirs]
    dirs += [*skills.dirs, *skills.project_dirs]
    if skills.include_user_agent_dirs:
        dirs += ["~/.claude/skills", "~/.agents/skills"]
    return ProjectLayout(os.path.realpath(project), tuple(dict.fromkeys(dirs)))


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
                target = line[len("gitdir:") :].strip()
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
            found.append(
                (current, entry.group(1).lower(), _unquote(entry.group(2) or ""))
            )
    return found


_INCLUDE_DEPTH = 10  # git's own limit
_INCLUDE_FILES = 100
"""Most config files one chain reads: a file included from many places is read once (git would
read it again; for the keys read here, once is the same answer)."""


def _config_chain(path: str) -> list[tuple[str, list[tuple[str, str, str]]]]:
    """``path`` and every file it includes (``include.path``, ``includeIf.*.path`` — each
    condition counted as met), in the order git reads them, each with its entries.

    Bounded like git and then some: includes nest at most ``_INCLUDE_DEPTH`` deep, each file is
    read once (a config that includes itself six times would otherwise be read ~6^10 times and
    hang a turn), at most ``_INCLUDE_FILES`` files in all, and only regular files (opened
    non-blocking: a FIFO named as an include must not hang the read)."""
    chain: list[tuple[str, list[tuple[str, str, str]]]] = []
    visited: set[str] = set()

    def follow(current: str, depth: int) -> None:
        if (
            depth > _INCLUDE_DEPTH
            or current in visited
            or len(visited) >= _INCLUDE_FILES
        ):
            return
        visited.add(current)
        entries = _config_entries(_read(current))
        chain.append((current, entries))
        for section, key, value in entries:
            if section in ("include", "includeif") and key == "path" and value:
                included = os.path.expanduser(value)
                if not os.path.isabs(included):
                    included = os.path.join(os.path.dirname(current), included)
                follow(os.path.realpath(included), depth + 1)

    follow(path, 0)
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
    """The text of the regular file at ``path`` (at most 1 MB), "" for anything else: opened
    non-blocking and checked with ``fstat``, so a FIFO or a device never blocks or floods a read."""
    try:
        fd = os.open(
            path,
            os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | getattr(os, "O_NOCTTY", 0),
        )
    except (OSError, ValueError):
        return ""
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return ""
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb", closefd=True) as handle:
            fd = -1
            return handle.read(_CONFIG_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return ""
    finally:
        if fd >= 0:
            os.close(fd)


_CONFIG_BYTES = 1_000_000


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
    for config in (
        os.path.join(xdg, "git", "config"),
        os.path.expanduser("~/.gitconfig"),
        os.path.join(common, "config"),
        os.path.join(git_dir, "config.worktree"),
    ):
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
    return os.path.realpath(
        value if os.path.isabs(value) else os.path.join(work_tree, value)
    )


def included_configs(work_tree: str, git_dir: str) -> list[str]:
    """Config files the repository's own config includes from inside its work tree."""
    own = {
        os.path.realpath(os.path.join(_common_dir(git_dir), "config")),
        os.path.realpath(os.path.join(git_dir, "config.worktree")),
    }
    tree = os.path.realpath(work_tree)
    found = []
    for path, _ in _repository_chain(git_dir):
        real = os.path.realpath(path)
        if (
            real not in own
            and _inside(real, tree)
            and not _inside(real, os.path.realpath(git_dir))
        ):
            found.append(real)
    return list(dict.fromkeys(found))


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _same(path: str, other: str) -> bool:
    """One path, on a file system that ignores case too (``.MCP.json`` is ``.mcp.json`` on
    macOS); judging who runs a file, one question too many costs nothing."""
    return path.casefold() == other.casefold()


def _inside_nocase(path: str, root: str) -> bool:
    return _inside(path.casefold(), root.casefold())


def runner_of(real_path: str, layout: ProjectLayout | None = None) -> Runner | None:
    """What will run the file at ``real_path`` (absolute, resolved) besides an ordinary edit, or
    None: git (hooks, ``core.hooksPath``, a config file it includes), a hook manager (judged from
    the top of the work tree and from the project root), direnv, or aiq-tui itself (the skill
    folders and ``.mcp.json`` of ``layout``). Without a layout, the project is taken to be the
    work tree (or, outside a repository, the file's folder) with the default skill folders."""
    repository = repository_of(real_path)
    if layout is None:
        layout = ProjectLayout(
            repository[0] if repository else os.path.dirname(real_path)
        )
    if repository is not None:
        hooks = hooks_path(*repository)
        if (
            hooks is not None
            and _inside_nocase(real_path, hooks)
            and not _same(real_path, hooks)
        ):
            shown = (
                os.path.relpath(hooks, repository[0])
                if _inside(hooks, repository[0])
                else hooks
            )
            return Runner(
                "git",
                f"at your next commit, push or checkout (core.hooksPath = {shown})",
            )
        if _inside_nocase(real_path, os.path.join(repository[1], "hooks")):
            return Runner("git", "at your next commit, push or checkout (.git/hooks)")
        if any(_same(real_path, path) for path in included_configs(*repository)):
            return Runner(
                "git",
                "at your next git command: git reads this file as configuration (include.path), "
                "and a setting there (core.fsmonitor, core.pager, an alias) runs a program",
            )
    own = layout.aiq_runner(real_path)
    if own is not None:
        return own
    bases = (*((repository[0],) if repository else ()), *layout.bases())
    for base in dict.fromkeys(bases):
        if not _inside_nocase(real_path, base) or _same(real_path, base):
            continue
        entry = executed_files.match(real_path[len(base.rstrip(os.sep)) + 1 :])
        if entry is not None:
            return _listed_runner(entry)
    return None


def _guarded_in(root: str, layout: ProjectLayout | None) -> tuple[list[str], list[str]]:
    """(existing, absent) run-outside paths of the writable tree ``root`` (real)."""
    paths = [os.path.join(root, name) for name in executed_files.protected_names()]
    own = layout if layout is not None else ProjectLayout(root)
    paths += [
        path
        for path in (*own.skill_folders(), *own.mcp_files())
        if _inside(path, root) and path != root
    ]
    repository = repository_of(root)
    if repository is None or repository[0] != root:
        paths.append(
            os.path.join(root, ".git")
        )  # a .git made here would be a repository of its own
    if repository is not None:
        work_tree, git_dir = repository
        hooks = hooks_path(work_tree, git_dir)
        if hooks is not None and _inside(hooks, root) and hooks != root:
            paths.append(hooks)
        paths += [
            path for path in included_configs(work_tree, git_dir) if _inside(path, root)
        ]
        real_git_dir = os.path.realpath(git_dir)
        if _inside(real_git_dir, root) and real_git_dir != os.path.join(root, ".git"):
            paths.append(
                real_git_dir
            )  # `gitdir: .gitdata`: the repository lives inside the tree
    paths = list(dict.fromkeys(paths))
    existing = [path for path in paths if os.path.lexists(path)]
    return existing, [path for path in paths if path not in existing]


def protected_in(
    roots: Iterable[Path | str], layout: ProjectLayout | None = None
) -> list[str]:
    """The existing run-outside files and folders of each writable root: hook managers' names at
    its top, the skill folders and ``.mcp.json`` of ``layout`` (default: the root's default
    ones), the repository's ``core.hooksPath`` folder, config files it includes from the tree and
    a git dir a ``.git`` file points at, when they lie inside it."""
    found: list[str] = []
    for root in roots:
        found += _guarded_in(os.path.realpath(root), layout)[0]
    return list(dict.fromkeys(found))


def absent_in(
    roots: Iterable[Path | str], layout: ProjectLayout | None = None
) -> list[str]:
    """The same paths where they do not exist yet (and so cannot be kept read-only): a launch
    must not leave them behind (:func:`remove_created`). A project that is no repository gets
    ``.git`` among them."""
    found: list[str] = []
    for root in roots:
        found += _guarded_in(os.path.realpath(root), layout)[1]
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


def foreign_runner(path: str | os.PathLike[str]) -> Runner | None:
    """Who besides a skill loader acts on a file written at ``path`` — judged on where it really
    lands (links, ``..``, case) — or None. The writes aiq-tui makes for the user into skill
    folders (the tuner's description, a status, a saved skill or resource, an import) ask it: a
    skill folder that leads into ``.husky/`` or ``.vscode/``, or a skill file named
    ``AGENTS.md``, must not turn an edit of a skill into a file another program runs."""
    real = os.path.realpath(path)
    runner = runner_of(real)
    if runner is None or runner.loads_skills:
        return None
    return runner


def foreign_write_refusal(path: str | os.PathLike[str]) -> str | None:
    """The message a refused write of :func:`foreign_runner` gives, or None when it may go on."""
    runner = foreign_runner(path)
    if runner is None:
        return None
    return (
        f"{path} is not written: {runner.warning().lstrip('⚠ ')}; only a person writes such a "
        "file (by hand, or through the file tool's interactive yes)"
    )
