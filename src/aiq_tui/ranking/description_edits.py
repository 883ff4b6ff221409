"""Edit a skill description the way its author would: drop a list item or a sentence, add a
"use for" list — so every candidate the tuner proposes still reads as prose.

A description is read as sentences, each a main clause followed by list items (the parts
between commas or semicolons outside brackets and quotes). The edits never touch a main
clause short of dropping its whole sentence or one of its modifiers ("animated GIFs" →
"GIFs"), and never leave a sentence without one, so "Use when the user asks for X, Y, or Z."
may lose "Y" or "or Z" but not "Use when …". Sentences that draw a boundary ("not for …",
"SKIP when …", :mod:`aiq_tui.ranking.exclusions`) are never cut: they are the skill's
boundary, for the model and for the matcher alike. Text
that is not edited keeps its exact characters (spacing, line breaks, punctuation).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from aiq_tui.ranking.exclusions import is_exclusion
from aiq_tui.ranking.tokenize import term_of, tokenize

ADDED_LEAD = (
    "Also use for "  # the sentence the tuner adds (and extends on later rounds)
)
EXCLUDED_LEAD = "Not for "  # the exclusion sentence the tuner adds (and extends)
_SENTENCE_END = re.compile(r"(?<=[.!?])(\s+)(?=[A-Z\"'(`*\[])")
_CONJUNCTION = re.compile(r"^(or|and)\s+", re.IGNORECASE)
_CLOSING = {")": "(", "]": "[", "}": "{"}
_ENDED = re.compile(r"[.!?][\"'’”)\]]*$")  # 'like "make me a GIF."' ends its sentence


@dataclass(frozen=True)
class _Sentence:
    parts: tuple[
        str, ...
    ]  # main clause first, then list items (without their separators)
    separators: tuple[str, ...]  # between parts: ", " or "; " with the original spacing
    end: str  # terminal punctuation (".", "!", "?", or "")
    gap: str  # whitespace after the sentence (before the next one)

    def text(self) -> str:
        out = self.parts[0]
        for separator, part in zip(self.separators, self.parts[1:]):
            out += separator + part
        return out + self.end


def _sentences(description: str) -> list[_Sentence]:
    pieces = _SENTENCE_END.split(description.strip())
    chunks = pieces[0::2]
    gaps = pieces[1::2] + [""]
    out = []
    for chunk, gap in zip(chunks, gaps):
        end = chunk[-1] if chunk and chunk[-1] in ".!?" else ""
        body = chunk[: len(chunk) - len(end)]
        parts, separators = _split_items(body)
        out.append(_Sentence(tuple(parts), tuple(separators), end, gap))
    return out


def _split_items(body: str) -> tuple[list[str], list[str]]:
    """Split at ``,``/``;`` + whitespace outside brackets and quotes."""
    parts: list[str] = []
    separators: list[str] = []
    depth: list[str] = []
    start = i = 0
    while i < len(body):
        char = body[i]
        if char in "([{":
            depth.append(char)
        elif char in _CLOSING and depth and depth[-1] == _CLOSING[char]:
            depth.pop()
        elif char in ",;" and not depth and i + 1 < len(body) and body[i + 1].isspace():
            j = i + 1
            while j < len(body) and body[j].isspace():
                j += 1
            parts.append(body[start:i])
            separators.append(body[i:j])
            start = i = j
            continue
        i += 1
    parts.append(body[start:])
    if len(separators) < 2:
        # One comma is a clause or a pair of adjectives ("elaborate, multi-component …"), not a
        # list: it has no items to drop.
        return [body], []
    return parts, separators


def _join(sentences: Sequence[_Sentence]) -> str:
    out = ""
    for index, sentence in enumerate(sentences):
        out += sentence.text()
        if index < len(sentences) - 1:
            out += sentence.gap or " "
    return out


def _terms(text: str) -> set[str]:
    return set(tokenize(text))


def _drop_items(sentence: _Sentence, drop: set[int]) -> _Sentence:
    """The sentence without the list items at ``drop`` (never the main clause, index 0)."""
    parts = list(sentence.parts)
    separators = list(sentence.separators)
    last = len(parts) - 1
    conjunction = _CONJUNCTION.match(parts[last]) if last in drop else None
    for index in sorted(drop, reverse=True):
        del parts[index]
        del separators[index - 1]
    if conjunction and len(parts) > 2 and not _CONJUNCTION.match(parts[-1]):
        # "X, Y, or Z" without Z reads "X, or Y": the list keeps its closing conjunction.
        parts[-1] = conjunction.group(0) + parts[-1]
    return _Sentence(tuple(parts), tuple(separators), sentence.end, sentence.gap)


@dataclass(frozen=True)
class Unit:
    """A piece the tuner may drop: one list item, or a whole sentence."""

    sentence: int
    item: int | None  # None: the whole sentence
    text: str


def removable_units(description: str) -> list[Unit]:
    sentences = _sentences(description)
    units = []
    for s, sentence in enumerate(sentences):
        if is_exclusion(sentence.text()):
            continue
        for i in range(1, len(sentence.parts)):
            units.append(Unit(s, i, sentence.parts[i]))
        if len(sentences) > 1:
            units.append(Unit(s, None, sentence.text()))
    return units


def drop_units(description: str, units: Iterable[Unit]) -> str:
    sentences = _sentences(description)
    whole = {unit.sentence for unit in units if unit.item is None}
    items: dict[int, set[int]] = {}
    for unit in units:
        if unit.item is not None and unit.sentence not in whole:
            items.setdefault(unit.sentence, set()).add(unit.item)
    kept = []
    for s, sentence in enumerate(sentences):
        if s in whole:
            continue
        kept.append(_drop_items(sentence, items[s]) if s in items else sentence)
    return _join(kept)


def remove_term(description: str, term: str) -> str | None:
    """The description without the list items that use ``term`` — or, where only a main
    clause uses it, without that sentence (when others remain). Exclusions ("not for …") are
    kept. None when ``term`` cannot be removed this way (it sits in the only sentence's main
    clause) or is not there."""
    sentences = _sentences(description)
    units: list[Unit] = []
    for s, sentence in enumerate(sentences):
        if is_exclusion(sentence.text()):
            continue
        items = [
            i
            for i in range(1, len(sentence.parts))
            if term in _terms(sentence.parts[i])
        ]
        units += [Unit(s, i, sentence.parts[i]) for i in items]
        if term in _terms(sentence.parts[0]):
            units.append(Unit(s, None, sentence.text()))
    whole = [unit for unit in units if unit.item is None]
    if len(whole) >= len(sentences):
        units = [
            unit for unit in units if unit.item is not None
        ]  # never drop every sentence
    if not units:
        return None
    edited = drop_units(description, units)
    return edited if edited.strip() and edited != description.strip() else None


# A word, with its inner dots, dashes and apostrophes ("p5.js", "claude.ai", "don't"), and the
# leading dot of a file extension (".pdf").
_WORD_TOKEN = re.compile(r"(?:(?<!\S)\.)?[^\W_]+(?:['’.-][^\W_]+)*")
_SENTENCE_START = re.compile(r"(^|[.!?]\s+)$")
# After these a word is what they govern or coordinate ("for Slack", "can apply", "png and
# pdf"): dropping it would strand them.
_BOUND_AFTER = frozenset(
    [
        "a",
        "an",
        "the",
        "for",
        "to",
        "with",
        "in",
        "on",
        "of",
        "by",
        "from",
        "like",
        "as",
        "at",
        "into",
        "about",
        "via",
        "per",
        "this",
        "that",
        "these",
        "those",
        "its",
        "their",
        "your",
        "our",
        "my",
        "and",
        "or",
        "nor",
        "can",
        "could",
        "will",
        "would",
        "should",
        "may",
        "might",
        "must",
        "you",
        "we",
        "they",
        "i",
        "it",
        "who",
        "which",
        "is",
        "are",
    ]
)


def drop_word(description: str, term: str) -> str | None:
    """The description without the modifiers whose term is ``term`` ("creating animated GIFs" →
    "creating GIFs", "(status reports" → "(reports"): only a word followed by another content
    word of its phrase and not bound to the word before it goes, so the sentence keeps its
    grammar; exclusions ("not for …", "SKIP …") are kept. None when nothing can be dropped."""
    text = description.strip()
    protected = _protected_spans(text)
    cuts = []
    for found in _WORD_TOKEN.finditer(text):
        if term not in set(tokenize(found.group(0))) or any(
            a <= found.start() < b for a, b in protected
        ):
            continue
        before, after = text[: found.start()], text[found.end() :]
        if _SENTENCE_START.search(before):
            continue  # a sentence's first word is usually its verb
        previous = re.findall(r"[^\W\d_]+['’]?[^\W\d_]*", before[-40:])
        if (
            before[-1:].isspace()
            and previous
            and (
                previous[-1].lower() in _BOUND_AFTER
                or previous[-1].lower().endswith(("'s", "’s"))
            )
        ):
            continue
        following = re.match(r"[ \t]+([^\W\d_][\w-]*)", after)
        if following is None or term_of(following.group(1).lower()) is None:
            continue  # the head of its phrase (or last before punctuation): not a modifier
        cuts.append((found.start(), found.end()))
    if not cuts:
        return None
    out, last = "", 0
    for start, end in cuts:
        out += text[last:start]
        last = end
    out += text[last:]
    out = re.sub(r"[ \t]{2,}", " ", out)
    out = re.sub(r"([(\[])[ \t]+", r"\1", out).strip()
    return out if out and out != text else None


def _protected_spans(text: str) -> list[tuple[int, int]]:
    spans = []
    position = 0
    for sentence in _sentences(text):
        body = sentence.text()
        start = text.find(body, position)
        if start < 0:
            continue
        position = start + len(body)
        if is_exclusion(body):
            spans.append((start, position))
    return spans


def add_words(description: str, words: Sequence[str]) -> str:
    """``description`` followed by an "Also use for a, b and c." sentence (unchanged when
    ``words`` is empty). The tuner keeps the words it adds apart from the author's text and
    composes the two each time, so later rounds extend one sentence instead of adding more."""
    return _with_sentence(description, ADDED_LEAD, words, "and")


def add_exclusion(description: str, words: Sequence[str]) -> str:
    """``description`` followed by a "Not for a, b or c." sentence (unchanged when ``words`` is
    empty): the matcher reads its words as evidence against loading the skill, the model as its
    boundary (:mod:`aiq_tui.ranking.exclusions`)."""
    return _with_sentence(description, EXCLUDED_LEAD, words, "or")


def _with_sentence(
    description: str, lead: str, words: Sequence[str], last_joiner: str
) -> str:
    """``description`` (ended with a full stop) followed by ``lead`` and ``words`` listed as
    prose ("a, b and c"); unchanged when there are no words."""
    text = description.strip()
    if not words:
        return text
    if text and not _ENDED.search(text):
        text += "."
    listed = list(words)
    tail = (
        listed[0]
        if len(listed) == 1
        else f"{', '.join(listed[:-1])} {last_joiner} {listed[-1]}"
    )
    return f"{text} {lead}{tail}." if text else f"{lead}{tail}."


def split_exclusion(description: str) -> tuple[str, tuple[str, ...]]:
    """(the rest, the words) of a description ending in a "Not for a, b or c." sentence as
    :func:`add_exclusion` writes it — so a later run extends that sentence instead of adding a
    second one; (the description, ()) when it does not end in one."""
    text = description.strip()
    found = re.search(
        r"(?:^|(?<=[.!?\"'’”)\]])\s+)" + re.escape(EXCLUDED_LEAD) + r"([^.!?]+)\.$",
        text,
    )
    if found is None:
        return text, ()
    core = text[: found.start()].strip()
    items = re.split(r",\s+|\s+or\s+", found.group(1).strip())
    words = tuple(item for item in items if item)
    if not words or add_exclusion(core, words) != text:
        return text, ()
    return core, words


def shorten(description: str, limit: int, worth: Callable[[str], float]) -> str | None:
    """Drop the least worthy list items or sentences (``worth(text)``, lower goes first)
    until the description fits ``limit`` characters; None when it cannot be made to fit."""
    text = description.strip()
    while len(text) > limit:
        units = removable_units(text)
        if not units:
            return None
        # Least worth first; among equals, the longest piece (fewest edits to fit).
        unit = min(units, key=lambda u: (worth(u.text), -len(u.text)))
        shorter = drop_units(text, [unit])
        if len(shorter) >= len(text):
            return None
        text = shorter
    return text


__all__ = [
    "ADDED_LEAD",
    "EXCLUDED_LEAD",
    "Unit",
    "add_exclusion",
    "add_words",
    "drop_units",
    "drop_word",
    "is_exclusion",
    "removable_units",
    "remove_term",
    "shorten",
    "split_exclusion",
]
