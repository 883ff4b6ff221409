"""What the doctor reports: frozen findings (severity, skills, why, fix) and the report."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from aiq_tui.context.catalog_line import LineCut


class Level(str, Enum):
    """How bad a finding is. Only errors make ``skills doctor`` exit 1."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"error": 0, "warning": 1, "info": 2}[self.value]


class Kind(str, Enum):
    COLLISION = "collision"
    UNREACHABLE = "unreachable"
    BUDGET = "budget"
    RISK = "risk"
    SAFETY = "safety"  # the safety scan (doctor/safety/): what a stranger's skill could make the agent do
    SPEC = "spec"


@dataclass(frozen=True)
class Location:
    """Where a finding is: a file and a 1-based line (and column, 0 when unknown)."""

    path: str
    line: int
    column: int = 0

    def __str__(self) -> str:
        return f"{self.path}:{self.line}"

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "line": self.line, "column": self.column}


@dataclass(frozen=True)
class Finding:
    """One thing wrong with the collection, and what to do about it."""

    kind: Kind
    level: Level
    skills: tuple[str, ...]
    title: str
    why: str
    fix: str
    query: str = (
        ""  # the query that shows the problem in the match inspector ("" when none)
    )
    terms: tuple[
        str, ...
    ] = ()  # shared or missing terms, when they explain the finding
    rule: str = ""  # the safety rule's id (doctor/safety/rules.py), "" for other checks
    location: Location | None = None  # the file and line, when one place shows it

    def to_json(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "location": self.location.to_json() if self.location else None,
            "kind": self.kind.value,
            "severity": self.level.value,
            "skills": list(self.skills),
            "title": self.title,
            "why": self.why,
            "fix": self.fix,
            "query": self.query,
            "terms": list(self.terms),
        }


@dataclass(frozen=True)
class SkillCost:
    """What one skill costs in the prompt the engine builds."""

    name: str
    catalog_tokens: int  # its catalog line
    full_tokens: int  # its ``## Skill:`` section at the full phase
    description_cut: bool  # the catalog line shortens the description


@dataclass(frozen=True)
class CatalogFigures:
    window: int
    catalog_limit: int  # tokens the catalog may take (window × catalog_share)
    catalog_tokens: int  # what the whole catalog section costs now
    listed: int
    omitted: tuple[
        str, ...
    ]  # skills left out of the catalog, in the order the engine leaves them out
    average_line: float
    projections: tuple[
        tuple[int, int], ...
    ]  # (skills, catalog tokens) at collection sizes
    shortened: tuple[
        str, ...
    ] = ()  # listed skills whose description the catalog line shortens
    cuts: tuple[
        LineCut, ...
    ] = ()  # … from what to what (the prompt builder's own figures)
    cut_why: str = ""  # … and why (the catalog fit's reason, naming its setting)

    def counts(self) -> str:
        """The catalog's figures in one phrase, the one source for every place that says them:
        skills listed, descriptions shortened, skills left out."""
        return (
            f"{self.listed} listed, {len(self.shortened)} with a shortened description, "
            f"{len(self.omitted)} left out"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "window": self.window,
            "catalog_limit": self.catalog_limit,
            "catalog_tokens": self.catalog_tokens,
            "listed": self.listed,
            "omitted": list(self.omitted),
            "shortened": list(self.shortened),
            "cuts": [cut.to_json() for cut in self.cuts],
            "cut_why": self.cut_why,
            "average_line_tokens": round(self.average_line, 2),
            "projections": [
                {"skills": n, "catalog_tokens": t, "fits": t <= self.catalog_limit}
                for n, t in self.projections
            ],
        }


@dataclass(frozen=True)
class ListingFigures:
    """The skill listing the target harness shows its model: names and descriptions."""

    harness: str  # the harness's title, "Claude Code"
    chars: int  # what the listing takes, every description whole (up to entry_chars)
    budget: int | None  # the harness's character budget (None: it documents none)
    why: str  # where the budget comes from, in words
    listed: int  # skills in the listing (those only the user runs are not)
    manual_only: int  # left out: disable-model-invocation
    cut_entries: tuple[str, ...] = ()  # descriptions longer than the harness keeps

    @property
    def over(self) -> bool:
        return self.budget is not None and self.chars > self.budget

    def to_json(self) -> dict[str, Any]:
        return {
            "harness": self.harness,
            "chars": self.chars,
            "budget": self.budget,
            "why": self.why,
            "listed": self.listed,
            "manual_only": self.manual_only,
            "over_budget": self.over,
            "cut_entries": list(self.cut_entries),
        }


@dataclass(frozen=True)
class Target:
    """The harness a collection is judged for, and why that one."""

    name: str
    title: str
    window: int
    window_note: str
    why: str  # "--target", "most skills live in its folders", …

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "title": self.title,
            "window": self.window,
            "window_note": self.window_note,
            "why": self.why,
        }


@dataclass(frozen=True)
class DoctorReport:
    skills: int
    findings: tuple[Finding, ...]
    costs: tuple[SkillCost, ...] = ()
    catalog: CatalogFigures | None = None
    seconds: float = 0.0
    checks: tuple[str, ...] = field(default_factory=tuple)
    target: Target | None = None
    listing: ListingFigures | None = None

    @property
    def errors(self) -> int:
        return sum(1 for f in self.findings if f.level is Level.ERROR)

    @property
    def ok(self) -> bool:
        return self.errors == 0

    def counts(self) -> dict[str, int]:
        return {
            level.value: sum(1 for f in self.findings if f.level is level)
            for level in Level
        }

    def for_skill(self, name: str) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if name in f.skills)

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "skills": self.skills,
            "counts": self.counts(),
            "seconds": round(self.seconds, 3),
            "findings": [f.to_json() for f in self.findings],
            "target": self.target.to_json() if self.target else None,
            "listing": self.listing.to_json() if self.listing else None,
            "catalog": self.catalog.to_json() if self.catalog else None,
            "costs": [
                {
                    "name": c.name,
                    "catalog_tokens": c.catalog_tokens,
                    "full_tokens": c.full_tokens,
                    "description_cut": c.description_cut,
                }
                for c in self.costs
            ],
        }


def ordered(findings: list[Finding]) -> tuple[Finding, ...]:
    """Errors first, then warnings, then notes; within a level by kind, then skill."""
    kinds = list(Kind)
    return tuple(
        sorted(
            findings,
            key=lambda f: (f.level.rank, kinds.index(f.kind), f.skills, f.title),
        )
    )
