"""``skills check`` and ``skills update``: what is new upstream, and taking it safely.

For each locked skill (or the ones named) :func:`survey` fetches its source's newest commit
(its locked ``ref``, or ``--ref``; a local folder is read again), finds the skill where the lock
says it is, and compares: the new files' hash against ``computedHash`` (changed upstream?), and
the installed copy's hash against it (edited here?). A ref that is a tag and now names another
commit than the one locked is reported as moved.

:func:`update` then, per skill with changes: refuses one edited here (``--force`` drops the
edits), runs validate and the doctor on the new version (an error keeps the old one), shows what
the new version may run and asks, and only then stages, verifies and swaps it in; the lockfile
is written last. A failure at any step leaves the old version where it was.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from aiq_tui.skills.install.changes import SkillChanges, compare
from aiq_tui.skills.install.folder_hash import skill_folder_hash
from aiq_tui.skills.install.found import FoundSkill, find_skills
from aiq_tui.skills.install.installer import (
    InstallContext,
    Installed,
    InstallError,
    Opened,
    Target,
    open_source,
    replaced,
    source_for_entry,
    widen,
    write_skills,
)
from aiq_tui.skills.install.lockfile import LockedSkill, read_lock
from aiq_tui.skills.install.targets import Scope, lock_path


@dataclass(frozen=True)
class SkillStatus:
    """One locked skill against its source's newest commit."""

    name: str
    entry: LockedSkill
    state: str
    """``up-to-date``, ``update-available``, ``error``."""
    new_commit: str | None = None
    new_hash: str | None = None
    locally_modified: bool = False
    missing: bool = False
    moved_ref: bool = False
    changes: SkillChanges | None = None
    message: str = ""
    found: FoundSkill | None = field(default=None, compare=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "state": self.state,
            "source": self.entry.source,
            "ref": self.entry.ref,
            "locked_commit": self.entry.commit,
            "new_commit": self.new_commit,
            "locked_hash": self.entry.computed_hash,
            "new_hash": self.new_hash,
            "locally_modified": self.locally_modified,
            "missing": self.missing,
            "moved_ref": self.moved_ref,
            "changes": self.changes.to_json() if self.changes else None,
            "message": self.message,
        }


def survey(
    context: InstallContext,
    scope: Scope,
    names: Sequence[str] = (),
    ref: str | None = None,
) -> tuple[list[SkillStatus], dict[str, Opened]]:
    """Every locked skill of ``scope`` (or ``names``) against its source's newest commit."""
    path = lock_path(scope, context.home, context.project)
    lock = read_lock(path)
    unknown = [n for n in names if n not in lock.skills]
    if unknown:
        raise InstallError(
            f"{path} has no skill named {', '.join(unknown)} (installed with skills install?)"
        )
    chosen = [n for n in sorted(lock.skills) if not names or n in names]
    statuses: list[SkillStatus] = []
    opened_by_name: dict[str, Opened] = {}
    groups: dict[tuple[str, str, str | None], list[str]] = {}
    for name in chosen:
        entry = lock.skills[name]
        groups.setdefault(
            (entry.source, entry.source_type, ref or entry.ref), []
        ).append(name)
    for (source_text, source_type, group_ref), members in groups.items():
        try:
            source = source_for_entry(
                context, source_text, source_type, group_ref, path.parent
            )
            opened = open_source(context, source)
        except InstallError as exc:
            statuses += [
                SkillStatus(n, lock.skills[n], "error", message=str(exc))
                for n in members
            ]
            continue
        found, _notes = find_skills(opened.root)
        by_path = {skill.skill_path: skill for skill in found}
        by_name = {skill.name: skill for skill in found}
        located = {
            n: by_path.get(lock.skills[n].skill_path or "") or by_name.get(n)
            for n in members
        }
        try:
            widen(
                context,
                opened,
                [skill for skill in located.values() if skill is not None],
            )
        except InstallError as exc:
            statuses += [
                SkillStatus(n, lock.skills[n], "error", message=str(exc))
                for n in members
            ]
            continue
        for name in members:
            statuses.append(
                _status(
                    context,
                    scope,
                    name,
                    lock.skills[name],
                    located[name],
                    opened,
                    group_ref,
                )
            )
            opened_by_name[name] = opened
    return statuses, opened_by_name


def _status(
    context: InstallContext,
    scope: Scope,
    name: str,
    entry: LockedSkill,
    skill: FoundSkill | None,
    opened: Opened,
    ref: str | None,
) -> SkillStatus:
    where = Target.of_entry(entry, scope).placement(name, context)
    installed = where.primary if where.primary.is_dir() else None
    modified = (
        installed is not None and skill_folder_hash(installed) != entry.expected_hash
    )
    moved = bool(
        ref and entry.commit and opened.commit and opened.commit != entry.commit
        and ref == entry.ref and not _is_branch(context, opened, ref)
    )  # fmt: skip
    if skill is None:
        return SkillStatus(
            name, entry, "error", opened.commit, locally_modified=modified, missing=installed is None,
            moved_ref=moved,
            message=f"{name} is no longer in {opened.source.label()} (looked for {entry.skill_path or name})",
        )  # fmt: skip
    new_hash = skill_folder_hash(skill.folder)
    changed = new_hash != entry.computed_hash
    changes = compare(installed, skill.folder) if changed or installed is None else None
    return SkillStatus(
        name,
        entry,
        "update-available" if changed else "up-to-date",
        opened.commit,
        new_hash,
        locally_modified=modified,
        missing=installed is None,
        moved_ref=moved,
        changes=changes,
        found=skill,
    )


def _is_branch(context: InstallContext, opened: Opened, ref: str) -> bool:
    """Whether ``ref`` is a branch of the source (a branch moving is news, a tag moving is
    a warning). Asked of the server only for a git source."""
    if opened.source.url is None:
        return True
    return context.cache.is_branch(opened.source.url, ref)


@dataclass(frozen=True)
class UpdateResult:
    updated: tuple[Installed, ...]
    statuses: tuple[SkillStatus, ...]
    refused: tuple[str, ...]


def update(
    context: InstallContext,
    scope: Scope,
    names: Sequence[str] = (),
    ref: str | None = None,
    force: bool = False,
) -> UpdateResult:
    """Take each available update (see the module doc); returns what was replaced, the survey
    and why each skill not replaced was refused."""
    statuses, opened_by_name = survey(context, scope, names, ref)
    path = lock_path(scope, context.home, context.project)
    refused: list[str] = []
    updated: list[Installed] = []
    for status in statuses:
        wants = status.state == "update-available" or (
            status.missing and status.found is not None
        )
        if not wants:
            continue
        if status.locally_modified and not force:
            refused.append(
                f"{status.name}: the installed copy was edited here (it no longer matches the locked "
                "hash); an update would lose the edits. Keep them, or run again with --force"
            )
            continue
        assert status.found is not None
        lock = read_lock(path)
        target = Target.of_entry(status.entry, scope)
        where = target.placement(status.name, context)
        entry = replaced(
            status.entry,
            computed_hash=status.new_hash or status.entry.computed_hash,
            commit=status.new_commit or status.entry.commit,
            ref=ref or status.entry.ref,
            skill_path=status.found.skill_path
            if status.entry.source_type != "local"
            else status.entry.skill_path,
            installed_hash=None,
        )
        try:
            updated += write_skills(
                context,
                opened_by_name[status.name],
                [(status.found, where)],
                {status.name: entry},
                lock,
                target,
            )
        except InstallError as exc:
            refused.append(f"{status.name}: {exc}; the installed version is unchanged")
    return UpdateResult(tuple(updated), tuple(statuses), tuple(refused))
