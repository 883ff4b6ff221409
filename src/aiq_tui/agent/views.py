"""Read-only snapshots of engine state that front ends (TUI, CLI) render."""

from __future__ import annotations

from typing import Any

# The view type lives beside the skill model (replay/ and the panes read it without the engine);
# named here too for the engine's callers.
from aiq_tui.llm.windows import resolve_window
from aiq_tui.skills.skill_view import (
    SkillView,
    catalog_views,
    dormant_view,
    listed_view,
)

__all__ = [
    "SkillView",
    "catalog_views",
    "dormant_view",
    "listed_view",
    "starting_views",
]


def starting_views(workspace: Any) -> list[SkillView]:
    """What a new engine on ``workspace`` with a deferred tokenizer lists (every catalog line
    estimated, as :class:`~aiq_tui.agent.engine.Engine` counts it before its tokenizer loads),
    without building the engine: the TUI shows the skills from this ~0.2 s before the engine's
    modules have loaded (tests/agent check that both agree)."""
    from aiq_tui.context.catalog_line import catalog_line, fit_catalog
    from aiq_tui.context.tokens import estimate_tokens

    # A deferred counter counts every text by estimate: the line the prompt builder writes
    # (the same functions), estimated directly — neither the builder's modules nor a counter
    # nobody keeps on the way to the first frame (10,000 lines on a large catalog's start).
    config = workspace.config
    entries = (
        [(meta.name, meta.description) for meta in workspace.catalog]
        if config.skills.enabled
        else []
    )
    fit = fit_catalog(
        entries,
        resolve_window(config).tokens,
        config.disclosure,
        config.context.catalog_share,
        estimate_tokens,
    )
    return catalog_views(
        workspace.catalog,
        lambda name, description: estimate_tokens(
            catalog_line(name, description, fit.cap_chars)
        ),
    )
