"""Seed 001 migration: the old flat config home → ``config/`` and ``sessions/``.

Old layout: ``config.yaml``, ``sources.yaml`` and ``session_*.json`` directly in the home.
The migration is idempotent (a second run finds nothing to move), never overwrites (a file
whose destination exists stays where it is and is reported), and copies every file it moves
into ``backup-<timestamp>/`` first.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import msgspec

from aiq_tui.locations import Home
from aiq_tui.problems import Problem, Severity


class MigrationReport(msgspec.Struct, frozen=True):
    moved: tuple[tuple[Path, Path], ...] = ()
    """(old path, new path) for every file moved."""
    skipped: tuple[Path, ...] = ()
    """Old files left in place because their destination already exists."""
    backup_dir: Path | None = None
    """Where the originals were copied before moving; None when nothing moved."""
    problems: tuple[Problem, ...] = ()

    @property
    def changed(self) -> bool:
        return bool(self.moved)

    def summary(self) -> str:
        """One line for the user, e.g. ``moved 3 files into the new layout (backup: …)``."""
        if not self.moved and not self.skipped:
            return "nothing to migrate"
        parts = []
        if self.moved:
            parts.append(
                f"moved {len(self.moved)} file(s) into the new layout (backup: {self.backup_dir})"
            )
        if self.skipped:
            parts.append(
                f"left {len(self.skipped)} file(s) in place because the new location exists"
            )
        return "; ".join(parts)


def planned_moves(home: Home) -> list[tuple[Path, Path]]:
    """Old-layout files present in ``home`` and where each belongs."""
    root = home.root
    moves = [
        (root / "config.yaml", home.config_file),
        (root / "sources.yaml", home.sources_file),
    ]
    try:
        names = sorted(os.listdir(root))
    except OSError:
        return []
    moves += [
        (root / name, home.sessions_dir / name)
        for name in names
        if name.startswith("session_") and name.endswith(".json")
    ]
    return [(old, new) for old, new in moves if old.is_file()]


def migrate_flat_layout(home: Home, now: float | None = None) -> MigrationReport:
    """Move old-layout files into the new layout; see the module docstring for guarantees."""
    plan = planned_moves(home)
    if not plan:
        return MigrationReport()
    todo = [(old, new) for old, new in plan if not (new.exists() or new.is_symlink())]
    skipped = tuple(old for old, new in plan if (old, new) not in todo)
    problems = [
        Problem(
            old,
            f"not migrated: {new} already exists",
            hint=f"compare the two, keep one, and delete {old}",
            severity=Severity.WARNING,
        )
        for old, new in plan
        if (old, new) not in todo
    ]
    if not todo:
        return MigrationReport(skipped=skipped, problems=tuple(problems))
    backup = _backup_dir(home.root, time.time() if now is None else now)
    moved: list[tuple[Path, Path]] = []
    import shutil  # only when there is something to migrate

    try:
        backup.mkdir(mode=0o700)
        for old, _ in todo:
            shutil.copy2(old, backup / old.name)
    except OSError as exc:
        # Without a complete backup nothing is moved.
        problems.append(
            Problem(
                backup,
                f"cannot back up the old files ({exc.strerror or exc}); nothing was moved",
                hint="free disk space or fix permissions, then start again",
            )
        )
        return MigrationReport(skipped=skipped, problems=tuple(problems))
    for old, new in todo:
        try:
            new.parent.mkdir(parents=True, exist_ok=True)
            if new.exists():  # appeared meanwhile: never overwrite
                skipped += (old,)
                continue
            os.replace(old, new)
            moved.append((old, new))
        except OSError as exc:
            problems.append(
                Problem(
                    old,
                    f"cannot move to {new}: {exc.strerror or exc}",
                    hint=f"move it by hand; a copy is in {backup}",
                )
            )
    return MigrationReport(tuple(moved), skipped, backup, tuple(problems))


def _backup_dir(root: Path, now: float) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now))
    candidate = root / f"backup-{stamp}"
    counter = 1
    while candidate.exists():
        counter += 1
        candidate = root / f"backup-{stamp}-{counter}"
    return candidate
