"""``skills install``: from a source, or exactly what the lockfile names, into agents' folders.

One install, in order — nothing is written before the last three steps:

1. open the source (git: fetch one commit into the cache; a folder: read it as it is);
2. find its skills with the layouts discovery uses, and keep the ones asked for;
3. check out just those folders (git), and run :func:`~.preflight.preflight` on each: an
   invalid skill or a doctor error stops the install;
4. show what each skill may run and ask (``InstallContext.confirm``);
5. stage every copy beside its destination and verify its hash;
6. swap each into place, link the other agents' folders, then write the lockfile.

:func:`restore` (``skills install`` with no SOURCE) fetches each locked commit and refuses a
skill whose files do not hash to the locked ``computedHash``, naming the lockfile, the skill and
the files that differ from the installed copy.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiq_tui.config import AppConfig
from aiq_tui.locations import Home
from aiq_tui.skills.install import staging
from aiq_tui.skills.install.found import FoundSkill, find_skills
from aiq_tui.skills.install.git_fetch import (
    Checkout,
    FetchLimits,
    GitCache,
    GitError,
    Progress,
)
from aiq_tui.skills.install.lockfile import LockedSkill, LockFile, read_lock, write_lock
from aiq_tui.skills.install.preflight import Preflight, RiskCheck, preflight
from aiq_tui.skills.install.sources import Source, parse_source
from aiq_tui.skills.install.targets import (
    DEFAULT_AGENT,
    Placement,
    Scope,
    canonical_agent,
    lock_path,
    placement,
)


class InstallError(Exception):
    """The install cannot go on; ``str()`` says why and what to do. Nothing was written."""


Confirm = Callable[[Sequence[Preflight]], bool]


@dataclass
class InstallContext:
    """What every install step needs: where things are, how to report, how to ask."""

    home: Home
    config: AppConfig
    project: Path
    progress: Progress = lambda _text: None
    confirm: Confirm = lambda _skills: False
    risk_checks: tuple[RiskCheck, ...] = ()
    """Run on every skill before it is written (the CLI passes the doctor's)."""
    notes: list[str] = field(default_factory=list)

    _cache: GitCache | None = field(default=None, init=False, repr=False)

    @property
    def cache(self) -> GitCache:
        """One cache for the whole command (its git runs share the progress line)."""
        if self._cache is None:
            settings = self.config.install
            limits = FetchLimits(
                settings.max_bytes, settings.max_files, settings.timeout_seconds
            )
            self._cache = GitCache(self.home.data_dir / "git", limits, self.progress)
        return self._cache

    def parse(self, text: str, ref: str | None = None) -> Source:
        return parse_source(
            text, ref, github_url=self.config.install.github_url, cwd=self.project
        )


@dataclass(frozen=True)
class Opened:
    """A source ready to read: its root on disk, what links may point into, its commit."""

    source: Source
    root: Path
    bound: Path
    commit: str | None
    checkout: Checkout | None = None


@dataclass(frozen=True)
class Installed:
    """One skill written, and where."""

    name: str
    folders: tuple[Path, ...]
    entry: LockedSkill
    preflight: Preflight

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "folders": [str(folder) for folder in self.folders],
            "source": self.entry.source,
            "sourceType": self.entry.source_type,
            "ref": self.entry.ref,
            "commit": self.entry.commit,
            "computedHash": self.entry.computed_hash,
            **{k: v for k, v in self.preflight.to_json().items() if k != "name"},
        }


@dataclass(frozen=True)
class Target:
    """Where installs go: scope, agents, copy or link, or one ``--dir``."""

    scope: Scope = "user"
    agents: tuple[str, ...] = ()
    copy: bool = False
    folder: Path | None = None

    def canonical(self) -> Target:
        agents = tuple(dict.fromkeys(canonical_agent(a) for a in self.agents))
        return Target(self.scope, agents, self.copy, self.folder)

    def placement(self, name: str, context: InstallContext) -> Placement:
        return placement(
            name, self.agents, self.scope, context.home, context.project,
            copy=self.copy, folder=self.folder,
        )  # fmt: skip

    def lock(self, context: InstallContext) -> Path:
        return lock_path(self.scope, context.home, context.project)

    @classmethod
    def of_entry(cls, entry: LockedSkill, scope: Scope) -> Target:
        return cls(
            scope, entry.agents, entry.copy, Path(entry.dir) if entry.dir else None
        )


# -- opening a source ---------------------------------------------------------------------------


def open_source(
    context: InstallContext, source: Source, commit: str | None = None
) -> Opened:
    """Fetch (git) or check (folder) ``source``; ``commit`` pins the exact commit."""
    if source.url is not None:
        try:
            checkout = context.cache.checkout(source.url, source.ref, commit)
        except GitError as exc:
            raise InstallError(str(exc)) from exc
        return Opened(source, checkout.root, checkout.root, checkout.commit, checkout)
    assert source.path is not None
    path = Path(os.path.abspath(source.path))
    if not path.is_dir():
        raise InstallError(
            f"{source.path}: not a folder; give a folder of skills, a skill folder, a git URL or owner/repo"
            + (
                " (a single SKILL.md, .zip or URL: use `aiq-tui skills import`)"
                if path.exists()
                else ""
            )
        )
    return Opened(source, path, path, _work_tree_commit(path))


def _work_tree_commit(path: Path) -> str | None:
    """HEAD of the git work tree ``path`` is in, when nothing under ``path`` is uncommitted."""
    try:
        head = subprocess.run(
            ["git", "-C", str(path), "rev-parse", "--verify", "HEAD"],
            capture_output=True, text=True, timeout=10, check=False,
        )  # fmt: skip
        if head.returncode != 0:
            return None
        dirty = subprocess.run(
            ["git", "-C", str(path), "status", "--porcelain", "--", "."],
            capture_output=True, text=True, timeout=30, check=False,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return None
    return (
        head.stdout.strip()
        if dirty.returncode == 0 and not dirty.stdout.strip()
        else None
    )


def choose(
    found: Sequence[FoundSkill], names: Sequence[str], where: str
) -> list[FoundSkill]:
    """The skills named (all when none), or :class:`InstallError` naming the ones not there."""
    if not found:
        raise InstallError(f"no SKILL.md found in {where}")
    if not names or "*" in names:
        return list(found)
    by_name = {skill.name: skill for skill in found}
    by_lower = {skill.name.lower(): skill for skill in found}
    missing = [n for n in names if n not in by_name and n.lower() not in by_lower]
    if missing:
        raise InstallError(
            f"{where} has no skill named {', '.join(missing)}; it has: "
            + ", ".join(sorted(by_name))
        )
    return [by_name.get(n) or by_lower[n.lower()] for n in dict.fromkeys(names)]


def widen(
    context: InstallContext, opened: Opened, chosen: Sequence[FoundSkill]
) -> None:
    """Check out the chosen skills' whole folders (git only)."""
    if opened.checkout is None:
        return
    folders = [skill.relative for skill in chosen]
    try:
        context.cache.widen(opened.checkout, folders)
        targets = _link_targets(opened.root, [skill.folder for skill in chosen])
        if targets:  # a link to a shared file of the repository: check that out too
            context.cache.widen(opened.checkout, folders, targets)
    except GitError as exc:
        raise InstallError(str(exc)) from exc


def _link_targets(root: Path, folders: Sequence[Path]) -> list[str]:
    """Paths in the repository, outside the skill folders, that links in them point to."""
    base = os.path.abspath(root)
    found: set[str] = set()
    for folder in folders:
        inside_skill = os.path.abspath(folder) + os.sep
        for directory, dirs, files in os.walk(folder):
            for name in dirs + files:
                path = os.path.join(directory, name)
                if not os.path.islink(path):
                    continue
                target = os.path.normpath(os.path.join(directory, os.readlink(path)))
                if target.startswith(base + os.sep) and not target.startswith(
                    inside_skill
                ):
                    found.add(os.path.relpath(target, base))
    return sorted(found)


def list_source(
    context: InstallContext, text: str, ref: str | None = None
) -> tuple[Opened, list[FoundSkill]]:
    """What ``--list`` shows: the skills a source holds (only SKILL.md files are fetched)."""
    source = context.parse(text, ref)
    opened = open_source(context, source)
    found, notes = find_skills(opened.root, source.subpath)
    context.notes.extend(notes)
    if not found:
        raise InstallError(f"no SKILL.md found in {source.label()}")
    return opened, found


# -- install ------------------------------------------------------------------------------------


def install(
    context: InstallContext,
    text: str,
    *,
    ref: str | None = None,
    names: Sequence[str] = (),
    target: Target = Target(),
    force: bool = False,
) -> list[Installed]:
    """Install the skills of the source ``text`` (all, or ``names``) for ``target``."""
    target = target.canonical()
    source = context.parse(text, ref)
    opened = open_source(context, source)
    found, notes = find_skills(opened.root, source.subpath)
    context.notes.extend(notes)
    chosen = choose(found, names, source.label())
    widen(context, opened, chosen)
    lock = read_lock(target.lock(context))
    plans = []
    for skill in chosen:
        where = target.placement(skill.name, context)
        _refuse_overwrite(skill.name, where, lock, force)
        plans.append((skill, where))
    entries = {
        skill.name: _entry(opened, skill, target, context) for skill, _where in plans
    }
    return write_skills(context, opened, plans, entries, lock, target)


def _entry(
    opened: Opened, skill: FoundSkill, target: Target, context: InstallContext
) -> LockedSkill:
    from aiq_tui.skills.install.folder_hash import skill_folder_hash

    source = opened.source
    lock_source = source.lock_source
    if source.path is not None:
        lock_source = _portable_path(opened.root, target.lock(context).parent)
        relative = skill.folder.relative_to(opened.root).as_posix()
    else:
        relative = skill.relative
    agents = target.agents if target.agents not in ((), (DEFAULT_AGENT,)) else ()
    return LockedSkill(
        source=lock_source,
        source_type=source.source_type,
        computed_hash=skill_folder_hash(skill.folder),
        ref=source.ref,
        skill_path=f"{relative}/SKILL.md" if relative not in ("", ".") else "SKILL.md",
        commit=opened.commit,
        agents=agents,
        copy=target.copy,
        dir=str(target.folder) if target.folder is not None else None,
    )


def _portable_path(path: Path, base: Path) -> str:
    """A local source as the lockfile records it: relative to the lockfile's folder when
    inside it (a project's lock stays valid in every clone), else absolute."""
    real, real_base = os.path.realpath(path), os.path.realpath(base)
    if real == real_base or real.startswith(real_base + os.sep):
        return "./" + os.path.relpath(real, real_base) if real != real_base else "."
    return real


def _refuse_overwrite(name: str, where: Placement, lock: LockFile, force: bool) -> None:
    """A folder of that name that this lock did not install is the user's: never replaced
    without ``--force``."""
    if force or name in lock.skills:
        return
    for folder in where.folders:
        if os.path.lexists(folder):
            raise InstallError(
                f"{folder} already exists and {lock.path.name} ({lock.path}) did not install it; "
                f"use --force to replace it, or remove it first"
            )


def write_skills(
    context: InstallContext,
    opened: Opened,
    plans: Sequence[tuple[FoundSkill, Placement]],
    entries: dict[str, LockedSkill],
    lock: LockFile,
    target: Target,
) -> list[Installed]:
    """Steps 3–6 of the module doc for skills already found and checked out."""
    checks = [
        preflight(skill.folder, context.config.skills, context.risk_checks)
        for skill, _where in plans
    ]
    failed = [check for check in checks if not check.ok]
    if failed:
        raise InstallError(
            "nothing was installed: "
            + "; ".join(f"{check.name}: {' / '.join(check.errors)}" for check in failed)
        )
    if any(check.may_run for check in checks) and not context.confirm(checks):
        raise InstallError("nothing was installed: not confirmed")
    for _skill, where in plans:
        for folder in where.folders:
            context.notes.extend(staging.recover(folder.parent))
    staged: list[staging.Staged] = []
    try:
        for skill, where in plans:
            for copy in where.copies:
                staged.append(staging.stage(skill.folder, copy, opened.bound))
    except BaseException:
        for item in staged:
            staging.discard(item)
        raise
    by_destination = {item.destination: item for item in staged}
    try:
        _verify(plans, entries, by_destination)
    except BaseException:
        for item in staged:
            staging.discard(item)
        raise
    installed: list[Installed] = []
    # From here on each skill is swapped in whole and then locked; an interruption between
    # two skills leaves the first installed and locked, the second as it was.
    try:
        for (skill, where), check in zip(plans, checks):
            entry = entries[skill.name]
            first = by_destination[where.primary]
            if first.hash != entry.computed_hash:
                entry = replaced(entry, installed_hash=first.hash)
            for copy in where.copies:
                staging.put_in_place(by_destination[copy])
            for link in where.links:
                staging.link(where.primary, link)
            lock = lock.with_skill(skill.name, entry)
            write_lock(lock)  # after each skill: the lock always names what is in place
            installed.append(Installed(skill.name, where.folders, entry, check))
    finally:
        for item in staged:  # what an interruption left staged and not yet in place
            if item.folder.exists():
                staging.discard(item)
    return installed


def _verify(
    plans: Sequence[tuple[FoundSkill, Placement]],
    entries: dict[str, LockedSkill],
    staged: dict[Path, staging.Staged],
) -> None:
    """Every staged copy hashes as its source did (a copy that dereferenced links cannot, by
    design: its own hash is recorded instead), and two copies of one skill hash alike."""
    for skill, where in plans:
        hashes = {staged[copy].hash for copy in where.copies}
        first = staged[where.primary]
        if len(hashes) > 1 or (
            not first.dereferenced and first.hash != entries[skill.name].computed_hash
        ):
            raise InstallError(
                f"nothing was installed: the copy of {skill.name} does not hash like its source "
                f"({first.hash} ≠ {entries[skill.name].computed_hash}); was {skill.folder} "
                "changed while it was copied?"
            )


def replaced(entry: LockedSkill, **changes: Any) -> LockedSkill:
    from dataclasses import replace

    return replace(entry, **changes)


# -- restore ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Restored:
    installed: tuple[Installed, ...]
    up_to_date: tuple[str, ...]
    failed: tuple[str, ...]


def restore(
    context: InstallContext, scope: Scope, names: Sequence[str] = ()
) -> Restored:
    """Install exactly what the lockfile of ``scope`` names (see the module doc)."""
    from aiq_tui.skills.install.folder_hash import skill_folder_hash

    path = lock_path(scope, context.home, context.project)
    lock = read_lock(path)
    if not lock.skills:
        raise InstallError(
            f"{path} names no skills; install one with `aiq-tui skills install SOURCE`"
        )
    wanted = [n for n in names if n not in lock.skills]
    if wanted:
        raise InstallError(f"{path} has no skill named {', '.join(wanted)}")
    up_to_date: list[str] = []
    failed: list[str] = []
    groups: dict[tuple[str, str, str | None, str | None], list[str]] = {}
    for name, entry in sorted(lock.skills.items()):
        if names and name not in names:
            continue
        target = Target.of_entry(entry, scope)
        where = target.placement(name, context)
        if (
            where.primary.is_dir()
            and _links_ok(where)
            and skill_folder_hash(where.primary) == entry.expected_hash
        ):
            up_to_date.append(name)
            continue
        groups.setdefault(
            (entry.source, entry.source_type, entry.ref, entry.commit), []
        ).append(name)
    installed: list[Installed] = []
    for (source_text, source_type, ref, commit), members in groups.items():
        try:
            installed += _restore_group(
                context, lock, scope, source_text, source_type, ref, commit, members
            )
        except InstallError as exc:
            failed.append(str(exc))
        lock = read_lock(path)
    return Restored(tuple(installed), tuple(up_to_date), tuple(failed))


def _links_ok(where: Placement) -> bool:
    real = os.path.realpath(where.primary)
    return all(os.path.realpath(link) == real for link in where.links)


def _restore_group(
    context: InstallContext,
    lock: LockFile,
    scope: Scope,
    source_text: str,
    source_type: str,
    ref: str | None,
    commit: str | None,
    names: list[str],
) -> list[Installed]:
    from aiq_tui.skills.install.changes import compare
    from aiq_tui.skills.install.folder_hash import skill_folder_hash

    source = source_for_entry(context, source_text, source_type, ref, lock.path.parent)
    opened = open_source(context, source, commit)
    found, _notes = find_skills(opened.root)
    by_path = {skill.skill_path: skill for skill in found}
    by_name = {skill.name: skill for skill in found}
    plans: list[tuple[FoundSkill, Placement]] = []
    entries: dict[str, LockedSkill] = {}
    for name in names:
        entry = lock.skills[name]
        skill = by_path.get(entry.skill_path or "") or by_name.get(name)
        if skill is None:
            raise InstallError(
                f"{lock.path}: {name} is not in {source.label()} at {opened.commit or 'its newest commit'} "
                f"(skillPath {entry.skill_path or '?'})"
            )
        plans.append((skill, Target.of_entry(entry, scope).placement(name, context)))
    widen(context, opened, [skill for skill, _ in plans])
    for (skill, where), name in zip(plans, names):
        entry = lock.skills[name]
        actual = skill_folder_hash(skill.folder)
        if actual != entry.computed_hash:
            differing = ""
            if where.primary.is_dir():
                changed = [c.path for c in compare(where.primary, skill.folder).files]
                differing = f"; the files that differ from the installed copy: {', '.join(changed) or 'none'}"
            raise InstallError(
                f"{lock.path}: skills[{name!r}].computedHash is {entry.computed_hash}, but "
                f"{skill.skill_path} at {source.label()}@{(opened.commit or '?')[:12]} hashes to "
                f"{actual}{differing}. The source changed under the locked ref; check it, then run "
                f"`aiq-tui skills update {name}` to accept it"
            )
        entries[name] = replaced(entry, commit=opened.commit or entry.commit)
    target = Target.of_entry(lock.skills[names[0]], scope)
    return write_skills(context, opened, plans, entries, lock, target)


def source_for_entry(
    context: InstallContext, text: str, source_type: str, ref: str | None, base: Path
) -> Source:
    """The :class:`Source` a lock entry names (a local path relative to the lockfile's folder)."""
    if source_type == "local":
        path = Path(text) if os.path.isabs(text) else base / text
        return Source("local", text, path=path, ref=ref)
    if source_type not in ("github", "gitlab", "git"):
        raise InstallError(
            f"a {source_type!r} source cannot be fetched again here; import it again "
            "(`aiq-tui skills import`)"
        )
    return context.parse(text, ref)
