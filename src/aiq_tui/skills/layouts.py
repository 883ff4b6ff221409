"""Where skills live in a tree: the layouts public collections use, found with bounds.

A folder someone points at (``--skills-dir``, ``skills.dirs``, a cloned repository) is rarely
a flat folder of skill folders. The collections people install from are laid out as:

* a folder of skill folders (``NAME/SKILL.md``) — Composio's root, ``~/.claude/skills``;
* a repository with ``skills/NAME/SKILL.md`` — anthropics/skills, obra/superpowers,
  vercel-labs/agent-skills;
* hidden sub-collections under ``skills/`` — openai/skills' ``.curated``, ``.system`` and
  ``.experimental``;
* the harnesses' own folders inside a repository (``.claude/skills``, ``.agents/skills``,
  ``.github/skills``, … — every folder a profile in :mod:`~aiq_tui.skills.harnesses` names,
  and those the ``skills`` CLI looks in);
* Claude Code plugin manifests: ``.claude-plugin/marketplace.json`` (each plugin's ``source``
  and ``skills`` paths) and ``.claude-plugin/plugin.json`` (its ``skills`` paths, ``skills/``,
  or a ``SKILL.md`` at the plugin's root);
* skills nested in category folders (mattpocock/skills' ``skills/engineering/NAME``,
  Composio's ``composio-skills/NAME``), found down to :attr:`Limits.depth` levels.

:func:`find_skills` returns the *collections* (folders whose entries are skill folders, each
read by discovery as it reads any skills folder) and the single skill folders manifests name,
in that order of precedence. A folder reached twice (a symbolic link, a manifest naming what
``skills/`` holds) is one collection; the same SKILL.md reached by two paths is one skill to
discovery too (it compares resolved files). Every walk is bounded: depth, folders visited,
manifest size and a time limit; what a bound cut off is said in :attr:`Layout.truncated`.

When nothing is found, :attr:`Layout.deeper` names SKILL.md files further down (past the depth,
or in folders a walk skips) so the user can be told where they are.

Stable API (the install engineer finds a clone's skills with it): :func:`find_skills`,
:func:`skill_files`, :class:`Layout`, :class:`Collection`, :class:`Limits`.
"""

from __future__ import annotations

import os
import stat
import time
from collections import deque
from pathlib import Path
from typing import Any

import msgspec

from aiq_tui.problems import Problem, Severity
from aiq_tui.skills.harnesses import PROFILES

SKILL_FILE = "SKILL.md"
HIDDEN_COLLECTIONS = (".curated", ".system", ".experimental")
"""openai/skills' sub-collections of ``skills/`` (hidden folders every other walk skips)."""

SKIPPED = frozenset(
    {"node_modules", ".git", "dist", "build", "__pycache__", ".venv", "venv", "target"}
)
"""Folders no walk enters: dependencies and build output, never a collection's own skills."""

SKILLS_CLI_FOLDERS = (
    ".agent/skills",
    ".cline/skills",
    ".codebuddy/skills",
    ".commandcode/skills",
    ".continue/skills",
    ".goose/skills",
    ".iflow/skills",
    ".junie/skills",
    ".kilocode/skills",
    ".kiro/skills",
    ".mux/skills",
    ".neovate/skills",
    ".openhands/skills",
    ".pi/skills",
    ".qoder/skills",
    ".roo/skills",
    ".trae/skills",
    ".windsurf/skills",
    ".zencoder/skills",
)
"""Agents' project folders the ``skills`` CLI also searches (vercel-labs/skills src/skills.ts)."""

MANIFEST_MAX_BYTES = 1_000_000
MANIFEST_MAX_DEPTH = 16
MAX_MANIFEST_PATHS = 2_000


class Limits(msgspec.Struct, frozen=True):
    """How far a walk may go."""

    depth: int = 5
    """Folder levels below the root searched for nested collections (the skills CLI's 5)."""
    folders: int = 20_000
    """Folders listed at most, all walks together."""
    seconds: float = 5.0
    """Wall-clock time the search may take."""
    deeper_depth: int = 12
    """How deep the search for stray SKILL.md files goes when nothing was found."""


LIMITS = Limits()


class Collection(msgspec.Struct, frozen=True):
    """A folder whose entries are skill folders (``path/NAME/SKILL.md``)."""

    path: str
    layout: str
    """How it was found, in words: ``the folder itself``, ``skills/``, ``skills/.curated``,
    ``.claude/skills``, ``plugin document-skills``, ``nested``."""
    skills: int
    """How many of its entries hold a SKILL.md."""


class Layout(msgspec.Struct, frozen=True):
    """What :func:`find_skills` found under one root, in precedence order."""

    root: str
    collections: tuple[Collection, ...] = ()
    singles: tuple[tuple[str, str], ...] = ()
    """Skill folders named on their own (a manifest's path to one skill, or the root when it
    is a skill itself), with how each was found."""
    truncated: str | None = None
    """Which bound stopped the search (depth is not reported: it is the design), or None."""
    deeper: tuple[str, ...] = ()
    """When nothing was found: SKILL.md files further down (a few, nearest first)."""
    problems: tuple[Problem, ...] = ()
    """Manifests that could not be read (warnings)."""

    @property
    def count(self) -> int:
        """Skill folders found (a folder in two collections counts twice)."""
        return sum(c.skills for c in self.collections) + len(self.singles)

    def summary(self) -> str:
        """Where the skills are, in one line: ``17 in skills/, 1 in template/``."""
        parts = [f"{c.skills} in {c.layout}" for c in self.collections if c.skills]
        if self.singles:
            parts.append(f"{len(self.singles)} named by manifests")
        return ", ".join(parts) or "none"


def find_skills(root: str | os.PathLike[str], limits: Limits = LIMITS) -> Layout:
    """Every collection and single skill folder under ``root`` (see the module doc)."""
    return _Search(os.fspath(root), limits).run()


def skill_files(layout: Layout) -> list[str]:
    """The SKILL.md paths a layout holds, in precedence order, each resolved file once (for
    callers that want files, not folders: an installer listing a clone's skills)."""
    files: list[str] = []
    seen: set[tuple[int, int]] = set()

    def add(folder: str) -> None:
        skill_md = os.path.join(folder, SKILL_FILE)
        try:
            info = os.stat(skill_md)
        except OSError:
            return
        identity = (info.st_dev, info.st_ino)
        if stat.S_ISREG(info.st_mode) and identity not in seen:
            seen.add(identity)
            files.append(skill_md)

    for collection in layout.collections:
        for name in _entries(collection.path):
            add(os.path.join(collection.path, name))
    for folder, _how in layout.singles:
        add(folder)
    return files


# -- the search ---------------------------------------------------------------------------------


def _entries(folder: str) -> list[str]:
    """Sorted names of the non-hidden folders (or links to folders) in ``folder``."""
    try:
        with os.scandir(folder) as found:
            return sorted(
                entry.name
                for entry in found
                if entry.name[:1] != "." and _is_dir(entry)
            )
    except OSError:
        return []


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return (
            entry.is_dir()
        )  # follows symbolic links: the skills CLI links skill folders
    except OSError:
        return False


FileId = tuple[int, int]
"""A file's identity (device, inode): two paths to one file have the same one. Cheaper than
``os.path.realpath``, which costs a system call per path component."""


def _identity(path: str) -> FileId | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_dev, info.st_ino)


class _Search:
    def __init__(self, root: str, limits: Limits) -> None:
        self.root = os.path.abspath(root)
        self.limits = limits
        self.deadline = time.monotonic() + limits.seconds
        self.listed = 0
        self.truncated: str | None = None
        self.collections: list[Collection] = []
        self.singles: list[tuple[str, str, FileId]] = []
        self.problems: list[Problem] = []
        self.seen_collections: set[FileId] = set()
        self.collected: set[FileId] = set()  # SKILL.md files of the collections
        self.classified: dict[str, FileId | None] = {}  # folder → its SKILL.md, if any

    # -- bounds -----------------------------------------------------------------------------
    def spent(self) -> bool:
        if self.truncated is not None:
            return True
        if self.listed >= self.limits.folders:
            self.truncated = f"stopped after {self.limits.folders:,} folders"
        elif time.monotonic() > self.deadline:
            self.truncated = f"stopped after {self.limits.seconds:g} s"
        return self.truncated is not None

    def children(self, folder: str) -> list[str] | None:
        """``folder``'s sub-folder names, counted against the bounds (None when spent)."""
        if self.spent():
            return None
        self.listed += 1
        return _entries(folder)

    # -- what a folder is -------------------------------------------------------------------
    def skill_id(self, folder: str) -> FileId | None:
        """The identity of ``folder``'s SKILL.md when it is a regular file (one stat, asked
        once per folder path), else None."""
        if folder in self.classified:
            return self.classified[folder]
        found: FileId | None = None
        try:
            info = os.stat(os.path.join(folder, SKILL_FILE))
            if stat.S_ISREG(info.st_mode):
                found = (info.st_dev, info.st_ino)
        except OSError:
            pass
        self.classified[folder] = found
        return found

    def collection(self, folder: str, layout: str) -> None:
        """Record ``folder`` as a collection when one of its entries is a skill folder."""
        identity = _identity(folder)
        if identity is None or identity in self.seen_collections:
            return
        names = self.children(folder)
        if not names:
            return
        skills = [
            found
            for found in (self.skill_id(os.path.join(folder, name)) for name in names)
            if found is not None
        ]
        if skills:
            self.seen_collections.add(identity)
            self.collected.update(skills)
            self.collections.append(Collection(folder, layout, len(skills)))

    def single(self, folder: str, how: str) -> None:
        found = self.skill_id(folder)
        if found is not None and all(found != single[2] for single in self.singles):
            self.singles.append((folder, how, found))

    # -- the walk ---------------------------------------------------------------------------
    def run(self) -> Layout:
        root = self.root
        if self.skill_id(root) is not None:  # pointed straight at one skill
            return Layout(root, singles=((root, "the folder itself"),))
        self.collection(root, "the folder itself")
        skills = os.path.join(root, "skills")
        self.collection(skills, "skills/")
        for hidden in HIDDEN_COLLECTIONS:
            self.collection(os.path.join(skills, hidden), f"skills/{hidden}")
        for relative in _harness_folders():
            self.collection(os.path.join(root, relative), relative)
        self.manifests(root)
        self.nested(root)
        deeper: tuple[str, ...] = ()
        if not self.collections and not self.singles:
            deeper = self.stray(root)
        singles = tuple(  # a folder a collection holds too is read with it
            (folder, how)
            for folder, how, found in self.singles
            if found not in self.collected
        )
        return Layout(
            root,
            tuple(self.collections),
            singles,
            self.truncated,
            deeper,
            tuple(self.problems),
        )

    def nested(self, root: str) -> None:
        """Collections in category folders, breadth first, never inside a skill folder."""
        queue: deque[tuple[str, int]] = deque([(root, 0)])
        visited = {_identity(root)}
        while queue:
            folder, depth = queue.popleft()
            if depth >= self.limits.depth:
                continue
            names = self.children(folder)
            if names is None:
                return
            for name in names:
                if name in SKIPPED:
                    continue
                child = os.path.join(folder, name)
                if self.skill_id(child) is not None:
                    continue  # a skill's sub-folders are its resources
                identity = _identity(child)
                if identity is None or identity in visited:
                    continue  # gone, or a link back to a folder already walked
                visited.add(identity)
                relative = os.path.relpath(child, self.root)
                self.collection(child, f"{relative}/")
                queue.append((child, depth + 1))

    def stray(self, root: str) -> tuple[str, ...]:
        """SKILL.md files below ``root`` that no layout reaches (deeper, or in hidden or
        skipped folders): a few, nearest first, for the message that says where they are."""
        found: list[str] = []
        queue: deque[tuple[str, int]] = deque([(root, 0)])
        visited: set[FileId | None] = set()
        while queue and len(found) < 3 and not self.spent():
            folder, depth = queue.popleft()
            identity = _identity(folder)
            if identity in visited or depth > self.limits.deeper_depth:
                continue
            visited.add(identity)
            self.listed += 1
            try:
                with os.scandir(folder) as entries:
                    listing = sorted(entries, key=lambda entry: entry.name)
            except OSError:
                continue
            for entry in listing:
                if entry.name == SKILL_FILE and depth > 0:
                    found.append(entry.path)
                elif _is_dir(entry) and (
                    entry.name[:1] != "." or entry.name in _HARNESS_HEADS
                ):  # a folder hidden on purpose stays hidden; a harness's is looked in
                    queue.append((entry.path, depth + 1))
        return tuple(found)

    # -- plugin manifests -------------------------------------------------------------------
    def manifests(self, root: str) -> None:
        marketplace = self.manifest(
            os.path.join(root, ".claude-plugin", "marketplace.json")
        )
        if isinstance(marketplace, dict):
            plugins = marketplace.get("plugins")
            metadata = marketplace.get("metadata")
            plugin_root = (
                metadata.get("pluginRoot") if isinstance(metadata, dict) else None
            )
            base = (
                self.inside(root, plugin_root) if isinstance(plugin_root, str) else root
            )
            for entry in (
                plugins[:MAX_MANIFEST_PATHS] if isinstance(plugins, list) else ()
            ):
                if isinstance(entry, dict) and base is not None:
                    self.plugin_entry(base, entry)
        plugin = self.manifest(os.path.join(root, ".claude-plugin", "plugin.json"))
        if isinstance(plugin, dict):
            self.plugin(root, plugin, str(plugin.get("name") or "plugin"))

    def plugin_entry(self, base: str, entry: dict[str, Any]) -> None:
        source = entry.get("source", "./")
        if not isinstance(source, str):
            return  # a remote source (GitHub, git, npm): nothing on this disk
        plugin_base = self.inside(base, source)
        if plugin_base is None:
            return
        name = str(entry.get("name") or os.path.basename(plugin_base))
        own = self.manifest(os.path.join(plugin_base, ".claude-plugin", "plugin.json"))
        if isinstance(own, dict) and entry.get("strict", True) is not False:
            self.plugin(plugin_base, own, name)
        self.plugin(plugin_base, entry, name)

    def plugin(self, plugin_base: str, manifest: dict[str, Any], name: str) -> None:
        """A plugin's skills: its ``skills`` paths (folders of skills, or skill folders), its
        ``skills/`` folder, or a SKILL.md at its root when it has neither."""
        how = f"plugin {name}"
        paths = manifest.get("skills")
        listed = [paths] if isinstance(paths, str) else paths
        if isinstance(listed, list):
            for raw in listed[:MAX_MANIFEST_PATHS]:
                target = self.inside(plugin_base, raw) if isinstance(raw, str) else None
                if target is None:
                    continue
                if self.skill_id(target) is not None:
                    self.single(target, how)
                else:
                    self.collection(target, how)
        self.collection(os.path.join(plugin_base, "skills"), f"{how} (skills/)")
        if not isinstance(listed, list) and not os.path.isdir(
            os.path.join(plugin_base, "skills")
        ):
            if plugin_base != self.root:
                self.single(plugin_base, how)

    def inside(self, base: str, relative: str) -> str | None:
        """``relative`` (a manifest's path) under ``base``, or None when it leaves the root
        (``../``, absolute paths, links out): a manifest never points the search elsewhere."""
        if not relative.strip() or os.path.isabs(relative):
            return None
        target = os.path.normpath(os.path.join(base, relative))
        real_root = os.path.realpath(self.root)
        real = os.path.realpath(target)
        if real != real_root and not real.startswith(real_root + os.sep):
            return None
        return target

    def manifest(self, path: str) -> Any:
        """A manifest's JSON (bounded in size and depth), None when absent; a broken one is a
        warning and None."""
        try:
            info = os.stat(path)
        except OSError:
            return None
        if not stat.S_ISREG(info.st_mode):
            return None
        from aiq_tui.json_bounds import loads_bounded

        try:
            if info.st_size > MANIFEST_MAX_BYTES:
                raise ValueError(f"over {MANIFEST_MAX_BYTES:,} bytes")
            with open(path, "rb") as handle:
                return loads_bounded(
                    handle.read(MANIFEST_MAX_BYTES + 1), MANIFEST_MAX_DEPTH
                )
        except (OSError, ValueError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) else str(exc)
            self.problems.append(
                Problem(
                    Path(path),
                    f"plugin manifest cannot be read ({reason}); its skills paths are not searched",
                    hint="fix the JSON (Claude Code refuses the plugin too)",
                    severity=Severity.WARNING,
                )
            )
            return None


def _heads() -> frozenset[str]:
    return frozenset(
        folder.split("/")[0] for folder in _harness_folders() if folder.startswith(".")
    )


def _harness_folders() -> tuple[str, ...]:
    """Every project folder a harness profile names, then the skills CLI's, each once."""
    found: dict[str, None] = {}
    for harness in PROFILES.values():
        for folder in harness.folders:
            if folder.scope == "project":
                found[folder.path] = None
    for cli_folder in SKILLS_CLI_FOLDERS:
        found[cli_folder] = None
    return tuple(found)


_HARNESS_HEADS = _heads()
