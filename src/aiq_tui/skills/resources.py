"""A skill's bundled files (level 3 of disclosure): listed cheaply, read only on demand.

Every file in the skill folder except ``SKILL.md`` is a resource, typed by extension. Limits
and globs come from :class:`~aiq_tui.config.SkillsSettings`. Symbolic links are never
followed out of the folder, and linked directories are not descended into (no loops).

A file that looks like a secret (:mod:`aiq_tui.secret_guard`: ``*.pem``, ``credentials.json``,
``id_rsa``…) is never a resource: it is listed as unavailable and never read, whatever the skill
(a project's skill folder may be the project itself). Neither is a file in the config home outside
its ``skills/`` (sessions hold earlier tool results, ``config/`` the permissions): a project that
holds the config home may have a skill folder that reaches it (``guard``, the one
:class:`~aiq_tui.secret_guard.SecretGuard`).
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from aiq_tui.config import SkillsSettings
from aiq_tui.problems import Problem, Severity
from aiq_tui.secret_guard import looks_secret
from aiq_tui.skills.model import Resource, ResourceKind

if TYPE_CHECKING:
    from aiq_tui.secret_guard import SecretGuard

SKILL_FILE = "SKILL.md"
SECRET_REJECTION = "looks like a secret (a key, credentials or a .env file); never read as a skill resource"
CONFIG_HOME_REJECTION = (
    "is in the aiq config home (sessions, config), which the model never reads"
)


def _withheld(relpath: str, real: str, guard: SecretGuard | None) -> str | None:
    """Why a resource is never handed over (by its name, where it really is, the config home)."""
    if looks_secret(relpath) or looks_secret(real):
        return SECRET_REJECTION
    if guard is not None and guard.config_home_reason(real) is not None:
        return CONFIG_HOME_REJECTION
    return None


_KINDS = {
    ".sh": ResourceKind.SCRIPT,
    ".bash": ResourceKind.SCRIPT,
    ".py": ResourceKind.SCRIPT,
    ".yml": ResourceKind.TEMPLATE,
    ".yaml": ResourceKind.TEMPLATE,
    ".json": ResourceKind.TEMPLATE,
    ".template": ResourceKind.TEMPLATE,
    ".md": ResourceKind.REFERENCE,
    ".txt": ResourceKind.REFERENCE,
}


class ResourceListing(tuple[Resource, ...]):
    """A skill's resources, sorted by path, and why the walk stopped early (None: it saw the
    whole folder). A tuple, so callers that only iterate need not know the walk is bounded."""

    stopped: str | None = None

    def __new__(
        cls, resources: tuple[Resource, ...] = (), stopped: str | None = None
    ) -> ResourceListing:
        listing = super().__new__(cls, resources)
        listing.stopped = stopped
        return listing


class _WalkBudget:
    """What is left of one walk: entries it may still examine. The walk stops when they run
    out (it never lists a huge folder to cut the list afterwards)."""

    def __init__(self, settings: SkillsSettings) -> None:
        self.limit = settings.max_resource_entries
        self.left = self.limit
        self.depth = settings.max_resource_depth
        self.stopped: str | None = None

    def take(self) -> bool:
        """True when one more entry may be examined; False stops the walk (said once)."""
        if self.left <= 0:
            self.stopped = self.stopped or (
                f"the walk stopped after {self.limit:,} entries (skills.max_resource_entries);"
                " files past them are not listed"
            )
            return False
        self.left -= 1
        return True

    def too_deep(self, relpath: str) -> bool:
        """``relpath`` (a folder) lies deeper than the walk descends; noted once."""
        if relpath.count("/") < self.depth:
            return False
        self.stopped = self.stopped or (
            f"folders more than {self.depth} levels deep are not walked "
            "(skills.max_resource_depth)"
        )
        return True


class ResourceError(Exception):
    """A resource cannot be read; ``str()`` says which, why and what to do."""


def resource_kind(relpath: str) -> ResourceKind:
    return _KINDS.get(os.path.splitext(relpath)[1].lower(), ResourceKind.OTHER)


@lru_cache(maxsize=256)
def _glob_regex(pattern: str) -> re.Pattern[str]:
    """``**`` spans folders, ``*`` and ``?`` stay within one path segment."""
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


def glob_match(relpath: str, patterns: list[str]) -> bool:
    return any(_glob_regex(pattern).match(relpath) for pattern in patterns)


def list_resources(
    folder: Path, settings: SkillsSettings, guard: SecretGuard | None = None
) -> tuple[ResourceListing, tuple[Problem, ...]]:
    """Resources of the skill in ``folder``, sorted by path, with warnings for rejected ones.

    The walk is bounded (``skills.max_resource_entries`` entries examined,
    ``skills.max_resource_depth`` levels): past either it stops, and the listing's
    :attr:`~ResourceListing.stopped` and a warning say so. Which files a stopped walk saw
    depends on the order the file system lists them."""
    base = os.fspath(folder)
    real: list[str] = []

    def real_root() -> str:
        # Resolving the folder costs an lstat per path component; only a symbolic link inside
        # it (rare) needs the resolved folder to check containment, so resolve it then, once.
        if not real:
            real.append(os.path.realpath(base))
        return real[0]

    found: list[tuple[str, int, str | None]] = []
    problems: list[Problem] = []
    budget = _WalkBudget(settings)
    _walk(base, "", settings, found, problems, real_root, budget)
    if budget.stopped is not None:
        problems.append(
            Problem(
                folder,
                f"resources not all listed: {budget.stopped}",
                hint="move bulk data out of the skill folder, or raise the limit in config.yaml",
                severity=Severity.WARNING,
            )
        )
    found.sort()
    resources: list[Resource] = []
    total = 0
    for relpath, size, rejected in found:
        # By its name, and by where it really is (a linked folder may be inside ~/.ssh).
        withheld = (
            _withheld(relpath, os.path.join(real_root(), relpath), guard)
            if rejected is None
            else None
        )
        if withheld is not None:
            resources.append(Resource(relpath, resource_kind(relpath), size, withheld))
            continue  # not a problem of the skill's: nothing to warn about, only to withhold
        if rejected is None and size > settings.max_resource_bytes:
            rejected = f"{size} bytes, over the {settings.max_resource_bytes}-byte per-file limit"
        if rejected is None and total + size > settings.max_skill_bytes:
            rejected = f"would take the skill past its {settings.max_skill_bytes}-byte total limit"
        if rejected is None:
            total += size
        else:
            problems.append(
                Problem(
                    folder / relpath,
                    f"resource not available: {rejected}",
                    hint="raise skills.max_resource_bytes / max_skill_bytes in config.yaml, or shrink the file",
                    severity=Severity.WARNING,
                )
            )
        resources.append(Resource(relpath, resource_kind(relpath), size, rejected))
    return ResourceListing(tuple(resources), budget.stopped), tuple(problems)


def _walk(
    base: str,
    prefix: str,
    settings: SkillsSettings,
    found: list[tuple[str, int, str | None]],
    problems: list[Problem],
    real_root: Callable[[], str],
    budget: _WalkBudget,
) -> None:
    """List ``base``/``prefix`` (``base`` as given: linked folders inside are not descended
    into, so listing through it reaches what listing through the resolved folder would),
    taking one entry of ``budget`` per entry examined."""
    directory = os.path.join(base, prefix) if prefix else base
    entries: list[os.DirEntry[str]] = []
    try:
        with os.scandir(directory) as iterator:
            for entry in iterator:  # never more held than the budget allows
                if not budget.take():
                    break
                entries.append(entry)
    except OSError as exc:
        where = os.path.join(real_root(), prefix) if prefix else real_root()
        problems.append(
            Problem(
                Path(where),
                f"cannot list folder: {exc.strerror or exc}",
                hint="check its permissions",
                severity=Severity.WARNING,
            )
        )
        return
    for entry in entries:
        relpath = f"{prefix}{entry.name}"
        if not prefix and entry.name == SKILL_FILE:
            continue
        try:
            is_link = entry.is_symlink()
            if entry.is_dir(follow_symlinks=False):
                if glob_match(relpath + "/", settings.resource_exclude):
                    continue
                if budget.too_deep(relpath):
                    continue
                _walk(base, relpath + "/", settings, found, problems, real_root, budget)
                continue
            if not _selected(relpath, settings):
                continue
            if is_link:
                target = os.path.realpath(entry.path)
                if not target.startswith(real_root() + os.sep):
                    found.append(
                        (relpath, 0, "symbolic link points outside the skill folder")
                    )
                    continue
                info = os.stat(target)
                if stat.S_ISDIR(info.st_mode):
                    found.append((relpath, 0, "linked folders are not followed"))
                    continue
            else:
                info = entry.stat(follow_symlinks=False)
            if not stat.S_ISREG(info.st_mode):
                continue  # sockets, fifos, devices: not resources
            found.append((relpath, info.st_size, None))
        except OSError as exc:  # broken link, loop, permission
            if _selected(relpath, settings):
                found.append((relpath, 0, f"cannot read: {exc.strerror or exc}"))


def _selected(relpath: str, settings: SkillsSettings) -> bool:
    return glob_match(relpath, settings.resource_include) and not glob_match(
        relpath, settings.resource_exclude
    )


def read_resource(
    folder: Path,
    relpath: str,
    settings: SkillsSettings,
    skill: str = "",
    guard: SecretGuard | None = None,
) -> str:
    """Text of one resource; raises :class:`ResourceError` when it is outside, missing, too big
    or binary. ``skill`` only names the skill in messages."""
    label = f"{skill}:{relpath}" if skill else relpath
    if (
        not relpath
        or os.path.isabs(relpath)
        or relpath.replace("\\", "/").split("/")[0] == ""
    ):
        raise ResourceError(
            f"resource {label!r}: give a path relative to the skill folder"
        )
    root = os.path.realpath(folder)
    target = os.path.realpath(os.path.join(root, relpath))
    if not target.startswith(root + os.sep):
        raise ResourceError(
            f"resource {label!r} is outside the skill folder {root}; only its own files can be read"
        )
    rel = os.path.relpath(target, root).replace(os.sep, "/")
    if rel == SKILL_FILE:
        raise ResourceError(
            f"resource {label!r} is the skill's own SKILL.md; load the skill instead"
        )
    if not _selected(rel, settings):
        raise ResourceError(
            f"resource {label!r} is excluded by skills.resource_include/resource_exclude"
        )
    withheld = _withheld(rel, target, guard)
    if withheld is not None:
        raise ResourceError(f"resource {label!r} {withheld}")
    try:
        info = os.stat(target)
    except OSError as exc:
        raise ResourceError(
            f"resource {label!r} not found in {root} ({exc.strerror or exc})"
        ) from exc
    if not stat.S_ISREG(info.st_mode):
        raise ResourceError(f"resource {label!r} is not a file")
    if info.st_size > settings.max_resource_bytes:
        raise ResourceError(
            f"resource {label!r} is {info.st_size} bytes, over the {settings.max_resource_bytes}-byte limit "
            "(skills.max_resource_bytes in config.yaml)"
        )
    try:
        with open(target, "rb") as handle:
            data = handle.read(settings.max_resource_bytes + 1)
    except OSError as exc:
        raise ResourceError(
            f"resource {label!r} cannot be read: {exc.strerror or exc}"
        ) from exc
    if b"\x00" in data:
        raise ResourceError(
            f"resource {label!r} is a binary file and cannot be shown as text"
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ResourceError(f"resource {label!r} is not UTF-8 text") from exc
