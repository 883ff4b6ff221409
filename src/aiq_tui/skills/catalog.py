"""The skills the app knows — the one list: metadata for all, bodies and resources on demand.

Only ``status: active`` skills (the default) are *in* the catalog: iterated, matched, listed to
the model and turned into tools. ``inactive`` / ``draft`` skills are kept aside
(:meth:`SkillCatalog.dormant`) so that ``skills list`` and the skills pane can show them with
their status. Every change to skills on disk — save, delete, enable/disable, resources,
import — goes through the catalog (:mod:`aiq_tui.skills.store` does the file work) and is
followed by a rescan, so there is no second list that can drift.

A :class:`SkillCatalog` is built by a metadata-only scan (:func:`~aiq_tui.skills.discover.scan`).
Bodies are read when :meth:`SkillCatalog.load` asks and cached by path + mtime, so an edited
file is re-read and an unchanged one never is. :meth:`SkillCatalog.rescan` re-scans for live
reload and returns what changed; a skill whose file is broken by an edit keeps its last good
version and the problem is reported.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from aiq_tui.config import SkillsSettings
from aiq_tui.problems import Problem, Severity
from aiq_tui.skills.definition import DEFINITION_FIELD, definition_from_body
from aiq_tui.skills.discover import DISABLED_SUFFIX, SkillDir, scan
from aiq_tui.skills.model import Resource, Skill, SkillMeta
from aiq_tui.skills.parse import decode_skill_bytes, parse_skill_text, unix_newlines
from aiq_tui.skills.resources import SKILL_FILE, ResourceError, list_resources
from aiq_tui.skills.resources import read_resource as _read_resource
from aiq_tui.skills.store import (
    SkillEntry,
    StoreError,
    remove_skill_folder,
    set_description_in_file,
    set_status_in_file,
    write_resource,
    write_skill,
)
from aiq_tui.skills.tool_names import tool_owners

if TYPE_CHECKING:
    from aiq_tui.secret_guard import SecretGuard
    from aiq_tui.skills.catalog_cache import CatalogCache

__all__ = [
    "CatalogDiff",
    "ResourceError",
    "SkillCatalog",
    "SkillLoadError",
    "StoreError",
    "UnknownSkillError",
]


class UnknownSkillError(KeyError):
    """No skill has this name; ``str()`` suggests close names."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown skill"


class SkillLoadError(Exception):
    """A skill's SKILL.md could not be read or parsed when its body was needed."""


class CatalogDiff(msgspec.Struct, frozen=True):
    """What a :meth:`SkillCatalog.rescan` changed (names sorted)."""

    added: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    problems: tuple[Problem, ...] = ()

    @property
    def empty(self) -> bool:
        return not (self.added or self.changed or self.removed or self.problems)


class SkillCatalog:
    """Iterable of :class:`SkillMeta` (sorted by name); thread-safe for a reloading watcher."""

    def __init__(
        self,
        dirs: Sequence[SkillDir],
        settings: SkillsSettings | None = None,
        cache: CatalogCache | None = None,
        guard: SecretGuard | None = None,
    ):
        self.dirs: tuple[SkillDir, ...] = tuple(dirs)
        self.guard = guard
        """The secret guard of the config home: what of a skill folder is never a resource."""
        self._scan = (
            cache.scan if cache is not None else scan
        )  # the cache parses only what changed
        self.settings = settings or SkillsSettings()
        self._lock = threading.RLock()
        self._bodies: dict[str, tuple[int, Skill]] = {}  # path → (mtime_ns, skill)
        self._resources: dict[
            str, tuple[int, tuple[Resource, ...], tuple[Problem, ...]]
        ] = {}
        self.scan_started_ns = time.time_ns()
        clock = time.perf_counter()
        result = self._scan(self.dirs, self.settings) if self.dirs else None
        self.scan_seconds = time.perf_counter() - clock
        """When the first scan (discovery at start-up) began, and how long it took."""
        self.scan_cached = getattr(getattr(cache, "last", None), "hits", 0)
        self._metas: dict[str, SkillMeta] = {}
        self._dormant: dict[str, SkillMeta] = {}
        if result:
            self._metas, self._dormant = _split_by_status(result.metas)
        self._problems: tuple[Problem, ...] = result.problems if result else ()
        self.generation = 0
        """Bumped by every scan (caches keyed on the catalog use it)."""
        self._owners: tuple[int, dict[str, str]] | None = (
            None  # (generation, tool → skill)
        )
        self._reported: dict[str, SkillMeta] = dict(
            self._metas
        )  # what the last rescan() reported

    @classmethod
    def from_metas(
        cls, metas: Sequence[SkillMeta], settings: SkillsSettings | None = None
    ) -> SkillCatalog:
        """A catalog over already-built metadata (tests, tools); ``rescan`` finds nothing new."""
        catalog = cls((), settings)
        catalog._metas, catalog._dormant = _split_by_status(
            {meta.name: meta for meta in metas}
        )
        catalog._reported = dict(catalog._metas)
        return catalog

    # -- metadata ---------------------------------------------------------------------------

    def __iter__(self) -> Iterator[SkillMeta]:
        return iter(tuple(self._metas.values()))

    def __len__(self) -> int:
        return len(self._metas)

    def tool_owners(self) -> dict[str, str]:
        """``skill_<name>`` tool → skill name for the active skills, kept until a rescan."""
        kept = self._owners
        if kept is None or kept[0] != self.generation:
            kept = self._owners = (self.generation, tool_owners(self))
        return kept[1]

    def __contains__(self, name: object) -> bool:
        return name in self._metas

    def get(self, name: str) -> SkillMeta | None:
        return self._metas.get(name)

    def names(self) -> list[str]:
        return list(self._metas)

    def dormant(self) -> tuple[SkillMeta, ...]:
        """Skills with ``status: inactive`` or ``draft``: listed with their status, never loaded."""
        return tuple(self._dormant.values())

    def listing(self) -> list[SkillMeta]:
        """Every skill, active or not, sorted by name (what ``skills list`` and the pane show)."""
        return sorted(
            [*self._metas.values(), *self._dormant.values()], key=lambda meta: meta.name
        )

    def find(self, name: str) -> SkillMeta | None:
        """Metadata of a skill whatever its status."""
        return self._metas.get(name) or self._dormant.get(name)

    @property
    def problems(self) -> tuple[Problem, ...]:
        """Warnings from the last scan (skipped skills, missing dirs, name clashes)."""
        return self._problems

    def close_names(self, name: str, n: int = 3) -> list[str]:
        """Names that look like ``name`` (typos, partial names), best first."""
        names = list(self._metas)
        import difflib  # only when a name is not found

        close = difflib.get_close_matches(name, names, n=n, cutoff=0.5)
        lowered = name.lower()
        for candidate in names:
            if len(close) >= n:
                break
            if lowered and lowered in candidate.lower() and candidate not in close:
                close.append(candidate)
        return close[:n]

    def require(self, name: str) -> SkillMeta:
        """The skill's metadata, or :class:`UnknownSkillError` naming close matches."""
        meta = self._metas.get(name)
        if meta is None:
            close = self.close_names(name)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise UnknownSkillError(f"unknown skill {name!r}{hint}")
        return meta

    # -- bodies and resources ---------------------------------------------------------------

    def load(self, name: str) -> Skill:
        """The skill with its body; read from disk only when the file changed since last time.

        Works for a dormant skill too (the viewer shows it); only matching loads skills into
        a prompt, and it sees active skills only."""
        meta = self._dormant.get(name) or self.require(name)
        key = meta.file
        cached = self._bodies.get(key)
        try:
            mtime = os.stat(key).st_mtime_ns
        except OSError as exc:
            if cached:
                return cached[1]
            raise SkillLoadError(
                f"{meta.path}: cannot read SKILL.md: {exc.strerror or exc}"
            ) from exc
        if cached and cached[0] == mtime:
            return cached[1]
        body, problem = self._read_body(meta, mtime)
        if body is None:
            if cached:  # a broken edit: keep the last good body
                return cached[1]
            raise SkillLoadError(str(problem))
        skill = Skill(meta, body)
        with self._lock:
            self._bodies[key] = (mtime, skill)
        return skill

    def _read_body(
        self, meta: SkillMeta, mtime_ns: int | None = None
    ) -> tuple[str | None, Problem | None]:
        """The body of ``meta``'s file. Unchanged since discovery (same mtime and size), it is
        the text after the offset discovery found, without parsing the frontmatter again (the
        doctor loads every body: YAML parsing was a third of that)."""
        try:
            with open(meta.path, "rb") as handle:
                data = handle.read(self.settings.max_skill_md_bytes + 1)
        except OSError as exc:
            return None, Problem(
                meta.path, f"cannot read SKILL.md: {exc.strerror or exc}"
            )
        if len(data) > self.settings.max_skill_md_bytes:
            return None, Problem(
                meta.path,
                f"SKILL.md is over the {self.settings.max_skill_md_bytes}-byte limit",
            )
        text, problem = decode_skill_bytes(data, meta.path)
        if text is None:
            return None, problem
        if mtime_ns == meta.mtime_ns and len(data) == meta.size and meta.body_offset:
            return unix_newlines(text)[meta.body_offset :], None
        result = parse_skill_text(text, meta.path)
        if result.meta_fields is None:
            return None, result.problems[0] if result.problems else Problem(
                meta.path, "cannot parse SKILL.md"
            )
        return result.body, None

    def definition(self, name: str) -> dict[str, object]:
        """What an executable skill runs (frontmatter field or lango's fenced block)."""
        meta = self._metas.get(name) or self.require(name)
        if meta.type not in DEFINITION_FIELD:
            return {"content": self.load(name).body}
        key = DEFINITION_FIELD[meta.type]
        if key in meta.extras:
            return {key: meta.extras[key]}
        return definition_from_body(meta.type, self.load(name).body)

    def resources(self, name: str) -> tuple[Resource, ...]:
        """The skill's resources (listed on first use, re-listed when the folder changes)."""
        return self._resource_listing(name)[0]

    def resource_problems(self, name: str) -> tuple[Problem, ...]:
        """Warnings from listing the skill's resources (rejected files)."""
        return self._resource_listing(name)[1]

    def _resource_listing(
        self, name: str
    ) -> tuple[tuple[Resource, ...], tuple[Problem, ...]]:
        meta = self._dormant.get(name) or self.require(
            name
        )  # the viewer lists a dormant skill's files too
        key = str(meta.folder)
        try:
            stamp = os.stat(key).st_mtime_ns
        except OSError:
            stamp = -1
        cached = self._resources.get(key)
        if cached and cached[0] == stamp:
            return cached[1], cached[2]
        resources, problems = list_resources(meta.folder, self.settings, self.guard)
        with self._lock:
            self._resources[key] = (stamp, resources, problems)
        return resources, problems

    def read_resource(self, name: str, relpath: str) -> str:
        """Text of one resource (level 3). Raises :class:`ResourceError` with a clear message."""
        meta = self.get(name)
        if meta is None:
            close = self.close_names(name)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise ResourceError(f"unknown skill {name!r}{hint}")
        normalized = relpath.replace("\\", "/")
        while normalized.startswith("./"):
            normalized = normalized[2:]
        # The listing knows about per-skill limits; a file not listed yet (just created) is
        # still checked for containment, globs and the per-file limit by the reader.
        entry = next((r for r in self.resources(name) if r.relpath == normalized), None)
        if entry is not None and entry.rejected:
            raise ResourceError(
                f"resource {name}:{normalized} is not available: {entry.rejected}"
            )
        return _read_resource(
            meta.folder, normalized, self.settings, skill=name, guard=self.guard
        )

    # -- live reload ------------------------------------------------------------------------

    def use_dirs(self, dirs: Sequence[SkillDir]) -> None:
        """Scan ``dirs`` from now on (the user trusted or untrusted the project: the same
        folders with another trust, in another order); the next :meth:`rescan` reports what
        that changed."""
        with self._lock:
            self.dirs = tuple(dirs)

    def rescan(self) -> CatalogDiff:
        """Scan the directories again and swap in the result; returns what changed since the
        last ``rescan`` — including changes the catalog made itself (save, delete, status),
        so the engine's reload sees them.

        A skill whose SKILL.md still exists but no longer loads keeps its previous metadata
        (and cached body); the problem is in the diff and in :attr:`problems`.
        """
        if (
            not self.dirs
        ):  # built from metadata (from_metas): nothing on disk to re-read
            return CatalogDiff()
        refreshed = self._refresh()
        with self._lock:
            old, new = self._reported, self._metas
            self._reported = dict(new)
        added = tuple(name for name in new if name not in old)
        removed = tuple(name for name in old if name not in new)
        changed = tuple(
            name for name in new if name in old and _differs(old[name], new[name])
        )
        return CatalogDiff(added, changed, removed, refreshed.problems)

    def _refresh(self) -> CatalogDiff:
        """Re-scan and swap in the result; the diff is against the previous scan."""
        if not self.dirs:
            return CatalogDiff()
        result = self._scan(self.dirs, self.settings)
        active, dormant = _split_by_status(result.metas)
        with self._lock:
            old = self._metas
            new = dict(active)
            kept: list[str] = []
            for name, meta in old.items():
                if name not in new and meta.file in result.failed:
                    new[name] = meta
                    kept.append(name)
            new = dict(sorted(new.items()))
            added = tuple(name for name in new if name not in old)
            removed = tuple(name for name in old if name not in new)
            changed = tuple(
                name for name in new if name in old and _differs(old[name], new[name])
            )
            problems = result.problems + tuple(
                Problem(
                    old[name].path,
                    f"skill {name!r} keeps its last good version until the file is fixed",
                    hint="fix the problem reported above; the skill reloads when the file is saved",
                    severity=Severity.WARNING,
                )
                for name in kept
            )
            self._metas = new
            self._dormant = dormant
            self._problems = problems
            self.generation += 1
            for name in removed + changed:
                self._bodies.pop(old[name].file, None)
                self._resources.pop(str(old[name].folder), None)
        return CatalogDiff(added, changed, removed, problems)

    # -- changing skills on disk (each followed by a rescan) ----------------------------------

    def writable_dir(self) -> Path:
        """Where new skills go: the first ``--skills-dir`` / ``skills.dirs`` entry, else the
        home's ``skills/`` (the first directory that exists and is writable, or can be made)."""
        candidates = [d for d in self.dirs if d.origin in ("flag", "config", "home")]
        for directory in candidates:
            path = directory.path
            probe = path if path.exists() else path.parent
            if (
                probe.is_dir()
                and os.access(probe, os.W_OK)
                and (not path.exists() or path.is_dir())
            ):
                return path
        raise StoreError(
            "no writable skills directory: give --dir / --skills-dir or set skills.dirs"
        )

    def save(self, entry: SkillEntry, directory: Path | None = None) -> Path:
        """Write ``entry`` as ``<dir>/<name>/SKILL.md`` (replacing the skill of that name where it
        lives, else in :meth:`writable_dir`) and rescan. Returns the SKILL.md path."""
        existing = self.find(entry.name)
        if directory is None:
            directory = (
                existing.folder.parent if existing is not None else self.writable_dir()
            )
        path = write_skill(directory, entry)
        self._refresh()
        return path

    def delete(self, name: str) -> Path:
        """Remove the skill's whole folder and rescan; returns the folder removed."""
        meta = self.find(name)
        if meta is None:
            self.require(name)  # raises UnknownSkillError with close names
            raise AssertionError  # pragma: no cover
        folder = meta.folder
        remove_skill_folder(folder)
        self._refresh()
        return folder

    def set_status(self, name: str, status: str) -> SkillMeta:
        """Set ``status:`` in the skill's SKILL.md (atomic write) and rescan.

        A folder disabled the aiq way (``NAME.disabled``) is renamed back when enabled."""
        meta = self.find(name)
        if meta is None:
            renamed = self._renamed_disabled(name) if status == "active" else None
            # Neither found nor disabled: require() raises, naming close matches.
            meta_path = renamed if renamed is not None else self.require(name).path
        else:
            meta_path = meta.path
        set_status_in_file(meta_path, status)
        self._refresh()
        found = self.find(name)
        if found is None:
            problems = "; ".join(
                str(p)
                for p in self._problems
                if p.path and str(p.path).startswith(str(meta_path.parent))
            )
            raise StoreError(
                f"skill {name!r} did not load after the change"
                + (f": {problems}" if problems else "")
            )
        return found

    def set_description(
        self, name: str, description: str, expected: str | None = None
    ) -> SkillMeta:
        """Replace the skill's description in its SKILL.md (only that field; atomic write; refused
        when the file's description is no longer ``expected``) and rescan."""
        meta = self.find(name)
        if meta is None:
            self.require(name)
            raise AssertionError  # pragma: no cover
        set_description_in_file(meta.path, description, expected)
        self._refresh()
        found = self.find(name)
        if found is None:
            raise StoreError(f"skill {name!r} did not load after the change")
        return found

    def _renamed_disabled(self, name: str) -> Path | None:
        for directory in self.dirs:
            folder = directory.path / f"{name}{DISABLED_SUFFIX}"
            if (folder / SKILL_FILE).is_file():
                target = directory.path / name
                if target.exists():
                    raise StoreError(f"cannot enable {folder}: {target} already exists")
                os.rename(folder, target)
                return target / SKILL_FILE
        return None

    def save_resource(self, name: str, relpath: str, data: bytes | str) -> Path:
        """Write a resource file into the skill's folder (sub-folders created) and rescan."""
        meta = self.find(name)
        if meta is None:
            self.require(name)
        path = write_resource(meta.folder, relpath, data)  # type: ignore[union-attr]
        with self._lock:
            self._resources.pop(str(meta.folder), None)  # type: ignore[union-attr]
        return path


def _split_by_status(
    metas: dict[str, SkillMeta],
) -> tuple[dict[str, SkillMeta], dict[str, SkillMeta]]:
    """(active, dormant), each sorted by name; one pass (this runs on every start)."""
    active: dict[str, SkillMeta] = {}
    dormant: dict[str, SkillMeta] = {}
    for name in sorted(metas):
        meta = metas[name]
        (active if meta.status == "active" else dormant)[name] = meta
    return active, dormant


def _differs(old: SkillMeta, new: SkillMeta) -> bool:
    return (
        old.file,
        old.mtime_ns,
        old.size,
        old.description,
        dict(old.extras),
        old.trusted_source,
    ) != (
        new.file,
        new.mtime_ns,
        new.size,
        new.description,
        dict(new.extras),
        new.trusted_source,
    )
