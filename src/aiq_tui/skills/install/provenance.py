"""Where an installed skill came from — read from the lockfile, the one home of that fact.

A skill folder is *installed* when a ``skills-lock.json`` names a skill whose install folders
(its copy and its links, :mod:`.targets`) include it. The lockfiles looked at: the one of the
config home (user-scope installs, ``skills import`` too), and the nearest one in the three
folders above the skill, as found and as resolved (a project's, for project installs:
``<project>/.claude/skills/NAME`` → ``<project>/skills-lock.json``). Read once per file version
(path, size, mtime), so asking for every skill of a catalog costs a few ``stat`` calls each.

A lockfile is never authority: it can only mark a skill as installed — which makes it *less*
trusted (its ``allowed-tools`` wait for ``skills trust``, its scripts always ask).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiq_tui.locations import Home
from aiq_tui.skills.install.lockfile import (
    LOCK_FILE,
    LockedSkill,
    LockFile,
    LockFileError,
    read_lock,
)

_CACHE: dict[str, tuple[tuple[int, int], LockFile | None]] = {}
_PARENTS = 3

if TYPE_CHECKING:
    from aiq_tui.config import AppConfig


@dataclass(frozen=True)
class Provenance:
    """An installed skill's lock entry, and the lockfile that holds it."""

    name: str
    entry: LockedSkill
    lockfile: Path
    scope: str

    @property
    def label(self) -> str:
        """``owner/repo@ref`` or the URL or path, as ``skills list`` shows it."""
        ref = f"@{self.entry.ref}" if self.entry.ref else ""
        return f"{self.entry.source}{ref}"


def provenance(folder: Path, home: Home | None = None) -> Provenance | None:
    """The lock entry that installed the skill at ``folder``, or None (see the module doc)."""
    from aiq_tui.locations import resolve_home

    home = home or resolve_home()
    real = os.path.realpath(folder)
    candidates: list[tuple[Path, str]] = [(home.root / LOCK_FILE, "user")]
    for start in dict.fromkeys((os.path.abspath(folder), real)):
        parent = Path(start).parent
        for _ in range(_PARENTS):
            candidates.append((parent / LOCK_FILE, "project"))
            parent = parent.parent
    seen: set[str] = set()
    for path, scope in candidates:
        key = os.path.abspath(path)
        if key in seen:
            continue
        seen.add(key)
        lock = _read(path)
        if lock is None:
            continue
        found = _match(lock, folder, real, home, scope)
        if found is not None:
            return found
    return None


def _read(path: Path) -> LockFile | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    stamp = (info.st_size, info.st_mtime_ns)
    cached = _CACHE.get(str(path))
    if cached is not None and cached[0] == stamp:
        return cached[1]
    try:
        lock: LockFile | None = read_lock(path)
    except LockFileError:
        lock = None
    _CACHE[str(path)] = (stamp, lock)
    return lock


def _match(
    lock: LockFile, folder: Path, real: str, home: Home, scope: str
) -> Provenance | None:
    from aiq_tui.skills.install.installer import InstallContext, Target
    from aiq_tui.skills.install.targets import TargetError

    names = {os.path.basename(real), os.path.basename(os.path.abspath(folder))}
    for name in names:
        entry = lock.skills.get(name)
        if entry is None:
            continue
        scopes = ("user", "project") if scope == "user" else ("project", "user")
        for each in scopes:
            project = lock.path.parent
            context = InstallContext(home, _config(), project)
            try:
                where = Target.of_entry(entry, each).placement(name, context)  # type: ignore[arg-type]
            except TargetError:
                continue
            if any(os.path.realpath(p) == real for p in where.folders):
                return Provenance(name, entry, lock.path, each)
    return None


def _config() -> AppConfig:
    from aiq_tui.config import AppConfig

    return AppConfig()


def is_locally_modified(prov: Provenance, folder: Path) -> bool:
    """Whether the files at ``folder`` differ from what the lockfile says was installed."""
    from aiq_tui.skills.install.folder_hash import skill_folder_hash

    try:
        return skill_folder_hash(folder) != prov.entry.expected_hash
    except OSError:
        return True


def describe(prov: Provenance, folder: Path) -> str:
    """One line for ``skills list`` and the viewer: source, commit, and whether edited here."""
    commit = f" at {prov.entry.commit[:12]}" if prov.entry.commit else ""
    edited = (
        " · edited here (differs from the locked hash)"
        if is_locally_modified(prov, folder)
        else ""
    )
    return f"installed from {prov.label}{commit}{edited}"


def provenance_index(home: Home, project: Path) -> dict[str, Provenance]:
    """Every folder the home's and the project's lockfiles installed (copies and links, as
    paths, unresolved) → its provenance: one lookup a skill when listing thousands."""
    from aiq_tui.skills.install.installer import InstallContext, Target
    from aiq_tui.skills.install.targets import TargetError

    index: dict[str, Provenance] = {}
    context = InstallContext(home, _config(), project)
    for path, scope in (
        (project / LOCK_FILE, "project"),
        (home.root / LOCK_FILE, "user"),
    ):
        lock = _read(path)
        if lock is None:
            continue
        for name, entry in lock.skills.items():
            try:
                where = Target.of_entry(entry, scope).placement(name, context)  # type: ignore[arg-type]
            except TargetError:
                continue
            for folder in where.folders:
                index.setdefault(
                    os.path.abspath(folder), Provenance(name, entry, path, scope)
                )
    return index


def installed_rows(
    home: Home, project: Path, listing: Iterable[Any]
) -> dict[str, dict[str, Any]]:
    """For ``skills list``: each installed skill of ``listing`` by name → source, ref, commit,
    lockfile and ``locally_modified``. Costs nothing when no lockfile exists."""
    index = provenance_index(home, project)
    rows: dict[str, dict[str, Any]] = {}
    if not index:
        return rows
    for meta in listing:
        prov = index.get(os.path.abspath(meta.folder))
        if prov is None:
            continue
        rows[meta.name] = {
            "source": prov.label,
            "sourceType": prov.entry.source_type,
            "ref": prov.entry.ref,
            "commit": prov.entry.commit,
            "lockfile": str(prov.lockfile),
            "locally_modified": is_locally_modified(prov, meta.folder),
        }
    return rows


def installed_line(meta: Any, home: Home) -> str:
    """The viewer's line for an installed skill (see :func:`describe`), '' for the user's own."""
    found = provenance(meta.folder, home)
    return describe(found, meta.folder) if found is not None else ""
