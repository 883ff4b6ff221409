"""``skills remove``: a skill out of every agent folder it was installed into, and the lockfile.

Only what the install wrote is removed: each link that still points at the skill's copy, and
each copy. A folder of that name that is no link to the copy and was not a copy of the install
(the user's own skill in another agent's folder) is left alone and named in a note.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from aiq_tui.skills.install.installer import InstallContext, InstallError, Target
from aiq_tui.skills.install.lockfile import read_lock, write_lock
from aiq_tui.skills.install.targets import Scope, lock_path


@dataclass(frozen=True)
class Removed:
    name: str
    removed: tuple[Path, ...]
    kept: tuple[str, ...]


def remove(
    context: InstallContext, scope: Scope, names: Sequence[str]
) -> list[Removed]:
    path = lock_path(scope, context.home, context.project)
    lock = read_lock(path)
    unknown = [n for n in names if n not in lock.skills]
    if unknown:
        raise InstallError(
            f"{path} has no skill named {', '.join(unknown)}; a skill not installed with "
            "`skills install` is deleted with `aiq-tui skills rm NAME`"
        )
    done: list[Removed] = []
    for name in names:
        entry = lock.skills[name]
        where = Target.of_entry(entry, scope).placement(name, context)
        primary = os.path.realpath(where.primary)
        removed: list[Path] = []
        kept: list[str] = []
        for link in where.links:
            if os.path.islink(link) and os.path.realpath(link) == primary:
                os.unlink(link)
                removed.append(link)
            elif os.path.lexists(link):
                kept.append(f"{link} is not a link to {where.primary}; left as it is")
        for copy in where.copies:
            if os.path.islink(copy):
                os.unlink(copy)
                removed.append(copy)
            elif copy.is_dir():
                shutil.rmtree(copy)
                removed.append(copy)
        lock = lock.without(name)
        done.append(Removed(name, tuple(removed), tuple(kept)))
    write_lock(lock)
    return done
