"""``skills tune``: skill-creator's description optimisation loop, with the matcher as the judge.

skill-creator splits a trigger eval set 60 % train / 40 % test (stratified, seeded), scores
the description by sending every query to a hosted model three times, asks the model for a
better description from the train failures, and after up to five rounds keeps the
description with the best *test* score. Here the judge is the matcher the agent routes with:
a round takes milliseconds, is the same on every machine, and every score is explained.

Each round builds candidates from the evidence of the best description so far on the
*train* queries only, and writes them as the skill's author would (:mod:`aiq_tui.ranking.tune_phrases`):
the author's text is kept whole — above all its first sentence, what the skill does, which a
shortened catalog line keeps — and whole sentences are added after it:

* **add** — "Also use it for …" with phrases of the should-trigger queries it missed (and,
  weighing less, of those it loaded only at brief), in the users' words ("clicking through
  the signup form on localhost"): each phrase is worth the terms it brings that the description
  lacks, weighted by how rare the term is in the collection (idf) and by how many such queries
  use it, less how many should-not queries use it. Only words the skill's own instructions use,
  or that recur across its should-trigger queries, count — one request's incidental words
  would fit the train set and nothing else — and words most skills' instructions use weigh less;
* **exclude** — "Not for …" with phrases of the should-not queries it loaded for (near-miss
  false triggers), as the ecosystem writes a boundary ("Not for writing a Slack message"): the
  matcher reads a boundary's words as evidence against loading the skill, and once a request
  meets them, the words the boundary shares with the skill's name count against it too
  (:mod:`aiq_tui.ranking.exclusions`) — a boundary outweighs a name-word match;
* **both** — the best phrases of each;
* **model** — with a proposer (``--llm``), the configured model's rewrite, as skill-creator
  asks for one, judged the same way.

Every candidate is scored on train and test; the round continues from the best on train;
at the end the candidate with the best test F1 wins (ties: train F1 less ``EDIT_COST`` per
changed word, then the current description, then the smaller edit), provided it fits the
spec's 1,024 characters, does no worse on train than the current description, and the
collision check finds no new collision with another skill. Why the loop stopped is said of
the description kept (:attr:`TuneResult.stopped`), and in skill-creator's words
(:attr:`TuneResult.exit_reason`).
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from aiq_tui.ranking.description_edits import shorten, split_exclusion
from aiq_tui.ranking.disclose import Thresholds
from aiq_tui.ranking.match import SkillIndex
from aiq_tui.ranking.tokenize import name_terms, term_of, tokenize, words
from aiq_tui.ranking.trigger_eval import (
    Split,
    TriggerCase,
    TriggerFigures,
    TriggerReport,
    evaluate_triggers,
    split_cases,
)
from aiq_tui.ranking.tune_phrases import (
    clauses,
    first_sentence,
    phrase_cuts,
    phrase_of,
    split_sentences,
    with_sentences,
)
from aiq_tui.skills.model import Ranking, SkillMeta
from aiq_tui.skills.validate import DESCRIPTION_MAX

# Words of requests that say nothing about the task (the tokenizer's stop-words aside): never
# added to a description, whatever a train set says.
FILLER = frozenset(
    [
        "nothing",
        "everything",
        "anyone",
        "someone",
        "everyone",
        "instead",
        "rather",
        "sure",
        "okay",
        "pls",
        "thanks",
        "thank",
        "bit",
        "lot",
        "lots",
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "hundred",
        "thousand",
        "stuff",
        "good",
        "nice",
        "great",
        "better",
        "best",
        "new",
        "old",
        "next",
        "last",
        "first",
        "second",
        "today",
        "tomorrow",
        "yesterday",
        "week",
        "weeks",
        "time",
        "times",
        "way",
        "day",
        "days",
        "right",
        "now",
        "still",
        "even",
        "ever",
        "quick",
        "quickly",
        "small",
        "big",
        "simple",
        "real",
        "make",
        "makes",
        "making",
        "made",
        "want",
        "wants",
        "wanted",
        "try",
        "trying",
        "able",
        "going",
        "gonna",
        "done",
        "doing",
        "work",
        "working",
        "like",
        "likes",
        "keep",
        "kept",
        "put",
        "take",
        "takes",
        "taking",
        "bring",
    ]
)
ADD_COUNTS = (1, 2, 3, 4)  # how many of the best phrases an "add" candidate takes
EXCLUDE_COUNTS = (
    1,
    2,
    3,
    4,
)  # how many of the best phrases an "exclude" candidate takes
BOTH_COUNTS = (
    1,
    2,
    3,
)  # "add and exclude": each count of phrases with each count of boundaries
NEGATIVE_WEIGHT = (
    1.0  # a should-not query using a term cancels one missed query using it
)
EDIT_COST = 0.001  # F1 a changed word costs: ties go to the smaller edit (a sentence is ~10 words)
BRIEF_WEIGHT = (
    0.5  # a should-trigger query loaded only at brief: its words widen a thin margin
)
PASSING_WEIGHT = 0.1  # one loaded at full already
WORD_COST = 0.1  # idf-weighted gain a phrase's word costs when choosing how much of a clause to keep
MIN_WORD = 3  # shorter words (ok, pls, 4) are noise, not evidence
BACKGROUND_DISCOUNT = (
    0.8  # a word every other skill's instructions use keeps a fifth of its weight
)


@dataclass(frozen=True)
class Evidence:
    """What grounds an added word: the skill's instructions, and how common a term is in the
    instructions of the collection's other skills (share 0–1; common words weigh less)."""

    body: frozenset[str] = frozenset()
    background: Callable[[str], float] = lambda term: 0.0

    @classmethod
    def of(
        cls, body: str, background: Callable[[str], float] | None = None
    ) -> Evidence:
        return cls(frozenset(tokenize(body)), background or (lambda term: 0.0))


@dataclass(frozen=True)
class Candidate:
    """A description and how it was made. ``core`` is the author's text (possibly with items
    dropped after its first sentence); ``added`` the phrases the tuner appends after it in an
    "Also use it for …" sentence, ``excluded`` those it appends in a "Not for …" sentence
    (:mod:`aiq_tui.ranking.tune_phrases`)."""

    core: str
    added: tuple[str, ...] = ()
    origin: str = "current"
    round: int = 0
    excluded: tuple[str, ...] = ()

    @property
    def description(self) -> str:
        return with_sentences(self.core, self.added, self.excluded)

    def then(
        self,
        core: str,
        added: tuple[str, ...],
        step: str,
        round_number: int,
        excluded: tuple[str, ...] | None = None,
    ) -> Candidate:
        """A candidate made from this one by one more ``step`` (its origin lists every step)."""
        origin = step if self.origin == "current" else f"{self.origin}; {step}"
        return Candidate(
            core,
            added,
            origin,
            round_number,
            self.excluded if excluded is None else excluded,
        )


@dataclass(frozen=True)
class Scored:
    candidate: Candidate
    train: TriggerReport
    test: TriggerReport
    edit: int = 0  # words changed from the current description (see edit_size)

    @property
    def train_value(self) -> float:
        """Train F1 less the cost of the edit: a bigger rewrite must earn its keep."""
        return self.train_f1 - EDIT_COST * self.edit

    @property
    def test_value(self) -> float:
        return self.test_f1 - EDIT_COST * self.edit

    @property
    def description(self) -> str:
        return self.candidate.description

    @property
    def train_f1(self) -> float:
        return self.train.overall.f1

    @property
    def test_f1(self) -> float:
        return self.test.overall.f1

    @property
    def fits(self) -> bool:
        return len(self.description) <= DESCRIPTION_MAX


@dataclass(frozen=True)
class Rejected:
    scored: Scored
    collisions: tuple[str, ...]


@dataclass(frozen=True)
class TuneResult:
    skill: str
    split: Split
    original: Scored
    best: Scored
    history: tuple[Scored, ...]  # every candidate scored, in the order they were made
    rejected: tuple[
        Rejected, ...
    ] = ()  # better by test F1, but they create a collision
    rounds: int = 0
    stopped: str = ""  # why the loop ended, in words true of the description kept
    proposals_failed: tuple[
        str, ...
    ] = ()  # model proposals that could not be used, and why

    exit_reason: str = (
        ""  # skill-creator's words: "all_passed (iteration N)", "max_iterations (N)", …
    )
    final: Scored | None = None  # the description the loop ended on (best on train)

    @property
    def changed(self) -> bool:
        return self.best.description != self.original.description


@dataclass(frozen=True)
class ProposalRequest:
    """What a model is told when asked for a better description (train evidence only)."""

    skill: str
    body: str
    current: str
    figures: TriggerFigures
    missed: tuple[str, ...]  # should-trigger queries that did not load it
    false_triggers: tuple[str, ...]  # should-not queries that did
    attempts: tuple[
        tuple[str, TriggerFigures], ...
    ]  # earlier descriptions and their train figures


Proposer = Callable[[ProposalRequest], "str | None"]
CollisionCheck = Callable[[str], "tuple[str, ...]"]


class DescriptionJudge:
    """Scores descriptions of one skill with the matcher: the index holds the candidate while
    its queries are ranked, and the skill's own metadata again afterwards."""

    def __init__(
        self,
        index: SkillIndex,
        meta: SkillMeta,
        rank: Callable[[str], Ranking],
        top_k: int,
        thresholds: Thresholds,
    ) -> None:
        self.index, self.meta, self.rank, self.top_k, self.thresholds = (
            index,
            meta,
            rank,
            top_k,
            thresholds,
        )

    def report(self, description: str, cases: Sequence[TriggerCase]) -> TriggerReport:
        self.index.upsert(replace(self.meta, description=description))
        try:
            return evaluate_triggers(
                self.rank, cases, top_k=self.top_k, thresholds=self.thresholds
            )
        finally:
            self.index.upsert(self.meta)


def tune(
    judge: DescriptionJudge,
    cases: Sequence[TriggerCase],
    *,
    holdout: float,
    seed: int,
    rounds: int,
    body: str = "",
    background: Callable[[str], float] | None = None,
    propose: Proposer | None = None,
    collisions: CollisionCheck | None = None,
    on_round: Callable[[int, Scored], None] | None = None,
) -> TuneResult:
    """Run the loop for ``judge.meta``'s skill over its ``cases`` (other skills' cases are ignored).

    ``body`` is the skill's instructions, ``background(term)`` the share of other skills whose
    instructions use ``term`` (see :class:`Evidence`)."""
    meta = judge.meta
    evidence = Evidence.of(body, background)
    cases = [case for case in cases if case.skill == meta.name]
    split = split_cases(cases, holdout, seed)
    seen: dict[str, Scored] = {}
    history: list[Scored] = []

    def score(candidate: Candidate) -> Scored:
        text = candidate.description
        if text not in seen:
            seen[text] = Scored(
                candidate,
                judge.report(text, split.train),
                judge.report(text, split.test),
                edit_size(meta.description.strip(), text),
            )
            history.append(seen[text])
        return seen[text]

    original = score(_parsed(meta.description))
    current = original
    if (
        not original.fits
    ):  # over the spec's limit: the loop starts from a version that fits
        fitted = _shorten_rest(
            original.candidate.core,
            DESCRIPTION_MAX
            - (len(original.description) - len(original.candidate.core)),
            _worth(judge.index, original.train, meta.name),
        )
        if fitted is not None:
            current = score(
                replace(
                    original.candidate,
                    core=fitted,
                    origin="shortened to the 1,024-character limit",
                )
            )
    failed: list[str] = []
    done, exit_reason, passed_at, stalled_at = (
        0,
        f"max_iterations ({rounds})",
        None,
        None,
    )
    for number in range(1, rounds + 1):
        if not current.train.failures:
            exit_reason, passed_at = f"all_passed (iteration {number})", number
            break
        done = number
        candidates = evidence_candidates(current, judge.index, meta, number, evidence)
        if propose is not None:
            proposal = _proposal(propose, current, history, meta, body)
            if isinstance(proposal, Candidate):
                candidates.append(replace(proposal, round=number))
            else:
                failed.append(f"round {number}: {proposal}")
        scored = [
            score(candidate)
            for candidate in candidates
            if candidate.description.strip()
        ]
        if on_round is not None:
            on_round(number, current)
        better = [s for s in scored if s.fits and _train_key(s) > _train_key(current)]
        if not better:
            exit_reason, stalled_at = f"no_improvement (iteration {number})", number
            break
        current = max(better, key=_train_key)
    best, rejected = _choose(original, history, collisions)
    stopped = _stopped(original, current, best, rounds, passed_at, stalled_at)
    return TuneResult(
        meta.name,
        split,
        original,
        best,
        tuple(history),
        tuple(rejected),
        done,
        stopped,
        tuple(failed),
        exit_reason,
        current,
    )


def _parsed(description: str) -> Candidate:
    """The current description as a candidate: sentences an earlier run added are taken apart
    so this run extends them ("Not for a, b or c." written by an older version too)."""
    core, uses, bounds = split_sentences(description)
    if not uses and not bounds:
        core, bounds = split_exclusion(description)
    return Candidate(core, uses, excluded=bounds)


def _stopped(
    original: Scored,
    final: Scored,
    best: Scored,
    rounds: int,
    passed_at: int | None,
    stalled_at: int | None,
) -> str:
    """Why the loop ended, true of the description kept: the loop follows the train split, the
    choice is made on the test split, so the two can differ and the sentence says so."""
    if passed_at is not None:
        why = (
            "the description passes every train query"
            if final is original
            else f"round {passed_at - 1}'s best description passes every train query"
        )
    elif stalled_at is not None:
        why = f"no candidate improved on the train split in round {stalled_at}"
    else:
        why = f"the round limit ({rounds}) was reached"
    if best is final:
        return why
    if best is original:
        return (
            f"{why}; no candidate did better on the test split (F1 {best.test_f1:.2f}) without doing worse "
            "on train or creating a collision, so the current description is kept"
        )
    return (
        f"{why}; kept the candidate with the best test F1 ({best.test_f1:.2f}, train {best.train_f1:.2f}), "
        f"round {best.candidate.round}"
    )


def _train_key(scored: Scored) -> tuple[float, float, int]:
    return (
        round(scored.train_value, 6),
        round(scored.train.overall.recall_full, 6),
        -scored.edit,
    )


def _choose(
    original: Scored, history: list[Scored], collisions: CollisionCheck | None
) -> tuple[Scored, list[Rejected]]:
    """Best test F1 (less the edit's cost) among candidates that fit, do no worse on train
    than the current description, and create no new collision."""

    # Test F1 first; the edit's cost only breaks ties on train: a test split of six queries
    # rarely moves, and a boundary that fixes four train near-misses is worth its sentence.
    def key(s: Scored) -> tuple[float, float, bool, int, float]:
        return (
            round(s.test_f1, 6),
            round(s.train_value, 6),
            s is original,
            -s.edit,
            round(s.test.overall.recall_full + s.train.overall.recall_full, 6),
        )

    # A candidate worse on train than the current description won its test score by chance.
    floor = round(original.train_f1, 6)
    eligible = sorted(
        (s for s in history if s.fits and round(s.train_f1, 6) >= floor),
        key=key,
        reverse=True,
    )
    rejected: list[Rejected] = []
    for scored in eligible:
        if scored is original or collisions is None:
            return scored, rejected
        found = collisions(scored.description)
        if not found:
            return scored, rejected
        rejected.append(Rejected(scored, tuple(found)))
    return original, rejected


def edit_size(before: str, after: str) -> int:
    """Words removed plus words added: ties go to the smaller change."""
    import difflib

    a, b = before.split(), after.split()
    return sum(
        max(i2 - i1, j2 - j1)
        for op, i1, i2, j1, j2 in difflib.SequenceMatcher(
            a=a, b=b, autojunk=False
        ).get_opcodes()
        if op != "equal"
    )


# -- candidates from the evidence -----------------------------------------------------------------


def evidence_candidates(
    current: Scored,
    index: SkillIndex,
    meta: SkillMeta,
    round_number: int,
    evidence: Evidence | None = None,
) -> list[Candidate]:
    """Add, exclude, and both candidates from ``current``'s train results. The first
    sentence (what the skill does) is never edited; what is added is whole sentences of phrases
    from the requests themselves (:mod:`aiq_tui.ranking.tune_phrases`)."""
    report = current.train
    base = current.candidate
    own = _own_terms(meta, base.description)
    gains = dict(
        (term, gain)
        for term, gain in _additions(report, index, own, evidence or Evidence())
    )
    uses = [
        phrase for phrase in _use_phrases(report, gains) if phrase not in base.added
    ]
    against = dict(_exclusions(report, index, own))
    bounds = [
        phrase
        for phrase in _boundary_phrases(report, against, index, own)
        if phrase not in base.excluded
    ]
    out: list[Candidate] = []
    for count in ADD_COUNTS[: len(uses)]:
        chosen = tuple(uses[:count])
        out.append(
            base.then(
                base.core, base.added + chosen, f"add {_quoted(chosen)}", round_number
            )
        )
    for count in EXCLUDE_COUNTS[: len(bounds)]:
        chosen = tuple(bounds[:count])
        out.append(
            base.then(
                base.core,
                base.added,
                f"exclude {_quoted(chosen)}",
                round_number,
                base.excluded + chosen,
            )
        )
    for a in BOTH_COUNTS[: len(uses)]:
        for b in BOTH_COUNTS[: len(bounds)]:
            out.append(
                base.then(
                    base.core,
                    base.added + tuple(uses[:a]),
                    f"add {_quoted(uses[:a])}; exclude {_quoted(bounds[:b])}",
                    round_number,
                    base.excluded + tuple(bounds[:b]),
                )
            )
    # Nothing of the author's text is cut: a dropped list item can take the sentence's verb with
    # it ("…, or company design standards apply"), and an author reviews added sentences, not
    # rewrites. What made a near-miss load is answered by a boundary instead.
    return [_fitted(candidate, index, report, meta.name) for candidate in out]


def _quoted(phrases: Sequence[str]) -> str:
    return ", ".join(f'"{phrase}"' for phrase in phrases)


def _shorten_rest(core: str, room: int, worth: Callable[[str], float]) -> str | None:
    """``core`` within ``room`` characters by dropping its least worthy pieces after the first sentence."""
    first = first_sentence(core)
    rest = core[len(first) :].strip()
    if len(first) > room:
        return None
    if not rest:
        return first if len(first) <= room else None
    shorter = shorten(rest, room - len(first) - 1, worth)
    if shorter is None:
        return first
    return f"{first} {shorter}".strip()


def _best_phrase(
    query: str, value: Callable[[set[str]], float], keep: set[str]
) -> tuple[str, float] | None:
    """The clause of ``query`` worth most by ``value`` (of its terms), as a phrase."""
    best: tuple[str, float] | None = None
    for clause in clauses(query):
        whole = phrase_of(clause, keep, term_of)
        for phrase in phrase_cuts(whole) if whole else ():
            if len(phrase.split()) < 2:
                continue
            worth = value(set(tokenize(phrase)))
            # A shorter phrase of equal worth generalises better (and reads better).
            ranked = worth - WORD_COST * len(phrase.split())
            if worth > 0 and (best is None or ranked > best[1]):
                best = (phrase, ranked)
    return best


def _use_phrases(report: TriggerReport, gains: dict[str, float]) -> list[str]:
    """Phrases of the should-trigger queries it missed (then those loaded only at brief), best
    first: each worth the gain of the new terms it brings (:func:`_additions`), a term counted
    once across the phrases chosen before it."""
    from aiq_tui.skills.model import Phase

    found: list[tuple[str, set[str], float]] = []
    for verdict in report.verdicts:
        if not verdict.case.should_trigger or verdict.phase is Phase.FULL:
            continue
        weight = 1.0 if not verdict.loaded else BRIEF_WEIGHT
        best = _best_phrase(
            verdict.case.query,
            lambda terms: sum(gains.get(t, 0.0) for t in terms),
            set(gains),
        )
        if best is not None:
            found.append((best[0], set(tokenize(best[0])), best[1] * weight))
    return _greedy(found, gains)


def _boundary_phrases(
    report: TriggerReport, against: dict[str, float], index: SkillIndex, own: set[str]
) -> list[str]:
    """Phrases of the should-not queries it loaded for, best first: each worth the gain of its
    terms the description does not use (:func:`_exclusions`: near-miss words that its
    should-trigger queries do not use), less the idf of those its should-trigger queries use."""
    wanted: Counter[str] = Counter()
    for verdict in report.verdicts:
        if verdict.case.should_trigger:
            wanted.update(set(tokenize(verdict.case.query)))

    def value(terms: set[str]) -> float:
        new = terms - own
        return sum(against.get(t, 0.0) for t in new) - sum(
            index.idf(t) * wanted[t] for t in new if wanted[t]
        )

    found: list[tuple[str, set[str], float]] = []
    for verdict in report.verdicts:
        if verdict.case.should_trigger or not verdict.loaded:
            continue
        best = _best_phrase(verdict.case.query, value, set(against))
        if best is not None:
            found.append((best[0], set(tokenize(best[0])) - own, best[1]))
    return _greedy(found, against)


def _greedy(
    found: list[tuple[str, set[str], float]], gains: dict[str, float]
) -> list[str]:
    """The phrases in the order that adds the most new gain each time (a term counts once)."""
    out: list[str] = []
    covered: set[str] = set()
    remaining = list(found)
    while remaining:

        def fresh(item: tuple[str, set[str], float]) -> float:
            new = item[1] - covered  # noqa: B023 - max() below calls it in this pass
            share = sum(gains.get(t, 0.0) for t in new) / (
                sum(gains.get(t, 0.0) for t in item[1]) or 1.0
            )
            return item[2] * share

        item = max(remaining, key=lambda it: (fresh(it), it[0]))
        if fresh(item) <= 0:
            break
        remaining.remove(item)
        if item[0] not in out:
            out.append(item[0])
            covered |= item[1]
    return out


def _fitted(
    candidate: Candidate, index: SkillIndex, report: TriggerReport, name: str
) -> Candidate:
    """Within 1,024 characters: the author's least useful pieces after the first sentence make
    room for the added phrases first; only when that cannot be done do added phrases go, last first."""
    while len(candidate.description) > DESCRIPTION_MAX:
        room = DESCRIPTION_MAX - (len(candidate.description) - len(candidate.core))
        core = (
            _shorten_rest(candidate.core, room, _worth(index, report, name))
            if room > 0
            else None
        )
        if core is not None and len(core) <= room and core != candidate.core:
            return replace(
                candidate, core=core, origin=candidate.origin + " (shortened to fit)"
            )
        if candidate.excluded:
            candidate = replace(candidate, excluded=candidate.excluded[:-1])
        elif candidate.added:
            candidate = replace(candidate, added=candidate.added[:-1])
        else:
            break
    return candidate


def _own_terms(meta: SkillMeta, description: str) -> set[str]:
    return (
        set(name_terms(meta.name))
        | set(tokenize(description))
        | set(tokenize(" ".join(meta.tags)))
        | set(tokenize(" ".join(meta.triggers)))
    )


def _additions(
    report: TriggerReport, index: SkillIndex, own: set[str], evidence: Evidence
) -> list[tuple[str, float]]:
    """(term, gain) for terms of should-trigger queries, best first: a query
    it missed counts in full, one it loaded only at brief counts ``BRIEF_WEIGHT`` (its words
    widen a thin margin), one it loaded at full ``PASSING_WEIGHT``; every should-not query
    using the term counts against it."""
    from aiq_tui.skills.model import Phase

    support: defaultdict[str, float] = defaultdict(
        float
    )  # weighted should-trigger evidence
    seen_in: Counter[str] = Counter()  # should-trigger queries using the term
    negative: Counter[str] = Counter()
    for verdict in report.verdicts:
        terms = set()
        for word in words(verdict.case.query):
            term = term_of(word)
            if (
                term is None
                or len(word) < MIN_WORD
                or not word.isalpha()
                or term in own
                or word in FILLER
            ):
                continue
            terms.add(term)
        if not verdict.case.should_trigger:
            negative.update(terms)
            continue
        weight = (
            1.0
            if not verdict.loaded
            else BRIEF_WEIGHT
            if verdict.phase is Phase.BRIEF
            else PASSING_WEIGHT
        )
        for term in terms:
            support[term] += weight
            seen_in[term] += 1
    gains = {}
    for term, weight in support.items():
        weight -= NEGATIVE_WEIGHT * negative[term]
        if weight <= 0:
            continue
        if term not in evidence.body and seen_in[term] < 2:
            continue  # one request's incidental word: it would fit the train set and nothing else
        gains[term] = (
            index.idf(term)
            * weight
            * (1.0 - BACKGROUND_DISCOUNT * evidence.background(term))
        )
    ranked = sorted(gains, key=lambda term: (-gains[term], term))
    return [(term, gains[term]) for term in ranked]


def _exclusions(
    report: TriggerReport, index: SkillIndex, own: set[str]
) -> list[tuple[str, float]]:
    """(term, gain) for an exclusion sentence, best first: terms of should-not
    queries the skill loaded for (false triggers), each such query counting once, less
    ``NEGATIVE_WEIGHT`` per should-trigger query using the term (excluding it would cost those),
    times the term's idf (a rare word excludes precisely). Terms the description already uses —
    its name, its text, its tags and triggers, its exclusion — never qualify."""
    against: Counter[str] = Counter()
    wanted: Counter[str] = Counter()
    for verdict in report.verdicts:
        if not verdict.case.should_trigger and not verdict.loaded:
            continue  # a near-miss it already leaves alone: no evidence either way
        terms = set()
        for word in words(verdict.case.query):
            term = term_of(word)
            if (
                term is None
                or len(word) < MIN_WORD
                or not word.isalpha()
                or term in own
                or word in FILLER
            ):
                continue
            terms.add(term)
        (wanted if verdict.case.should_trigger else against).update(terms)
    gains = {
        term: index.idf(term) * (count - NEGATIVE_WEIGHT * wanted[term])
        for term, count in against.items()
    }
    ranked = sorted(
        (term for term, gain in gains.items() if gain > 0),
        key=lambda term: (-gains[term], term),
    )
    return [(term, gains[term]) for term in ranked]


def _worth(
    index: SkillIndex, report: TriggerReport, name: str
) -> Callable[[str], float]:
    """How much a piece of the description is worth keeping: the score its terms earned on
    should-trigger queries the skill loaded for, less what they earned on false triggers;
    pieces with no evidence rank by how rare (distinctive) their terms are, lightly."""
    value: defaultdict[str, float] = defaultdict(float)
    for verdict in report.verdicts:
        if not verdict.loaded or verdict.match is None:
            continue
        sign = 1.0 if verdict.case.should_trigger else -1.0
        for signal in verdict.match.signals:
            if signal.field == "description":
                value[signal.term] += sign * signal.weight

    def worth(text: str) -> float:
        terms = set(tokenize(text))
        if not terms:
            return 0.0
        evidence = sum(value[term] for term in terms)
        rarity = sum(index.idf(term) for term in terms) / (10.0 * math.sqrt(len(terms)))
        return evidence + rarity

    return worth


# -- candidates from a model ----------------------------------------------------------------------

_PROPOSAL = re.compile(
    r"<new_description>(.*?)</new_description>", re.DOTALL | re.IGNORECASE
)
BODY_CHARS = 6_000  # of the skill's instructions shown to the model


def proposal_prompt(request: ProposalRequest) -> str:
    """The request for a better description (what skill-creator's improve step asks, in our words)."""
    f = request.figures
    lines = [
        f'You are improving the description of an agent skill named "{request.skill}". An agent sees only '
        "the name and description of each skill in its catalog and decides from them alone whether to load "
        "the skill's full instructions for a user's request. The description must make the skill load for "
        "the requests it serves and stay unloaded for requests that only look similar.",
        "",
        f"Current description:\n<current_description>\n{request.current}\n</current_description>",
        "",
        f"On the training queries it loads for {f.loaded} of {f.should} requests it should serve "
        f"(recall {f.recall:.2f}) and for {f.false_triggers} of {f.should_not} requests it should not "
        f"(F1 {f.f1:.2f}).",
    ]
    if request.missed:
        lines += ["", "It did NOT load for these requests, which it should serve:"]
        lines += [f"- {query}" for query in request.missed]
    if request.false_triggers:
        lines += [
            "",
            "It DID load for these requests, which other tools or skills should handle:",
        ]
        lines += [f"- {query}" for query in request.false_triggers]
    if request.attempts:
        lines += [
            "",
            "Earlier attempts (do not repeat them; try a different structure):",
        ]
        lines += [
            f"- F1 {figures.f1:.2f}: {text}" for text, figures in request.attempts
        ]
    lines += [
        "",
        "What the skill does (its instructions, possibly cut):",
        "<skill_content>",
        request.body[:BODY_CHARS],
        "</skill_content>",
        "",
        "Write a better description. Generalise from the failures to the kinds of requests the skill is "
        "for and not for; do not list the example requests. Name the user's intent and the distinctive "
        "nouns and verbs of the task, phrased as 'Use this skill when …'. Keep it under 150 words and "
        f"under {DESCRIPTION_MAX} characters, plain text without angle brackets.",
        "Answer with the description alone inside <new_description></new_description> tags.",
    ]
    return "\n".join(lines)


def parse_proposal(text: str) -> str | None:
    """The description inside the answer's tags (the whole answer when it has none); None
    when there is nothing usable."""
    found = _PROPOSAL.search(text)
    proposal = (found.group(1) if found else text).strip().strip('"').strip()
    proposal = " ".join(proposal.split())
    return proposal or None


def _proposal(
    propose: Proposer,
    current: Scored,
    history: list[Scored],
    meta: SkillMeta,
    body: str,
) -> Candidate | str:
    train = current.train
    request = ProposalRequest(
        skill=meta.name,
        body=body,
        current=current.description,
        figures=train.overall,
        missed=tuple(v.case.query for v in train.failures if v.case.should_trigger),
        false_triggers=tuple(
            v.case.query for v in train.failures if not v.case.should_trigger
        ),
        attempts=tuple(
            (s.description, s.train.overall) for s in history[-5:] if s is not current
        ),
    )
    try:
        answer = propose(request)
    except Exception as exc:
        return f"the model failed: {exc}"
    description = parse_proposal(answer or "")
    if description is None:
        return "the model's answer held no description"
    if "<" in description or ">" in description:
        return (
            "the model's description has angle brackets (not allowed in a description)"
        )
    if len(description) > DESCRIPTION_MAX:
        return f"the model's description is {len(description)} characters (limit {DESCRIPTION_MAX})"
    return Candidate(description, (), "model proposal")


__all__ = [
    "Candidate",
    "DescriptionJudge",
    "Evidence",
    "ProposalRequest",
    "Rejected",
    "Scored",
    "TuneResult",
    "evidence_candidates",
    "parse_proposal",
    "proposal_prompt",
    "tune",
]
