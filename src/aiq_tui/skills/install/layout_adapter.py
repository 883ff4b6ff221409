"""TEMPORARY ADAPTER — stands in for :mod:`aiq_tui.skills.layouts` (branch ``harness``) until it
is merged: where the skills of a repository are. :func:`skill_folders` in :mod:`.found` prefers
the real module; delete this file then.

The layouts public collections use: a ``SKILL.md`` at the root (one skill), ``skills/*``
(anthropics/skills, obra/superpowers, vercel-labs/agent-skills), hidden sub-collections
(openai/skills' ``skills/.curated``, ``.system``, ``.experimental``), plugin folders
(``plugins/*/skills/*`` beside ``.claude-plugin/marketplace.json``) — all of them found by one
bounded walk for ``SKILL.md``: every folder to ``MAX_DEPTH`` levels, hidden ones included,
never ``.git`` or ``node_modules``, and never below a skill (its own files are not skills).
"""

from __future__ import annotations

import os
from pathlib import Path

MAX_DEPTH = 6
MAX_FOLDERS = 20_000


def find_skill_folders(root: Path) -> list[Path]:
    """Every folder at or below ``root`` holding a ``SKILL.md``, shallowest first, then by path."""
    found: list[tuple[int, str]] = []
    stack: list[tuple[str, int]] = [(os.fspath(root), 0)]
    visited = 0
    while stack and visited < MAX_FOLDERS:
        directory, depth = stack.pop()
        visited += 1
        if os.path.isfile(os.path.join(directory, "SKILL.md")):
            found.append((depth, directory))
            continue
        if depth >= MAX_DEPTH:
            continue
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue
        for entry in entries:
            if entry.name in (".git", "node_modules") or not entry.is_dir(
                follow_symlinks=False
            ):
                continue
            stack.append((entry.path, depth + 1))
    found.sort()
    return [Path(path) for _depth, path in found]
