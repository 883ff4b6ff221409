"""Budget and compression types shared by the engine, the CLI and the TUI."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import IntEnum

from aiq_tui.skills.model import SkillState


@dataclass(frozen=True)
class Breakdown:
    """Tokens per prompt part. ``total`` is exactly what is sent plus the output reserve."""

    system: int
    catalog: int
    skills: Mapping[str, int]  # loaded skill name → tokens, in prompt order
    history: int
    tool_results: int
    reserve: int
    window: int
    exact: bool = True  # False when counts come from the estimator
    encoding: str = ""
    window_source: str = (
        ""  # e.g. "200,000 (claude-sonnet-4-5 · known model)" (llm.windows)
    )

    @property
    def skills_total(self) -> int:
        return sum(self.skills.values())

    @property
    def total(self) -> int:
        return (
            self.system
            + self.catalog
            + self.skills_total
            + self.history
            + self.tool_results
            + self.reserve
        )

    @property
    def fraction(self) -> float:
        return self.total / self.window if self.window else 0.0

    def parts(self) -> dict[str, int]:
        """Stacked gauge order."""
        return {
            "system": self.system,
            "catalog": self.catalog,
            "skills": self.skills_total,
            "history": self.history,
            "tool_results": self.tool_results,
            "reserve": self.reserve,
        }


class Stage(IntEnum):
    """Compression stage by share of the window (seed 000)."""

    NONE = 0
    COMPRESS = 80  # summarise oldest, keep last N
    EVICT = 90  # + evict Inactive then Relevant skills
    AGGRESSIVE = 95  # summarise all but last M, keep only the top Active skill


@dataclass(frozen=True)
class Eviction:
    name: str
    state: SkillState
    tokens: int
    reason: str


@dataclass(frozen=True)
class ShrunkResult:
    """A tool result made shorter: an older one cleared to its extract, or one of the running
    turn cut to fit the window. Its tool call and the pairing stay."""

    message_id: str
    tool: str
    tokens_before: int
    tokens_after: int


@dataclass(frozen=True)
class CatalogOption:
    """A shorter skills catalog the planner may choose (see ``context.prompt.CatalogLevel``)."""

    level: int
    label: str
    tokens: int  # what the catalog costs at this level


@dataclass(frozen=True)
class CatalogCut:
    """The skills catalog made shorter for this turn (the Active skill is always listed)."""

    level: int  # 1 shorter descriptions · 2 names only · 3 only the Active skills (see context.prompt)
    label: str  # "names only", in the user's terms
    tokens_before: int
    tokens_after: int


@dataclass(frozen=True)
class CompressionPlan:
    """What compression will do, in order: clear older tool results to their extract,
    summarise the oldest messages, evict skills, shorten the catalog, cut the running turn's
    tool results — and whether the prompt then fits. Produced by a pure planner, applied by
    the engine."""

    stage: Stage
    window: int
    tokens_before: int
    tokens_after: int  # expected total after applying the plan
    summarise_ids: tuple[
        str, ...
    ] = ()  # message ids folded into one summary (oldest first)
    keep_last: int = 0
    evictions: tuple[Eviction, ...] = ()
    fits: bool = True  # False → even after the plan the prompt exceeds the window: refuse to send
    notes: tuple[str, ...] = field(default_factory=tuple)
    cleared: tuple[ShrunkResult, ...] = ()  # older tool results shrunk to their extract
    summary_tokens: int = (
        0  # the budget of the summary (what the planner counted for it)
    )
    catalog: CatalogCut | None = (
        None  # a shorter catalog, only when nothing milder made it fit
    )
    cut: tuple[
        ShrunkResult, ...
    ] = ()  # the running turn's tool results cut to fit, the last resort
    thresholds: tuple[float, float, float] = (
        0.80,
        0.90,
        0.95,
    )  # compress_at, evict_at, aggressive_at in force

    @property
    def step_count(self) -> int:
        """How many steps applying the plan reports (one event each, in this order): the cleared
        results, the summary, each eviction, the shorter catalog, each cut result."""
        return (
            bool(self.cleared)
            + bool(self.summarise_ids)
            + len(self.evictions)
            + (self.catalog is not None)
            + len(self.cut)
        )

    @property
    def is_noop(self) -> bool:
        return (
            not self.summarise_ids
            and not self.evictions
            and not self.cleared
            and self.catalog is None
            and not self.cut
        )


@dataclass(frozen=True)
class CompressionApplied:
    """One step of a compression plan carried out (an event of the engine's stream)."""

    plan: CompressionPlan
    step: str  # "summarised 12 messages", "evicted pdf-tools", …
    before: int
    after: int
