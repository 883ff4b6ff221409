"""TEMPORARY ADAPTER — stands in for :mod:`aiq_tui.skills.harnesses` until that module (branch
``harness``) is merged; delete this file then (``targets._harnesses`` prefers the real one).

It offers the four names :mod:`.targets` uses — ``names``, ``profile``, ``UnknownHarness``,
``install_dir`` — with each agent's first project and user folder as the harness profiles
name them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


class UnknownHarness(ValueError):
    pass


@dataclass(frozen=True)
class _Profile:
    name: str
    project: str
    user: str


def _env(variable: str, default: str) -> str:
    return (os.environ.get(variable) or "").strip() or os.path.expanduser(default)


_PROFILES = {
    "claude-code": lambda: _Profile("claude-code", ".claude/skills", _env("CLAUDE_CONFIG_DIR", "~/.claude") + "/skills"),
    "codex": lambda: _Profile("codex", ".agents/skills", _env("CODEX_HOME", "~/.codex") + "/skills"),
    "copilot": lambda: _Profile("copilot", ".github/skills", os.path.expanduser("~/.copilot/skills")),
    "cursor": lambda: _Profile("cursor", ".cursor/skills", os.path.expanduser("~/.cursor/skills")),
    "gemini": lambda: _Profile("gemini", ".agents/skills", os.path.expanduser("~/.agents/skills")),
    "opencode": lambda: _Profile("opencode", ".opencode/skills", _env("XDG_CONFIG_HOME", "~/.config") + "/opencode/skills"),
    "agentskills": lambda: _Profile("agentskills", ".agents/skills", os.path.expanduser("~/.agents/skills")),
    "aiq": lambda: _Profile("aiq", ".agents/skills", _env("AIQ_HOME", "~/.aiqconfig") + "/skills"),
}  # fmt: skip
_ALIASES = {
    "claude": "claude-code",
    "github-copilot": "copilot",
    "gemini-cli": "gemini",
    "aiq-tui": "aiq",
}


def names() -> tuple[str, ...]:
    return tuple(_PROFILES)


def profile(name: str) -> _Profile:
    key = _ALIASES.get(name.strip().lower(), name.strip().lower())
    if key not in _PROFILES:
        raise UnknownHarness(f"unknown harness {name!r}; known: {', '.join(_PROFILES)}")
    return _PROFILES[key]()


def install_dir(harness: str, scope: str, project: Path | None = None) -> Path:
    chosen = profile(harness)
    if scope == "project":
        return Path(os.path.abspath(project or Path.cwd())) / chosen.project
    return Path(chosen.user)
