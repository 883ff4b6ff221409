"""Phrases a skill author would write, taken from the users' own requests.

The tuner (:mod:`aiq_tui.ranking.tune`) adds to a description only whole sentences after
the author's text: "Also use it for clicking through the signup form on localhost." (what
missed requests asked, in their words) and "Not for writing a Slack message announcing
the office hours." (a near-miss it loaded for, as the ecosystem writes a boundary). A phrase is
one clause of a request: the polite opening ("can you", "I need to") goes, "my"/"our"
become "a"/"the", a leading verb becomes its -ing form so the phrase reads after "for", and
it is cut to ``MAX_WORDS`` at a word that is not left dangling ("for", "the", "and").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

USE_LEAD = "Also use it for "
BOUNDARY_LEAD = "Not for "
MAX_WORDS = 12  # a phrase longer than this reads as a pasted request, not a description

# The openings of a request that say nothing about the task (applied repeatedly, in order).
_OPENINGS = re.compile(
    r"^(?:hey|hi|hello|ok|okay|so|please|pls|quick question)\b[,!:]?\s+"
    r"|^(?:can|could|would|will)\s+(?:you|u)\s+(?:please\s+)?"
    r"|^(?:help\s+me|i\s+need\s+you\s+to|i\s+want\s+you\s+to|i['’]d\s+like\s+you\s+to|i\s+need\s+to|i\s+want\s+to"
    r"|i['’]d\s+like\s+to|we\s+need\s+to|we\s+want\s+to|let['’]?s|how\s+do\s+i|how\s+can\s+i|how\s+to|i\s+need"
    r"|i\s+want|we\s+need|is\s+there\s+a\s+way\s+to|what['’]s|what\s+is|what\s+are)\s+",
    re.IGNORECASE,
)
_CLAUSE_BREAK = re.compile(r"\s*(?:[,;:!?]+(?=\s|$)|\s[-–—]\s|\.\s)\s*")
_POSSESSIVE = {"my": "a", "our": "the", "your": "the", "this": "a", "these": "the"}
_AFTER_VERB = frozenset(
    ("me", "us")
)  # "make me a gif" → "make a gif" (only right after the verb)
# Where a request's subordinate part starts ("… after clicking", "… I can post when …"): the
# phrase ends before it, once it has at least ``_MIN_HEAD`` words.
_SUBORDINATE = frozenset(
    [
        "after",
        "before",
        "when",
        "whenever",
        "while",
        "because",
        "since",
        "until",
        "unless",
        "so",
        "if",
        "once",
        "then",
        "i",
    ]
)
_MIN_HEAD = 4
# Words a phrase must not end on: they govern or join what was cut off.
_DANGLING = frozenset(
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
        "and",
        "or",
        "but",
        "so",
        "than",
        "then",
        "when",
        "while",
        "which",
        "who",
        "whose",
        "where",
        "if",
        "is",
        "are",
        "was",
        "be",
        "my",
        "our",
        "your",
        "their",
        "its",
        "i",
        "we",
        "you",
        "it",
        "me",
        "us",
        "some",
        "any",
        "all",
        "each",
        "every",
        "very",
        "just",
        "also",
    ]
)
# Common task verbs a request opens with: they become their -ing form ("make" → "making").
VERBS = frozenset(
    [
        "add",
        "analyse",
        "analyze",
        "animate",
        "announce",
        "apply",
        "audit",
        "automate",
        "build",
        "capture",
        "change",
        "check",
        "clean",
        "click",
        "compare",
        "compile",
        "convert",
        "create",
        "customise",
        "customize",
        "debug",
        "deploy",
        "design",
        "draft",
        "draw",
        "edit",
        "explain",
        "export",
        "fill",
        "find",
        "fix",
        "format",
        "generate",
        "give",
        "help",
        "install",
        "launch",
        "load",
        "log",
        "make",
        "migrate",
        "open",
        "optimise",
        "optimize",
        "pick",
        "plan",
        "post",
        "prepare",
        "put",
        "reformat",
        "refactor",
        "render",
        "reply",
        "reshape",
        "resize",
        "restyle",
        "retheme",
        "re-theme",
        "review",
        "rewrite",
        "run",
        "scrape",
        "send",
        "set",
        "setup",
        "share",
        "show",
        "shrink",
        "start",
        "style",
        "summarise",
        "summarize",
        "take",
        "test",
        "theme",
        "translate",
        "turn",
        "update",
        "upload",
        "use",
        "validate",
        "verify",
        "write",
        "tell",
        "report",
        "see",
        "let",
        "get",
        "do",
        "go",
        "look",
        "come",
        "say",
        "alert",
        "notify",
        "email",
        "ping",
        "smoke",
    ]
)
# "load test the API" is a load test, not loading: these make a noun with "test".
_TEST_KINDS = frozenset(
    ["load", "smoke", "stress", "unit", "regression", "performance", "integration"]
)
_DOUBLED = frozenset(
    [
        "set",
        "run",
        "put",
        "get",
        "cut",
        "stop",
        "plan",
        "chat",
        "ship",
        "drop",
        "log",
        "tag",
        "zip",
        "map",
        "pin",
        "scan",
        "trim",
        "wrap",
        "grab",
    ]
)


def gerund(verb: str) -> str:
    """``verb``'s -ing form by the regular rules ("write" → "writing", "set" → "setting")."""
    lower = verb.lower()
    if lower in _DOUBLED:
        return verb + verb[-1] + "ing"
    if lower.endswith("ie"):
        return verb[:-2] + "ying"
    if (
        lower.endswith("e")
        and not lower.endswith(("ee", "ye", "oe"))
        and len(lower) > 2
    ):
        return verb[:-1] + "ing"
    return verb + "ing"


def clauses(query: str) -> list[str]:
    """The clauses of a request (split at commas, semicolons, dashes, sentence ends)."""
    text = " ".join(query.strip().split()).rstrip(".!?")
    return [part.strip() for part in _CLAUSE_BREAK.split(text) if part.strip()]


def phrase_of(
    clause: str, keep: set[str] | frozenset[str] = frozenset(), term_of=None
) -> str | None:
    """``clause`` as a phrase that reads after "for" ("Also use it for …", "Not for …"); None
    when nothing of it is left. ``keep`` (terms) are the words that make the phrase worth
    adding: it is cut after the last of them when longer than ``MAX_WORDS``."""
    text = clause.strip().strip("\"'`“”‘’")
    for _ in range(3):
        text = _OPENINGS.sub("", text, count=1).strip()
    words = [word for word in text.split() if word]
    out: list[str] = []
    replaced: set[int] = set()  # where "my"/"this" became an article
    for position, word in enumerate(words):
        bare = word.lower().strip("\"'")
        if position == 1 and bare in _AFTER_VERB and words[0].lower() in VERBS:
            continue
        if position >= _MIN_HEAD and (
            bare in _SUBORDINATE
            or (
                bare == "and"
                and position + 1 < len(words)
                and words[position + 1].lower() in VERBS
            )
        ):
            break  # "… and tell me what happens", "… after clicking the tab"
        if bare in _POSSESSIVE:
            replaced.add(len(out))
        out.append(_POSSESSIVE.get(bare, word))
    if not out:
        return None
    for position in range(len(out) - 1):  # "my election" → "a election" → "an election"
        if (
            out[position] == "a"
            and position in replaced
            and out[position + 1][:1].lower() in "aeiou"
        ):
            out[position] = "an"
    if (
        len(out) > 1
        and out[0].lower() in VERBS
        and out[1].lower().endswith("ing")
        and out[1].lower()
        not in ("something", "everything", "anything", "nothing", "string")
    ):
        out = out[1:]  # "automate checking that …" → "checking that …"
    if len(out) > 1 and out[0].lower() in _TEST_KINDS and out[1].lower() == "test":
        out[1] = "testing"  # "load test the API" → "load testing the API"
    elif out[0].lower() in VERBS:
        out[0] = gerund(out[0].lower())
    elif out[0].lower() in ("a", "an", "the"):
        out[0] = out[0].lower()
    if len(out) > MAX_WORDS:
        # End at the last place a shorter phrase may end (before "in", "for", "that" …), else cut.
        ends = [
            i for i in range(MIN_CUT, MAX_WORDS + 1) if out[i].lower() in _CUT_BEFORE
        ]
        last = ends[-1] if ends else MAX_WORDS
        if not ends and keep and term_of is not None:
            wanted = [
                i
                for i, word in enumerate(out)
                if term_of(re.sub(r"\W+$", "", word.lower())) in keep
            ]
            if wanted and wanted[-1] >= MAX_WORDS:
                last = min(len(out), wanted[-1] + 1)
        out = out[:last]
    while out and re.sub(r"[^\w']+$", "", out[-1].lower()) in _DANGLING:
        out.pop()
    phrase = " ".join(out).strip(" ,;:-–—'\"")
    return phrase or None


# Where a shorter phrase may end: before a relative clause, a purpose or a modifier that
# narrows the request to one case ("building a Slack bot | that posts …", "… chart | for the board").
_CUT_BEFORE = frozenset(
    [
        "that",
        "which",
        "who",
        "whose",
        "where",
        "to",
        "for",
        "with",
        "from",
        "about",
        "on",
        "in",
        "into",
        "using",
        "via",
        "by",
    ]
)
MIN_CUT = 3  # words a shortened phrase keeps at least


def phrase_cuts(phrase: str) -> list[str]:
    """``phrase`` and its shorter forms, each ending before a word of ``_CUT_BEFORE`` or a
    participle ("writing a Slack message | announcing …"), never dangling."""
    words = phrase.split()
    out = [phrase]
    for position in range(MIN_CUT, len(words)):
        bare = words[position].lower()
        if bare in _CUT_BEFORE or (bare.endswith("ing") and len(bare) > 5):
            head = list(words[:position])
            while head and re.sub(r"[^\w']+$", "", head[-1].lower()) in _DANGLING:
                head.pop()
            cut = " ".join(head).strip(" ,;:-–—'\"")
            if len(head) >= MIN_CUT - 1 and cut and cut not in out:
                out.append(cut)
    return out


def listed(items: Sequence[str], joiner: str) -> str:
    """``a``, ``a and b``, ``a, b and c`` (``joiner``: "and" / "or")."""
    items = list(items)
    if len(items) == 1:
        return items[0]
    return f"{', '.join(items[:-1])} {joiner} {items[-1]}"


def with_sentences(core: str, uses: Sequence[str], boundaries: Sequence[str]) -> str:
    """The author's ``core`` followed by an "Also use it for …" and a "Not for …" sentence (each
    only when it has phrases)."""
    text = core.strip()
    for lead, items, joiner in (
        (USE_LEAD, uses, "and"),
        (BOUNDARY_LEAD, boundaries, "or"),
    ):
        if not items:
            continue
        if text and not re.search(r"[.!?][\"'’”)\]]*$", text):
            text += "."
        sentence = f"{lead}{listed(items, joiner)}."
        text = f"{text} {sentence}" if text else sentence
    return text


def split_sentences(description: str) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """(core, uses, boundaries) of a description the tuner wrote (the inverse of
    :func:`with_sentences`), so a later run extends its sentences instead of adding more;
    ``(description, (), ())`` when it does not end in them."""
    text = description.strip()
    start = r"(?:^|(?<=[.!?\"'’”)\]])\s+)"
    uses = re.escape(USE_LEAD) + r"(?P<uses>[^.!?]+)\."
    bounds = re.escape(BOUNDARY_LEAD) + r"(?P<bounds>[^.!?]+)\."
    for pattern in (start + uses + r"(?:\s+" + bounds + ")?$", start + bounds + "$"):
        found = re.search(pattern, text)
        if found is None:
            continue
        core = text[: found.start()].strip()
        used = _items(found.groupdict().get("uses"), "and")
        bound = _items(found.group("bounds"), "or")
        if (used or bound) and with_sentences(core, used, bound) == text:
            return core, used, bound
    return text, (), ()


def _items(text: str | None, joiner: str) -> tuple[str, ...]:
    if not text:
        return ()
    head, _, last = text.strip().rpartition(f" {joiner} ")
    items = (
        [item.strip() for item in head.split(", ")] + [last.strip()]
        if head
        else [text.strip()]
    )
    return tuple(item for item in items if item)


def first_sentence(description: str) -> str:
    """The description's first sentence (what the skill does): the tuner never edits it."""
    text = description.strip()
    found = re.search(r"[.!?](?=\s+[A-Z\"'(`*\[]|\s*$)", text)
    return text[: found.end()] if found else text


__all__ = [
    "BOUNDARY_LEAD",
    "MAX_WORDS",
    "USE_LEAD",
    "clauses",
    "first_sentence",
    "gerund",
    "listed",
    "phrase_cuts",
    "phrase_of",
    "split_sentences",
    "with_sentences",
]
