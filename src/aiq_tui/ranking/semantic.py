"""Hybrid matching: the keyword ranker plus an optional sentence-embedding signal.

:class:`Matcher` is what the engine, ``aiq-tui match`` and the inspector rank with. With no
semantic model (the extra missing, no model installed, ``matching.semantic: off``) or
while skill vectors are still being computed, it is exactly the keyword ranker. Once every
skill has a vector it fuses the two signals:

    fused = w · sim′ + (1 − w) · kw′

where ``sim′`` is the cosine similarity min-max scaled over the catalog for this query and
``kw′ = kw / (kw + h)`` is the keyword score saturated (0 for a skill sharing no term; a
score of ``h`` = ``matching.semantic_keyword_half`` counts half). Saturating rather than
dividing by the query's best keyword score keeps how much the words matched: a skill that
is merely the best of several weak keyword matches no longer gets full keyword credit over
a close paraphrase (MetaTool tuning split hit@3 0.765 → 0.769, held-out 0.761 → 0.765).
``w`` = ``matching.semantic_weight``, ``h``, the floor, the companion's weight and the query
adapter's strength are chosen together on the tuning parts of the benchmark panel (bench/panel:
MetaTool, ToolLens, StableToolBench, the authored requests), by the best worst-set gain over
keyword matching. A skill with no keyword hit is a candidate only when its similarity reaches
``matching.semantic_floor`` (0.1: at 0.3 the floor hid right answers phrased in other words). A candidate below the calibrated
brief similarity gets a confidence under 0.15: the catalog line is all it ever discloses.

With a **companion** model installed beside MiniLM (``aiq-tui models install wordllama``:
static token embeddings, a signal whose mistakes differ from MiniLM's), its scaled similarity
``com′`` joins with the relative weight ``c`` = ``matching.semantic_companion_weight``:

    fused = (w · sim′ + w·c · com′ + (1 − w) · kw′) / (w + w·c + (1 − w))

so without it the formula above is unchanged (c = 0.3; see docs/benchmarks.md). Which skills are
candidates, and their confidence, still come from the words and MiniLM's cosine alone: the
companion reorders, it never admits a skill nor loads one on its own.

For the MiniLM weights it was trained on, each request's vector first goes through a
**query adapter** (``ranking/query_adapter.py``): a linear map learned on tool-retrieval sets
other than MetaTool that moves "what I want done" towards "what this tool does", as far as
``matching.semantic_query_adapter_alpha`` says (relative to the strength folded into the file).
Skill vectors are untouched; ``matching.semantic_query_adapter: false`` compares the model's own vectors.

Confidence keeps the keyword ranker's scale, so the disclosure thresholds (0.15 / 0.7)
mean the same with and without the extra: the similarity is mapped piecewise-linearly
onto that scale — ``semantic_brief_similarity`` → 0.15, ``semantic_full_similarity`` →
0.7 — where the two similarities were calibrated on the panel's tuning parts so that a match
at or above each threshold is the right skill at least as often as a keyword match at that
threshold is, on every set (same precision per phase); the hybrid confidence is the larger of the two.

numpy is imported only when vectors exist: the keyword path stays light.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiq_tui.ranking.match import Explanation, SkillIndex, exclusion_factor
from aiq_tui.skills.model import Match, Ranking, Signal, SkillMeta

if TYPE_CHECKING:
    import numpy as np

    from aiq_tui.ranking.encoder import Encoder
    from aiq_tui.ranking.query_adapter import QueryAdapter
    from aiq_tui.ranking.vectors import Progress, SkillVectors

SEMANTIC_FIELD = "embedding"  # Signal.field of the similarity signal
SEMANTIC_TERM = "similarity"
COMPANION_FIELD = "companion"  # Signal.field of the companion model's similarity


@dataclass(frozen=True)
class FusionSettings:
    """The fusion's knobs (their one home is ``config.MatchingSettings``)."""

    weight: float = 0.35
    floor: float = 0.1
    keyword_half: float = 40.0
    brief_similarity: float = 0.44
    full_similarity: float = 0.56
    lead_margin: float = 0.1
    companion_weight: float = 0.3

    @classmethod
    def from_config(cls, matching: Any) -> FusionSettings:
        return cls(
            weight=matching.semantic_weight,
            floor=matching.semantic_floor,
            keyword_half=matching.semantic_keyword_half,
            brief_similarity=matching.semantic_brief_similarity,
            full_similarity=matching.semantic_full_similarity,
            lead_margin=matching.semantic_lead_margin,
            companion_weight=matching.semantic_companion_weight,
        )


def similarity_confidence(
    similarity: float, fusion: FusionSettings, brief: float = 0.15, full: float = 0.7
) -> float:
    """Map a cosine onto the keyword confidence scale: calibrated brief/full points, linear between."""
    lo, mid, hi = fusion.floor * 0.5, fusion.brief_similarity, fusion.full_similarity
    if similarity <= lo:
        return 0.0
    if similarity < mid:
        return brief * (similarity - lo) / max(mid - lo, 1e-9)
    if similarity < hi:
        return brief + (full - brief) * (similarity - mid) / max(hi - mid, 1e-9)
    return min(1.0, full + (1 - full) * (similarity - hi) / max(1 - hi, 1e-9))


class SemanticModel:
    """An encoder and the catalog's skill vectors, made ready in the background.

    ``state`` goes ``loading`` → ``embedding`` → ``ready`` (or ``failed`` with ``error``).
    Nothing blocks: the matcher asks :meth:`similarities`, which answers None until ready.
    """

    def __init__(
        self,
        model_dir: Path,
        vectors: SkillVectors,
        *,
        name: str = "minilm",
        encoder_factory: Callable[[Path], Encoder] | None = None,
        companion: SemanticModel | None = None,
        query_adapter: Path | None = None,
        query_adapter_strength: float = 1.0,
    ) -> None:
        self.model_dir = model_dir
        self.name = name
        self.vectors = vectors
        # A linear map applied to each request's vector (ranking/query_adapter.py); loaded with
        # the encoder. None: the model's own query vectors.
        self.query_adapter = query_adapter
        self.query_adapter_strength = query_adapter_strength  # share of the file's move (models.query_adapter_strength)
        self._adapter: QueryAdapter | None = None
        # A second model fused beside this one (see the module docstring); prepared after this
        # one, and left out while not ready or when it failed — it never holds matching back.
        self.companion = companion
        self.state = "loading"
        self.error = ""
        self._encoder: Any = None
        self._factory = encoder_factory
        self._lock = threading.Lock()
        self._stop = False

    @property
    def progress(self) -> Progress:
        return self.vectors.progress

    @property
    def ready(self) -> bool:
        return self.state == "ready" and self.vectors.snapshot() is not None

    def stop(self) -> None:
        self._stop = True
        if self.companion is not None:
            self.companion.stop()

    def prepare(self, on_progress: Callable[[Progress], None] | None = None) -> None:
        """Load the encoder and embed every pending skill. Call from a worker thread."""
        try:
            with self._lock:
                if self._encoder is None:
                    self.state = "loading"
                    if self._factory is None:
                        from aiq_tui.ranking.encoder import Encoder

                        self._encoder = Encoder(self.model_dir)
                    else:
                        self._encoder = self._factory(self.model_dir)
                if self.query_adapter is not None and self._adapter is None:
                    from aiq_tui.ranking.query_adapter import QueryAdapter

                    self._adapter = QueryAdapter.load(self.query_adapter).at_strength(
                        self.query_adapter_strength
                    )
                self.state = "embedding"
                if on_progress is not None:
                    on_progress(self.progress)
                self.vectors.embed_pending(
                    self._encoder,
                    on_progress=on_progress,
                    should_stop=lambda: self._stop,
                )
                self._check_adapter_fits()
                self.state = "ready" if self.vectors.progress.ready else "embedding"
        except (
            Exception
        ) as exc:  # a broken model must never break matching: keyword only
            self.state, self.error = "failed", f"{type(exc).__name__}: {exc}"
        if self.companion is not None and self.state == "ready" and not self._stop:
            self.companion.prepare()  # a static model: milliseconds, so no progress of its own
        if on_progress is not None:
            on_progress(self.progress)

    def _check_adapter_fits(self) -> None:
        """An adapter made for vectors of another size would fail every request: fail now instead."""
        snapshot = self.vectors.snapshot()
        if (
            self._adapter is None
            or snapshot is None
            or snapshot[1].shape[1] == self._adapter.dimensions
        ):
            return
        from aiq_tui.ranking.query_adapter import QueryAdapterError

        raise QueryAdapterError(
            f"{self.query_adapter}: for {self._adapter.dimensions}-dimensional vectors; "
            f"{self.name} gives {snapshot[1].shape[1]}"
        )

    def update(self, metas: Iterable[SkillMeta], removed: Iterable[str] = ()) -> None:
        """Skills changed on disk: their vectors become pending until :meth:`prepare` runs."""
        metas = list(metas)
        removed = list(removed)
        self.vectors.update(metas, removed)
        if self.state == "ready" and not self.vectors.progress.ready:
            self.state = "embedding"
        if self.companion is not None:
            self.companion.update(metas, removed)

    def similarities(self, query: str) -> tuple[tuple[str, ...], np.ndarray] | None:
        """(names, cosine per name) for the query, or None while not ready."""
        if self.state != "ready":
            return None
        snapshot = self.vectors.snapshot()
        if snapshot is None or self._encoder is None:
            return None
        names, matrix = snapshot
        return names, matrix @ self.query_vectors(self._encoder.encode([query]))[0]

    def query_vectors(self, vectors: np.ndarray) -> np.ndarray:
        """The encoder's vectors of requests as this model compares them with skills: through
        the query adapter when there is one. ``bench/match.py`` encodes in batches and asks this."""
        return vectors if self._adapter is None else self._adapter.apply(vectors)

    def companion_similarities(
        self, query: str
    ) -> tuple[tuple[str, ...], np.ndarray] | None:
        """The companion model's (names, cosines), or None without a ready companion."""
        if self.companion is None or not self.companion.ready:
            return None
        return self.companion.similarities(query)


class Matcher:
    """Ranks with the keyword index, plus the semantic signal once it is ready."""

    def __init__(
        self,
        index: SkillIndex,
        semantic: SemanticModel | None = None,
        fusion: FusionSettings | None = None,
        thresholds: tuple[float, float] = (0.15, 0.7),
    ) -> None:
        self.index = index
        self.semantic = semantic
        self.fusion = fusion or FusionSettings()
        self.thresholds = thresholds

    @property
    def signals_used(self) -> tuple[str, ...]:
        """Which signals :meth:`rank` uses right now."""
        if self.semantic is not None and self.semantic.ready:
            companion = self.semantic.companion
            if (
                companion is not None
                and companion.ready
                and self.fusion.companion_weight > 0
            ):
                return ("keyword", "semantic", "companion")
            return ("keyword", "semantic")
        return ("keyword",)

    def rank(
        self, query: str, context: Sequence[str] = (), top_k: int | None = None
    ) -> Ranking:
        keyword = self.index.rank(
            query, context=context, top_k=None if self.semantic else top_k
        )
        if self.semantic is None:
            return keyword
        similar = self.semantic.similarities(query)
        if similar is None:
            return (
                keyword
                if top_k is None
                else replace(keyword, matches=keyword.matches[:top_k])
            )
        companion = (
            self.semantic.companion_similarities(query)
            if self.fusion.companion_weight > 0
            else None
        )
        return self.fuse(keyword, similar, top_k, companion)

    def fuse(
        self,
        keyword: Ranking,
        similar: tuple[tuple[str, ...], np.ndarray],
        top_k: int | None,
        companion: tuple[tuple[str, ...], np.ndarray] | None = None,
    ) -> Ranking:
        """The hybrid ranking from a keyword ranking and the query's similarities (and the
        companion model's, when given)."""
        names, cosines = similar
        fusion = self.fusion
        semantic_weight, companion_weight = fusion.weight, 0.0
        other: dict[str, float] = {}  # the companion's cosine per skill
        other_low, other_spread = 0.0, 1.0
        if companion is not None and fusion.companion_weight > 0:
            other = dict(zip(companion[0], companion[1].tolist()))
            other_low = float(companion[1].min())
            other_spread = max(float(companion[1].max()) - other_low, 1e-9)
            companion_weight = fusion.weight * fusion.companion_weight
        total = (
            semantic_weight + companion_weight + (1 - fusion.weight)
        )  # fused scores stay in [0, 1]
        low, high = float(cosines.min()), float(cosines.max())
        spread = max(high - low, 1e-9)
        by_keyword = {match.name: match for match in keyword.matches}
        half = fusion.keyword_half
        similarity = dict(zip(names, cosines.tolist()))
        candidates = set(by_keyword) | {
            name for name, value in similarity.items() if value >= fusion.floor
        }
        scored: list[tuple[float, str]] = []
        for name in candidates:
            score = by_keyword[name].score if name in by_keyword else 0.0
            kw = score / (score + half) if score > 0 else 0.0
            sim = (similarity.get(name, low) - low) / spread
            fused = semantic_weight * sim + (1 - fusion.weight) * kw
            if companion_weight:
                fused += (
                    companion_weight
                    * (other.get(name, other_low) - other_low)
                    / other_spread
                )
            if (
                name in by_keyword
            ):  # "Not for …" lowers the fused score as it lowers the keyword one
                fused *= exclusion_factor(by_keyword[name])
            scored.append((fused / total, name))
        # No "exact name first" override: a skill named in the query already has the best
        # keyword score (kw′ = 1), and common words that happen to be names ("now", "calculator")
        # must not outrank what the request means (MetaTool tuning split: hit@1 −0.05 with it).
        scored.sort(key=lambda item: (-item[0], item[1]))
        lead = self.lead(scored)
        if top_k is not None:
            scored = scored[:top_k]
        brief, full = self.thresholds
        tie = self.index.calibration.tie_confidence
        matches = []
        for position, (fused, name) in enumerate(scored):
            cosine = similarity.get(name, 0.0)
            signal: tuple[Signal, ...] = (
                Signal(SEMANTIC_TERM, SEMANTIC_FIELD, round(cosine, 4)),
            )
            if companion_weight:
                signal += (
                    Signal(
                        SEMANTIC_TERM, COMPANION_FIELD, round(other.get(name, 0.0), 4)
                    ),
                )
            kw_match = by_keyword.get(name)
            confidence = similarity_confidence(cosine, fusion, brief, full)
            if kw_match is not None:
                confidence = max(
                    kw_match.confidence, confidence * exclusion_factor(kw_match)
                )
            # As in the keyword ranker: only a clear leader (in fused score) may pass the tie cap.
            confidence = min(
                confidence, tie + (1 - tie) * lead if position == 0 else tie
            )
            signals = signal if kw_match is None else kw_match.signals + signal
            matches.append(Match(name, round(fused, 4), round(confidence, 4), signals))
        return Ranking(
            query=keyword.query,
            terms=keyword.terms,
            matches=tuple(matches),
            considered=keyword.considered,
        )

    def lead(self, scored: Sequence[tuple[float, str]]) -> float:
        """How clearly the best fused score leads the runner-up, in [0, 1] (1 from
        ``fusion.lead_margin`` on; fused scores lie in [0, 1], so the margin is absolute)."""
        if not scored:
            return 0.0
        runner_up = scored[1][0] if len(scored) > 1 else 0.0
        return min(1.0, max(0.0, scored[0][0] - runner_up) / self.fusion.lead_margin)

    def _held_back(self, ranking: Ranking, position: int) -> str:
        """Says so when the tie cap, not the evidence, set a hybrid match's confidence."""
        matches = ranking.matches
        tie = self.index.calibration.tie_confidence
        lead = self.lead([(m.score, m.name) for m in matches[:2]])
        cap = tie + (1 - tie) * lead if position == 0 else tie
        if cap >= 1.0 or abs(matches[position].confidence - round(cap, 4)) > 1e-4:
            return ""
        if position == 0:
            return (
                f"held at {cap:.2f}: its fused score leads {matches[1].name} by only "
                f"{matches[0].score - matches[1].score:.2f} (a clear lead is {self.fusion.lead_margin:.2f})"
            )
        return f"held at {cap:.2f}: {matches[0].name} matches at least as well"

    def explain(
        self,
        query: str,
        name: str,
        context: Sequence[str] = (),
        top_k: int | None = None,
    ) -> Explanation:
        """Why ``name`` ranks where it does; says when the embedding, not the words, decided."""
        words = self.index.explain(query, name, context=context, top_k=top_k)
        if "semantic" not in self.signals_used or name not in self.index:
            return words
        ranking = self.rank(query, context=context)
        rank = next(
            (i + 1 for i, m in enumerate(ranking.matches) if m.name == name), None
        )
        match = ranking.matches[rank - 1] if rank else None
        similar = self.semantic.similarities(query) if self.semantic else None
        cosine = (
            dict(zip(similar[0], similar[1].tolist())).get(name, 0.0)
            if similar
            else 0.0
        )
        # The words-only rank, confidence and its cap are replaced by the hybrid's own below.
        reasons = [
            reason
            for reason in words.reasons
            if not reason.startswith(("ranked ", "confidence ", "held at "))
        ]
        if words.rank is not None:
            reasons.insert(0, f"the words alone rank it {_ordinal(words.rank)}")
        reasons.append(f"semantic similarity {cosine:.2f}")
        companion = (
            self.semantic.companion_similarities(query)
            if "companion" in self.signals_used and self.semantic is not None
            else None
        )
        if (
            companion is not None
            and self.semantic is not None
            and self.semantic.companion is not None
        ):
            other = dict(zip(companion[0], companion[1].tolist())).get(name, 0.0)
            reasons.append(f"{self.semantic.companion.name} similarity {other:.2f}")
        if rank is None or match is None:
            reasons.append(
                f"not a match: no shared term and similarity below {self.fusion.floor:.2f}"
            )
        else:
            where = f"ranked {_ordinal(rank)} of {len(ranking.matches)} matches"
            if top_k is not None and rank > top_k:
                where = f"ranked {_ordinal(rank)}, below top-k {top_k}"
                if words.rank is not None and words.rank <= top_k:
                    where += " — the embedding, not the words, kept it out (low semantic similarity)"
            elif top_k is not None and (words.rank is None or words.rank > top_k):
                where += " — the embedding brought it in"
            reasons.append(where)
            reasons.append(f"confidence {match.confidence:.2f}")
            held = self._held_back(ranking, rank - 1)
            if held:
                reasons.append(held)
        return Explanation(
            name,
            query,
            words.terms,
            rank,
            match,
            words.missing,
            tuple(reasons),
            words.missing_words,
        )


def _ordinal(n: int) -> str:
    suffix = (
        "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    )
    return f"{n}{suffix}"


__all__ = [
    "COMPANION_FIELD",
    "SEMANTIC_FIELD",
    "FusionSettings",
    "Matcher",
    "SemanticModel",
    "similarity_confidence",
]
