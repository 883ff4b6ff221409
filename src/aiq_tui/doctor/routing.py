"""Routing checks: can the matcher tell each skill apart and route its own description to it?

For every skill the matcher ranks the whole collection against that skill's own description
(plus its ``triggers``) — the words an author expects users to type. The skill should come
first, clearly. Another skill that outranks it, or scores within ``doctor.collision_margin``
of it, will steal those queries; the terms they share say why.

Ranking a thousand long descriptions is the doctor's main cost, and most skills are fine, so
each is screened with :meth:`SkillIndex.top_scores` (the same scores as ``rank``, no
explanations), and only a skill whose scores can make a finding is ranked again with
:meth:`SkillIndex.rank` for the signals its finding shows. ``screen=False`` ranks every skill
in full: the reference the tests hold the screened path to.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from aiq_tui.doctor.model import Finding, Kind, Level
from aiq_tui.ranking.match import Scored, SkillIndex
from aiq_tui.ranking.tokenize import name_terms, surface_words, tokenize, words
from aiq_tui.skills.model import Match, SkillMeta

RIVALS = 2  # own rank + the nearest rival; pruning (MaxScore) keeps this fast at 10,000 skills
ROUTING_FIELDS = ("name", "description", "tags", "triggers")
SHOWN_TERMS = 6


@dataclass(frozen=True)
class _Rivalry:
    """One direction of a pair: ``rival`` scored on ``skill``'s own description."""

    skill: str
    rival: str
    outranks: bool
    close: bool  # outranks, or within the collision margin
    share: float  # rival's score / the skill's own score
    shared: tuple[str, ...]


def own_query(meta: SkillMeta) -> str:
    """The words a skill's author expects users to type: description plus trigger phrases."""
    return " ".join([" ".join(meta.description.split()), *meta.triggers]).strip()


def routing_findings(
    metas: Iterable[SkillMeta],
    index: SkillIndex,
    margin: float,
    overlap: float = 1.0,
    screen: bool = True,
) -> list[Finding]:
    metas = list(metas)
    by_name = {meta.name: meta for meta in metas}
    findings: list[Finding] = []
    pairs: dict[tuple[str, str], list[_Rivalry]] = {}
    # A rival below this share of the skill's own score is neither above it, close nor overlapping.
    near = min(1.0 - margin, overlap, 1.0)
    for meta in metas:
        query = own_query(meta)
        if not query or meta.name not in index:
            findings.extend(_name_words(meta, frozenset(tokenize(query))))
            continue
        scored = index.top_scores(query, top_k=RIVALS) if screen else None
        explain = scored is None or _may_find(meta.name, scored, near)
        ranking = index.rank(query, top_k=RIVALS) if explain else None
        terms = (
            ranking.terms
            if ranking is not None
            else scored.terms
            if scored is not None
            else ()
        )
        wanted = frozenset(terms)  # the query's terms, as tokenize() gives them
        findings.extend(_name_words(meta, wanted))
        if ranking is None:
            continue  # no rival near it: nothing to explain
        own = ranking.get(meta.name)
        own_score = own.score if own else 0.0
        above = [
            m
            for m in ranking.matches
            if own is None
            or m.score > own_score
            or (m.score == own_score and m.name < meta.name)
        ]
        above = [m for m in above if m.name != meta.name]
        if above:
            findings.append(_unreachable(meta, query, above, own, wanted))
        for rival in ranking.matches:
            if rival.name == meta.name:
                continue
            outranks = rival in above
            close = own_score > 0 and rival.score >= (1 - margin) * own_score
            overlaps = own_score > 0 and rival.score >= overlap * own_score
            if outranks or close or overlaps:
                first, second = sorted((meta.name, rival.name))
                share = rival.score / own_score if own_score else 1.0
                pairs.setdefault((first, second), []).append(
                    _Rivalry(
                        meta.name,
                        rival.name,
                        outranks,
                        close or outranks,
                        share,
                        _shared_terms(rival, wanted),
                    )
                )
    for (first, second), directions in sorted(pairs.items()):
        findings.append(_collision(first, second, directions, by_name))
    return findings


def _may_find(name: str, scored: Scored, share: float) -> bool:
    """Whether a skill's screened scores can give a routing finding (then it is explained in
    full); may say yes in vain, never no in vain: every finding needs a rival at or above
    ``share`` of the skill's own score, or a skill that does not make its own top."""
    own = scored.get(name)
    rivals = [score for other, score in scored.ranked if other != name]
    if own is None:
        return bool(rivals)
    return any(score >= share * own for score in rivals)


def _shared_terms(rival: Match, wanted: frozenset[str]) -> tuple[str, ...]:
    """Query terms that scored for the rival in a routing field, heaviest first."""
    weights: dict[str, float] = {}
    for signal in rival.signals:
        if signal.field in ROUTING_FIELDS and signal.term in wanted:
            weights[signal.term] = weights.get(signal.term, 0.0) + signal.weight
    return tuple(
        term for term, _ in sorted(weights.items(), key=lambda kv: (-kv[1], kv[0]))
    )[:SHOWN_TERMS]


def _unreachable(
    meta: SkillMeta,
    query: str,
    above: list[Match],
    own: Match | None,
    wanted: frozenset[str],
) -> Finding:
    winner = above[0]
    place = (
        "does not score at all"
        if own is None
        else f"ranks {len(above) + 1}{_suffix(len(above) + 1)}"
    )
    rivals = ", ".join(f"{m.name} ({m.score:.2f})" for m in above[:3])
    mine = f"{own.score:.2f}" if own else "0"
    return Finding(
        kind=Kind.UNREACHABLE,
        level=Level.ERROR,
        skills=(meta.name, *(m.name for m in above[:3])),
        title=f"{meta.name} loses its own description to {winner.name}",
        why=(
            f"asked with its own description, {meta.name} {place} (score {mine}) behind {rivals}; "
            "users who describe this task will get the other skill"
        ),
        fix=(
            f"put the words only {meta.name} is for into its description (or add `triggers:`); "
            f"say in {winner.name}'s description what it is not for"
        ),
        query=query,
        terms=_as_written(_shared_terms(winner, wanted), query),
    )


def _collision(
    first: str, second: str, directions: list[_Rivalry], by_name: dict[str, SkillMeta]
) -> Finding:
    serious = any(d.close for d in directions)
    mutual = {d.skill for d in directions} == {first, second}
    stolen = [d for d in directions if d.outranks]
    shared: list[str] = []
    for direction in directions:
        shared += [t for t in direction.shared if t not in shared]
    head = directions[0]
    query = own_query(by_name[head.skill])
    shared = list(
        _as_written(
            shared[:SHOWN_TERMS], *(own_query(by_name[d.skill]) for d in directions)
        )
    )
    how = (
        "each scores close to the other on its own description"
        if mutual
        else (
            f"{head.rival} scores close to {head.skill} on {head.skill}'s description"
        )
    )
    if not serious:
        best = max(directions, key=lambda d: d.share)
        how = f"{best.rival} scores {best.share:.0%} of {best.skill}'s own score on {best.skill}'s description"
    if stolen:
        how = "; ".join(
            f"{d.rival} outranks {d.skill} on {d.skill}'s description" for d in stolen
        )
    terms = f" (shared terms: {', '.join(shared)})" if shared else ""
    return Finding(
        kind=Kind.COLLISION,
        level=Level.WARNING if serious else Level.INFO,
        skills=(first, second),
        title=f"{first} and {second} collide"
        if serious
        else f"{first} and {second} overlap",
        why=(
            f"the matcher can hardly tell them apart: {how}{terms}"
            if serious
            else f"they share much of their vocabulary: {how}{terms}; short queries may go either way"
        ),
        fix="make each description say what only it does (distinct nouns and verbs), or merge the two skills",
        query=query,
        terms=tuple(shared),
    )


def _as_written(terms: Iterable[str], *texts: str) -> tuple[str, ...]:
    """Match terms (stems) as the skills' authors wrote them: findings speak in words."""
    shown = surface_words(*texts)
    return tuple(dict.fromkeys(shown.get(term, term) for term in terms))


def _name_words(meta: SkillMeta, wanted: frozenset[str]) -> list[Finding]:
    terms = list(dict.fromkeys(name_terms(meta.name)))
    if not terms:
        return []
    text = wanted | set(tokenize(" ".join(meta.tags))) if meta.tags else wanted
    if any(term in text for term in terms):
        return []
    written = _as_written(terms, " ".join(words(meta.name)))
    return [
        Finding(
            kind=Kind.UNREACHABLE,
            level=Level.WARNING,
            skills=(meta.name,),
            title=f"{meta.name}: no word of its name is in its description",
            why=(
                f"the name words ({', '.join(written)}) never appear in the description, so a user who "
                "asks for the task by those words only reaches it through the name field"
            ),
            fix="use the words of the name in the description, or rename the skill after what it does",
            query=meta.name.replace("-", " "),
            terms=written,
        )
    ]


def _suffix(n: int) -> str:
    return (
        "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    )
