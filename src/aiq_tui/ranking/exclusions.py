"""Read the boundaries a description draws: "Not for X", "Do not use for …", "SKIP when …".

Skill authors write where a skill ends into its description — "Use for complex artifacts
… - not for simple single-file HTML/JSX artifacts", "SKIP only when another provider is
being worked on …", "(not for Y)". A model reads those words as a boundary; a keyword matcher
read them as reasons to load the skill, so "single-file HTML page" raised the very skill that
says it is not for one. :func:`parse_exclusions` splits a description into the text that
says what the skill is for and the clauses that say what it is not for; the matcher indexes
the first and holds the second as negative evidence (:mod:`aiq_tui.ranking.match`).

A clause opens with one of the leads in ``_LEAD`` and runs to the end of its sentence (or, when
it opens inside brackets, to the closing bracket). A lead counts only where it draws a
boundary: "don't skip because …" is not an exclusion. "X rather than Y" is ("Create original
art rather than copying existing artists' work": Y is what the skill does not do).

A clause's words are of two kinds (:func:`boundaries`): its *own* words, which nothing else in
the metadata uses ("editor", "terminal" in "Not for editor or terminal themes"), and its
*context*, the words it shares with what the skill is for ("themes" — often a word of the
skill's name). Meeting an own word is evidence against the skill; a request that meets one is
then read as the boundary describes it, so its context words count against the skill too.
That is how a boundary outweighs a name-word match: "install a dark theme for my terminal"
matches ``theme-factory`` only through "theme", which the boundary itself explains. And a
request that meets no own word but only context words ("the main theme of The Great Gatsby")
matches through a word the clause's items give other senses; the matcher counts it at a share
(:attr:`Boundary.senses`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

# What opens an exclusion (case-insensitive). "skip"/"avoid" need a when/if/for after them
# (optionally "only"/"using"/"this skill"), so "don't skip because it looks like a one-liner"
# is not one; "skip" after a negation is excluded below.
_LEAD = re.compile(
    r"\b(?:but\s+)?not\s+(?:(?:intended|meant|designed|suitable|to\s+be\s+used)\s+)?(?:for|when|if)\b"
    r"|\b(?:do\s+not|don['’]t|never)\s+use\b(?:\s+(?:this|the|it)(?:\s+skill)?)?(?:\s+(?:for|when|if|to|on|with))?"
    r"|\brather\s+than\b"
    r"|\b(?:skip|avoid)\b(?:\s+(?:this\s+skill|it|using(?:\s+it|\s+this\s+skill)?))?(?:\s+only)?\s+(?:when|if|for)\b",
    re.IGNORECASE,
)
_LEAD_WORDS = (
    "not",
    "never",
    "skip",
    "avoid",
    "rather",
)  # every lead has one as a word, or a "n't": a cheap first look
_NEGATED = re.compile(r"\b(?:don['’]t|do\s+not|never|not)\s*$", re.IGNORECASE)
# A sentence ends at . ! ? followed by whitespace and a capital (or an opening quote/bracket),
# or at a line break: "p5.js", "claude.ai" and "us.anthropic.*" are not ends.
_SENTENCE_END = re.compile(r"[.!?](?=\s+[A-Z\"'(`*\[])|[.!?]?\s*\n|[.!?]\s*$")
_OPEN, _CLOSE = "([{", ")]}"


@dataclass(frozen=True)
class Exclusion:
    """One clause saying when not to use the skill, as the author wrote it."""

    text: str  # the whole clause: "not for simple single-file HTML/JSX artifacts"
    lead: str  # the words that open it: "not for"
    start: int  # where it sits in the description (characters)
    end: int

    @property
    def scope(self) -> str:
        """The clause without its lead: the words that describe what is excluded."""
        return self.text[len(self.lead) :].strip()


@dataclass(frozen=True)
class ParsedDescription:
    """A description split into what the skill is for and what it is not for."""

    positive: str  # the description with every exclusion clause cut out
    exclusions: tuple[Exclusion, ...] = ()


def parse_exclusions(description: str) -> ParsedDescription:
    """Split ``description`` into its positive text and its exclusion clauses (in order)."""
    text = description or ""
    if not _may_have_lead(text.lower()):
        return ParsedDescription(
            text
        )  # most descriptions: no regex pass (10,000 at index build)
    found: list[Exclusion] = []
    position = 0
    while True:
        lead = _next_lead(text, position)
        if lead is None:
            break
        start = lead.start()
        end = _clause_end(text, start)
        clause = text[start:end].rstrip()
        found.append(Exclusion(clause, lead.group(0), start, start + len(clause)))
        position = max(end, lead.end())
    if not found:
        return ParsedDescription(text)
    return ParsedDescription(_cut(text, found), tuple(found))


def _may_have_lead(lowered: str) -> bool:
    """Whether ``lowered`` has a word every lead needs: string searches, not a regex, since the
    catalog shortens thousands of descriptions (a regex scan costs ~20 µs each), and as whole
    words, so that "notes", "another" or "annotation" do not send one through ``_LEAD``."""
    if "n't" in lowered or "n’t" in lowered:
        return True
    for word in _LEAD_WORDS:
        at = lowered.find(word)
        while at >= 0:
            end = at + len(word)
            if (at == 0 or not lowered[at - 1].isalnum()) and (
                end == len(lowered) or not lowered[end].isalnum()
            ):
                return True
            at = lowered.find(word, at + 1)
    return False


def is_exclusion(text: str) -> bool:
    """Whether ``text`` (a sentence or list item) says when *not* to use the skill."""
    return _next_lead(text, 0) is not None


def _next_lead(text: str, position: int) -> re.Match[str] | None:
    for found in _LEAD.finditer(text, position):
        if _NEGATED.search(
            text[max(0, found.start() - 12) : found.start()]
        ) and found.group(0).lower().startswith(("skip", "avoid")):
            continue  # "don't skip when …" asks for the skill
        return found
    return None


def _clause_end(text: str, start: int) -> int:
    """The end of the clause opened at ``start``: its closing bracket when it opens inside
    brackets ("(not for Y)"), else the end of its sentence."""
    depth = 0
    for i in range(start - 1, max(-1, start - 400), -1):  # inside an unclosed bracket?
        char = text[i]
        if char in _CLOSE:
            depth += 1
        elif char in _OPEN:
            if depth == 0:
                return _closing(text, start)
            depth -= 1
        elif char == "\n":
            break
    for found in _SENTENCE_END.finditer(text, start):
        # An end inside brackets opened within the clause is not its end ("(… — don't Read the file)").
        if _balanced(text[start : found.start()]):
            return found.start()
    return len(text)


def _closing(text: str, start: int) -> int:
    depth = 0
    for i in range(start, len(text)):
        if text[i] in _OPEN:
            depth += 1
        elif text[i] in _CLOSE:
            if depth == 0:
                return i  # the bracket itself stays with the text around it
            depth -= 1
    return len(text)


def _balanced(text: str) -> bool:
    return sum(text.count(c) for c in _OPEN) <= sum(text.count(c) for c in _CLOSE)


def _cut(text: str, exclusions: list[Exclusion]) -> str:
    out, last = "", 0
    for exclusion in exclusions:
        out += text[last : exclusion.start]
        last = exclusion.end
    out += text[last:]
    out = re.sub(r"\(\s*\)|\[\s*\]", "", out)  # "(not for Y)" leaves "()"
    out = re.sub(
        r"\s*[-–—,;:]\s*(?=[.!?]|$)", "", out
    )  # "… components - " before the cut clause
    out = re.sub(
        r"[ \t]+(?=[.!?](?:\s|$))", "", out
    )  # "art ." where "rather than …" was
    out = re.sub(r"([.!?])\s*[.!?]", r"\1", out)  # a whole sentence cut leaves ". ."
    out = re.sub(r"^[\s.!?;:,]+", "", out)
    out = re.sub(r"[ \t]{2,}", " ", out)
    return out.strip()


@dataclass(frozen=True)
class Boundary:
    """One exclusion clause as the matcher weighs it (see the module's docstring)."""

    own: frozenset[
        str
    ]  # terms only this clause uses: meeting one is evidence against the skill
    context: frozenset[
        str
    ]  # terms it shares with what the skill is for: against it once an own term is met
    text: str  # the clause as written
    # How many of the clause's listed items ("Not for a WordPress theme, a theme song or …")
    # use each context term: each item is one more thing the word can mean besides the skill.
    senses: tuple[tuple[str, int], ...] = ()

    def against(self, terms: Iterable[str]) -> tuple[str, ...]:
        """The query ``terms`` this boundary counts against the skill: none unless one of its own
        words is among them; then those and its context words among them."""
        terms = tuple(terms)
        if not any(term in self.own for term in terms):
            return ()
        return tuple(term for term in terms if term in self.own or term in self.context)


def boundaries(
    parsed: ParsedDescription,
    positive: set[str] | frozenset[str],
    tokenize: Callable[[str], list[str]],
) -> tuple[Boundary, ...]:
    """The clauses of ``parsed`` split against ``positive`` (the terms the name, the triggers,
    the tags and the rest of the description use); clauses without an own word are dropped
    (they exclude nothing the skill does not also claim)."""
    out = []
    for clause in parsed.exclusions:
        terms = frozenset(tokenize(clause.scope))
        own = terms - positive
        if own:
            context = terms & positive
            senses: dict[str, int] = {}
            for item in _ITEM_BREAK.split(clause.scope):
                for term in set(tokenize(item)) & context:
                    senses[term] = senses.get(term, 0) + 1
            out.append(
                Boundary(own, context, clause.text, tuple(sorted(senses.items())))
            )
    return tuple(out)


# Where one listed item of a clause ends and the next begins: "a, b or c", "a; b", "a, and b".
_ITEM_BREAK = re.compile(
    r"\s*[,;]\s*(?:(?:or|and|nor)\s+)?|\s+(?:or|nor)\s+", re.IGNORECASE
)


__all__ = [
    "Boundary",
    "Exclusion",
    "ParsedDescription",
    "boundaries",
    "is_exclusion",
    "parse_exclusions",
]
