"""Which folders an install writes: one copy, and a link from every other agent's folder.

``--agent NAME`` is a harness profile's name (:mod:`aiq_tui.harnesses`), ``--scope``
``user`` or ``project``; the folder is the one the profile names for that scope
(:func:`~aiq_tui.harnesses.install_dir`), so what is installed for an agent is what
``sources list --harness NAME`` then shows. This workbench's own folder (profile ``aiq``) is the
config home's ``skills/`` at user scope (``--home`` / ``AIQ_HOME`` honoured) and ``.agents/skills``
in a project.

The first agent's folder holds the copy; every other agent's folder gets a relative symbolic
link to it (the ``skills`` CLI keeps its copy in ``.agents/skills`` instead, whichever agents
were asked for: here a skill appears only in the folders of the agents named). ``--copy``
writes a full copy into each folder instead. Two agents that read one folder share one entry.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from aiq_tui.locations import Home

Scope = Literal["user", "project"]
DEFAULT_AGENT = "aiq"


class TargetError(ValueError):
    """An unknown agent, or a scope it has no folder for; ``str()`` names the known ones."""


@dataclass(frozen=True)
class Placement:
    """Where one installed skill lives: the copy, and the links to it (none with ``--copy``)."""

    copies: tuple[Path, ...]
    links: tuple[Path, ...]

    @property
    def primary(self) -> Path:
        return self.copies[0]

    @property
    def folders(self) -> tuple[Path, ...]:
        return self.copies + self.links


def agent_names() -> tuple[str, ...]:
    """Every ``--agent`` name (the harness profiles')."""
    from aiq_tui import harnesses

    return tuple(harnesses.names())


def canonical_agent(name: str) -> str:
    """The profile name ``name`` stands for (aliases such as ``claude`` or ``github-copilot``)."""
    from aiq_tui import harnesses

    try:
        return harnesses.profile(name).name
    except harnesses.UnknownHarness as exc:
        raise TargetError(str(exc)) from None


def skills_folder(agent: str, scope: Scope, home: Home, project: Path) -> Path:
    """The skills folder ``agent`` reads at ``scope``."""
    from aiq_tui import harnesses

    name = canonical_agent(agent)
    if name == DEFAULT_AGENT and scope == "user":
        return home.skills_dir
    try:
        return Path(harnesses.install_dir(name, scope, project))
    except ValueError as exc:
        raise TargetError(str(exc)) from None


def placement(
    name: str,
    agents: Sequence[str],
    scope: Scope,
    home: Home,
    project: Path,
    *,
    copy: bool = False,
    folder: Path | None = None,
) -> Placement:
    """Where the skill ``name`` goes for ``agents`` (default: this workbench's own folder), or
    into ``folder`` (``--dir``) alone."""
    if folder is not None:
        return Placement((folder / name,), ())
    parents: list[Path] = []
    seen: set[str] = set()
    for agent in agents or (DEFAULT_AGENT,):
        parent = skills_folder(agent, scope, home, project)
        key = os.path.normpath(os.path.abspath(parent))
        if key not in seen:
            seen.add(key)
            parents.append(parent)
    folders = tuple(parent / name for parent in parents)
    if copy:
        return Placement(folders, ())
    return Placement(folders[:1], folders[1:])


def lock_path(scope: Scope, home: Home, project: Path) -> Path:
    """The lockfile of ``scope``: the project's ``skills-lock.json`` (where the ``skills`` CLI
    keeps its own), or the config home's."""
    from aiq_tui.skills.install.lockfile import LOCK_FILE

    return (project if scope == "project" else home.root) / LOCK_FILE
