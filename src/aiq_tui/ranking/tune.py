"""``skills tune``: skill-creator's description optimisation loop, with the matcher as the judge.

skill-creator splits a trigger eval set 60 % train / 40 % test (stratified, seeded), scores
the description by sending every query to a hosted model three times, asks the model for a
better description from the train failures, and after up to five rounds keeps the
description with the best *test* score. Here the judge is the matcher the agent routes with:
a round takes milliseconds, is the same on every machine, and every score is explained.

Each round builds candidates from the evidence of the best description so far on the
*train* queries only:

* **add** — words of should-trigger queries it missed (and, weighing less, of those it
  loaded only at brief), weighted by how rare their term is in the collection (idf) and by
  how many such queries use it, less how many should-not queries use it. Only words the skill's own instructions use, or that recur across its
  should-trigger queries, qualify — one request's incidental words ("the way our team likes
  them") would fit the train set and nothing else — and words most skills' instructions use
  weigh less. They are written as users typed them, in an "Also use for …" sentence;
* **remove** — description terms that scored for should-not queries it loaded for, most
  harmful first (what they scored there less what they scored for the should-trigger
  queries it got right); the list item (or sentence) using the term is dropped, so the
  prose still reads; or, where only a main clause uses it, the word itself ("creating
  animated GIFs" → "creating GIFs") — one term at a time, and the worst few together;
* **narrow** — both: the generic term out, the specific words in;
* **exclude** — words of should-not queries it loaded for (near-miss false triggers) that its
  should-trigger queries do not use, most shared and rarest first, in a "Not for …" sentence
  (extended on later rounds, and on a later run when the description already ends in one): the
  matcher reads an exclusion's words as evidence against loading the skill
  (:mod:`aiq_tui.ranking.exclusions`), as the model reads them as its boundary;
* **model** — with a proposer (``--llm``), the configured model's rewrite, as skill-creator
  asks for one, judged the same way.

Every candidate is scored on train and test; the round continues from the best on train;
at the end the candidate with the best test F1 wins (ties: train F1, then the current
description, then the smaller edit), provided it fits the spec's 1,024 characters, does no
worse on train than the current description, and the collision check finds no new
collision with another skill. Each changed word costs ``EDIT_COST`` of F1 in both choices, so
a rewrite must earn its size: the author's text is evidence too.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Callable, Sequence

from aiq_tui.ranking.description_edits import add_exclusion, add_words, drop_word, remove_term, shorten, split_exclusion
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
from aiq_tui.skills.model import Ranking, SkillMeta
from aiq_tui.skills.validate import DESCRIPTION_MAX

# Words of requests that say nothing about the task (the tokenizer's stop-words aside): never
# added to a description, whatever a train set says.
FILLER = frozenset("""
    nothing everything anyone someone everyone instead rather sure okay pls thanks thank bit lot lots
    one two three four five six seven eight nine ten hundred thousand
    stuff good nice great better best new old next last first second today tomorrow yesterday week
    weeks time times way day days right now still even ever quick quickly small big simple real
    make makes making made want wants wanted try trying able going gonna done doing work working
    like likes keep kept put take takes taking bring
""".split())
ADD_COUNTS = (1, 2, 3, 5, 8, 12)  # how many of the best words an "add" candidate takes
EXCLUDE_COUNTS = (1, 2, 3, 5, 8)  # how many of the best words an "exclude" candidate takes
REMOVE_SINGLY = 6  # the most harmful terms each get a candidate of their own
NARROW_REMOVALS = 3  # narrow: the first this many removal sets …
NARROW_ADDS = 4  # … each with the best 1, 2, 3, 5 added words
NEGATIVE_WEIGHT = 1.0  # a should-not query using a term cancels one missed query using it
EDIT_COST = 0.004  # F1 a changed word costs: a 25-word rewrite must win a tenth of F1 more
BRIEF_WEIGHT = 0.5  # a should-trigger query loaded only at brief: its words widen a thin margin
PASSING_WEIGHT = 0.1  # one loaded at full already
MIN_WORD = 3  # shorter words (ok, pls, 4) are noise, not evidence
BACKGROUND_DISCOUNT = 0.8  # a word every other skill's instructions use keeps a fifth of its weight


@dataclass(frozen=True)
class Evidence:
    """What grounds an added word: the skill's instructions, and how common a term is in the
    instructions of the collection's other skills (share 0–1; common words weigh less)."""

    body: frozenset[str] = frozenset()
    background: Callable[[str], float] = lambda term: 0.0

    @classmethod
    def of(cls, body: str, background: Callable[[str], float] | None = None) -> "Evidence":
        return cls(frozenset(tokenize(body)), background or (lambda term: 0.0))


@dataclass(frozen=True)
class Candidate:
    """A description and how it was made. ``core`` is the author's text (possibly with items
    dropped); ``added`` the words the tuner appends after it in an "Also use for" sentence,
    ``excluded`` those it appends in a "Not for" sentence."""

    core: str
    added: tuple[str, ...] = ()
    origin: str = "current"
    round: int = 0
    excluded: tuple[str, ...] = ()

    @property
    def description(self) -> str:
        return add_exclusion(add_words(self.core, self.added), self.excluded)

    def then(self, core: str, added: tuple[str, ...], step: str, round_number: int,
             excluded: tuple[str, ...] | None = None) -> "Candidate":
        """A candidate made from this one by one more ``step`` (its origin lists every step)."""
        origin = step if self.origin == "current" else f"{self.origin}; {step}"
        return Candidate(core, added, origin, round_number, self.excluded if excluded is None else excluded)


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
    rejected: tuple[Rejected, ...] = ()  # better by test F1, but they create a collision
    rounds: int = 0
    stopped: str = ""  # why the loop ended
    proposals_failed: tuple[str, ...] = ()  # model proposals that could not be used, and why

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
    attempts: tuple[tuple[str, TriggerFigures], ...]  # earlier descriptions and their train figures


Proposer = Callable[[ProposalRequest], "str | None"]
CollisionCheck = Callable[[str], "tuple[str, ...]"]


class DescriptionJudge:
    """Scores descriptions of one skill with the matcher: the index holds the candidate while
    its queries are ranked, and the skill's own metadata again afterwards."""

    def __init__(self, index: SkillIndex, meta: SkillMeta, rank: Callable[[str], Ranking], top_k: int,
                 thresholds: object) -> None:
        self.index, self.meta, self.rank, self.top_k, self.thresholds = index, meta, rank, top_k, thresholds

    def report(self, description: str, cases: Sequence[TriggerCase]) -> TriggerReport:
        self.index.upsert(replace(self.meta, description=description))
        try:
            return evaluate_triggers(self.rank, cases, top_k=self.top_k, thresholds=self.thresholds)  # type: ignore[arg-type]
        finally:
            self.index.upsert(self.meta)


def tune(judge: DescriptionJudge, cases: Sequence[TriggerCase], *, holdout: float, seed: int, rounds: int,
         body: str = "", background: Callable[[str], float] | None = None, propose: Proposer | None = None,
         collisions: CollisionCheck | None = None,
         on_round: Callable[[int, Scored], None] | None = None) -> TuneResult:
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
            seen[text] = Scored(candidate, judge.report(text, split.train), judge.report(text, split.test),
                                edit_size(meta.description.strip(), text))
            history.append(seen[text])
        return seen[text]

    core, excluded = split_exclusion(meta.description)  # a "Not for …" the tuner wrote: extended
    original = score(Candidate(core, excluded=excluded))
    current = original
    if not original.fits:  # over the spec's limit: the loop starts from a version that fits
        fitted = shorten(original.description, DESCRIPTION_MAX, _worth(judge.index, original.train, meta.name))
        if fitted is not None:
            current = score(Candidate(fitted, (), "shortened to the 1,024-character limit", 0))
    stopped, failed, done = f"{rounds} round(s)", [], 0
    for number in range(1, rounds + 1):
        if not current.train.failures:
            stopped = "every train query passes"
            break
        done = number
        candidates = evidence_candidates(current, judge.index, meta, number, evidence)
        if propose is not None:
            proposal = _proposal(propose, current, history, meta, body)
            if isinstance(proposal, Candidate):
                candidates.append(replace(proposal, round=number))
            else:
                failed.append(f"round {number}: {proposal}")
        scored = [score(candidate) for candidate in candidates if candidate.description.strip()]
        if on_round is not None:
            on_round(number, current)
        better = [s for s in scored if s.fits and _train_key(s) > _train_key(current)]
        if not better:
            stopped = f"no candidate improved on train after round {number}"
            break
        current = max(better, key=_train_key)
    best, rejected = _choose(original, history, collisions)
    return TuneResult(meta.name, split, original, best, tuple(history), tuple(rejected), done, stopped, tuple(failed))


def _train_key(scored: Scored) -> tuple[float, float, int]:
    return (round(scored.train_value, 6), round(scored.train.overall.recall_full, 6), -scored.edit)


def _choose(original: Scored, history: list[Scored], collisions: CollisionCheck | None) -> tuple[Scored, list[Rejected]]:
    """Best test F1 (less the edit's cost) among candidates that fit, do no worse on train
    than the current description, and create no new collision."""
    def key(s: Scored) -> tuple[float, float, bool, int, float]:
        return (round(s.test_value, 6), round(s.train_value, 6), s is original, -s.edit,
                round(s.test.overall.recall_full + s.train.overall.recall_full, 6))

    # A candidate worse on train than the current description won its test score by chance.
    floor = round(original.train_f1, 6)
    eligible = sorted((s for s in history if s.fits and round(s.train_f1, 6) >= floor), key=key, reverse=True)
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
    return sum(max(i2 - i1, j2 - j1) for op, i1, i2, j1, j2 in
               difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes() if op != "equal")


# -- candidates from the evidence -----------------------------------------------------------------


def evidence_candidates(current: Scored, index: SkillIndex, meta: SkillMeta, round_number: int,
                        evidence: Evidence | None = None) -> list[Candidate]:
    """Add, remove and narrow candidates from ``current``'s train results."""
    report = current.train
    base = current.candidate
    own = _own_terms(meta, base.description)
    additions = _additions(report, index, own, evidence or Evidence())
    harmful = _harmful(report, meta.name, base.core)
    out: list[Candidate] = []
    for count in ADD_COUNTS:
        if count <= len(additions):
            chosen = tuple(word for word, _term in additions[:count])
            out.append(base.then(base.core, base.added + chosen, f"add {', '.join(chosen)}", round_number))
        if count >= len(additions):
            break
    # One term at a time, then the worst two, three, … together (each judged on its own).
    removals: list[tuple[str, tuple[str, ...]]] = []
    together, dropped = base.core, ()
    for term, word in harmful[:REMOVE_SINGLY]:
        alone = remove_term(base.core, term)
        if alone is not None:
            out.append(base.then(alone, base.added, f"remove {word}", round_number))
        dropped_word = drop_word(base.core, term)
        if dropped_word is not None and dropped_word != alone:
            out.append(base.then(dropped_word, base.added, f"drop the word {word}", round_number))
        again = remove_term(together, term) or drop_word(together, term)
        if again is not None:
            together, dropped = again, dropped + (word,)
            if len(dropped) > 1:
                out.append(base.then(together, base.added, f"remove {', '.join(dropped)}", round_number))
            removals.append((together, dropped))
    for core, words_out in removals[:NARROW_REMOVALS]:
        for count in ADD_COUNTS[:NARROW_ADDS]:
            if count > len(additions):
                break
            chosen = tuple(word for word, _term in additions[:count])
            out.append(base.then(core, base.added + chosen,
                                 f"narrow: remove {', '.join(words_out)}, add {', '.join(chosen)}", round_number))
    exclusions = _exclusions(report, index, own | set(tokenize(" ".join(base.excluded))))
    for count in EXCLUDE_COUNTS:
        if count > len(exclusions):
            break
        chosen = tuple(word for word, _term in exclusions[:count])
        out.append(base.then(base.core, base.added, f"exclude {', '.join(chosen)}", round_number,
                             base.excluded + chosen))
    return [_fitted(candidate, index, report, meta.name) for candidate in out]


def _fitted(candidate: Candidate, index: SkillIndex, report: TriggerReport, name: str) -> Candidate:
    """Within 1,024 characters: the author's least useful items make room for the added words
    first; only when that cannot be done do added words go, last first."""
    while len(candidate.description) > DESCRIPTION_MAX:
        room = DESCRIPTION_MAX - (len(candidate.description) - len(candidate.core))
        core = shorten(candidate.core, room, _worth(index, report, name)) if room > 0 else None
        if core is not None:
            return replace(candidate, core=core, origin=candidate.origin + " (shortened to fit)")
        if candidate.excluded:
            candidate = replace(candidate, excluded=candidate.excluded[:-1])
        elif candidate.added:
            candidate = replace(candidate, added=candidate.added[:-1])
        else:
            break
    return candidate


def _own_terms(meta: SkillMeta, description: str) -> set[str]:
    return (set(name_terms(meta.name)) | set(tokenize(description)) | set(tokenize(" ".join(meta.tags)))
            | set(tokenize(" ".join(meta.triggers))))


def _additions(report: TriggerReport, index: SkillIndex, own: set[str], evidence: Evidence) -> list[tuple[str, str]]:
    """(word as users typed it, term) for terms of should-trigger queries, best first: a query
    it missed counts in full, one it loaded only at brief counts ``BRIEF_WEIGHT`` (its words
    widen a thin margin), one it loaded at full ``PASSING_WEIGHT``; every should-not query
    using the term counts against it."""
    from aiq_tui.skills.model import Phase

    support: Counter[str] = Counter()  # weighted should-trigger evidence
    seen_in: Counter[str] = Counter()  # should-trigger queries using the term
    negative: Counter[str] = Counter()
    typed: dict[str, Counter[str]] = {}
    for verdict in report.verdicts:
        terms = set()
        for word in words(verdict.case.query):
            term = term_of(word)
            if term is None or len(word) < MIN_WORD or not word.isalpha() or term in own or word in FILLER:
                continue
            terms.add(term)
            if verdict.case.should_trigger:
                typed.setdefault(term, Counter())[_as_written(verdict.case.query, word)] += 1
        if not verdict.case.should_trigger:
            negative.update(terms)
            continue
        weight = 1.0 if not verdict.loaded else BRIEF_WEIGHT if verdict.phase is Phase.BRIEF else PASSING_WEIGHT
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
        gains[term] = index.idf(term) * weight * (1.0 - BACKGROUND_DISCOUNT * evidence.background(term))
    ranked = sorted(gains, key=lambda term: (-gains[term], term))
    return [(typed[term].most_common(1)[0][0], term) for term in ranked]


def _exclusions(report: TriggerReport, index: SkillIndex, own: set[str]) -> list[tuple[str, str]]:
    """(word as users typed it, term) for an exclusion sentence, best first: terms of should-not
    queries the skill loaded for (false triggers), each such query counting once, less
    ``NEGATIVE_WEIGHT`` per should-trigger query using the term (excluding it would cost those),
    times the term's idf (a rare word excludes precisely). Terms the description already uses —
    its name, its text, its tags and triggers, its exclusion — never qualify."""
    against: Counter[str] = Counter()
    wanted: Counter[str] = Counter()
    typed: dict[str, Counter[str]] = {}
    for verdict in report.verdicts:
        if not verdict.case.should_trigger and not verdict.loaded:
            continue  # a near-miss it already leaves alone: no evidence either way
        terms = set()
        for word in words(verdict.case.query):
            term = term_of(word)
            if term is None or len(word) < MIN_WORD or not word.isalpha() or term in own or word in FILLER:
                continue
            terms.add(term)
            if not verdict.case.should_trigger:
                typed.setdefault(term, Counter())[_as_written(verdict.case.query, word)] += 1
        (wanted if verdict.case.should_trigger else against).update(terms)
    gains = {term: index.idf(term) * (count - NEGATIVE_WEIGHT * wanted[term]) for term, count in against.items()}
    ranked = sorted((term for term, gain in gains.items() if gain > 0), key=lambda term: (-gains[term], term))
    return [(typed[term].most_common(1)[0][0], term) for term in ranked]


def _as_written(query: str, word: str) -> str:
    """``word`` with the case the user typed it in ("FAQ", "Playwright"), else as given."""
    found = re.search(rf"(?<![^\W\d_]){re.escape(word)}(?![^\W\d_])", query, re.IGNORECASE)
    return found.group(0) if found else word


def _harmful(report: TriggerReport, name: str, core: str) -> list[tuple[str, str]]:
    """(term, a word of it as the description writes it) for description terms that scored more
    for the should-not queries it loaded for than for the should-trigger queries it loaded for."""
    harm: Counter[str] = Counter()
    help_: Counter[str] = Counter()
    for verdict in report.verdicts:
        if not verdict.loaded or verdict.match is None:
            continue
        target = help_ if verdict.case.should_trigger else harm
        for signal in verdict.match.signals:
            if signal.field == "description":
                target[signal.term] += signal.weight
    written = _written(core)
    terms = [term for term in harm if term in written]
    terms.sort(key=lambda term: (-(harm[term] - help_[term]), term))
    return [(term, written[term]) for term in terms]


def _written(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for word in words(text):
        term = term_of(word)
        if term is not None:
            out.setdefault(term, word)
    return out


def _worth(index: SkillIndex, report: TriggerReport, name: str) -> Callable[[str], float]:
    """How much a piece of the description is worth keeping: the score its terms earned on
    should-trigger queries the skill loaded for, less what they earned on false triggers;
    pieces with no evidence rank by how rare (distinctive) their terms are, lightly."""
    value: Counter[str] = Counter()
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

_PROPOSAL = re.compile(r"<new_description>(.*?)</new_description>", re.DOTALL | re.IGNORECASE)
BODY_CHARS = 6_000  # of the skill's instructions shown to the model


def proposal_prompt(request: ProposalRequest) -> str:
    """The request for a better description (what skill-creator's improve step asks, in our words)."""
    f = request.figures
    lines = [
        f"You are improving the description of an agent skill named \"{request.skill}\". An agent sees only "
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
        lines += ["", "It DID load for these requests, which other tools or skills should handle:"]
        lines += [f"- {query}" for query in request.false_triggers]
    if request.attempts:
        lines += ["", "Earlier attempts (do not repeat them; try a different structure):"]
        lines += [f"- F1 {figures.f1:.2f}: {text}" for text, figures in request.attempts]
    lines += [
        "", "What the skill does (its instructions, possibly cut):", "<skill_content>",
        request.body[:BODY_CHARS], "</skill_content>", "",
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


def _proposal(propose: Proposer, current: Scored, history: list[Scored], meta: SkillMeta,
              body: str) -> Candidate | str:
    train = current.train
    request = ProposalRequest(
        skill=meta.name, body=body, current=current.description, figures=train.overall,
        missed=tuple(v.case.query for v in train.failures if v.case.should_trigger),
        false_triggers=tuple(v.case.query for v in train.failures if not v.case.should_trigger),
        attempts=tuple((s.description, s.train.overall) for s in history[-5:] if s is not current),
    )
    try:
        answer = propose(request)
    except Exception as exc:  # noqa: BLE001 - a failed proposal costs one candidate, not the loop
        return f"the model failed: {exc}"
    description = parse_proposal(answer or "")
    if description is None:
        return "the model's answer held no description"
    if "<" in description or ">" in description:
        return "the model's description has angle brackets (not allowed in a description)"
    if len(description) > DESCRIPTION_MAX:
        return f"the model's description is {len(description)} characters (limit {DESCRIPTION_MAX})"
    return Candidate(description, (), "model proposal")


__all__ = [
    "Candidate", "DescriptionJudge", "Evidence", "ProposalRequest", "Rejected", "Scored", "TuneResult", "evidence_candidates",
    "parse_proposal", "proposal_prompt", "tune",
]
