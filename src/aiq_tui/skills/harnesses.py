"""Named harness profiles: what each agent reads, where from, and how much it lists.

A *harness* is the program that reads a skill: Claude Code, Codex, Copilot, Cursor, Gemini CLI,
OpenCode, the Agent Skills reference (skills-ref) and aiq-tui itself. Each profile says

* its skill folders, project and user, in the harness's own precedence (first wins a name
  clash), with the environment variables it honours (``CLAUDE_CONFIG_DIR``, ``CODEX_HOME``,
  ``XDG_CONFIG_HOME``) — :func:`skill_folders`;
* the folder ``--agent NAME --scope user|project`` installs into — :func:`install_dir`;
* the frontmatter fields it documents (:attr:`HarnessProfile.fields`): ``skills validate
  --target NAME`` judges a skill by them, never advising to remove what the harness reads;
* its context window and the character budget of the skill listing its model sees —
  :func:`listing_budget`;
* which harness a skill is written for, from where it lives — :func:`infer_harness`.

Every fact carries where it comes from (:attr:`HarnessProfile.sources`); docs/skills.md has the
table. Nothing here reads a skill or lists a folder: paths only (callers check what exists).

Stable API (other modules build on it): :data:`PROFILES`, :func:`profile`, :func:`names`,
:func:`skill_folders`, :func:`install_dir`, :func:`listing_budget`, :func:`infer_harness`,
:func:`repo_root`, :class:`HarnessProfile`, :class:`SkillFolder`, :class:`ResolvedFolder`,
:class:`UnknownHarness`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Literal, TypedDict

import msgspec

Scope = Literal["project", "user", "admin"]
"""Where a folder belongs: a project's (untrusted until the user trusts it), the user's own, or
the machine administrator's."""

CHARS_PER_TOKEN = 4
"""How Claude Code and Codex turn a share of the window into a character budget (their docs:
1 % / 2 % of the window, 8,000 characters when the window is unknown — 1 % of 200,000 tokens is
8,000 characters at four a token)."""

SPEC_FIELDS = frozenset(
    {"name", "description", "license", "allowed-tools", "metadata", "compatibility"}
)
"""The Agent Skills specification's six fields (agentskills.io/specification)."""

CLAUDE_CODE_FIELDS = SPEC_FIELDS | {
    "when_to_use",
    "argument-hint",
    "arguments",
    "disable-model-invocation",
    "user-invocable",
    "disallowed-tools",
    "model",
    "effort",
    "context",
    "agent",
    "background",
    "hooks",
    "paths",
    "shell",
}
"""Claude Code's frontmatter reference (code.claude.com/docs/en/skills#frontmatter-reference)."""

AIQ_EXTENSION_FIELDS = frozenset(
    {
        "type",
        "status",
        "parameters",
        "steps",
        "script",
        "template",
        "source",
        "version",
        "author",
        "tags",
        "triggers",
    }
)
"""The source systems' fields aiq-tui reads (lango, SISU, apex-bridge; docs/skills.md)."""


class SkillFolder(msgspec.Struct, frozen=True):
    """One folder a harness reads skills from, as the harness documents it.

    ``path`` is relative to the project for a project folder; for a user or admin folder it
    starts with ``~`` or ``/``, or with ``$VAR`` for a folder an environment variable moves
    (``$CLAUDE_CONFIG_DIR/skills``: the variable, else ``default``)."""

    scope: Scope
    path: str
    variable: str | None = None
    """The environment variable that replaces the ``$VAR`` head of ``path``."""
    default: str | None = None
    """What ``$VAR`` is when the variable is unset (``~/.claude``)."""
    walks_up: bool = False
    """A project folder the harness also reads in every parent folder up to the repository
    root (Claude Code, Codex, OpenCode)."""
    note: str = ""
    """Anything a user should know (legacy, an alias, read lazily…)."""


class HarnessProfile(msgspec.Struct, frozen=True):
    """What one harness reads. Folders are in the harness's precedence, first wins."""

    name: str
    title: str
    folders: tuple[SkillFolder, ...]
    fields: frozenset[str]
    """Frontmatter fields the harness documents (and so reads)."""
    window: int | None
    """Context window in tokens of the model it usually runs (None: not one model's)."""
    window_note: str
    listing_share: float | None = None
    """Share of the window the skill listing may take, when documented."""
    listing_fallback_chars: int | None = None
    """The listing's budget when the window is unknown, when documented."""
    listing_budget_variable: str | None = None
    """An environment variable that sets the listing budget in characters."""
    entry_chars: int | None = None
    """The most characters one listing entry's description keeps, when documented."""
    requires_name: bool = True
    """False where a skill without ``name`` takes its folder's name (Claude Code)."""
    requires_description: bool = True
    """False where a missing description falls back to the body (Claude Code)."""
    rejects_long_description: bool = True
    """False where a description over the specification's 1,024 characters loads, cut in the
    listing at :attr:`entry_chars` (Claude Code)."""
    unknown_fields: Literal["reject", "ignore"] = "ignore"
    """What the harness does with a field it does not document."""
    follows_symlinks: bool = True
    sources: tuple[str, ...] = ()
    """Where the facts above come from (URLs; docs/skills.md cites them)."""


class ResolvedFolder(msgspec.Struct, frozen=True):
    """A :class:`SkillFolder` made a path on this machine, for one project."""

    path: Path
    scope: Scope
    folder: SkillFolder
    """The documented folder it comes from (``path`` of it says how it was written)."""


class UnknownHarness(ValueError):
    """No profile has this name; ``str()`` lists the known ones."""


_CLAUDE_DOCS = "https://code.claude.com/docs/en/skills"
_CODEX_DOCS = "https://developers.openai.com/codex/skills"
_COPILOT_DOCS = (
    "https://code.visualstudio.com/docs/agents/reference/agent-skills-reference"
)
_CURSOR_DOCS = "https://cursor.com/docs/context/skills"
_GEMINI_DOCS = "https://geminicli.com/docs/cli/using-agent-skills/"
_OPENCODE_DOCS = "https://opencode.ai/docs/skills"
_SPEC = "https://agentskills.io/specification"
_SKILLS_CLI = "https://github.com/vercel-labs/skills (src/agents.ts)"


class _MovedBy(TypedDict):
    """The environment variable that moves a harness's home, and its default."""

    variable: str
    default: str


_CLAUDE_HOME: _MovedBy = {"variable": "CLAUDE_CONFIG_DIR", "default": "~/.claude"}
_CODEX_HOME: _MovedBy = {"variable": "CODEX_HOME", "default": "~/.codex"}
_XDG: _MovedBy = {"variable": "XDG_CONFIG_HOME", "default": "~/.config"}

PROFILES: Mapping[str, HarnessProfile] = {
    profile.name: profile
    for profile in (
        HarnessProfile(
            "claude-code",
            "Claude Code",
            (
                SkillFolder(
                    "user",
                    "$CLAUDE_CONFIG_DIR/skills",
                    **_CLAUDE_HOME,
                    note="personal skills override a project's of the same name",
                ),
                SkillFolder(
                    "project",
                    ".claude/skills",
                    walks_up=True,
                    note="also nested .claude/skills below, once Claude works on a file there",
                ),
            ),
            CLAUDE_CODE_FIELDS,
            window=200_000,
            window_note="Claude models' 200,000-token window (1M is an opt-in beta)",
            listing_share=0.01,
            listing_fallback_chars=8_000,
            listing_budget_variable="SLASH_COMMAND_TOOL_CHAR_BUDGET",
            entry_chars=1_536,
            requires_name=False,
            requires_description=False,
            rejects_long_description=False,
            unknown_fields="ignore",
            sources=(
                _CLAUDE_DOCS,
                "https://code.claude.com/docs/en/settings-reference#skilllistingbudgetfraction",
                "https://code.claude.com/docs/en/env-vars (CLAUDE_CONFIG_DIR, "
                "SLASH_COMMAND_TOOL_CHAR_BUDGET)",
            ),
        ),
        HarnessProfile(
            "codex",
            "Codex",
            (
                SkillFolder(
                    "project", ".agents/skills", walks_up=True, note="REPO scope"
                ),
                SkillFolder(
                    "project", ".codex/skills", walks_up=True, note="earlier versions"
                ),
                SkillFolder("user", "~/.agents/skills", note="USER scope"),
                SkillFolder(
                    "user",
                    "$CODEX_HOME/skills",
                    **_CODEX_HOME,
                    note="read by every version; where the skills CLI installs",
                ),
                SkillFolder("admin", "/etc/codex/skills", note="ADMIN scope"),
            ),
            SPEC_FIELDS,
            window=400_000,
            window_note="GPT-5's 400,000-token window (llm/windows.py)",
            listing_share=0.02,
            listing_fallback_chars=8_000,
            entry_chars=1_024,
            unknown_fields="ignore",
            sources=(_CODEX_DOCS, _SKILLS_CLI),
        ),
        HarnessProfile(
            "copilot",
            "GitHub Copilot",
            (
                SkillFolder("project", ".github/skills"),
                SkillFolder("project", ".agents/skills"),
                SkillFolder("project", ".claude/skills"),
                SkillFolder("user", "~/.copilot/skills"),
                SkillFolder("user", "~/.agents/skills"),
                SkillFolder("user", "$CLAUDE_CONFIG_DIR/skills", **_CLAUDE_HOME),
            ),
            SPEC_FIELDS
            | {"argument-hint", "user-invocable", "disable-model-invocation"},
            window=128_000,
            window_note="a 128,000-token window, typical of Copilot's chat models "
            "(the model is the user's choice)",
            sources=(
                _COPILOT_DOCS,
                "https://github.com/microsoft/vscode (extensions/copilot/assets/prompts/"
                "skills/agent-customization/references/skills.md)",
            ),
        ),
        HarnessProfile(
            "cursor",
            "Cursor",
            (
                SkillFolder("project", ".cursor/skills"),
                SkillFolder("project", ".claude/skills", note="Claude compatible"),
                SkillFolder("project", ".codex/skills", note="Codex compatible"),
                SkillFolder("user", "~/.cursor/skills"),
                SkillFolder("user", "$CLAUDE_CONFIG_DIR/skills", **_CLAUDE_HOME),
                SkillFolder("user", "$CODEX_HOME/skills", **_CODEX_HOME),
            ),
            SPEC_FIELDS | {"disable-model-invocation"},
            window=200_000,
            window_note="a 200,000-token window (the model is the user's choice)",
            sources=(_CURSOR_DOCS,),
        ),
        HarnessProfile(
            "gemini",
            "Gemini CLI",
            (
                SkillFolder(
                    "project", ".agents/skills", note="alias, wins over .gemini/skills"
                ),
                SkillFolder("project", ".gemini/skills"),
                SkillFolder("user", "~/.agents/skills", note="alias"),
                SkillFolder("user", "~/.gemini/skills"),
            ),
            SPEC_FIELDS,
            window=1_048_576,
            window_note="Gemini 2.5 Pro's 1,048,576-token window",
            sources=(_GEMINI_DOCS,),
        ),
        HarnessProfile(
            "opencode",
            "OpenCode",
            (
                SkillFolder("project", ".opencode/skills", walks_up=True),
                SkillFolder("project", ".claude/skills", walks_up=True),
                SkillFolder("project", ".agents/skills", walks_up=True),
                SkillFolder("user", "$XDG_CONFIG_HOME/opencode/skills", **_XDG),
                SkillFolder("user", "$CLAUDE_CONFIG_DIR/skills", **_CLAUDE_HOME),
                SkillFolder("user", "~/.agents/skills"),
            ),
            SPEC_FIELDS,
            window=200_000,
            window_note="a 200,000-token window (the model is the user's choice)",
            sources=(_OPENCODE_DOCS,),
        ),
        HarnessProfile(
            "agentskills",
            "Agent Skills specification (skills-ref)",
            (
                SkillFolder("project", ".agents/skills", note="the shared convention"),
                SkillFolder("user", "~/.agents/skills", note="the shared convention"),
            ),
            SPEC_FIELDS,
            window=None,
            window_note="the specification names no model",
            unknown_fields="reject",
            sources=(_SPEC, "https://github.com/agentskills/agentskills (skills-ref)"),
        ),
        HarnessProfile(
            "aiq",
            "aiq-tui",
            (
                SkillFolder("project", ".agents/skills"),
                SkillFolder("project", ".aiq/skills"),
                SkillFolder("project", ".claude/skills", walks_up=True),
                SkillFolder(
                    "user",
                    "$AIQ_HOME/skills",
                    variable="AIQ_HOME",
                    default="~/.aiqconfig",
                ),
                SkillFolder("user", "$CLAUDE_CONFIG_DIR/skills", **_CLAUDE_HOME),
                SkillFolder("user", "~/.agents/skills"),
            ),
            CLAUDE_CODE_FIELDS | AIQ_EXTENSION_FIELDS,
            window=None,
            window_note="the configured provider's window (context.window)",
            sources=("docs/skills.md", "docs/configuration.md"),
        ),
    )
}
"""Every profile by name, in the order ``--help`` lists them."""

ALIASES: Mapping[str, str] = {
    "claude": "claude-code",
    "github-copilot": "copilot",
    "gemini-cli": "gemini",
    "agent-skills": "agentskills",
    "spec": "agentskills",
    "aiq-tui": "aiq",
}
"""Other names users type (the skills CLI's agent names among them)."""


def names() -> tuple[str, ...]:
    return tuple(PROFILES)


def profile(name: str) -> HarnessProfile:
    """The profile called ``name`` (or one of its :data:`ALIASES`); :class:`UnknownHarness`
    naming the known ones otherwise."""
    key = ALIASES.get(name.strip().lower(), name.strip().lower())
    found = PROFILES.get(key)
    if found is None:
        raise UnknownHarness(f"unknown harness {name!r}; known: {', '.join(PROFILES)}")
    return found


# -- folders ------------------------------------------------------------------------------------


def expand(folder: SkillFolder, env: Mapping[str, str] | None = None) -> Path:
    """A user or admin folder as a path on this machine (``$VAR`` from ``env``, else its
    default; ``~`` is the user's home). A project folder comes back relative."""
    environ = os.environ if env is None else env
    raw = folder.path
    if folder.variable and raw.startswith("$" + folder.variable):
        value = (environ.get(folder.variable) or "").strip() or (folder.default or "")
        raw = value + raw[len(folder.variable) + 1 :]
    if raw.startswith("~"):
        home = environ.get("HOME") or str(Path.home())
        raw = home + raw[1:]
    return Path(raw)


MAX_PARENTS = 64
"""Most parent folders walked looking for a repository root (a bound on hostile depth)."""


def repo_root(start: Path) -> Path | None:
    """The nearest folder at or above ``start`` holding ``.git`` (a folder, or a worktree's
    file), or None when ``start`` is in no repository."""
    folder = Path(os.path.abspath(start))
    for candidate in (folder, *list(folder.parents)[:MAX_PARENTS]):
        if os.path.lexists(candidate / ".git"):
            return candidate
    return None


def skill_folders(
    harness: HarnessProfile,
    project: Path | None,
    env: Mapping[str, str] | None = None,
    scopes: tuple[Scope, ...] = ("project", "user", "admin"),
) -> tuple[ResolvedFolder, ...]:
    """The folders ``harness`` reads for ``project`` (None: user and admin folders only), in
    its precedence, without duplicates (the first of two ways to one folder stays). A folder
    that walks up is read in ``project`` and each parent up to the repository root (only
    ``project`` itself outside a repository), nearest first. Paths need not exist."""
    found: list[ResolvedFolder] = []
    seen: set[str] = set()

    def add(path: Path, folder: SkillFolder) -> None:
        key = os.path.normpath(os.path.abspath(path))
        if key not in seen:
            seen.add(key)
            found.append(ResolvedFolder(Path(key), folder.scope, folder))

    base = Path(os.path.abspath(project)) if project is not None else None
    root = repo_root(base) if base is not None else None
    for folder in harness.folders:
        if folder.scope not in scopes:
            continue
        if folder.scope != "project":
            add(expand(folder, env), folder)
            continue
        if base is None:
            continue
        add(base / folder.path, folder)
        if folder.walks_up and root is not None and root != base:
            for parent in base.parents:
                add(parent / folder.path, folder)
                if parent == root:
                    break
    return tuple(found)


def install_dir(
    harness: HarnessProfile | str,
    scope: Literal["user", "project"],
    project: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> Path:
    """The folder a skill is installed into for ``harness`` at ``scope`` (``--agent NAME --scope
    user|project``): the harness's first folder of that scope — for a project, under
    ``project`` (default: the current folder), never a parent. Codex's user scope is
    ``$CODEX_HOME/skills``: every Codex version reads it (``~/.agents/skills`` only the newer
    ones), and it is where the skills CLI installs for Codex."""
    chosen = profile(harness) if isinstance(harness, str) else harness
    if scope not in ("user", "project"):
        raise ValueError(f"scope must be user or project, not {scope!r}")
    candidates = [folder for folder in chosen.folders if folder.scope == scope]
    if chosen.name == "codex" and scope == "user":
        candidates.sort(key=lambda folder: folder.variable != "CODEX_HOME")
    if not candidates:  # every profile has both scopes; kept for a future one
        raise ValueError(f"{chosen.title} has no {scope} skills folder")
    first = candidates[0]
    if scope == "project":
        base = Path(os.path.abspath(project if project is not None else Path.cwd()))
        return base / first.path
    return expand(first, env)


# -- listing budget -----------------------------------------------------------------------------


class ListingBudget(msgspec.Struct, frozen=True):
    """How many characters of skill names and descriptions the harness lists to its model."""

    chars: int | None
    """None when the harness documents no budget."""
    why: str


def listing_budget(
    harness: HarnessProfile,
    window: int | None = None,
    env: Mapping[str, str] | None = None,
) -> ListingBudget:
    """The listing budget of ``harness`` in a ``window``-token context (default: its own), with
    the reason in words — an override in ``env`` (``SLASH_COMMAND_TOOL_CHAR_BUDGET``) first."""
    environ = os.environ if env is None else env
    variable = harness.listing_budget_variable
    raw = (environ.get(variable) or "").strip() if variable else ""
    if variable and raw.isdigit() and int(raw) > 0:
        return ListingBudget(int(raw), f"{variable}={raw}")
    if harness.listing_share is None:
        return ListingBudget(None, f"{harness.title} documents no listing budget")
    window = window or harness.window
    if not window:
        fallback = harness.listing_fallback_chars
        return ListingBudget(fallback, f"{fallback:,} characters (window unknown)")
    chars = int(window * harness.listing_share * CHARS_PER_TOKEN)
    return ListingBudget(
        chars,
        f"{harness.listing_share:.0%} of the {window:,}-token window "
        f"(~{CHARS_PER_TOKEN} characters a token)",
    )


# -- which harness a skill is for ---------------------------------------------------------------

_MARKERS: tuple[tuple[tuple[str, ...], str], ...] = (
    ((".claude", "skills"), "claude-code"),
    ((".codex", "skills"), "codex"),
    (("skills", ".curated"), "codex"),
    (("skills", ".system"), "codex"),
    (("skills", ".experimental"), "codex"),
    ((".github", "skills"), "copilot"),
    ((".copilot", "skills"), "copilot"),
    ((".cursor", "skills"), "cursor"),
    ((".gemini", "skills"), "gemini"),
    ((".opencode", "skills"), "opencode"),
    (("opencode", "skills"), "opencode"),
    ((".aiq", "skills"), "aiq"),
    ((".aiqconfig", "skills"), "aiq"),
    ((".agents", "skills"), "agentskills"),
)
"""Folder names that say which harness reads a skill below them (nearest wins)."""

MAX_MANIFEST_PARENTS = 6
"""How far above a skill folder a plugin manifest (``.claude-plugin/``) is looked for."""


def infer_harness(
    skill_path: Path | str, default: str = "agentskills"
) -> HarnessProfile:
    """The harness a skill at ``skill_path`` (its folder or its SKILL.md) is written for: the
    nearest harness folder above it (``.claude/skills`` → claude-code, ``.github/skills`` →
    copilot, ``.agents/skills`` → agentskills, …), else a Claude Code plugin manifest
    (``.claude-plugin/``) or a Codex one (``.codex-plugin/``) in one of the few folders above
    it (anthropics/skills, obra/superpowers, mattpocock/skills), else Codex's
    ``agents/openai.yaml`` beside the SKILL.md (openai/skills), else ``default``. Reads no file; at most a few ``stat`` calls."""
    path = Path(os.path.abspath(skill_path))
    parts = path.parts
    best: tuple[int, str] | None = None
    for marker, name in _MARKERS:
        width = len(marker)
        for index in range(len(parts) - width, -1, -1):
            if parts[index : index + width] == marker:
                if best is None or index > best[0]:
                    best = (index, name)
                break
    if best is not None:
        return PROFILES[best[1]]
    folder = path.parent if path.name == "SKILL.md" else path
    for candidate in (folder, *list(folder.parents)[:MAX_MANIFEST_PARENTS]):
        if os.path.isdir(candidate / ".claude-plugin"):
            return PROFILES["claude-code"]
        if os.path.isdir(candidate / ".codex-plugin"):
            return PROFILES["codex"]
    if os.path.isfile(folder / "agents" / "openai.yaml"):
        return PROFILES["codex"]
    return profile(default)
