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
* a skills directory's sorted entries are kept with its mtime, ctime and inode, and reused
  only while all three match: adding, removing or renaming an entry changes the directory's
  mtime, so a new folder is always seen (recently modified directories are listed afresh,
  like recently modified files);
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
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import msgspec  # the config's validator: decodes and checks the cache in one pass

from aiq_tui.skills.discover import DISABLED_SUFFIX, ScanResult, SkillDir, _Scan
from aiq_tui.skills.model import SkillMeta
from aiq_tui.skills.resources import SKILL_FILE

FORMAT = 3
"""Bumped whenever what a cached entry means changes (parser, validation, layout). 2: the
dangerous-script check moved into the parse, so an entry also means "checked, not blocked";
a format-1 entry was never checked and must not be trusted. 3: the spec's text fields and
metadata values are read as written (``version: 1.0`` is ``"1.0"``, no longer the number), and
an executable skill's fenced definition is checked by the parse (one without it is skipped)."""

RACY_SECONDS = 2.0
"""Files modified this recently are parsed but not cached (timestamp granularity)."""

STALE_TEMP_SECONDS = 3600.0
"""A temp file this old was left by a killed writer and is removed by the next save."""

Row = Sequence[Any]
Listing = tuple[
    int, int, int, list[str]
]  # a directory's mtime_ns, ctime_ns, inode, sorted entries


class _CacheFile(msgspec.Struct):
    """The file's shape; decoding checks every row's exact types (a bool is no int, a number
    no str): size, mtime_ns, ctime_ns, inode, name, description, extras, body offset; and for
    each skills directory its mtime_ns, ctime_ns, inode and sorted entries."""

    format: int
    settings: str
    skills: dict[str, tuple[int, int, int, int, str, str, dict[str, Any], int]]
    dirs: dict[str, tuple[int, int, int, list[str]]] = {}


"""One cached skill as stored in the file: ``[size, mtime_ns, ctime_ns, inode, name,
description, extras, body_offset]`` — kept as the tuple msgspec decodes, so a start with
10,000 cached skills builds no intermediate objects."""


class CacheStats(msgspec.Struct, frozen=True):
    """What the last :meth:`CatalogCache.scan` did (for tests, benchmarks and ``--json``)."""

    loaded: bool  # a usable cache file was read
    hits: int  # skills taken from the cache
    parsed: int  # SKILL.md files parsed (new, changed, or not cacheable)
    written: bool  # the cache file was replaced
    listed: int = 0  # skills directories listed (not taken from the cache)


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
        state = _CachedScan(
            settings, cached.skills if cached else {}, cached.dirs if cached else {}
        )
        for directory in dirs:
            state.directory(directory)
        written = False
        if cached is None or state.dirty(cached.skills, cached.dirs):
            written = self.save(state.keep, state.keep_dirs, fingerprint)
        self.last = CacheStats(
            cached is not None, state.hits, state.parsed, written, state.listed
        )
        return ScanResult(state.metas, tuple(state.problems), frozenset(state.failed))

    # -- the file ---------------------------------------------------------------------------

    def load(self, fingerprint: str) -> _CacheFile | None:
        """The cached rows (by SKILL.md path) and directory listings, or None when there is no
        usable cache (missing, corrupt, another format or other settings, any row of the wrong
        shape): the caller then parses and rebuilds it."""
        try:
            with open(self.path, "rb") as handle:
                data = msgspec.json.decode(handle.read(), type=_CacheFile)
        except (
            OSError,
            msgspec.DecodeError,
            RecursionError,
        ):  # ValidationError is a DecodeError: any wrong shape
            return None
        if data.format != FORMAT or data.settings != fingerprint:
            return None
        return data

    def save(
        self, rows: dict[str, Row], dirs: dict[str, Listing], fingerprint: str
    ) -> bool:
        """Replace the cache file atomically; False (and no harm) when it cannot be written."""
        payload = {
            "format": FORMAT,
            "settings": fingerprint,
            "skills": rows,
            "dirs": dirs,
        }
        temp = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            import tempfile  # writes only: a start that reads never loads it

            fd, temp = tempfile.mkstemp(
                dir=self.path.parent, prefix=f".{self.path.name}.", suffix=".tmp"
            )
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(
                    json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
                )
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


def _folder_of(skill_md: str) -> str:
    """The skill folder's name of a ``…/NAME/SKILL.md`` path."""
    return os.path.basename(os.path.dirname(skill_md))


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

    def __init__(
        self,
        settings: Any,
        cached: Mapping[str, Row],
        cached_dirs: Mapping[str, Listing],
    ) -> None:
        super().__init__(settings)
        self.cached = cached
        self.cached_dirs = cached_dirs
        self.keep: dict[str, Row] = {}  # what the cache file will hold
        self.keep_dirs: dict[str, Listing] = {}
        self.hits = 0
        self.parsed = 0
        self.listed = 0
        self.racy_after = time.time_ns() - int(RACY_SECONDS * 1e9)

    def dirty(
        self, cached: Mapping[str, Row], cached_dirs: Mapping[str, Listing]
    ) -> bool:
        return (
            self.keep.keys() != cached.keys()
            or any(self.keep[p] is not cached[p] for p in self.keep)
            or self.keep_dirs.keys() != cached_dirs.keys()
            or any(self.keep_dirs[d] is not cached_dirs[d] for d in self.keep_dirs)
        )

    def folder_names(self, directory: SkillDir, root: str) -> list[str] | None:
        # 10,000 entries listed and sorted cost about as much as the cache file's decoding:
        # an unchanged directory (same mtime, ctime and inode) has the same entries.
        try:
            info = os.stat(root)
        except OSError:
            info = None  # discover's listing says why, when it should
        listing = self.cached_dirs.get(root)
        if (
            listing is not None
            and info is not None
            and listing[0] == info.st_mtime_ns
            and listing[1] == info.st_ctime_ns
            and listing[2] == info.st_ino
        ):
            self.keep_dirs[root] = listing
            return listing[3]
        names = super().folder_names(directory, root)
        self.listed += names is not None
        if (
            names is not None
            and info is not None
            and stat.S_ISDIR(info.st_mode)
            and info.st_mtime_ns < self.racy_after
        ):
            self.keep_dirs[root] = (
                info.st_mtime_ns,
                info.st_ctime_ns,
                info.st_ino,
                names,
            )
        return names

    def folders(self, source_dir: Path, root: str, names: list[str]) -> None:
        self._take(source_dir, self._skill_files(root, names))

    def skill(self, source_dir: Path, skill_md: str, folder: str) -> None:
        self._take(
            source_dir, (skill_md,)
        )  # ``folder`` is always the name of skill_md's folder

    def _skill_files(self, root: str, names: list[str]) -> Iterator[str]:
        """Each entry's SKILL.md path; a disabled folder is reported as the loop reaches it, so
        the warnings keep discover's order."""
        prefix, suffix = f"{root}{os.sep}", f"{os.sep}{SKILL_FILE}"
        for name in names:
            if name.endswith(DISABLED_SUFFIX):
                self.disabled(root, name)
            else:
                yield f"{prefix}{name}{suffix}"

    def _take(self, source_dir: Path, skill_files: Iterable[str]) -> None:
        # A warm start's loop — 10,000 skills, each one stat and a meta from its cached row —
        # with every lookup hoisted and no call per hit: it was a third of ``skills list``.
        cached_row, keep, metas, trusted = (
            self.cached.get,
            self.keep,
            self.metas,
            SkillMeta.trusted,
        )
        stat_file, is_file, filters = (
            os.stat,
            stat.S_ISREG,
            bool(self.include or self.exclude),
        )
        source_trusted = (
            self.trusted
        )  # decided per directory by discovery, never cached
        hits = 0
        for skill_md in skill_files:
            row = cached_row(skill_md)
            if (
                row is not None
            ):  # only a cached file needs a stat before its parse (to validate the row)
                try:
                    info = stat_file(skill_md)
                except (FileNotFoundError, NotADirectoryError):
                    continue  # not a skill folder (or a plain file next to them)
                except OSError:
                    info = None  # the parse reports why it cannot be read
                if (
                    info is not None
                    and row[0] == info.st_size
                    and row[1] == info.st_mtime_ns
                    and row[2] == info.st_ctime_ns
                    and row[3] == info.st_ino
                    and is_file(info.st_mode)
                ):
                    hits += 1
                    keep[skill_md] = row
                    meta = trusted(
                        row[4],
                        row[5],
                        skill_md,
                        source_dir,
                        row[6],
                        row[0],
                        row[1],
                        row[7],
                        source_trusted,
                    )
                    if meta.name in metas:  # discover words the clash (with its line)
                        super().skill(source_dir, skill_md, _folder_of(skill_md))
                    elif filters:
                        self.admit(meta, None)
                    else:
                        metas[meta.name] = meta
                    continue
            self._parse_and_keep(source_dir, skill_md, _folder_of(skill_md))
        self.hits += hits

    def _parse_and_keep(self, source_dir: Path, skill_md: str, folder: str) -> None:
        parsed = self.parse(source_dir, skill_md, folder)
        if parsed.info is None and not parsed.problems:
            return  # no SKILL.md here: not a skill folder (or a plain file next to them)
        self.parsed += 1
        self.problems.extend(parsed.problems)
        meta, info = parsed.meta, parsed.info
        if meta is None or info is None:
            return
        if (
            not parsed.problems
            and meta.mtime_ns < self.racy_after
            and _plain(meta.extras)
        ):
            self.keep[skill_md] = [
                meta.size,
                meta.mtime_ns,
                info.st_ctime_ns,
                info.st_ino,
                meta.name,
                meta.description,
                dict(meta.extras),
                meta.body_offset,
            ]
        self.admit(meta, parsed.name_line)
