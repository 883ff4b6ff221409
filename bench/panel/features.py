"""Everything a settings trial needs, computed once per dataset part and cached on disk
(bench/results/panel/, git-ignored): the keyword ranker's scores, each query's and each tool's
MiniLM vector (and the companion model's). A trial is then a numpy re-score (see scoring.py).

Caches are keyed by the texts and the model's fingerprint (vectors) or by the ranking code's
sources (keyword scores), so a change to either is recomputed, never read stale.
"""

from __future__ import annotations

import hashlib
import pickle
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.panel.data import Dataset, PanelCase

CACHE = Path(__file__).resolve().parents[1] / "results" / "panel"
RANKING_SOURCES = Path(__file__).resolve().parents[2] / "src" / "aiq_tui" / "ranking"


@dataclass
class PartFeatures:
    """One dataset part, as arrays over (query, tool); tools in the index's name order."""

    names: tuple[str, ...]
    keyword: Any  # (Q, T) float64 keyword score, 0 = no hit
    exclusion: Any  # (Q, T) float64 exclusion factor (1 = none)
    keyword_rank: Any  # (Q,) best gold rank in the keyword ranking, 0 = not ranked
    keyword_top3: list[
        list[tuple[float, bool]]
    ]  # per query: the keyword top 3 (confidence, right)
    gold: Any  # (Q, T) bool
    groups: tuple[str, ...]
    queries: Any  # (Q, d) MiniLM query vectors, before any adapter
    tools: Any  # (T, d) MiniLM tool vectors
    companion_queries: Any = None
    companion_tools: Any = None


def _digest(*parts: Any) -> str:
    hasher = hashlib.sha256()
    for part in parts:
        hasher.update(repr(part).encode("utf-8"))
        hasher.update(b"\0")
    return hasher.hexdigest()[:16]


# What the keyword ranker (SkillIndex.rank) is made of: a change to any is a new cache key.
KEYWORD_SOURCES = (
    "match.py",
    "tokenize.py",
    "synonyms.py",
    "signal_words.py",
    "exclusions.py",
)


def ranking_code_digest() -> str:
    return _digest(*((RANKING_SOURCES / name).read_bytes() for name in KEYWORD_SOURCES))


def cached(label: str, key: str, compute: Any) -> Any:
    path = CACHE / f"{label}-{key}.pkl"
    if path.is_file():
        with path.open("rb") as handle:
            return pickle.load(handle)
    value = compute()
    CACHE.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".tmp")
    with temporary.open("wb") as handle:
        pickle.dump(value, handle, protocol=pickle.HIGHEST_PROTOCOL)
    temporary.replace(path)  # atomic: an interrupted run leaves no half file
    return value


def encode(encoder: Any, fingerprint: str, label: str, texts: Sequence[str]) -> Any:
    import numpy as np

    return cached(
        f"{label}-vectors",
        _digest(fingerprint, list(texts)),
        lambda: np.asarray(
            encoder.encode(list(texts), batch_size=64), dtype=np.float32
        ),
    )


def keyword_features(dataset: Dataset, cases: Sequence[PanelCase]) -> dict[str, Any]:
    """The keyword ranker's scores and factors for every (query, tool), and its own gold ranks."""
    import numpy as np

    from aiq_tui.ranking.match import SkillIndex, exclusion_factor

    def compute() -> dict[str, Any]:
        index = SkillIndex(list(dataset.metas))
        names = tuple(sorted(meta.name for meta in dataset.metas))
        column = {name: i for i, name in enumerate(names)}
        keyword = np.zeros((len(cases), len(names)))
        exclusion = np.ones((len(cases), len(names)))
        ranks = np.zeros(len(cases), dtype=np.int32)
        top3 = []
        for row, case in enumerate(cases):
            matches = index.rank(case.query, top_k=None).matches
            for _position, match in enumerate(matches):
                keyword[row, column[match.name]] = match.score
                exclusion[row, column[match.name]] = exclusion_factor(match)
            found = [
                position + 1
                for position, match in enumerate(matches)
                if match.name in case.gold
            ]
            ranks[row] = found[0] if found else 0
            top3.append(
                [(match.confidence, match.name in case.gold) for match in matches[:3]]
            )
        return {
            "names": names,
            "keyword": keyword,
            "exclusion": exclusion,
            "keyword_rank": ranks,
            "top3": top3,
        }

    texts = [(case.query, tuple(sorted(case.gold))) for case in cases]
    metas = [(meta.name, meta.description, str(meta.path)) for meta in dataset.metas]
    return cached(
        f"{dataset.name}-keyword", _digest(texts, metas, ranking_code_digest()), compute
    )


def part_features(
    dataset: Dataset, cases: Sequence[PanelCase], models: Any
) -> PartFeatures:
    """``models``: (minilm encoder, fingerprint, companion encoder or None, its fingerprint)."""
    import numpy as np

    from aiq_tui.ranking.vectors import skill_text

    words = keyword_features(dataset, cases)
    names = words["names"]
    by_name = {meta.name: meta for meta in dataset.metas}
    tool_texts = [skill_text(by_name[name]) for name in names]
    queries = [case.query for case in cases]
    encoder, fingerprint, other, other_fingerprint = models
    gold = np.zeros((len(cases), len(names)), dtype=bool)
    column = {name: i for i, name in enumerate(names)}
    for row, case in enumerate(cases):
        for name in case.gold:
            if name in column:
                gold[row, column[name]] = True
    features = PartFeatures(
        names=names,
        keyword=words["keyword"],
        exclusion=words["exclusion"],
        keyword_rank=words["keyword_rank"],
        keyword_top3=words["top3"],
        gold=gold,
        groups=tuple(case.group for case in cases),
        queries=encode(encoder, fingerprint, f"{dataset.name}-queries", queries),
        tools=encode(encoder, fingerprint, f"{dataset.name}-tools", tool_texts),
    )
    if other is not None:
        features.companion_queries = encode(
            other, other_fingerprint, f"{dataset.name}-companion-queries", queries
        )
        features.companion_tools = encode(
            other, other_fingerprint, f"{dataset.name}-companion-tools", tool_texts
        )
    return features
