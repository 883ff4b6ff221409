"""One skill as a front end lists it (:class:`SkillView`): a snapshot the engine makes, the
skills pane draws and the replay fold keeps. Here, beside the skill model, so the fold
(``replay/``) and the panes need not import the engine (``agent/``) for a type.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from aiq_tui.skills.invocation import manual_only_reason, model_invocable
from aiq_tui.skills.model import Phase, SkillState

if TYPE_CHECKING:
    from aiq_tui.skills.model import SkillMeta


@dataclass(slots=True)
class SkillView:
    """One skill as the skills pane shows it: a snapshot, never changed once made.

    Not a frozen dataclass: one is made for every skill at each refresh (10,000 on a large
    catalog's start, on the way to the first frame), and a frozen one's constructor, which
    sets each field through ``object.__setattr__``, took three times as long (17 → 5 ms for
    10,000). Slots also keep each one smaller than a dict would."""

    name: str
    description: str
    state: SkillState
    phase: Phase
    tokens: int  # what it currently costs in the prompt (catalog line when inactive)
    score: float | None = None  # last match score, None when never matched
    confidence: float | None = None
    reason: str = ""  # why it is in this state (last transition)
    status: str = (
        "active"  # lango status: inactive / draft skills are shown, never loaded
    )
    evicted: str = ""  # "evicted at 90 %": out of the prompt by a budget stage, until it matches again


def listed_view(
    meta: SkillMeta,
    tokens: int,
    score: float | None = None,
    confidence: float | None = None,
    reason: str = "",
) -> SkillView:
    """A skill that is not loaded: Inactive, at the metadata phase, costing its catalog line —
    nothing, with the reason, for a skill only the user runs (not in the model's catalog)."""
    if meta.extras and not model_invocable(meta.extras):
        tokens, reason = 0, manual_only_reason(meta.name)
    return SkillView(
        meta.name,
        meta.description,
        SkillState.INACTIVE,
        Phase.METADATA,
        tokens,
        score,
        confidence,
        reason,
    )


def dormant_view(meta: SkillMeta) -> SkillView:
    """A skill with ``status: inactive`` or ``draft``: listed with its status, never loaded."""
    return SkillView(
        meta.name,
        meta.description,
        SkillState.INACTIVE,
        Phase.METADATA,
        0,
        reason=f"status {meta.status}: not loaded (aiq-tui skills enable {meta.name})",
        status=meta.status,
    )


def catalog_views(
    catalog: Any, catalog_tokens: Callable[[str, str], int]
) -> list[SkillView]:
    """Every skill of ``catalog`` as the pane lists it before any turn — what
    :meth:`~aiq_tui.agent.skillset.LoadedSkills.views` returns while nothing is loaded or
    matched. The TUI lists the skills from this while the engine is still being built."""
    dormant = getattr(catalog, "dormant", None)
    return [
        listed_view(meta, catalog_tokens(meta.name, meta.description))
        for meta in catalog
    ] + [dormant_view(meta) for meta in (dormant() if dormant is not None else ())]
