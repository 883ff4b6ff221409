"""``skills-lock.json``: which skills are installed, from where, at which commit, with which hash.

The format is the ``skills`` CLI's project lock (vercel-labs/skills, ``src/local-lock.ts``), so
one file serves both tools::

    {
      "version": 1,
      "skills": {
        "pdf": {
          "source": "anthropics/skills",
          "ref": "main",
          "sourceType": "github",
          "skillPath": "skills/pdf/SKILL.md",
          "computedHash": "…64 hex…"
        }
      }
    }

``version``, ``source``, ``ref`` (optional), ``sourceType``, ``skillPath`` (optional) and
``computedHash`` mean what they mean there. This workbench adds, per skill, ``commit`` (the
resolved commit, so a restore is exact even after a tag moved), ``agents`` (the harness
profiles it was installed for, when not only this workbench's own folder), ``copy`` (true
when copied instead of linked), ``dir`` (a skills folder named with ``--dir``) and
``installedHash`` (only when the installed copy differs from the source by design: links
leading out of the skill were copied as files). The ``skills`` CLI ignores fields it does not
know, and this module keeps every field it does not know, so neither tool loses the other's.

Written as the ``skills`` CLI writes it: skills sorted by name, two-space JSON, one final
newline, no timestamps (two branches adding different skills merge cleanly). A file with git
conflict markers is read as the union of both sides, the incoming side winning a name (their
rule too). Written atomically.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiq_tui.file_io import atomic_write

LOCK_FILE = "skills-lock.json"
LOCK_VERSION = 1
MAX_LOCK_BYTES = 4_000_000
_HASH = re.compile(r"^[0-9a-f]{64}$")
_COMMIT = re.compile(r"^[0-9a-f]{40}([0-9a-f]{24})?$")
_KNOWN = (
    "source",
    "ref",
    "sourceType",
    "skillPath",
    "computedHash",
    "commit",
    "agents",
    "copy",
    "dir",
    "installedHash",
)


class LockFileError(ValueError):
    """The lockfile cannot be used; the message names the file, the field and the fix."""


@dataclass(frozen=True)
class LockedSkill:
    """One skill of the lockfile."""

    source: str
    source_type: str
    computed_hash: str
    ref: str | None = None
    skill_path: str | None = None
    commit: str | None = None
    agents: tuple[str, ...] = ()
    copy: bool = False
    dir: str | None = None
    installed_hash: str | None = None
    others: dict[str, Any] = field(default_factory=dict)
    """Fields another tool wrote, kept as they were."""

    @property
    def skill_folder(self) -> str:
        """The skill's folder inside its source ('' for a skill at the root)."""
        path = self.skill_path or ""
        if path == "SKILL.md" or path.endswith("/SKILL.md"):
            path = path[: -len("SKILL.md")]
        return path.rstrip("/")

    @property
    def expected_hash(self) -> str:
        """What the installed copy hashes to when nobody edited it."""
        return self.installed_hash or self.computed_hash

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"source": self.source}
        if self.ref:
            data["ref"] = self.ref
        data["sourceType"] = self.source_type
        if self.skill_path is not None:
            data["skillPath"] = self.skill_path
        data["computedHash"] = self.computed_hash
        if self.commit:
            data["commit"] = self.commit
        if self.agents:
            data["agents"] = list(self.agents)
        if self.copy:
            data["copy"] = True
        if self.dir:
            data["dir"] = self.dir
        if self.installed_hash:
            data["installedHash"] = self.installed_hash
        data.update(self.others)
        return data


@dataclass(frozen=True)
class LockFile:
    """The whole file: its path, version and skills by name."""

    path: Path
    skills: dict[str, LockedSkill] = field(default_factory=dict)
    version: int = LOCK_VERSION
    others: dict[str, Any] = field(default_factory=dict)

    def with_skill(self, name: str, skill: LockedSkill) -> LockFile:
        return LockFile(
            self.path, {**self.skills, name: skill}, self.version, self.others
        )

    def without(self, name: str) -> LockFile:
        skills = {key: value for key, value in self.skills.items() if key != name}
        return LockFile(self.path, skills, self.version, self.others)

    def to_json(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "skills": {
                name: self.skills[name].to_json() for name in sorted(self.skills)
            },
            **self.others,
        }

    def text(self) -> str:
        return json.dumps(self.to_json(), indent=2, ensure_ascii=False) + "\n"


def read_lock(path: Path) -> LockFile:
    """The lockfile at ``path``; an absent file is an empty lock. A malformed one raises
    :class:`LockFileError` (never guessed at: a restore from half a lock would lose skills)."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_LOCK_BYTES + 1)
    except FileNotFoundError:
        return LockFile(path)
    except OSError as exc:
        raise LockFileError(f"{path}: cannot read it ({exc.strerror or exc})") from exc
    if len(data) > MAX_LOCK_BYTES:
        raise LockFileError(
            f"{path}: larger than {MAX_LOCK_BYTES} bytes; not a lockfile"
        )
    text = data.decode("utf-8", errors="replace")
    raw = _parse(text, path)
    return _lock_from(raw, path)


def write_lock(lock: LockFile) -> Path:
    """Write ``lock`` to its path atomically, in the ``skills`` CLI's layout."""
    atomic_write(lock.path, lock.text())
    return lock.path


def _parse(text: str, path: Path) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except ValueError as exc:
        sides = _conflict_sides(text)
        if sides is None:
            raise LockFileError(
                f"{path}: not valid JSON ({exc}); fix it, or delete it and install again"
            ) from exc
        parsed = [_try_json(side) for side in sides]
        ours, theirs = parsed
        if ours is None or theirs is None:
            raise LockFileError(
                f"{path}: has git conflict markers and a side that is not valid JSON; "
                "resolve the conflict by hand"
            ) from exc
        return {
            **ours,
            **theirs,
            "skills": {**ours.get("skills", {}), **theirs.get("skills", {})},
        }
    if not isinstance(value, dict):
        raise LockFileError(f'{path}: expected {{"version": 1, "skills": {{…}}}}')
    return value


def _try_json(text: str) -> dict[str, Any] | None:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return (
        value
        if isinstance(value, dict) and isinstance(value.get("skills"), dict)
        else None
    )


def _conflict_sides(text: str) -> tuple[str, str] | None:
    """Both sides of a file with git conflict markers (the diff3 ancestor block dropped)."""
    if not re.search(r"^<{7}( |$)", text, re.MULTILINE):
        return None
    ours: list[str] = []
    theirs: list[str] = []
    state = "common"
    for line in re.split(r"\r?\n", text):
        if re.match(r"^<{7}( |$)", line):
            state = "ours"
        elif re.match(r"^\|{7}( |$)", line):
            state = "ancestor"
        elif re.match(r"^={7}$", line):
            state = "theirs"
        elif re.match(r"^>{7}( |$)", line):
            state = "common"
        else:
            if state in ("common", "ours"):
                ours.append(line)
            if state in ("common", "theirs"):
                theirs.append(line)
    return "\n".join(ours), "\n".join(theirs)


def _lock_from(raw: dict[str, Any], path: Path) -> LockFile:
    version = raw.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise LockFileError(f"{path}: version is {version!r}; expected a number (1)")
    if version > LOCK_VERSION:
        raise LockFileError(
            f"{path}: version {version} is newer than this aiq-tui reads ({LOCK_VERSION}); "
            "upgrade aiq-tui"
        )
    skills_raw = raw.get("skills")
    if not isinstance(skills_raw, dict):
        raise LockFileError(f"{path}: skills must be an object of skill name → entry")
    skills = {name: _entry(name, entry, path) for name, entry in skills_raw.items()}
    others = {k: v for k, v in raw.items() if k not in ("version", "skills")}
    return LockFile(path, skills, version, others)


def _entry(name: str, entry: Any, path: Path) -> LockedSkill:
    where = f'{path}: skills["{name}"]'
    if not isinstance(entry, dict):
        raise LockFileError(f"{where} must be an object")

    def text(key: str, required: bool = False) -> str | None:
        value = entry.get(key)
        if value is None and not required:
            return None
        if not isinstance(value, str) or (required and not value):
            raise LockFileError(f"{where}.{key} must be a non-empty string")
        return value

    computed = text("computedHash", required=True) or ""
    if not _HASH.match(computed):
        raise LockFileError(f"{where}.computedHash must be 64 hex digits (SHA-256)")
    commit = text("commit")
    if commit is not None and not _COMMIT.match(commit):
        raise LockFileError(f"{where}.commit must be a full commit id (40 hex digits)")
    installed = text("installedHash")
    if installed is not None and not _HASH.match(installed):
        raise LockFileError(f"{where}.installedHash must be 64 hex digits (SHA-256)")
    agents = entry.get("agents", [])
    if not isinstance(agents, list) or not all(isinstance(a, str) for a in agents):
        raise LockFileError(f"{where}.agents must be a list of harness names")
    return LockedSkill(
        source=text("source", required=True) or "",
        source_type=text("sourceType", required=True) or "",
        computed_hash=computed,
        ref=text("ref"),
        skill_path=text("skillPath"),
        commit=commit,
        agents=tuple(agents),
        copy=entry.get("copy") is True,
        dir=text("dir"),
        installed_hash=installed,
        others={k: v for k, v in entry.items() if k not in _KNOWN},
    )
