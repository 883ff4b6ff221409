"""Read-only snapshots of engine state that front ends (TUI, CLI) render."""

from __future__ import annotations

from dataclasses import dataclass

from aiq_tui.skills.model import Phase, SkillState


@dataclass(frozen=True)
class SkillView:
    """One skill as the skills pane shows it."""

    name: str
    description: str
    state: SkillState
    phase: Phase
    tokens: int  # what it currently costs in the prompt (catalog line when inactive)
    score: float | None = None  # last match score, None when never matched
    confidence: float | None = None
    reason: str = ""  # why it is in this state (last transition)
    status: str = "active"  # lango status: inactive / draft skills are shown, never loaded
    evicted: str = ""  # "evicted at 90 %": out of the prompt by a budget stage, until it matches again
