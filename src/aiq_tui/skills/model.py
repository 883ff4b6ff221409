"""The skill types every layer shares: frozen records, no behaviour beyond derivation.

Records that every start builds its classes for are msgspec Structs (the config's library):
Python 3.11 compiles a frozen dataclass's methods when the class is created, about a
millisecond each, and twenty of them were a tenth of a warm ``skills list``; a Struct class
costs some 30 µs. :class:`SkillMeta` stays a dataclass for its lazily built path (a
descriptor over ``__dict__``); the ranking types stay dataclasses because events serialise them
field by field.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum, IntEnum
from pathlib import Path
from typing import Any

import msgspec


class ResourceKind(str, Enum):
    SCRIPT = "script"  # .sh .bash .py
    TEMPLATE = "template"  # .yml .yaml .json .template
    REFERENCE = "reference"  # .md .txt
    OTHER = "other"


class Resource(msgspec.Struct, frozen=True):
    """A file bundled with a skill (level 3 of disclosure): listed cheaply, read on demand."""

    relpath: str  # POSIX path relative to the skill folder, e.g. "scripts/run.sh"
    kind: ResourceKind
    size: int
    rejected: str | None = (
        None  # why it cannot be read (e.g. over the size limit), or None
    )


class _LazyPath:
    """A dataclass field that takes a ``str`` or a path and reads back as a :class:`Path`,
    built on first access. A 10,000-skill scan builds its metas from ``str`` paths, and
    constructing 10,000 ``Path`` objects nobody reads was a quarter of ``skills list``;
    :attr:`SkillMeta.file` gives the ``str`` without building one."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.slot = f"_{name}_value"

    def __get__(self, instance: Any, owner: type | None = None) -> Path:
        if instance is None:
            raise AttributeError(
                self.slot
            )  # tells dataclasses the field has no default
        value = instance.__dict__[self.slot]
        if not isinstance(value, Path):
            value = instance.__dict__[self.slot] = Path(value)
        return value

    def __set__(self, instance: Any, value: str | os.PathLike[str]) -> None:
        instance.__dict__[self.slot] = (
            value  # only the dataclass __init__ gets here: the class is frozen
        )


@dataclass(frozen=True)
class SkillMeta:
    """What discovery returns for one skill: frontmatter only, never the body.

    ``extras`` holds every frontmatter field other than name/description (type, status,
    tags, triggers, parameters, allowed-tools, license, metadata, …) exactly as parsed.
    ``path`` may be given as a ``str``; it always reads back as a :class:`Path`.
    """

    name: str
    description: str
    path: Path = _LazyPath()  # type: ignore[assignment]  # the SKILL.md file
    # path's "default" is the descriptor, not a value: path is still required.
    source_dir: Path  # type: ignore[misc]  # the skills directory it was discovered in
    extras: Mapping[str, Any] = field(default_factory=dict)
    size: int = 0
    mtime_ns: int = 0
    body_offset: int = 0  # character offset of the body in the file (after frontmatter)
    trusted_source: bool = False
    """Whether the folder it came from is trusted (the user's, the config home's, a trusted
    project's), decided once by discovery. An untrusted skill still matches and instructs, but
    its ``allowed-tools`` pre-approve nothing and its script always asks. False unless the
    scan says otherwise: a meta built by hand grants nothing."""

    @classmethod
    def trusted(
        cls,
        name: str,
        description: str,
        path: str,
        source_dir: Path,
        extras: Mapping[str, Any],
        size: int,
        mtime_ns: int,
        body_offset: int,
        trusted_source: bool = False,
    ) -> SkillMeta:
        """The same meta as the constructor builds, without its per-field frozen ``__setattr__``
        calls: for the catalog cache's rows, already checked (10,000 of them on every start)."""
        meta = object.__new__(cls)
        object.__setattr__(
            meta,
            "__dict__",
            {
                "name": name,
                "description": description,
                "_path_value": path,
                "source_dir": source_dir,
                "extras": extras,
                "size": size,
                "mtime_ns": mtime_ns,
                "body_offset": body_offset,
                "trusted_source": trusted_source,
            },
        )
        return meta

    @property
    def file(self) -> str:
        """``str(self.path)``, without building the :class:`Path` (hot loops over 10,000 skills)."""
        return os.fspath(self.__dict__["_path_value"])

    @property
    def folder(self) -> Path:
        return self.path.parent

    @property
    def type(self) -> str:
        """lango skill type; instruction when not given (seed 002)."""
        value = self.extras.get("type")
        return value if isinstance(value, str) and value else "instruction"

    @property
    def status(self) -> str:
        """lango status: ``active`` (the default), ``inactive`` or ``draft``; only active skills load.
        Read from ``status`` or ``metadata.status`` (see :func:`aiq_tui.skills.validate.status_of`)."""
        extras = self.extras
        if "status" not in extras and "metadata" not in extras:
            return "active"  # most skills say nothing of it: asked of 10,000 at a large catalog's start
        from aiq_tui.skills.validate import status_of

        return status_of(extras)

    @property
    def source(self) -> str:
        """Where an imported skill came from (URL or path); empty for local skills (seed 002)."""
        value = self.extras.get("source")
        return value if isinstance(value, str) else ""

    @property
    def tags(self) -> tuple[str, ...]:
        return _str_tuple(self.extras.get("tags"))

    @property
    def triggers(self) -> tuple[str, ...]:
        return _str_tuple(self.extras.get("triggers"))

    @property
    def allowed_tools(self) -> tuple[str, ...] | None:
        """Tools this skill may use while active, or None when it does not restrict them.

        The spec writes ``allowed-tools`` as a space-separated string; lango as a list.
        """
        value = self.extras.get("allowed-tools", self.extras.get("allowed_tools"))
        if value is None:
            return None
        if isinstance(value, str):
            return tuple(part for part in value.replace(",", " ").split() if part)
        return _str_tuple(value)


def _str_tuple(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, (list, tuple)):
        return tuple(str(item) for item in value if item is not None)
    return ()


class Skill(msgspec.Struct, frozen=True):
    """A skill with its body loaded."""

    meta: SkillMeta
    body: str

    @property
    def name(self) -> str:
        return self.meta.name


class Phase(IntEnum):
    """How much of a skill is disclosed to the model (seed 003)."""

    METADATA = 1
    BRIEF = 2
    FULL = 3

    @property
    def label(self) -> str:
        return {1: "meta", 2: "brief", 3: "full"}[self.value]


class SkillState(str, Enum):
    """Priority for keeping a skill in the prompt: Active > Relevant > Inactive (seed 000)."""

    ACTIVE = "active"
    RELEVANT = "relevant"
    INACTIVE = "inactive"


@dataclass(frozen=True)
class Signal:
    """One reason a skill scored: a query term hit a field and contributed ``weight``."""

    term: str
    field: str  # "name" | "description" | "tags" | "triggers" | "body" | "explicit" | "rank-rule" | "exclusion"
    weight: float
    via: str = ""  # the query term this one came in through, when it is a related word (a synonym)


@dataclass(frozen=True)
class Match:
    name: str
    score: float
    confidence: float  # in [0, 1]; chooses the phase
    signals: tuple[Signal, ...] = ()
    explicit: bool = False  # activated by /skill or use_skill, regardless of score


@dataclass(frozen=True)
class Ranking:
    """The matcher's answer for one query, best first (ties broken by name)."""

    query: str
    terms: tuple[str, ...]
    matches: tuple[Match, ...]
    considered: int  # how many skills were ranked

    def top(self, k: int) -> tuple[Match, ...]:
        return self.matches[:k]

    def get(self, name: str) -> Match | None:
        return next((match for match in self.matches if match.name == name), None)
