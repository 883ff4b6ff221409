"""Turn queries and skill fields into match terms.

One pipeline for both sides of the match so that a query word and a skill word meet in
the same form: NFKC normalisation → identifier splitting (``sql-query``, ``PdfTools``,
``snake_case``, ``v2``) → lowercase → stop-words removed → light suffix stemming.
Runs of CJK characters (which carry no spaces) become overlapping character bigrams,
so a Chinese or Japanese query matches a Chinese or Japanese description.

Deterministic and dependency-free on purpose: the matcher must give the same answer on
every machine, with no model and no download.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

# A compact list: function words plus the politeness scaffolding of requests ("can you
# help me …") that would otherwise match every skill that mentions "help" or "use".
STOP_WORDS: frozenset[str] = frozenset(
    """
    a about above after again against all am an and any are aren as at be because been
    before being below between both but by can cannot could couldn did didn do does doesn
    doing don down during each either else etc ever every few for from further get gets
    got had has have having he her here hers herself him himself his how i if in into is
    isn it its itself just let lets like ll may me might mine more most much must my
    myself no nor not now of off on once only or other our ours ourselves out over own
    please re same shall she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up upon us
    ve very via want wanna was wasn we were weren what when where which while who whom
    whose why will with within without would wouldn yes yet you your yours yourself
    yourselves also thing things something anything way ways kind sort really maybe
    using use used uses help helps need needs tell give show know
    """.split()
)

# Word pieces: letters (any script except CJK, handled separately) and digit runs.
_WORD = re.compile(r"[^\W\d_]+|\d+", re.UNICODE)
_SEPARATORS = re.compile(r"[\W_]+", re.UNICODE)
# camelCase / PascalCase / acronym boundaries: "PdfTools" → Pdf|Tools, "HTTPServer" → HTTP|Server.
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[^\W\d_]+|\d+", re.UNICODE)


# Hiragana and katakana (3040–30FF, 31F0–31FF), CJK ideographs with extension A
# (3400–4DBF, 4E00–9FFF), compatibility ideographs (F900–FAFF), supplementary ideographs.
# One character class, so a text with no CJK at all (nearly every skill) is recognised by
# one regex scan instead of a Python call per character.
_ANY_CJK = re.compile(
    "[\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002fa1f]"
)


def _is_cjk(char: str) -> bool:
    return _ANY_CJK.match(char) is not None


def _cjk_bigrams(run: str) -> list[str]:
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def split_identifier(word: str) -> list[str]:
    """Split one identifier-like word into its parts, case preserved.

    ``sql-query`` → [sql, query]; ``PdfTools`` → [Pdf, Tools]; ``snake_case`` →
    [snake, case]; ``gpt4o`` → [gpt, 4, o]; ``HTTPServer`` → [HTTP, Server].
    """
    if word.isascii() and word.isalpha() and word.islower():
        return [word]  # the common case, and what the patterns below would return
    parts: list[str] = []
    for piece in _SEPARATORS.split(word):
        if piece:
            parts.extend(_CAMEL.findall(piece))
    return parts


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A small deterministic suffix stripper (lowercase input).

    Conflates the common inflections so "images/image", "creating/created/creation/create"
    and "quickly/quick" meet. It over-strips some words the same way on both sides of the
    match, which is harmless: terms are only compared, never shown as words.
    """
    if len(word) <= 3 or not word.isalpha() or not word.isascii() or word in _KEEP:
        return word
    for suffix, replacement, keep in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= keep:
            word = word[: len(word) - len(suffix)] + replacement
            break
    # Undouble a final consonant left by -ing/-ed ("running" → "runn" → "run").
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiouls":
        word = word[:-1]
    # A final silent e: "create"/"creat(ing)" → "creat"; "image"/"imag(es)" → "imag".
    if len(word) > 3 and word.endswith("e") and not word.endswith("ee"):
        word = word[:-1]
    return word


# Words the suffix rules would mangle into another word's stem ("apply" → "app").
_KEEP: frozenset[str] = frozenset({"apply", "reply", "supply", "news", "status", "always"})

# (suffix, replacement, minimum stem length) — first match wins, longest suffixes first.
_SUFFIXES: tuple[tuple[str, str, int], ...] = (
    ("izations", "ize", 3),
    ("ization", "ize", 3),
    ("ational", "ate", 3),
    ("fulness", "ful", 3),
    ("iveness", "ive", 3),
    ("ations", "ate", 3),
    ("ation", "ate", 3),
    ("ments", "", 4),
    ("ment", "", 4),
    ("ities", "", 4),
    ("ity", "", 4),
    ("ingly", "", 3),
    ("edly", "", 3),
    ("ness", "", 3),
    ("ings", "", 3),
    ("ing", "", 3),
    ("ies", "y", 2),
    ("ied", "y", 2),
    ("ers", "", 3),
    ("er", "", 3),
    ("ed", "", 3),
    ("ly", "", 4),
    ("sses", "ss", 2),
    ("ss", "ss", 2),
    ("us", "us", 2),
    ("is", "is", 2),
    ("es", "e", 3),
    ("s", "", 3),
)


def normalise(text: str) -> str:
    """NFKC (full-width letters, ligatures, compatibility forms → plain forms)."""
    return unicodedata.normalize("NFKC", text)


def words(text: str) -> list[str]:
    """Lowercase surface words after identifier splitting; CJK runs become bigrams.

    No stop-word removal and no stemming: the raw material for :func:`tokenize`.
    """
    text = normalise(text)
    if _ANY_CJK.search(text) is None:
        # Nearly every text. No pattern of _CAMEL matches a separator (space, punctuation,
        # "_") or looks across one, so one scan of the whole text finds exactly the parts
        # split_identifier finds chunk by chunk, without a Python call per word.
        return [part.lower() for part in _CAMEL.findall(text)]
    out: list[str] = []
    for chunk in text.split():
        if _ANY_CJK.search(chunk):
            out.extend(_split_mixed(chunk))
            continue
        for part in split_identifier(chunk):
            out.append(part.lower())
    return out


def _split_mixed(chunk: str) -> list[str]:
    out: list[str] = []
    run: list[str] = []
    other: list[str] = []

    def flush_other() -> None:
        if other:
            out.extend(part.lower() for part in split_identifier("".join(other)))
            other.clear()

    for char in chunk:
        if _is_cjk(char):
            flush_other()
            run.append(char)
        else:
            if run:
                out.extend(_cjk_bigrams("".join(run)))
                run.clear()
            other.append(char)
    if run:
        out.extend(_cjk_bigrams("".join(run)))
    flush_other()
    return out


_TERMS: dict[str, str | None] = {}
"""word → term_of(word), remembered: a collection and its queries reuse a few thousand words."""
_TERMS_LIMIT = 200_000  # remembered words before the memo is cleared (bounded memory)
_UNSEEN = object()


def term_of(word: str) -> str | None:
    """The match term for one lowercase word, or None for a stop-word."""
    term = _TERMS.get(word, _UNSEEN)
    if term is _UNSEEN:
        if len(_TERMS) >= _TERMS_LIMIT:
            _TERMS.clear()
        term = _TERMS[word] = _term_of(word)
    return term  # type: ignore[return-value]


def _term_of(word: str) -> str | None:
    if word in STOP_WORDS:
        return None
    if len(word) == 1 and word.isascii() and word.isalpha():
        return None  # stray letters from splitting ("gpt4o" → o) carry no meaning
    return stem(word)


def tokenize(text: str) -> list[str]:
    """Match terms of ``text`` in order (duplicates kept: term frequency matters)."""
    out: list[str] = []
    known = _TERMS
    for word in words(text):
        term = known.get(word, _UNSEEN)
        if term is _UNSEEN:
            term = term_of(word)
        if term is not None:
            out.append(term)  # type: ignore[arg-type]
    return out


def name_terms(name: str) -> list[str]:
    """Terms of a skill name: its split parts, plus the whole name when it has several.

    The joined form lets a query that writes the name as one word ("pdftools") still hit
    "PdfTools"; stop-words are kept when they are the whole name part ("use-it").
    """
    parts = [word for word in words(name)]
    terms = [stem(part) for part in parts if not (len(part) == 1 and part.isalpha() and part.isascii())]
    if len(parts) > 1:
        joined = "".join(parts)
        if joined.isascii() and joined.isalnum():
            terms.append(joined)
    return terms
