"""The catalog cache: every skill's parsed frontmatter, kept in the config home between runs.

A metadata scan of 10,000 skills parses 10,000 YAML frontmatters (about a second here); with
this cache a start only lists the skill folders and stats each ``SKILL.md``. The cache never
decides what exists, only what a file that still exists said:

* an entry is used only when its file's size, mtime, ctime and inode all match what was
  cached, so a changed file is parsed again and a deleted one is simply not found by the
  listing — a deleted skill or stale text never shows;
* entries whose mtime is within :data:`RACY_SECONDS` of the scan are not stored (a file
  written twice within one timestamp tick could otherwise keep a stale entry — git's
  "racily clean" problem);
* files that produced any problem are never cached, so every warning is reported each time;
* the file is replaced atomically (temp file in the same directory, then ``os.replace``):
  readers see the old or the new cache, never half of one; concurrent writers each write a
  complete file and the last one wins, which is safe because every entry is re-validated;
* an unreadable, corrupt or foreign-version cache is ignored and rebuilt by the next scan.

:meth:`CatalogCache.scan` is a drop-in for :func:`aiq_tui.skills.discover.scan`; parsing,
validation, include/exclude and name clashes stay discover's.
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from aiq_tui.skills.discover import ScanResult, SkillDir, _Scan
from aiq_tui.skills.model import SkillMeta

FORMAT = 1
"""Bumped whenever what a cached entry means changes (parser, validation, layout)."""

RACY_SECONDS = 2.0
"""Files modified this recently are parsed but not cached (timestamp granularity)."""

STALE_TEMP_SECONDS = 3600.0
"""A temp file this old was left by a killed writer and is removed by the next save."""

Stamp = tuple[int, int, int, int]  # size, mtime_ns, ctime_ns, inode


@dataclass(frozen=True)
class CachedSkill:
    """What one valid ``SKILL.md`` said, and the stat it said it under."""

    stamp: Stamp
    name: str
    description: str
    extras: dict[str, Any]
    body_offset: int

    def meta(self, path: str, source_dir: Path) -> SkillMeta:
        return SkillMeta(self.name, self.description, Path(path), source_dir, self.extras,
                         self.stamp[0], self.stamp[1], self.body_offset)


@dataclass(frozen=True)
class CacheStats:
    """What the last :meth:`CatalogCache.scan` did (for tests, benchmarks and ``--json``)."""

    loaded: bool  # a usable cache file was read
    hits: int  # skills taken from the cache
    parsed: int  # SKILL.md files parsed (new, changed, or not cacheable)
    written: bool  # the cache file was replaced


def stamp_of(info: os.stat_result) -> Stamp:
    return (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino)


class CatalogCache:
    """The cache file at ``path``; hand it to :class:`~aiq_tui.skills.catalog.SkillCatalog`."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.last = CacheStats(False, 0, 0, False)

    # -- the scan ---------------------------------------------------------------------------

    def scan(self, dirs: Sequence[SkillDir], settings: Any) -> ScanResult:
        """Same result as :func:`~aiq_tui.skills.discover.scan`; parses only what changed."""
        fingerprint = _fingerprint(settings)
        cached = self.load(fingerprint)
        state = _CachedScan(settings, cached or {})
        for directory in dirs:
            state.directory(directory)
        written = False
        if cached is None or state.dirty(cached):
            written = self.save(state.keep, fingerprint)
        self.last = CacheStats(cached is not None, state.hits, state.parsed, written)
        return ScanResult(state.metas, tuple(state.problems), frozenset(state.failed))

    # -- the file ---------------------------------------------------------------------------

    def load(self, fingerprint: str) -> dict[str, CachedSkill] | None:
        """The cached entries, or None when there is no usable cache (missing, corrupt,
        another format or other settings): the caller then parses and rebuilds it."""
        try:
            with open(self.path, "rb") as handle:
                data = json.loads(handle.read())
            if data.get("format") != FORMAT or data.get("settings") != fingerprint:
                return None
            entries: dict[str, CachedSkill] = {}
            for path, row in data["skills"].items():
                size, mtime, ctime, inode, name, description, extras, offset = row
                if not (isinstance(path, str) and isinstance(name, str) and isinstance(description, str)
                        and isinstance(extras, dict) and isinstance(offset, int)
                        and all(isinstance(n, int) for n in (size, mtime, ctime, inode))):
                    return None
                entries[path] = CachedSkill((size, mtime, ctime, inode), name, description, extras, offset)
            return entries
        except (OSError, ValueError, TypeError, KeyError, AttributeError):
            return None

    def save(self, entries: dict[str, CachedSkill], fingerprint: str) -> bool:
        """Replace the cache file atomically; False (and no harm) when it cannot be written."""
        payload = {
            "format": FORMAT,
            "settings": fingerprint,
            "skills": {path: [*entry.stamp, entry.name, entry.description, entry.extras, entry.body_offset]
                       for path, entry in entries.items()},
        }
        temp = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, temp = tempfile.mkstemp(dir=self.path.parent, prefix=f".{self.path.name}.", suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(json.dumps(payload, ensure_ascii=False, separators=(",", ":")))
            os.replace(temp, self.path)
            self._sweep(keep_after=time.time() - STALE_TEMP_SECONDS)
            return True
        except (OSError, TypeError, ValueError):
            if temp is not None:
                try:
                    os.unlink(temp)
                except OSError:
                    pass
            return False

    def _sweep(self, keep_after: float) -> None:
        """Remove temp files a killed writer left behind (never a live writer's: too recent)."""
        try:
            for leftover in self.path.parent.glob(f".{self.path.name}.*.tmp"):
                if leftover.stat().st_mtime < keep_after:
                    leftover.unlink()
        except OSError:
            pass


def _fingerprint(settings: Any) -> str:
    # Only settings that change what parsing a file yields; include/exclude apply afterwards.
    return f"max_skill_md_bytes={settings.max_skill_md_bytes}"


def _plain(value: Any) -> bool:
    """True when ``value`` survives a JSON round trip unchanged (YAML dates, say, do not)."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return True
    if isinstance(value, list):
        return all(_plain(item) for item in value)
    if isinstance(value, dict):
        return all(isinstance(key, str) and _plain(item) for key, item in value.items())
    return False


class _CachedScan(_Scan):
    """discover's scan with a cache in front of its per-skill parse."""

    def __init__(self, settings: Any, cached: dict[str, CachedSkill]) -> None:
        super().__init__(settings)
        self.cached = cached
        self.keep: dict[str, CachedSkill] = {}  # what the cache file will hold
        self.hits = 0
        self.parsed = 0
        self.racy_after = time.time_ns() - int(RACY_SECONDS * 1e9)

    def dirty(self, cached: dict[str, CachedSkill]) -> bool:
        return self.keep.keys() != cached.keys() or any(self.keep[p] is not cached[p] for p in self.keep)

    def skill(self, source_dir: Path, skill_md: str, folder: str) -> None:
        try:
            info = os.stat(skill_md)
        except (FileNotFoundError, NotADirectoryError):
            return  # not a skill folder (or a plain file next to them)
        except OSError:
            self.parsed += 1
            super().skill(source_dir, skill_md, folder)  # discover reports why it cannot be read
            return
        entry = self.cached.get(skill_md)
        if entry is not None and stat.S_ISREG(info.st_mode) and entry.stamp == stamp_of(info):
            self.hits += 1
            self.keep[skill_md] = entry
            self._admit(source_dir, skill_md, folder, entry.meta(skill_md, source_dir))
            return
        self.parsed += 1
        probe = _Scan(self.settings)  # parse this one file alone, unfiltered
        probe.include = probe.exclude = frozenset()
        probe.skill(source_dir, skill_md, folder)
        self.problems.extend(probe.problems)
        self.failed.update(probe.failed)
        if not probe.metas:
            return
        meta = next(iter(probe.metas.values()))
        if not probe.problems and meta.mtime_ns < self.racy_after and _plain(dict(meta.extras)):
            self.keep[skill_md] = CachedSkill(
                (meta.size, meta.mtime_ns, info.st_ctime_ns, info.st_ino),
                meta.name, meta.description, dict(meta.extras), meta.body_offset,
            )
        self._admit(source_dir, skill_md, folder, meta)

    def _admit(self, source_dir: Path, skill_md: str, folder: str, meta: SkillMeta) -> None:
        """The tail of discover's per-skill step: include/exclude, then first name wins."""
        if (self.include and meta.name not in self.include) or meta.name in self.exclude:
            return
        if meta.name in self.metas:
            super().skill(source_dir, skill_md, folder)  # discover words the clash (with its line)
            return
        self.metas[meta.name] = meta
