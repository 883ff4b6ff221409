"""Which project folders the user trusts — decided once, by where input came from.

The user, the config home and the user's own skill folders are trusted. A *project* folder
(the working directory's ``.agents/skills``, ``.aiq/skills``, ``.claude/skills``, ``.mcp.json``, anything a cloned
repository brings) is input, not authority, until the user says otherwise: on the first start
in it (the TUI asks, as Claude Code asks "Do you trust the files in this folder?") or with
``aiq-tui trust PATH``. The answer is kept in the config home by resolved path, the way Codex
records a ``trust_level`` per project.

Rules a caller may rely on:

* :func:`decision_for` answers for a path from the nearest decided folder at or above it: a
  trusted ``~/code`` trusts ``~/code/app``; an ``untrusted`` answer deeper down wins over a
  trusted folder above it. A decision about ``~`` or ``/`` is about that folder only: trusting
  the home folder must not trust every repository ever cloned below it.
* Nothing is trusted by default. An undecided project is treated as untrusted; the caller may
  ask (:attr:`ProjectTrust.undecided`).
* The file lives in the config home, which neither the model's tools nor a project can write
  (the sandbox protects it), so a project cannot trust itself.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

if TYPE_CHECKING:
    from aiq_tui.locations import Home

TRUST_FILE_NAME = "trusted-projects.json"
"""In the config home's ``config/`` folder: ``{"projects": {"/abs/path": "trusted"|"untrusted"}}``."""


class TrustLevel(str, Enum):
    TRUSTED = "trusted"
    UNTRUSTED = "untrusted"


class ProjectTrust(msgspec.Struct, frozen=True):
    """The trust decision for one project folder."""

    project: Path
    """The folder asked about, resolved."""
    level: TrustLevel | None
    """The recorded decision that applies, None when the user has not decided."""
    decided_at: Path | None = None
    """The folder whose decision applies (``project`` itself or a parent), None when undecided."""

    @property
    def trusted(self) -> bool:
        return self.level is TrustLevel.TRUSTED

    @property
    def undecided(self) -> bool:
        return self.level is None


class TrustFileError(ValueError):
    """The trust file exists but cannot be used; the message names the file and the fix."""


def trust_file(home: Home) -> Path:
    return home.config_dir / TRUST_FILE_NAME


def resolved(path: str | os.PathLike[str]) -> Path:
    """The key a folder is remembered by: absolute, symlinks resolved, ``~`` expanded."""
    return Path(os.path.realpath(Path(path).expanduser()))


def load_decisions(home: Home) -> dict[Path, TrustLevel]:
    """Every recorded decision. A missing file is no decisions; an unreadable or malformed one
    raises :class:`TrustFileError` (trust is never guessed from a broken file)."""
    path = trust_file(home)
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise TrustFileError(
            f"{path}: cannot read the trusted projects ({exc.strerror or exc})"
        ) from exc
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        raise TrustFileError(
            f"{path}: not valid JSON ({exc}); fix it or delete it to decide again"
        ) from exc
    projects = data.get("projects") if isinstance(data, dict) else None
    if not isinstance(projects, dict):
        raise TrustFileError(
            f'{path}: expected {{"projects": {{PATH: "trusted" | "untrusted"}}}}; '
            "fix it or delete it to decide again"
        )
    decisions: dict[Path, TrustLevel] = {}
    for key, value in projects.items():
        try:
            decisions[Path(key)] = TrustLevel(value)
        except ValueError:
            raise TrustFileError(
                f'{path}: projects["{key}"] is {value!r}; use "trusted" or "untrusted"'
            ) from None
    return decisions


def _not_inherited() -> frozenset[Path]:
    """Folders whose decision covers themselves only: ``/`` and the user's home."""
    return frozenset({Path("/"), resolved(Path.home())})


def decision_for(
    decisions: Mapping[Path, TrustLevel], path: str | os.PathLike[str]
) -> ProjectTrust:
    """The decision that applies to ``path``: its own, else the nearest parent's (never one
    about ``~`` or ``/``, see the module doc)."""
    project = resolved(path)
    own_only = _not_inherited()
    for folder in (project, *project.parents):
        level = decisions.get(folder)
        if level is not None and (folder == project or folder not in own_only):
            return ProjectTrust(project, level, folder)
    return ProjectTrust(project, None)


def project_trust(home: Home, path: str | os.PathLike[str]) -> ProjectTrust:
    """The trust decision for the project at ``path`` (the working directory, usually).
    A broken trust file counts as undecided — untrusted — never as trusted."""
    try:
        decisions = load_decisions(home)
    except TrustFileError:
        decisions = {}
    return decision_for(decisions, path)


def record(home: Home, path: str | os.PathLike[str], level: TrustLevel | None) -> Path:
    """Remember ``level`` for the folder ``path`` (None forgets its own decision); returns the
    resolved folder. Written atomically, so a crash never leaves half a file."""
    from aiq_tui.file_io import atomic_write

    folder = resolved(path)
    decisions = load_decisions(home)
    if level is None:
        decisions.pop(folder, None)
    else:
        decisions[folder] = level
    payload = {
        "projects": {str(key): value.value for key, value in sorted(decisions.items())}
    }
    atomic_write(trust_file(home), json.dumps(payload, indent=2) + "\n", mode=0o600)
    return folder


PROJECT_FILES = (".mcp.json",)
"""Files of a project that make agents do things (besides its skill folders)."""


class ProjectFolder(msgspec.Struct, frozen=True):
    """One configured project skill folder (``skills.project_dirs``) that exists."""

    folder: str  # as configured, e.g. ``.claude/skills``
    path: Path
    skills: int  # sub-folders holding a SKILL.md


def project_folders(
    project: str | os.PathLike[str], project_dirs: Sequence[str]
) -> tuple[ProjectFolder, ...]:
    """The configured project skill folders found in the project at ``project``."""
    root = resolved(project)
    found: list[ProjectFolder] = []
    for raw in project_dirs:
        folder = root / raw
        try:
            count = sum(
                1
                for entry in os.scandir(folder)
                if entry.name[:1] != "."
                and os.path.isfile(os.path.join(entry.path, "SKILL.md"))
            )
        except OSError:
            continue
        found.append(ProjectFolder(raw, folder, count))
    return tuple(found)


def project_offers(
    project: str | os.PathLike[str], project_dirs: Sequence[str]
) -> tuple[str, ...]:
    """What the project at ``project`` brings that trust decides about, as short phrases for the
    dialog and the notice: its skill folders that hold at least one skill, its ``.mcp.json``.
    Empty when it brings nothing (then nobody needs to be asked)."""
    root = resolved(project)
    found = [
        f"{f.folder} ({f.skills} skill{'s' if f.skills != 1 else ''})"
        for f in project_folders(root, project_dirs)
        if f.skills
    ]
    for name in PROJECT_FILES:
        if (root / name).is_file():
            found.append(name)
    return tuple(found)


def is_project_folder(home: Home, path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` can be a project to decide about: not ``/``, not the user's home (its
    "project" folders are the user's own) and not inside the config home (the user's too)."""
    folder = resolved(path)
    config_home = resolved(home.root)
    return (
        folder not in _not_inherited()
        and folder != config_home
        and config_home not in folder.parents
    )


def needs_decision(
    home: Home, path: str | os.PathLike[str], project_dirs: Sequence[str]
) -> tuple[str, ...]:
    """What to ask about on the first start in ``path`` (see :func:`project_offers`), or ``()``
    when the user decided already, the folder is no project, or it brings nothing."""
    if not is_project_folder(home, path) or not project_trust(home, path).undecided:
        return ()
    return project_offers(path, project_dirs)


def untrusted_notice(
    home: Home, path: str | os.PathLike[str], project_dirs: Sequence[str]
) -> str | None:
    """The one line headless commands print on stderr in an undecided project that brings
    something, or None."""
    offers = needs_decision(home, path, project_dirs)
    if not offers:
        return None
    return (
        f"aiq-tui: treating this project as untrusted, you have not decided about it ({', '.join(offers)}): "
        f"its skills' allowed-tools pre-approve nothing and their scripts always ask; "
        f"`aiq-tui trust {resolved(path)}` trusts it"
    )
