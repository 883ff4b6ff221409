"""Files another program runs or auto-loads: the one list, each entry with why and where from.

A write to one of these acts later, outside aiq-tui's sandbox and approval: an editor runs a task
when the folder opens, an agent harness runs a hook at its next start, git runs a filter at the
next checkout, a package manager runs a preload at its next command. So such a write is
permission ``file_write:runs`` (:mod:`aiq_tui.tools.run_outside` judges a path and adds git's
computed files — ``core.hooksPath``, included configs — and aiq-tui's own configured folders):
only a person's interactive yes approves it, every time. The launcher keeps the existing ones of
:func:`protected_names` read-only for commands and removes what a command created there.

Paths are judged from the top of the project and of its git work tree, after symbolic links and
``..`` are resolved, and without case (a case-insensitive file system opens ``.VSCode/Tasks.json``
as ``.vscode/tasks.json``; on one that is not, asking once too often costs nothing).

What is *not* listed, and why (:data:`NOT_LISTED`): files run only by a deliberate command whose
purpose is to run the project's own code (``package.json`` scripts under ``npm run`` /
``npm install``, a ``Makefile`` under ``make``, ``setup.py``, a ``.run/`` configuration under
Run) — the user runs the project knowingly, as they would run any source file the model wrote.

The agent harnesses' skill folders come from the harness registry
(:mod:`aiq_tui.skills.harnesses`, data only): every project folder any harness reads.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import cache
from typing import Literal

Kind = Literal["runs", "loads", "skills"]
"""``runs``: a program runs the file (or runs what it names); ``loads``: an agent harness reads
it as instructions for a model that has tools; ``skills``: a harness loads it as a skill."""


@dataclass(frozen=True)
class ExecutedFile:
    """One entry of the list: which paths, who acts on them, when, and the documentation."""

    pattern: str
    """A regular expression over the path from the top of the tree, ``/``-separated and
    lower-cased; ``^`` anchors it at the top, ``(^|/)`` lets it match at any depth."""
    runner: str
    """Who acts on the file, as the approval names it."""
    when: str
    """When and how, in a few words the approval shows: the one-line why."""
    source: str
    """Where the runner documents it."""
    example: str
    """A path the entry matches (tests write it)."""
    kind: Kind = "runs"
    protect: tuple[str, ...] = ()
    """Names at the top of a writable tree the sandbox keeps read-only (and removes when a command
    created them)."""

    @property
    def regex(self) -> re.Pattern[str]:
        return _compiled(self.pattern)


@cache
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


_CLAUDE = "https://code.claude.com/docs/en"
_VSCODE = "https://code.visualstudio.com/docs"

_LISTED: tuple[ExecutedFile, ...] = (
    # -- agent instruction files: read at start by a model that holds tools ------------------
    ExecutedFile(
        r"(^|/)claude(\.local)?\.md$",
        "Claude Code",
        "loads it as instructions at its next start (nested ones when it reads files there)",
        f"{_CLAUDE}/memory",
        "CLAUDE.md",
        "loads",
        ("CLAUDE.md", "CLAUDE.local.md"),
    ),
    ExecutedFile(
        r"(^|/)agents(\.override)?\.md$",
        "Codex, Cursor, Copilot and OpenCode",
        "load it as instructions at their next start in this folder",
        "https://agents.md ; https://developers.openai.com/codex/guides/agents-md",
        "AGENTS.md",
        "loads",
        ("AGENTS.md", "AGENTS.override.md"),
    ),
    ExecutedFile(
        r"(^|/)gemini\.md$",
        "Gemini CLI",
        "loads it as instructions at its next start",
        "https://geminicli.com/docs/cli/gemini-md/",
        "docs/GEMINI.md",
        "loads",
        ("GEMINI.md",),
    ),
    ExecutedFile(
        r"^\.cursorrules$",
        "Cursor",
        "adds it to every chat in this folder",
        "https://cursor.com/docs/context/rules",
        ".cursorrules",
        "loads",
        (".cursorrules",),
    ),
    ExecutedFile(
        r"^\.github/(copilot-instructions\.md$|instructions/|prompts/|agents/|chatmodes/)",
        "GitHub Copilot",
        "adds it to chats and agent runs in this repository",
        f"{_VSCODE}/copilot/customization/custom-instructions",
        ".github/copilot-instructions.md",
        "loads",
    ),
    # -- agent harness configuration: hooks, MCP servers, plugins ---------------------------
    ExecutedFile(
        r"^\.claude(/|$)",
        "Claude Code",
        "runs the hooks, statusLine and apiKeyHelper commands of .claude/settings(.local).json "
        "and reads its commands, agents and skills at its next start",
        f"{_CLAUDE}/settings ; {_CLAUDE}/hooks",
        ".claude/settings.json",
        protect=(".claude",),
    ),
    ExecutedFile(
        r"^\.mcp\.json$",
        "Claude Code and aiq-tui",
        "start the MCP servers it names at their next start in this project",
        f"{_CLAUDE}/mcp#project-scope",
        ".mcp.json",
    ),
    ExecutedFile(
        r"^\.codex(/|$)",
        "Codex",
        "reads config.toml (MCP servers, the notify command) and skills at its next start",
        "https://developers.openai.com/codex/config-reference",
        ".codex/config.toml",
        protect=(".codex",),
    ),
    ExecutedFile(
        r"^\.cursor(/|$)",
        "Cursor",
        "starts the MCP servers of .cursor/mcp.json and runs the hooks of .cursor/hooks.json",
        "https://cursor.com/docs/context/mcp ; https://cursor.com/docs/agent/hooks",
        ".cursor/mcp.json",
        protect=(".cursor",),
    ),
    ExecutedFile(
        r"^\.gemini(/|$)",
        "Gemini CLI",
        "starts the MCP servers and runs the hooks of .gemini/settings.json at its next start",
        "https://geminicli.com/docs/get-started/configuration/",
        ".gemini/settings.json",
        protect=(".gemini",),
    ),
    ExecutedFile(
        r"^(\.opencode(/|$)|opencode\.jsonc?$)",
        "OpenCode",
        "runs the plugins and starts the MCP servers it configures at its next start",
        "https://opencode.ai/docs/plugins/ ; https://opencode.ai/docs/mcp-servers/",
        ".opencode/plugin/x.js",
        protect=(".opencode", "opencode.json", "opencode.jsonc"),
    ),
    ExecutedFile(
        r"^\.github/hooks/",
        "GitHub Copilot",
        "runs the hook commands at the coding agent's next run",
        "https://docs.github.com/en/copilot/how-tos/use-copilot-agents/coding-agent/use-hooks",
        ".github/hooks/hooks.json",
    ),
    # -- editors: tasks that run when a folder opens, settings that name programs -----------
    ExecutedFile(
        r"^\.vscode(/|$)",
        "VS Code",
        "runs a tasks.json task with runOn: folderOpen when the folder opens; settings.json "
        "names programs it runs, mcp.json servers it starts, launch.json what F5 runs",
        f"{_VSCODE}/debugtest/tasks#_run-behavior ; {_VSCODE}/editing/workspaces/workspace-trust",
        ".vscode/tasks.json",
        protect=(".vscode",),
    ),
    ExecutedFile(
        r"^[^/]+\.code-workspace$",
        "VS Code",
        "reads its settings, tasks and launch configurations when the workspace opens",
        f"{_VSCODE}/editing/workspaces/multi-root-workspaces",
        "project.code-workspace",
    ),
    ExecutedFile(
        r"^\.idea(/|$)",
        "JetBrains IDEs",
        "run its startup tasks (workspace.xml) when the project opens, and its run "
        "configurations with their before-launch steps",
        "https://www.jetbrains.com/help/idea/settings-tools-startup-tasks.html",
        ".idea/workspace.xml",
        protect=(".idea",),
    ),
    ExecutedFile(
        r"^\.zed(/|$)",
        "Zed",
        "runs the language servers and context servers settings.json names, and tasks.json",
        "https://zed.dev/docs/configuring-zed ; https://zed.dev/docs/tasks",
        ".zed/settings.json",
        protect=(".zed",),
    ),
    ExecutedFile(
        r"^(\.devcontainer(/|$)|\.devcontainer\.json$)",
        "Dev Containers",
        "run initializeCommand on this machine, and postCreateCommand in the container, when "
        "the folder is reopened in a container",
        "https://containers.dev/implementors/json_reference/#lifecycle-scripts",
        ".devcontainer/devcontainer.json",
        protect=(".devcontainer", ".devcontainer.json"),
    ),
    # -- shells entering the folder ----------------------------------------------------------
    ExecutedFile(
        r"(^|/)\.envrc$",
        "direnv",
        "runs it when you enter the folder",
        "https://direnv.net/man/direnv-stdlib.1.html",
        ".envrc",
        protect=(".envrc",),
    ),
    ExecutedFile(
        r"^\.env$",
        "direnv (dotenv), pipenv, bun and VS Code's Python extension",
        "load it into the environment of what they start: NODE_OPTIONS, PYTHONSTARTUP, "
        "LD_PRELOAD or BASH_ENV there run code",
        "https://direnv.net/man/direnv.toml.1.html ; https://pipenv.pypa.io/en/latest/shell.html",
        ".env",
    ),
    ExecutedFile(
        r"^(\.?mise(\.local)?\.toml$|\.mise/|\.config/mise(\.toml$|/))",
        "mise",
        "runs its [hooks] and [env] _.source scripts when you enter the folder",
        "https://mise.jdx.dev/hooks.html",
        "mise.toml",
        protect=("mise.toml", ".mise.toml", "mise.local.toml", ".mise"),
    ),
    # -- git and its hook managers -------------------------------------------------------------
    ExecutedFile(
        r"(^|/)\.git(/|$)",
        "git",
        "runs .git/hooks and the programs .git/config names (core.fsmonitor, core.pager, "
        "aliases) at your next git command",
        "https://git-scm.com/docs/githooks ; https://git-scm.com/docs/git-config",
        ".git/hooks/pre-commit",
    ),
    ExecutedFile(
        r"(^|/)\.gitattributes$",
        "git",
        "sends the files it names through the filter, diff and merge drivers your config "
        "defines (git-lfs among them) at checkout, add, diff and merge",
        "https://git-scm.com/docs/gitattributes",
        ".gitattributes",
        protect=(".gitattributes",),
    ),
    ExecutedFile(
        r"^\.githooks(/|$)",
        "git",
        "runs it at your next commit once core.hooksPath points at .githooks",
        "https://git-scm.com/docs/git-config#Documentation/git-config.txt-corehooksPath",
        ".githooks/pre-commit",
        protect=(".githooks",),
    ),
    ExecutedFile(
        r"^\.husky(/|$)|^\.huskyrc",
        "husky",
        "runs it at your next commit or push",
        "https://typicode.github.io/husky/",
        ".husky/pre-commit",
        protect=(".husky",),
    ),
    ExecutedFile(
        r"^\.?lefthook(-local)?\.(yml|yaml|json|toml)$|^\.lefthook(/|$)",
        "lefthook",
        "runs the commands it lists at your next commit or push",
        "https://lefthook.dev/configuration/",
        "lefthook.yml",
        protect=(
            ".lefthook",
            "lefthook.yml",
            "lefthook.yaml",
            "lefthook.json",
            "lefthook.toml",
            ".lefthook.yml",
            ".lefthook.yaml",
            "lefthook-local.yml",
        ),
    ),
    ExecutedFile(
        r"^\.pre-commit-(config|hooks)\.yaml$",
        "pre-commit",
        "runs the commands it lists at your next commit",
        "https://pre-commit.com/#plugins",
        ".pre-commit-config.yaml",
        protect=(".pre-commit-config.yaml",),
    ),
    ExecutedFile(
        r"^\.?simple-git-hooks\.(json|js|cjs|mjs)$",
        "simple-git-hooks",
        "runs it at your next commit",
        "https://github.com/toplenboren/simple-git-hooks",
        ".simple-git-hooks.json",
        protect=(
            ".simple-git-hooks.json",
            ".simple-git-hooks.js",
            ".simple-git-hooks.cjs",
        ),
    ),
    ExecutedFile(
        r"^\.overcommit\.yml$",
        "overcommit",
        "runs it at your next commit",
        "https://github.com/sds/overcommit",
        ".overcommit.yml",
        protect=(".overcommit.yml",),
    ),
    ExecutedFile(
        r"^(\.lintstagedrc[^/]*|lint-staged\.config\.[^/]+)$",
        "lint-staged",
        "runs the commands it lists at your next commit (from a pre-commit hook)",
        "https://github.com/lint-staged/lint-staged#configuration",
        ".lintstagedrc.json",
        protect=(".lintstagedrc", ".lintstagedrc.json", "lint-staged.config.js"),
    ),
    # -- CI: runs at your next push, with the repository's secrets ---------------------------
    ExecutedFile(
        r"^(\.github/workflows/|\.gitlab-ci\.yml$)",
        "GitHub Actions / GitLab CI",
        "runs it at your next push, with the repository's secrets",
        "https://docs.github.com/en/actions/writing-workflows/about-workflows",
        ".github/workflows/ci.yml",
        protect=(".github", ".gitlab-ci.yml"),
    ),
    # -- package managers: read by every command of theirs, not only by a deliberate run -----
    ExecutedFile(
        r"(^|/)\.npmrc$",
        "npm",
        "reads it at every npm command: script-shell, node-options and git name programs it runs",
        "https://docs.npmjs.com/cli/v11/using-npm/config",
        ".npmrc",
        protect=(".npmrc",),
    ),
    ExecutedFile(
        r"^\.yarnrc(\.yml)?$",
        "Yarn",
        "runs the file yarnPath names (and its plugins) at every yarn command",
        "https://yarnpkg.com/configuration/yarnrc#yarnPath",
        ".yarnrc.yml",
        protect=(".yarnrc.yml", ".yarnrc"),
    ),
    ExecutedFile(
        r"^\.pnpmfile\.c?js$",
        "pnpm",
        "runs its hooks at every install",
        "https://pnpm.io/pnpmfile",
        ".pnpmfile.cjs",
        protect=(".pnpmfile.cjs",),
    ),
    ExecutedFile(
        r"^bunfig\.toml$",
        "bun",
        "runs its preload scripts before bun run and bun test",
        "https://bun.sh/docs/runtime/bunfig#preload",
        "bunfig.toml",
        protect=("bunfig.toml",),
    ),
    ExecutedFile(
        r"(^|/)site-packages/([^/]+\.pth|(site|user)customize\.py)$",
        "Python",
        "runs it at every start of the interpreter whose site-packages it is in",
        "https://docs.python.org/3/library/site.html",
        ".venv/lib/python3.12/site-packages/x.pth",
    ),
)

NOT_LISTED: tuple[tuple[str, str], ...] = (
    (
        "package.json scripts, Makefile, setup.py, noxfile.py, tox.ini",
        "run by a deliberate command whose purpose is to run the project's code (npm run / "
        "install, make, pip install .) — as any source file the model writes is run by the "
        "user's next run",
    ),
    (
        ".run/*.run.xml (JetBrains shared run configurations)",
        "run only by a deliberate Run; .idea/ (startup tasks) is listed",
    ),
    (
        ".gitmodules",
        "git no longer runs `update = !command` from .gitmodules (only from .git/config, "
        "which is listed) and refuses ext:: URLs by default",
    ),
    (
        ".vscode/extensions.json",
        "listed with the rest of .vscode/ (recommendations install nothing by themselves)",
    ),
)
"""What was judged and left out (or folded into a wider entry), and why."""


def _harness_entries() -> tuple[ExecutedFile, ...]:
    """One entry per project skill folder any harness reads (the harness registry's), matched
    at any depth: Claude Code, Codex and OpenCode read them in parent folders and Claude Code
    in nested ones."""
    from aiq_tui.skills.harnesses import PROFILES

    readers: dict[str, list[str]] = {}
    sources: dict[str, str] = {}
    for harness in PROFILES.values():
        for folder in harness.folders:
            if folder.scope != "project":
                continue
            path = folder.path.strip("/").lower()
            readers.setdefault(path, []).append(harness.title)
            sources.setdefault(path, harness.sources[0] if harness.sources else "")
    return tuple(
        ExecutedFile(
            rf"(^|/){re.escape(path)}(/|$)",
            ", ".join(dict.fromkeys(titles)),
            "a skill here reaches their model: its instructions, and its allowed-tools and "
            "scripts acting for it",
            sources[path],
            f"{path}/x/SKILL.md",
            "skills",
            (path.split("/")[0],),
        )
        for path, titles in readers.items()
    )


@cache
def entries() -> tuple[ExecutedFile, ...]:
    """Every entry, most specific first: instruction files, then the harnesses' skill folders
    (inside ``.claude/`` they are skills before they are settings), then the rest."""
    loads = tuple(entry for entry in _LISTED if entry.kind == "loads")
    rest = tuple(entry for entry in _LISTED if entry.kind != "loads")
    return (*loads, *_harness_entries(), *rest)


def match(relative: str) -> ExecutedFile | None:
    """The entry for ``relative`` (a path from the top of a tree, either separator, any case),
    or None."""
    key = relative.replace(os.sep, "/").strip("/").casefold()
    if not key or key == ".":
        return None
    for entry in entries():
        if entry.regex.search(key):
            return entry
    return None


@cache
def protected_names() -> tuple[str, ...]:
    """Every name the launcher keeps read-only at the top of a writable tree."""
    return tuple(dict.fromkeys(name for entry in entries() for name in entry.protect))
