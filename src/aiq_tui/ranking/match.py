"""Rank skills for a query: an explainable BM25F matcher over an inverted index.

The index is built once from the discovered metadata and updated per skill on reload
(:meth:`SkillIndex.upsert`, :meth:`SkillIndex.remove`). A query is scored only against the
skills that share a term with it, so unrelated skills score exactly 0 and never appear.

Scoring (what the seed asks, made graded): every field is tokenised the same way as the
query (:mod:`aiq_tui.ranking.tokenize`) and weighted — name > triggers > tags >
description > body — in one BM25F sum, so a term in the name outranks the same term in
the description, and rare terms outrank common ones. On top of that, the whole name
written in the query (``slack-gif-creator``, ``pdf``) and a trigger phrase written in the
query add a boost. That reproduces the seed's order exact name > partial name >
description keyword, and every point of the score is recorded as a :class:`Signal`.

A description's exclusion clauses ("Not for X", "SKIP when …", see
:mod:`aiq_tui.ranking.exclusions`) are not indexed as the description: their words are
negative evidence. A request using them (beyond words the skill also names as what it is for)
lowers the skill's score and confidence, recorded as an ``exclusion`` signal that names the
clause; such a request's words that the clause shares with the rest (a name word: "themes" in
"Not for terminal themes") then count against the skill too (:class:`~aiq_tui.ranking.exclusions.Boundary`).
A request that meets no clause but matches the skill *only* through words its clauses also use
("what's the theme of The Great Gatsby" against "… Not for a WordPress theme or a theme song")
uses a word the description gives other senses: its coverage counts such a word at
1 / (1 + the clause items using it) (:meth:`SkillIndex._contested`).
"""

from __future__ import annotations

import heapq
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from aiq_tui.figures import share as percent_of_fraction
from aiq_tui.ranking.exclusions import Boundary, boundaries, parse_exclusions
from aiq_tui.ranking.synonyms import SYNONYM_WEIGHT, synonyms
from aiq_tui.ranking.tokenize import name_terms, surface_words, term_of, tokenize, words
from aiq_tui.skills.model import Match, Ranking, Signal, SkillMeta

FIELDS: tuple[str, ...] = ("name", "triggers", "tags", "description", "body")

TermMass = tuple[str, float, tuple[tuple[str, float], ...]]
"""One query term as coverage weighs it: (term, its query weight × idf, its related terms with
their similarity) — computed once per query by ``SkillIndex._query_masses``."""
# BM25F field weights: how much one occurrence in the field counts. The name carries the
# most evidence per word (authors choose it carefully); the body is long and noisy.
# K1, the name's weight and b, and EXACT_NAME_BOOST were tuned together on the MetaTool
# tuning split (issue 25: hit@3 0.640 → 0.651, MRR@10 0.569 → 0.576; held-out 0.630 → 0.637).
FIELD_WEIGHTS: dict[str, float] = {
    "name": 4.0,
    "triggers": 2.5,
    "tags": 2.0,
    "description": 1.0,
    "body": 0.25,
}
# Length normalisation per field (BM25 ``b``): short fields barely, the long body fully.
FIELD_B: dict[str, float] = {
    "name": 0.6,
    "triggers": 0.5,
    "tags": 0.3,
    "description": 0.3,
    "body": 0.75,
}
K1 = 2.0  # term-frequency saturation: a word repeated in a short description still counts
CONTEXT_WEIGHT = 0.35  # a term only in earlier user turns counts this much
EXACT_NAME_BOOST = (
    0.5  # × the name's idf mass, added when the query writes the whole name
)
TRIGGER_BOOST = (
    1.0  # × the trigger's idf mass, added when the query contains the phrase
)
UNSEEN_IDF_SHARE = 0.5  # a query word no skill uses weighs this share of a df=1 term
# A term found only in the body covers the query this much: the body's BM25F weight, so a
# clear lead on body words alone (coverage × 1.65 at most) stays brief.
BODY_ONLY_COVERAGE = 0.25
LIFT_WINDOW = (
    20  # how many best-scored skills the name-tier rule reorders (see _lift_name_tiers)
)
EXACT_CONFIDENCE = 0.85  # floor of the confidence of a skill named in the query
LEAD_WEIGHT = 0.8  # how much a clear lead over the runner-up adds to the evidence (see confidence)
LEAD_GAP = 0.5  # the most of the gap between coverage and certainty a lead closes
_MAX_NGRAM = 6  # longest trigger phrase / name (in words) looked for in the query
# A request meeting an exclusion clause: its score and coverage are multiplied by
# 1 − EXCLUSION_WEIGHT × (idf mass of its words in the clause) / (idf mass the skill covers),
# never below EXCLUDED_FLOOR, so an excluded skill stays listed (with the clause that excluded
# it) but well under the brief threshold once the clause explains as much of the request as
# the rest of the skill does.
EXCLUSION_WEIGHT = 1.0
EXCLUDED_FLOOR = 0.1
EXCLUSION_FIELD = "exclusion"  # the Signal field of the penalty; its term is the clause


@dataclass(frozen=True)
class Calibration:
    """How confidence rewards a clear lead (their one home is ``config.MatchingSettings``)."""

    lead_margin: float = 0.5  # matching.confidence_lead_margin
    tie_confidence: float = 0.65  # matching.tie_confidence

    @classmethod
    def from_config(cls, matching: Any) -> Calibration:
        return cls(
            lead_margin=matching.confidence_lead_margin,
            tie_confidence=matching.tie_confidence,
        )


@dataclass(frozen=True)
class Explanation:
    """Why one skill did or did not make the ranking for a query."""

    name: str
    query: str
    terms: tuple[str, ...]
    rank: int | None  # 1-based rank among matches, None when the skill scored 0
    match: Match | None
    missing: tuple[
        str, ...
    ]  # query terms the skill does not contain at all, not even as a related word
    reasons: tuple[str, ...]  # in words, as the user and the skill's author wrote them
    missing_words: tuple[
        str, ...
    ] = ()  # ``missing`` as the user wrote them ("tables", not "tabl")
    excluded_by: tuple[
        str, ...
    ] = ()  # the description's exclusion clauses the query meets


@dataclass(frozen=True)
class Scored:
    """The best skills for a query with their scores, before any :class:`Match` is built.

    :meth:`SkillIndex.rank` builds its matches from exactly these pairs; callers that rank
    many long queries and explain only a few (the doctor) take them from
    :meth:`SkillIndex.top_scores` and call :meth:`SkillIndex.rank` for the few.
    """

    query: str
    terms: tuple[str, ...]  # the query's terms, as :attr:`Ranking.terms`
    ranked: tuple[
        tuple[str, float], ...
    ]  # (name, score rounded like Match.score), best first

    def get(self, name: str) -> float | None:
        return next((score for other, score in self.ranked if other == name), None)


@dataclass
class _Doc:
    # Compact on purpose: with 10,000 skills per-document Counters were a third of the app's
    # memory. Term counts live once, in the postings; a document keeps what removal and the
    # name tier need.
    name: str
    terms: tuple[
        str, ...
    ]  # every distinct term of every field (to remove its postings)
    name_terms: frozenset[str]
    lengths: tuple[int, ...]  # terms per field, in FIELDS order
    name_key: str  # lowercase words of the name joined: "slackgifcreator"
    triggers: tuple[tuple[tuple[str, ...], str], ...] = ()  # (term sequence, phrase)
    has_body: bool = False
    # The description's exclusion clauses: their own terms (the negative evidence), the terms
    # they share with what the skill is for, and the clause as written.
    exclusions: tuple[Boundary, ...] = ()


_COUNTS: dict[tuple[int, ...], tuple[int, ...]] = {}
"""Interned per-field count tuples (shared by every index; a few hundred distinct ones)."""


@dataclass
class _Compiled:
    """One term's postings with the BM25F contribution precomputed per skill."""

    idf: float
    scores: dict[str, float] = field(default_factory=dict)
    top: float = 0.0  # the largest contribution: bounds what this term can add


class SkillIndex:
    """An inverted index of skills, ranked by :meth:`rank`. Not thread-safe."""

    def __init__(
        self, metas: Iterable[SkillMeta] = (), calibration: Calibration | None = None
    ) -> None:
        self.calibration = calibration or Calibration()
        self._docs: dict[str, _Doc] = {}
        self._metas: dict[str, SkillMeta] = {}
        self._bodies: dict[str, str] = {}
        self._postings: dict[str, dict[str, tuple[int, ...]]] = {}
        self._length_sums: dict[str, int] = {name: 0 for name in FIELDS}
        self._by_name_key: dict[str, set[str]] = {}
        self._by_trigger: dict[tuple[str, ...], set[str]] = {}
        self._by_excluded: dict[
            str, set[str]
        ] = {}  # exclusion term → skills whose clauses use it
        self._compiled: dict[str, _Compiled] = {}
        # Derived from the postings, cleared with ``_compiled`` whenever a skill changes.
        self._related: dict[str, tuple[tuple[str, float], ...]] = {}
        self._name_prefixes: set[str] | None = (
            None  # every prefix of a name key: ends n-grams early
        )
        for meta in metas:
            self.upsert(meta)

    # -- building -------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._docs)

    def __contains__(self, name: object) -> bool:
        return name in self._docs

    def names(self) -> list[str]:
        return sorted(self._docs)

    def upsert(self, meta: SkillMeta) -> None:
        """Add or replace one skill (keeps a body given earlier through :meth:`add_body`)."""
        body = self._bodies.get(meta.name)
        self._remove_doc(meta.name)
        self._metas[meta.name] = meta
        self._add_doc(meta, body)

    def add_body(self, name: str, text: str) -> None:
        """Index the body of an already indexed skill as a weak extra signal."""
        if name not in self._metas:
            raise KeyError(f"unknown skill {name!r}: upsert its metadata first")
        self._bodies[name] = text
        meta = self._metas[name]
        self._remove_doc(name)
        self._add_doc(meta, text)

    def remove(self, name: str) -> None:
        """Forget a skill (deleted or renamed on disk). Unknown names are ignored."""
        self._remove_doc(name)
        self._metas.pop(name, None)
        self._bodies.pop(name, None)

    def _add_doc(self, meta: SkillMeta, body: str | None) -> None:
        parsed = parse_exclusions(meta.description or "")
        texts = {
            "triggers": " ".join(meta.triggers),
            "tags": " ".join(meta.tags),
            "description": parsed.positive,
            "body": body or "",
        }
        tfs: dict[str, Counter[str]] = {"name": Counter(name_terms(meta.name))}
        for field_name, text in texts.items():
            tfs[field_name] = Counter(tokenize(text))
        lengths = tuple(sum(tfs[field_name].values()) for field_name in FIELDS)
        triggers = tuple(
            (tuple(tokenize(phrase)), phrase)
            for phrase in meta.triggers
            if tokenize(phrase)
        )
        per_field = [tfs[field_name] for field_name in FIELDS]
        terms = tuple(set().union(*per_field))
        exclusions: tuple[Boundary, ...] = ()
        if parsed.exclusions:
            positive = set().union(
                *per_field[:-1]
            )  # what the metadata says it is for (not the body)
            exclusions = boundaries(parsed, frozenset(positive), tokenize)
        doc = _Doc(
            name=meta.name,
            terms=terms,
            name_terms=frozenset(tfs["name"]),
            lengths=lengths,
            name_key=_name_key(meta.name),
            triggers=triggers,
            has_body=bool(body),
            exclusions=exclusions,
        )
        self._docs[meta.name] = doc
        for i, field_name in enumerate(FIELDS):
            self._length_sums[field_name] += lengths[i]
        for term in terms:
            counts = tuple([tf[term] for tf in per_field])
            # Most count tuples repeat — (0, 0, 0, 1, 0) is a term met once in a description —
            # so one shared object per distinct tuple keeps 10,000 skills' postings small.
            counts = _COUNTS.setdefault(counts, counts)
            self._postings.setdefault(term, {})[meta.name] = counts
        if doc.name_key:
            self._by_name_key.setdefault(doc.name_key, set()).add(meta.name)
        for sequence, _phrase in triggers:
            self._by_trigger.setdefault(sequence, set()).add(meta.name)
        for boundary in exclusions:
            for term in boundary.own:
                self._by_excluded.setdefault(term, set()).add(meta.name)
        self._forget_derived()  # idf and average lengths moved

    def _remove_doc(self, name: str) -> None:
        doc = self._docs.pop(name, None)
        if doc is None:
            return
        for i, field_name in enumerate(FIELDS):
            self._length_sums[field_name] -= doc.lengths[i]
        for term in doc.terms:
            postings = self._postings.get(term)
            if postings is not None:
                postings.pop(name, None)
                if not postings:
                    del self._postings[term]
        _discard(self._by_name_key, doc.name_key, name)
        for sequence, _phrase in doc.triggers:
            _discard(self._by_trigger, sequence, name)
        for boundary in doc.exclusions:
            for term in boundary.own:
                _discard(self._by_excluded, term, name)
        self._forget_derived()

    def _forget_derived(self) -> None:
        self._compiled.clear()
        self._related.clear()
        self._name_prefixes = None

    # -- related terms (issue 16): synonyms met at a share of the query term's weight -----

    def related(self, term: str) -> tuple[tuple[str, float], ...]:
        """Indexed terms a query term also meets, each with its share of the term's weight."""
        related = self._related.get(term)
        if related is None:
            related = tuple(
                (other, SYNONYM_WEIGHT)
                for other in sorted(synonyms(term))
                if other in self._postings
            )
            self._related[term] = related
        return related

    def _related_via(self, term: str, weights: Mapping[str, float]) -> str:
        """The query term (of ``weights``) that ``term`` is a related word of; "" when none."""
        return next(
            (
                query_term
                for query_term in weights
                if any(other == term for other, _share in self.related(query_term))
            ),
            "",
        )

    def scoring_weights(self, weights: dict[str, float]) -> dict[str, float]:
        """The query's terms plus their related terms (down-weighted) it does not already have."""
        out = dict(weights)
        for term, q in weights.items():
            for other, share in self.related(term):
                if other not in weights:
                    out[other] = max(out.get(other, 0.0), q * share)
        return out

    # -- scoring --------------------------------------------------------------------------

    def idf(self, term: str) -> float:
        """BM25 idf (always > 0); a term no skill uses gets a share of the rarest idf."""
        n = len(self._docs)
        df = len(self._postings.get(term, ()))
        if df == 0:
            return UNSEEN_IDF_SHARE * math.log(1 + (n - 0.5) / 1.5)
        return math.log(1 + (n - df + 0.5) / (df + 0.5))

    def _compile(self, term: str) -> _Compiled | None:
        compiled = self._compiled.get(term)
        if compiled is not None:
            return compiled
        postings = self._postings.get(term)
        if not postings:
            return None
        n = len(self._docs)
        averages = [max(self._length_sums[f] / n, 1e-9) for f in FIELDS]
        weights = [FIELD_WEIGHTS[f] for f in FIELDS]
        bs = [FIELD_B[f] for f in FIELDS]
        compiled = _Compiled(idf=self.idf(term))
        for name, counts in postings.items():
            lengths = self._docs[name].lengths
            pseudo = 0.0
            for i, count in enumerate(counts):
                if count:
                    norm = 1 - bs[i] + bs[i] * lengths[i] / averages[i]
                    pseudo += weights[i] * count / norm
            compiled.scores[name] = compiled.idf * pseudo * (K1 + 1) / (K1 + pseudo)
        compiled.top = max(compiled.scores.values())
        self._compiled[term] = compiled
        return compiled

    def _fields_of(self, name: str, term: str) -> list[str]:
        """The fields of skill ``name`` that contain ``term``."""
        counts = self._postings.get(term, {}).get(name)
        return [FIELDS[i] for i, count in enumerate(counts) if count] if counts else []

    def _field_parts(self, term: str, name: str) -> list[tuple[str, float]]:
        """How one term's contribution to one skill divides over the fields."""
        counts = self._postings[term][name]
        n = len(self._docs)
        lengths = self._docs[name].lengths
        parts: list[tuple[str, float]] = []
        for i, count in enumerate(counts):
            if count:
                f = FIELDS[i]
                average = max(self._length_sums[f] / n, 1e-9)
                norm = 1 - FIELD_B[f] + FIELD_B[f] * lengths[i] / average
                parts.append((f, FIELD_WEIGHTS[f] * count / norm))
        return parts

    def query_weights(
        self, query: str, context: Sequence[str] = ()
    ) -> dict[str, float]:
        """Terms of the query (weight 1) and of the context turns (down-weighted)."""
        return self._weights(tokenize(query), context)

    @staticmethod
    def _weights(terms: Iterable[str], context: Sequence[str]) -> dict[str, float]:
        weights: dict[str, float] = dict.fromkeys(terms, 1.0)
        for message in context:
            for term in tokenize(message):
                weights.setdefault(term, CONTEXT_WEIGHT)
        return weights

    def _boosts(self, query: str) -> dict[str, list[Signal]]:
        """Exact-name and trigger-phrase hits: skill → boost signals."""
        raw = [word for word in words(query) if word]
        return self._boosts_of(
            raw, [term for term in map(term_of, raw) if term is not None]
        )

    def _boosts_of(self, raw: list[str], terms: list[str]) -> dict[str, list[Signal]]:
        """:meth:`_boosts` from the query's surface words and their terms (computed once)."""
        boosts: dict[str, list[Signal]] = {}
        if self._name_prefixes is None:
            self._name_prefixes = {
                key[:end] for key in self._by_name_key for end in range(1, len(key) + 1)
            }
        prefixes, by_name_key = self._name_prefixes, self._by_name_key
        keys: set[str] = set()
        for i in range(len(raw)):
            key = ""
            for j in range(i, min(len(raw), i + _MAX_NGRAM)):
                key += raw[j]
                if key not in prefixes:
                    break  # no name starts with these words: neither can a longer n-gram from i
                if key in by_name_key:
                    keys.add(key)
        for key in keys:
            for name in self._by_name_key.get(key, ()):
                doc = self._docs[name]
                mass = sum(self.idf(term) for term in doc.name_terms)
                boosts.setdefault(name, []).append(
                    Signal(name, "name", EXACT_NAME_BOOST * mass)
                )
        if self._by_trigger:
            grams = {
                tuple(terms[i:j])
                for i in range(len(terms))
                for j in range(i + 1, min(len(terms), i + _MAX_NGRAM) + 1)
            }
            for gram in grams:
                for name in self._by_trigger.get(gram, ()):
                    phrase = next(
                        p for seq, p in self._docs[name].triggers if seq == gram
                    )
                    mass = sum(self.idf(term) for term in set(gram))
                    boosts.setdefault(name, []).append(
                        Signal(phrase, "triggers", TRIGGER_BOOST * mass)
                    )
        return boosts

    def _scores(
        self,
        weights: dict[str, float],
        boosts: dict[str, list[Signal]],
        keep: int | None = None,
        window: int | None = None,
    ) -> dict[str, float]:
        """Accumulate scores term by term, rarest term first.

        With ``keep`` (the number of best skills wanted) this prunes like MaxScore: once
        the ``keep``-th best score so far exceeds the most the remaining terms could add
        together, a skill not seen yet cannot reach the top, so the remaining (common,
        long-postings) terms only update skills already seen. The top ``keep`` and their
        scores are exactly those of the unpruned sum.

        With ``window`` too (how many best skills the caller looks at, ≥ ``keep``), from then
        on a seen skill that cannot reach the best ``window`` any more — its score plus all
        the remaining terms could add stays below the ``window``-th best score so far — is
        dropped instead of updated: the best ``window`` and their scores do not change, and
        the common terms (in every description) then update a few skills, not hundreds.
        """
        scores: dict[str, float] = {}
        for name, signals in boosts.items():
            scores[name] = sum(signal.weight for signal in signals)
        postings = []
        for term, weight in weights.items():
            compiled = self._compiled.get(term) or self._compile(term)
            if compiled is not None:
                postings.append((weight, compiled))
        postings.sort(key=lambda item: len(item[1].scores))
        remaining = sum(weight * compiled.top for weight, compiled in postings)
        closed = False
        for weight, compiled in postings:
            if keep is not None and not closed and len(scores) >= keep:
                # The keep-th best exceeds what remains only if the best does: max() is cheap.
                closed = (
                    max(scores.values()) > remaining
                    and sorted(scores.values())[-keep] > remaining
                )
            if closed and window is not None and len(scores) > window:
                scores = _within_reach(scores, window, remaining)
            remaining -= weight * compiled.top
            values = compiled.scores
            if closed:
                names = (
                    scores
                    if len(scores) <= len(values)
                    else scores.keys() & values.keys()
                )
                for name in names:
                    value = values.get(name)
                    if value is not None:
                        scores[name] += value if weight == 1.0 else weight * value
            elif weight == 1.0:  # x × 1.0 is x exactly: skip the multiplication
                get = scores.get
                for name, value in values.items():
                    scores[name] = get(name, 0.0) + value
            else:
                get = scores.get
                for name, value in values.items():
                    scores[name] = get(name, 0.0) + weight * value
        return scores

    def rank(
        self, query: str, context: Sequence[str] = (), top_k: int | None = None
    ) -> Ranking:
        """Skills that share a term with the query, best first (ties by name).

        ``context`` are earlier user turns; their terms count ``CONTEXT_WEIGHT``.
        ``top_k`` limits the matches returned (None: every skill with a score > 0).
        """
        weights, boosts, scoring, ordered = self._ordered(query, context, top_k)
        best = ordered[0][1] if ordered else 0.0
        runner_up = ordered[1][1] if len(ordered) > 1 else 0.0
        limit = len(ordered) if top_k is None else top_k
        matches = tuple(
            self._match(name, score, rank, best, runner_up, weights, boosts, scoring)
            for rank, (name, score) in enumerate(ordered[:limit])
        )
        return Ranking(
            query=query,
            terms=tuple(weights),
            matches=matches,
            considered=len(self._docs),
        )

    def top_scores(
        self, query: str, context: Sequence[str] = (), top_k: int | None = None
    ) -> Scored:
        """:meth:`rank`'s names and scores without its explanations (signals, confidence).

        The same scoring, so ``top_scores(q).ranked`` equals ``[(m.name, m.score) for m in
        rank(q).matches]``; it skips building :class:`Match` objects, which is most of the
        cost when many long queries are ranked and only a few results are explained.
        """
        weights, _boosts, _scoring, ordered = self._ordered(query, context, top_k)
        limit = len(ordered) if top_k is None else top_k
        ranked = tuple((name, round(score, 4)) for name, score in ordered[:limit])
        return Scored(query=query, terms=tuple(weights), ranked=ranked)

    def _ordered(
        self,
        query: str,
        context: Sequence[str],
        top_k: int | None,
    ) -> tuple[
        dict[str, float],
        dict[str, list[Signal]],
        dict[str, float],
        list[tuple[str, float]],
    ]:
        """The scoring both :meth:`rank` and :meth:`top_scores` use: the query's weights, its
        boosts, the weights with related terms, and (name, score) best first with the name
        tiers applied — cut to ``max(top_k, 2)`` (the runner-up sets the top's margin)."""
        raw = [word for word in words(query) if word]
        terms = [
            term for term in map(term_of, raw) if term is not None
        ]  # = tokenize(query)
        weights = self._weights(terms, context)
        boosts = self._boosts_of(raw, terms)
        keep = None if top_k is None else max(top_k, 2)
        scoring = self.scoring_weights(weights)
        excluding = self._excluding(weights)
        # A penalty applied after scoring could let a pruned skill into the top: score them all.
        prune = None if excluding else keep
        scores = self._scores(
            scoring, boosts, prune, None if prune is None else max(prune, LIFT_WINDOW)
        )
        if excluding:
            self._apply_exclusions(scores, boosts, weights, excluding)
        key = _order
        if keep is None:  # no top_k: rank them all
            ordered = sorted(scores.items(), key=key)
        else:
            ordered = heapq.nsmallest(max(keep, LIFT_WINDOW), scores.items(), key=key)
        ordered = self._lift_name_tiers(ordered, weights, boosts)
        if top_k is not None:
            ordered = ordered[:keep]
        return (
            weights,
            boosts,
            scoring,
            [(name, score) for name, score in ordered if score > 0],
        )

    # -- exclusions: "Not for X" in a description is evidence against loading for X ---------

    def _excluding(self, weights: dict[str, float]) -> set[str]:
        """Skills with an exclusion clause that uses one of the query's terms."""
        by_excluded = self._by_excluded
        if not by_excluded:
            return set()
        out: set[str] = set()
        for term in weights:
            out.update(by_excluded.get(term, ()))
        return out

    def _apply_exclusions(
        self,
        scores: dict[str, float],
        boosts: dict[str, list[Signal]],
        weights: dict[str, float],
        excluding: set[str],
    ) -> None:
        """Lower the score of each skill the query meets through an exclusion clause, recording
        the penalty as one ``exclusion`` signal per clause (its share of the penalty)."""
        masses = self._query_masses(weights)
        for name in excluding:
            score = scores.get(name)
            if not score or score <= 0:
                continue
            factor, hits = self.exclusion(name, masses)
            if factor >= 1.0:
                continue
            penalty = score * (1.0 - factor)
            scores[name] = score - penalty
            total = sum(mass for _text, _terms, mass in hits)
            for text, _terms, mass in hits:
                boosts.setdefault(name, []).append(
                    Signal(text, EXCLUSION_FIELD, -penalty * mass / total)
                )

    def exclusion(
        self, name: str, masses: list[TermMass]
    ) -> tuple[float, tuple[tuple[str, tuple[str, ...], float], ...]]:
        """(factor, clauses met) for skill ``name`` and a query's masses (:meth:`_query_masses`).

        Each clause met is (its text, the query terms it excludes, their q·idf mass). The factor
        multiplies the score and the coverage: 1 − EXCLUSION_WEIGHT × excluded mass / mass the
        skill covers, floored at ``EXCLUDED_FLOOR``; 1.0 when no clause is met."""
        doc = self._docs.get(name)
        if doc is None or not doc.exclusions:
            return 1.0, ()
        hits = []
        excluded: set[str] = set()
        terms = [term for term, _mass, _related in masses]
        for boundary in doc.exclusions:
            met = boundary.against(terms)
            if met:
                hits.append(
                    (
                        boundary.text,
                        met,
                        sum(mass for term, mass, _r in masses if term in met),
                    )
                )
                excluded.update(met)
        if not hits:
            return 1.0, ()
        against = sum(mass for term, mass, _related in masses if term in excluded)
        covered, _total = self._covered(name, masses)
        factor = 1.0 - EXCLUSION_WEIGHT * against / covered if covered > 0 else 0.0
        return max(EXCLUDED_FLOOR, factor), tuple(hits)

    def _lift_name_tiers(
        self,
        ordered: list[tuple[str, float]],
        weights: dict[str, float],
        boosts: dict[str, list[Signal]],
    ) -> list[tuple[str, float]]:
        """Seed 000's strict order: exact name > partial name > description-only match.

        Among the best ``LIFT_WINDOW`` (already sorted by score), a skill with a query term in
        its name is lifted just above the best skill without one, and a skill named whole in
        the query just above every other; each lift is a recorded ``rank-rule`` signal, so
        scores and order agree and the lift is explainable. Skills below the window score
        under every one in it, so they are never the ones a lift has to pass.

        A lift only passes skills that cover no more of the query (:meth:`coverage`) than the
        lifted one: the name decides between skills that match the query equally well ("pdf":
        ``pdf`` > ``pdf-tools`` > ``docs``), but one common word in a name ("tool" in
        ``FinanceTool``) does not beat a description that matches the whole request (MetaTool
        held-out keyword hit@3: 0.577 with an unconditional lift, 0.627 gated, 0.632 without).
        """
        head = ordered[:LIFT_WINDOW]
        terms = {term for term, q in weights.items() if q >= 1.0}
        named = {
            name
            for name, signals in boosts.items()
            if any(signal.field == "name" for signal in signals)
        }

        def tier(name: str) -> int:
            if name in named:
                return 0
            doc = self._docs.get(name)
            return 1 if doc is not None and not terms.isdisjoint(doc.name_terms) else 2

        tiers = {name: tier(name) for name, score in head if score > 0}
        if len(set(tiers.values())) < 2:
            return ordered  # one tier only: nothing to reorder
        covered: dict[str, float] = {}
        masses: list = []

        def coverage(
            name: str,
        ) -> float:  # lazily: most lifts compare a handful of skills
            if name not in covered:
                if not masses:
                    masses.extend(self._query_masses(weights))
                covered[name] = self._coverage(name, masses)
            return covered[name]

        scores = dict(head)
        for level, rule in (
            (1, "partial name match ranks above description-only matches"),
            (0, "exact name match ranks above every other match"),
        ):
            for name, t in tiers.items():
                if t != level:
                    continue
                score = scores[name]
                ahead = [
                    n for n, u in tiers.items() if u > level and scores[n] >= score
                ]
                if not ahead:
                    continue
                mine = coverage(name)
                below = max(
                    (scores[n] for n in ahead if coverage(n) <= mine + 1e-9),
                    default=0.0,
                )
                if scores[name] <= below:
                    lift = below - scores[name] + 0.01 + below * 0.01
                    scores[name] += lift
                    boosts.setdefault(name, []).append(Signal(rule, "rank-rule", lift))
        return sorted(scores.items(), key=_order) + ordered[LIFT_WINDOW:]

    def coverage(self, name: str, weights: dict[str, float]) -> float:
        """Share of the query's idf mass the skill explains (see :meth:`confidence`), times the
        exclusion factor when the query meets one of its exclusion clauses (:meth:`exclusion`)."""
        return self._coverage(name, self._query_masses(weights))

    def _query_masses(self, weights: dict[str, float]) -> list[TermMass]:
        """(term, q·idf, related terms) per query term: what :meth:`_coverage` needs, computed once."""
        return [
            (term, q * self.idf(term), self.related(term))
            for term, q in weights.items()
        ]

    def _coverage(self, name: str, masses: list[TermMass]) -> float:
        covered, total = self._covered(name, masses)
        if not total:
            return 0.0
        doc = self._docs.get(name)
        if doc is None or not doc.exclusions:
            return covered / total
        factor, hits = self.exclusion(name, masses)
        if not hits:
            covered -= self._contested(doc, masses)[1]
        return covered / total * factor

    def _contested(
        self, doc: _Doc, masses: list[TermMass]
    ) -> tuple[tuple[str, ...], float]:
        """(contested terms, coverage they lose) when a request meets ``doc`` only through words
        its own "Not for …" clauses also use ("theme" in "Not for a WordPress theme or a theme
        song"): the description names ``k`` other senses of such a word besides its own, so the
        word alone says this skill's sense with a ``1 / (1 + k)`` share. One matched word the
        clauses do not use says which sense is meant, and every word then counts in full."""
        senses = _senses(doc)
        if not senses:
            return (), 0.0
        postings = self._postings
        met: list[tuple[str, float]] = []
        for term, mass, related in masses:
            counts = postings.get(term, {}).get(doc.name)
            if counts and any(counts[:-1]):
                if term not in senses:
                    return (), 0.0
                met.append((term, mass))
            elif (
                not counts
                and term not in senses
                and any(
                    doc.name in postings.get(other, ()) for other, _share in related
                )
            ):
                return (
                    (),
                    0.0,
                )  # a related word of the description tells the sense too (the body does not)
        lost = sum(mass * (1.0 - 1.0 / (1 + senses[term])) for term, mass in met)
        return tuple(term for term, _mass in met), lost

    def _covered(self, name: str, masses: list[TermMass]) -> tuple[float, float]:
        """(q·idf mass of the query the skill explains, the query's whole mass)."""
        # Read from the postings (per-field counts, body last): this runs inside rank().
        postings = self._postings
        total = covered = 0.0
        for term, mass, related in masses:
            total += mass
            counts = postings.get(term, {}).get(name)
            if counts:
                covered += mass * (1.0 if any(counts[:-1]) else BODY_ONLY_COVERAGE)
            elif related:  # a related term (synonym) covers part of it
                covered += mass * max(
                    (
                        share
                        for other, share in related
                        if name in postings.get(other, ())
                    ),
                    default=0.0,
                )
        return covered, total

    def confidence(
        self,
        name: str,
        score: float,
        rank: int,
        best: float,
        runner_up: float,
        weights: dict[str, float],
        exact: bool,
    ) -> float:
        """Confidence in [0, 1] that the skill is what the query asks for.

        ``coverage`` = Σ idf(t)·q(t)·c(t) over the query terms the skill contains, divided
        by Σ idf(t)·q(t) over all query terms (q = 1 for the query, ``CONTEXT_WEIGHT`` for
        context; c = 1 for a hit in name/description/tags/triggers, ``BODY_ONLY_COVERAGE``
        for a hit only in the body): the share of the query's information the skill
        explains (times the exclusion factor when the query meets one of the skill's "Not for …"
        clauses, :meth:`exclusion`). ``relative`` = score / best score. ``lead`` = how clearly the top match
        leads the runner-up, (best − runner-up) / best reaching 1 at
        ``calibration.lead_margin``; 0 for every other match.

            evidence   = min(coverage × (0.6 + 0.25·relative + LEAD_WEIGHT·lead),
                             coverage + LEAD_GAP·(1 − coverage))
            confidence = min(evidence, tie + (1 − tie)·lead)     tie = calibration.tie_confidence

        A skill whose whole name is written in the query has evidence at least
        ``EXACT_CONFIDENCE``·relative. The cap is what makes "full" precise: a skill no
        better than another one (a tie, or any match below the top) stays at or under
        ``tie`` (0.65, below the full threshold 0.7), so two equally good skills are both
        briefed rather than both loaded in full; a top match that explains most of the
        query and clearly leads reaches full. A skill covering part of the query lands in
        0.15–0.7 (brief); one sharing only a common word stays below 0.15. Unrelated
        skills score 0 → 0. (MetaTool tuning split, keyword only, top 3, before → after
        issue 25: full precision 0.71 → 0.84 with full recall 0.085 → 0.17; brief-or-full
        recall 0.51 → 0.54.)
        """
        if score <= 0 or best <= 0:
            return 0.0
        evidence, cap = self._confidence_parts(
            name, score, rank, best, runner_up, weights, exact
        )
        return round(max(0.0, min(1.0, evidence, cap)), 4)

    def _confidence_parts(
        self,
        name: str,
        score: float,
        rank: int,
        best: float,
        runner_up: float,
        weights: dict[str, float],
        exact: bool,
    ) -> tuple[float, float]:
        """(evidence, cap) of :meth:`confidence`: the explanation says which one decided."""
        coverage = self.coverage(name, weights)
        relative = score / best
        lead = self.lead(best, runner_up) if rank == 0 else 0.0
        evidence = coverage * (0.6 + 0.25 * relative + LEAD_WEIGHT * lead)
        # A lead makes a partial match likelier, never certain: it closes at most part of the
        # gap between coverage and 1 (a lone match for half the query is not "1.0").
        evidence = min(evidence, coverage + LEAD_GAP * (1 - coverage))
        if exact:
            evidence = max(evidence, EXACT_CONFIDENCE * relative)
        tie = self.calibration.tie_confidence
        return evidence, tie + (1 - tie) * lead

    def lead(self, best: float, runner_up: float) -> float:
        """How clearly the best score leads the runner-up, in [0, 1] (1 from ``lead_margin`` on)."""
        if best <= 0:
            return 0.0
        return min(1.0, (best - runner_up) / best / self.calibration.lead_margin)

    def _match(
        self,
        name: str,
        score: float,
        rank: int,
        best: float,
        runner_up: float,
        weights: dict[str, float],
        boosts: dict[str, list[Signal]],
        scoring: dict[str, float] | None = None,
    ) -> Match:
        signals: list[Signal] = []
        for term, q in (scoring or weights).items():
            compiled = self._compiled.get(term)
            if compiled is None or name not in compiled.scores:
                continue
            contribution = q * compiled.scores[name]
            parts = self._field_parts(term, name)
            total = sum(part for _f, part in parts)
            via = "" if term in weights else self._related_via(term, weights)
            for field_name, part in parts:
                signals.append(
                    Signal(term, field_name, round(contribution * part / total, 4), via)
                )
        extra = boosts.get(name, [])
        signals.extend(Signal(s.term, s.field, round(s.weight, 4)) for s in extra)
        exact = any(s.field == "name" for s in extra)
        confidence = self.confidence(name, score, rank, best, runner_up, weights, exact)
        return Match(
            name=name,
            score=round(score, 4),
            confidence=confidence,
            signals=tuple(signals),
        )

    def explicit_match(self, name: str) -> Match:
        """The match of a skill activated by ``/skill NAME`` or ``use_skill``: always wins."""
        if name not in self._docs:
            raise KeyError(f"unknown skill {name!r}")
        return Match(
            name=name,
            score=0.0,
            confidence=1.0,
            signals=(Signal(name, "explicit", 1.0),),
            explicit=True,
        )

    # -- explaining -----------------------------------------------------------------------

    def _held_back(
        self, query: str, context: Sequence[str], ranking: Ranking, position: int
    ) -> str:
        """Why the confidence is lower than the match's evidence, when the lead cap decided."""
        matches = ranking.matches
        match = matches[position]
        best = matches[0].score
        runner_up = matches[1].score if len(matches) > 1 else 0.0
        exact = any(s.field == "name" for s in self._boosts(query).get(match.name, ()))
        evidence, cap = self._confidence_parts(
            match.name,
            match.score,
            position,
            best,
            runner_up,
            self.query_weights(query, context),
            exact,
        )
        if min(1.0, evidence) <= cap + 1e-9:
            return ""
        if position == 0:
            ahead = (best - runner_up) / best if best > 0 else 0.0
            return (
                f"held at {match.confidence:.2f}: only {percent_of_fraction(ahead)}% ahead of {matches[1].name} "
                f"(a clear lead is {percent_of_fraction(self.calibration.lead_margin)}%)"
            )
        return f"held at {match.confidence:.2f}: {matches[0].name} matches at least as well"

    def words_for(
        self, query: str, name: str | None = None, context: Sequence[str] = ()
    ) -> dict[str, str]:
        """Each term of the query (and of skill ``name``) → the word it came from.

        Terms are stems ("databas", "tabl"); people read words. The query's own spelling
        comes first, then the context's, then the skill's (its name, triggers, tags,
        description and body), so a term met through a related word shows as the skill
        wrote it. A term with no word (a joined name) stands for itself.
        """
        texts = [query, *context]
        meta = self._metas.get(name) if name is not None else None
        if meta is not None:
            texts += [
                " ".join(words(meta.name)),
                " ".join(meta.triggers),
                " ".join(meta.tags),
                meta.description or "",
                self._bodies.get(meta.name, ""),
            ]
        return surface_words(*texts)

    def explain(
        self,
        query: str,
        name: str,
        context: Sequence[str] = (),
        top_k: int | None = None,
    ) -> Explanation:
        """Why ``name`` ranks where it does for ``query`` — above all, what it is missing.

        ``missing`` and ``terms`` are match terms (stems); ``reasons`` and ``missing_words``
        speak in the words of the query and the skill.
        """
        ranking = self.rank(query, context)
        terms = ranking.terms
        if name not in self._docs:
            return Explanation(
                name,
                query,
                terms,
                None,
                None,
                (),
                (f"no skill named {name!r} is indexed",),
            )
        doc = self._docs[name]
        shown = self.words_for(query, name, context)

        def said(items: Iterable[str]) -> str:
            return ", ".join(shown.get(term, term) for term in items)

        absent = [term for term in terms if not self._fields_of(doc.name, term)]
        # A term the skill meets through a related word is met (at half weight), not missing.
        related = [
            f"{shown.get(term, term)}~{shown.get(other, other)}"
            for term in absent
            for other, _share in self.related(term)
            if self._fields_of(doc.name, other)
        ]
        met_related = {
            term
            for term in absent
            if any(
                self._fields_of(doc.name, other) for other, _share in self.related(term)
            )
        }
        missing = tuple(term for term in absent if term not in met_related)
        rank = next(
            (i + 1 for i, m in enumerate(ranking.matches) if m.name == name), None
        )
        match = ranking.matches[rank - 1] if rank else None
        reasons: list[str] = []
        if not terms:
            reasons.append("the query has no terms left after removing stop-words")
        elif match is None or not rank:
            searched = "name, description, tags or triggers" + (
                " or body" if doc.has_body else ""
            )
            reasons.append(f"no query term appears in {searched}")
        else:
            body_only = [
                term for term in terms if self._fields_of(doc.name, term) == ["body"]
            ]
            if body_only:
                reasons.append(f"terms {said(body_only)} matched only the body")
            if top_k is not None and rank is not None and rank > top_k:
                reasons.append(f"ranked {_ordinal(rank)}, below top-k {top_k}")
            elif rank is not None:
                reasons.append(
                    f"ranked {_ordinal(rank)} of {len(ranking.matches)} matches"
                )
            reasons.append(f"confidence {match.confidence:.2f}")
            held = self._held_back(query, context, ranking, rank - 1)
            if held:
                reasons.append(held)
        masses = self._query_masses(self.query_weights(query, context))
        factor, hits = self.exclusion(name, masses)
        for text, met, _mass in hits:
            reasons.append(
                f'excluded by: "{text}" (the request says {said(met)}; '
                f"score and confidence × {factor:.2f})"
            )
        contested = (
            self._contested(doc, masses)[0] if doc.exclusions and not hits else ()
        )
        if contested:
            senses = _senses(doc)
            if len(contested) == 1:
                term = contested[0]
                reasons.append(
                    f'met only through {said(contested)}, a word its "Not for …" clauses also use for '
                    f"{senses[term]} other thing{'s' if senses[term] > 1 else ''}: "
                    f"confidence counts it at 1/{1 + senses[term]}"
                )
            else:
                shares = ", ".join(
                    f"{shown.get(term, term)} at 1/{1 + senses[term]}"
                    for term in contested
                )
                reasons.append(
                    f'met only through {said(contested)}, words its "Not for …" clauses also use for '
                    f"other things: confidence counts {shares}"
                )
        if missing and terms:
            reasons.append(f"missing terms: {said(missing)}")
        if related and terms:
            reasons.append(
                f"met through related words (half weight): {', '.join(related)}"
            )
        missing_words = tuple(shown.get(term, term) for term in missing)
        return Explanation(
            name,
            query,
            terms,
            rank,
            match,
            missing,
            tuple(reasons),
            missing_words,
            tuple(text for text, _met, _mass in hits),
        )


def _senses(doc: _Doc) -> Counter[str]:
    """How many listed items of ``doc``'s exclusion clauses use each word they share with the skill."""
    senses: Counter[str] = Counter()
    for boundary in doc.exclusions:
        senses.update(dict(boundary.senses) or dict.fromkeys(boundary.context, 1))
    return senses


def exclusion_factor(match: Match) -> float:
    """What a match's exclusion clauses multiplied its score by (1.0 when none applied): the
    hybrid ranking applies the same factor to its fused score and to the similarity's confidence,
    so an embedding of a description cannot bring back what its "Not for …" excluded."""
    penalty = -sum(
        signal.weight for signal in match.signals if signal.field == EXCLUSION_FIELD
    )
    if penalty <= 0:
        return 1.0
    before = match.score + penalty
    return max(0.0, min(1.0, match.score / before)) if before > 0 else 1.0


def _within_reach(
    scores: dict[str, float], window: int, remaining: float
) -> dict[str, float]:
    """The skills that can still be among the best ``window`` when at most ``remaining`` is
    added to any score (a little slack for float rounding: keeping one too many is harmless)."""
    floor = sorted(scores.values())[-window]
    cut = floor - remaining - 1e-9 * (abs(floor) + remaining) - 1e-12
    if min(scores.values()) >= cut:
        return scores  # all still in reach
    return {name: score for name, score in scores.items() if score >= cut}


def _order(item: tuple[str, float]) -> tuple[float, str]:
    return (-item[1], item[0])


def _name_key(name: str) -> str:
    return "".join(words(name))


def _discard(index: dict, key: object, name: str) -> None:
    names = index.get(key)
    if names is not None:
        names.discard(name)
        if not names:
            del index[key]


def _ordinal(n: int) -> str:
    suffix = (
        "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    )
    return f"{n}{suffix}"


__all__ = [
    "EXCLUSION_FIELD",
    "FIELDS",
    "Calibration",
    "Explanation",
    "Scored",
    "SkillIndex",
    "exclusion_factor",
]
