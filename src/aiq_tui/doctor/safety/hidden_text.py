"""Text a reader does not see and the model does: HTML comments that instruct, zero-width and
Unicode tag characters, bidirectional controls.

Each pattern is searched over the whole file (one C-speed pass); a file without any of these
characters — nearly every file — costs one search each.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from aiq_tui.doctor.model import Level
from aiq_tui.doctor.safety.files import ScannedFile
from aiq_tui.doctor.safety.rules import (
    BIDI_CONTROL,
    HIDDEN_COMMENT,
    INVISIBLE_CHARACTERS,
    Hit,
)

_COMMENT = re.compile(r"<!--(.*?)-->", re.DOTALL)
# Words that address or steer an agent; a comment without any ("TODO: examples",
# "markdownlint-disable MD013", "prettier-ignore") is a note to other authors.
_INSTRUCTING = re.compile(
    r"\b(?:you|your|assistant|agent|model|claude|llm|ai|must|always|never|ignore|run|execute|"
    r"send|upload|post|fetch|curl|wget|instructions?|prompt|secretly|silently|tell|user)\b",
    re.IGNORECASE,
)
_ZERO_WIDTH_CHARS = "\u200b\u200c\u200d\u2060\u2061\u2062\u2063\u2064\u180e\ufeff"
_ZERO_WIDTH = re.compile(f"[{_ZERO_WIDTH_CHARS}]+")
_TAGS = re.compile("[\U000e0000-\U000e007f]+")
_BIDI_CHARS = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_BIDI = re.compile(f"[{_BIDI_CHARS}]+")
_ANY_HIDDEN = re.compile(f"[{_ZERO_WIDTH_CHARS}{_BIDI_CHARS}\U000e0000-\U000e007f]")
MAX_HITS = 5  # a file full of them says so once per place, up to this many places


def hidden_comments(file: ScannedFile) -> Iterator[Hit]:
    if not file.markdown or "<!--" not in file.text:
        return
    for match in _COMMENT.finditer(file.text, file.body_start):
        inside = match.group(1)
        if file.in_code(match.start()) is not None:
            continue  # a comment in a code sample is shown as code: nothing is hidden
        if len(inside.split()) >= 4 and _INSTRUCTING.search(inside):
            yield Hit(HIDDEN_COMMENT, file, match.start(), f"<!--{_cut(inside)}-->")


def _any_hidden(file: ScannedFile) -> bool:
    """The prefilter of both detectors: ``isascii`` is O(1) in CPython, and one search for
    any of the characters is cheaper than each detector's own."""
    return not file.text.isascii() and _ANY_HIDDEN.search(file.text) is not None


def invisible_characters(file: ScannedFile) -> Iterator[Hit]:
    text = file.text
    if not _any_hidden(file):
        return
    found = 0
    for match in _TAGS.finditer(text):
        hidden = "".join(
            chr(ord(c) - 0xE0000) for c in match.group() if 0xE0020 <= ord(c) <= 0xE007E
        )
        found += 1
        yield Hit(
            INVISIBLE_CHARACTERS,
            file,
            match.start(),
            f"{len(match.group())} Unicode tag character(s) spelling “{_cut(hidden)}”",
            Level.ERROR,
        )
        if found >= MAX_HITS:
            return
    zero_width = (
        _ZERO_WIDTH.finditer(text) if any(c in text for c in _ZERO_WIDTH_CHARS) else ()
    )
    for match in zero_width:
        if match.start() == 0 and match.group() == "\ufeff":
            continue  # a byte-order mark
        if _joins_letters(file.text, match.start(), match.end()):
            continue  # emoji sequences and Persian or Indic words join with ZWJ / ZWNJ
        found += 1
        yield Hit(
            INVISIBLE_CHARACTERS,
            file,
            match.start(),
            " ".join(f"U+{ord(c):04X}" for c in match.group()[:8])
            + f" in “{_cut(file.line_at(match.start()))}”",
        )
        if found >= MAX_HITS:
            return


def bidi_controls(file: ScannedFile) -> Iterator[Hit]:
    if not _any_hidden(file) or _BIDI.search(file.text) is None:
        return
    for found, match in enumerate(_BIDI.finditer(file.text)):
        if found >= MAX_HITS:
            return
        in_code = file.in_code(match.start()) is not None
        yield Hit(
            BIDI_CONTROL,
            file,
            match.start(),
            " ".join(f"U+{ord(c):04X}" for c in match.group()[:8])
            + (" in code" if in_code else " in prose")
            + f": “{_cut(file.line_at(match.start()))}”",
            None if in_code else Level.WARNING,
        )


def _joins_letters(text: str, start: int, end: int) -> bool:
    """Only ZWJ / ZWNJ between two non-ASCII characters (where scripts and emoji use them)."""
    if set(text[start:end]) - {"\u200c", "\u200d"}:
        return False
    before = text[start - 1] if start > 0 else " "
    after = text[end] if end < len(text) else " "
    return not before.isascii() and not after.isascii()


def _cut(text: str, limit: int = 100) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
