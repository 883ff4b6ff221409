"""A settings trial as a numpy re-score: the hybrid ranking of ``ranking/semantic.py``'s
``Matcher.fuse`` over cached features, for every query of a part at once.

The fused score, the candidates (a keyword hit, or a cosine at the floor) and the order (fused
score, then name) are the product's; panel.py checks on a sample that the ranks agree with
``Matcher.fuse`` itself. Only ranks are computed here: hit@k and MRR@10 need nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from aiq_tui.models import MODELS

ADAPTER_FOLDED_ALPHA = MODELS[
    "minilm"
].query_adapter_alpha  # the α folded into ranking/adapters/minilm.npy


@dataclass(frozen=True)
class Settings:
    """The ranking settings a panel trial varies (their shipped values: config.MatchingSettings)."""

    weight: float
    keyword_half: float
    floor: float
    companion_weight: float
    alpha: float  # the query adapter's strength: 0 = off, 1.3 = the file as trained

    def label(self) -> str:
        return (
            f"w {self.weight:g} · h {self.keyword_half:g} · floor {self.floor:g} · "
            f"companion {self.companion_weight:g} · α {self.alpha:g}"
        )


def adapted(queries: Any, matrix: Any | None, alpha: float) -> Any:
    """Query vectors as the product compares them at strength ``alpha``: through the shipped
    adapter (folded at ADAPTER_FOLDED_ALPHA) moved α/α₀ as far, rows back to unit length."""
    if matrix is None or alpha == 0:
        return queries
    from aiq_tui.ranking.query_adapter import QueryAdapter

    return QueryAdapter(matrix).at_strength(alpha / ADAPTER_FOLDED_ALPHA).apply(queries)


def scaled(cosines: Any) -> Any:
    import numpy as np

    low = cosines.min(axis=1, keepdims=True)
    spread = np.maximum(cosines.max(axis=1, keepdims=True) - low, 1e-9)
    return (cosines - low) / spread


def saturated(keyword: Any, half: float) -> Any:
    """kw′ = kw / (kw + h), 0 for a tool sharing no term."""
    import numpy as np

    return np.where(keyword > 0, keyword / (keyword + half), 0.0)


def combine(
    similarity: Any,
    other_similarity: Any | None,
    kw: Any,
    exclusion: Any,
    candidates: Any,
    settings: Settings,
) -> Any:
    """The fused score from its parts: similarities min-max scaled per query, kw′ saturated, each
    computed once for a whole grid of trials (panel.search)."""
    import numpy as np

    weight = settings.weight
    other_weight = (
        weight * settings.companion_weight if other_similarity is not None else 0.0
    )
    total = weight + other_weight + (1 - weight)
    fused = weight * similarity + (1 - weight) * kw
    if other_weight:
        fused = fused + other_weight * other_similarity
    return np.where(candidates, fused * exclusion / total, -np.inf)


def fused_scores(
    keyword: Any,
    exclusion: Any,
    cosines: Any,
    companion: Any | None,
    settings: Settings,
) -> Any:
    """(Q, T) fused scores as Matcher.fuse computes them; −inf where a tool is not a candidate."""
    return combine(
        scaled(cosines),
        None if companion is None else scaled(companion),
        saturated(keyword, settings.keyword_half),
        exclusion,
        (keyword > 0) | (cosines >= settings.floor),
        settings,
    )


def gold_ranks(fused: Any, gold: Any) -> Any:
    """(Q,) the 1-based rank of each query's best-placed gold tool (0 = not a candidate); ties
    go to the name first in order, as the product sorts (columns are in name order)."""
    import numpy as np

    columns = np.arange(fused.shape[1])
    best_score = np.where(gold, fused, -np.inf).max(axis=1)
    at_best = gold & (fused == best_score[:, None])
    best_column = np.where(at_best, columns, fused.shape[1]).min(axis=1)
    above = (fused > best_score[:, None]).sum(axis=1)
    tied_before = (
        (fused == best_score[:, None]) & (columns[None, :] < best_column[:, None])
    ).sum(axis=1)
    return np.where(np.isfinite(best_score), above + tied_before + 1, 0)


def cosines_for(features: Any, matrix: Any | None, alpha: float) -> Any:
    import numpy as np

    # float32 products then float64, as the product computes them (matrix @ vector, then tolist)
    queries = adapted(features.queries, matrix, alpha)
    return (queries.astype(np.float32) @ features.tools.astype(np.float32).T).astype(
        np.float64
    )


def companion_cosines(features: Any) -> Any | None:
    import numpy as np

    if features.companion_queries is None:
        return None
    return (
        features.companion_queries.astype(np.float32)
        @ features.companion_tools.astype(np.float32).T
    ).astype(np.float64)
