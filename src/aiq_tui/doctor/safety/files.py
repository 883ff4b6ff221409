"""The text of one skill's files, read once for every rule: SKILL.md, its scripts and references.

Each file is read once, bounded (:data:`MAX_FILE_BYTES` a file, :data:`MAX_FILES` and
:data:`MAX_SKILL_BYTES` a skill), and carries what the rules ask of it — the line of an offset,
whether an offset sits in code, the prose just before it — computed lazily, since most files
have no hit at all and never need them.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path

from aiq_tui.skills.model import Resource, ResourceKind, SkillMeta

MAX_FILE_BYTES = 256 * 1024
MAX_FILES = 40
MAX_SKILL_BYTES = 2 * 1024 * 1024
MAX_ANCHORS = 200  # occurrences of one anchor word a file is searched around

# Commands in instructions sit in code: fenced blocks, indented blocks and `inline` spans.
_FENCED = re.compile(r"^(`{3,}|~{3,})([^\n]*)\n(.*?)^\1", re.MULTILINE | re.DOTALL)
_INDENTED = re.compile(r"^(?: {4}|\t)\S.*$", re.MULTILINE)
_INLINE = re.compile(r"`([^`\n]+)`")
# Bytes → the bytes of lowercase words, every other ASCII byte a space (UTF-8 sequences stay).
_WORD_BYTES = bytes(
    c + 32
    if 65 <= c <= 90
    else c
    if (97 <= c <= 122 or 48 <= c <= 57 or c == 95 or c >= 128)
    else 32
    for c in range(256)
)


class FileKind(str, Enum):
    SKILL = "skill"  # SKILL.md
    SCRIPT = "script"  # run by the agent: every line is a command
    REFERENCE = "reference"  # markdown or text the agent reads


@dataclass(frozen=True)
class CodeSpan:
    start: int
    end: int
    text: str
    language: str = ""  # a fenced block's info string ("bash"), "" otherwise
    block_start: int = -1  # offset of the fence line (fenced blocks), -1 otherwise


@dataclass
class ScannedFile:
    """One file's text and where things are in it."""

    relpath: str  # "SKILL.md", "scripts/run.sh"
    path: str  # as shown: the skill folder joined with relpath
    kind: FileKind
    text: str
    body_start: int = 0  # SKILL.md: where the body starts (after the frontmatter)
    _newlines: list[int] | None = field(default=None, repr=False)
    _code: list[CodeSpan] | None = field(default=None, repr=False)
    _lower: str | None = field(default=None, repr=False)
    _words: frozenset[bytes] | None = field(default=None, repr=False)
    _raw: bytes | None = field(default=None, repr=False)

    @property
    def lower(self) -> str:
        if self._lower is None:
            self._lower = self.text.lower()
        return self._lower

    @property
    def words(self) -> frozenset[bytes]:
        """Every lowercase word (``[a-z0-9_]`` runs) of the file, computed once: the
        detectors' prefilter. Bytes ``translate`` and ``split`` make it a few microseconds a
        file, ten times faster than a regex ``findall`` or ``str.lower``."""
        if self._words is None:
            self._words = frozenset(self.raw.translate(_WORD_BYTES).split())
        return self._words

    @property
    def raw(self) -> bytes:
        if self._raw is None:
            self._raw = self.text.encode("utf-8", "replace")
        return self._raw

    def longest_token(self) -> int:
        """The length in bytes of the longest run without whitespace (an encoded blob needs
        one)."""
        return max(map(len, self.raw.split()), default=0)

    def regions_with(self, anchors: Anchors, reach: int = 160) -> list[tuple[int, str]]:
        """``(offset, text)`` of each stretch of ``reach`` characters either side of a word of
        ``anchors`` (words every match of a detector's pattern contains), merged where they
        overlap. A pattern searched over these alone is searched only where it can match: a
        regex that starts with alternatives tries every position of a file, and most files
        match nothing. ``reach`` covers a sentence wrapped over lines."""
        words = self.words
        present: set[bytes] = set()
        for groups in anchors.alternatives:
            if all(not group.isdisjoint(words) for group in groups):
                present |= groups[0] & words
        if not present:
            return []
        lower = self.lower
        windows: list[tuple[int, int]] = []
        for anchor in present:
            word = anchor.decode()
            at = lower.find(word)
            for _ in range(MAX_ANCHORS):
                if at < 0:
                    break
                end = at + len(word)
                # the word itself, not a part of one ("environ" in "environment")
                if not (_word_char(lower, at - 1) or _word_char(lower, end)):
                    windows.append((max(0, at - reach), end + reach))
                at = lower.find(word, end)
        windows.sort()
        merged: list[tuple[int, int]] = []
        for start, end in windows:
            if merged and start <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(merged[-1][1], end))
            else:
                merged.append((start, end))
        return [(start, self.text[start:end]) for start, end in merged]

    @property
    def markdown(self) -> bool:
        return self.kind is not FileKind.SCRIPT and not self.relpath.endswith(".txt")

    def line_of(self, offset: int) -> int:
        """The 1-based line ``offset`` is on."""
        if self._newlines is None:
            self._newlines = [m.start() for m in re.finditer("\n", self.text)]
        return bisect.bisect_left(self._newlines, offset) + 1

    def column_of(self, offset: int) -> int:
        return offset - (self.text.rfind("\n", 0, offset) + 1) + 1

    def line_at(self, offset: int) -> str:
        start = self.text.rfind("\n", 0, offset) + 1
        end = self.text.find("\n", offset)
        return self.text[start : end if end >= 0 else len(self.text)]

    def code(self) -> list[CodeSpan]:
        """The code in a markdown file (a script is code throughout), in order of offset."""
        if self._code is None:
            self._code = _code_spans(self.text, self.body_start)
        return self._code

    def in_code(self, offset: int) -> CodeSpan | None:
        if self.kind is FileKind.SCRIPT:
            return CodeSpan(0, len(self.text), self.text)
        for span in self.code():
            if span.start <= offset < span.end:
                return span
        return None

    def context(self, offset: int) -> str:
        """The line at ``offset`` and the prose that introduces it: the line before it, or for
        a line in a fenced block the prose line before the fence — where a skill says
        "never run this"."""
        span = self.in_code(offset) if self.kind is not FileKind.SCRIPT else None
        anchor = (
            span.block_start if span is not None and span.block_start >= 0 else offset
        )
        start = self.text.rfind("\n", 0, anchor) + 1
        before = self.text[max(0, start - 400) : start].rstrip("\n").rsplit("\n", 2)
        previous = next((line for line in reversed(before) if line.strip()), "")
        return previous + "\n" + self.line_at(offset)


def _word_char(text: str, index: int) -> bool:
    if index < 0 or index >= len(text):
        return False
    char = text[index]
    return char.isalnum() or char == "_"


@dataclass(frozen=True)
class Anchors:
    """Words every match of a detector's pattern contains: alternatives, each a tuple of word
    groups that must all be present in the file (one word of each); the pattern is searched
    around the words of an alternative's first group."""

    alternatives: tuple[tuple[frozenset[bytes], ...], ...]


def anchors(*alternatives: str) -> Anchors:
    """``anchors("ignore forget + instructions rules", "inst")``: alternatives, each groups
    of space-separated lowercase words joined by ``+``."""
    return Anchors(
        tuple(
            tuple(
                frozenset(w.encode() for w in group.split())
                for group in alternative.split("+")
            )
            for alternative in alternatives
        )
    )


def _code_spans(text: str, start: int) -> list[CodeSpan]:
    spans: list[CodeSpan] = []
    fenced: list[tuple[int, int]] = []
    if "```" in text or "~~~" in text:
        for m in _FENCED.finditer(text, start):
            spans.append(
                CodeSpan(
                    m.start(3),
                    m.end(3),
                    m.group(3),
                    m.group(2).strip().lower(),
                    m.start(),
                )
            )
            fenced.append((m.start(), m.end()))

    def outside(offset: int) -> bool:
        return not any(a <= offset < b for a, b in fenced)

    if "    " in text or "\t" in text:
        spans += [
            CodeSpan(m.start(), m.end(), m.group())
            for m in _INDENTED.finditer(text, start)
            if outside(m.start())
        ]
    if "`" in text:
        spans += [
            CodeSpan(m.start(1), m.end(1), m.group(1))
            for m in _INLINE.finditer(text, start)
            if outside(m.start())
        ]
    spans.sort(key=lambda s: s.start)
    return spans


def skill_files(
    meta: SkillMeta, resources: Sequence[Resource], skill_text: str | None = None
) -> list[ScannedFile]:
    """SKILL.md (``skill_text`` when the caller has it) and the scripts and references the
    resource listing found, read once each within the bounds of the module doc."""
    from aiq_tui.skills.parse import unix_newlines

    folder = meta.folder
    files: list[ScannedFile] = []
    text = skill_text if skill_text is not None else _read(meta.path)
    if text is not None:
        text = unix_newlines(text.lstrip("\ufeff"))
        files.append(
            ScannedFile(
                "SKILL.md",
                str(meta.path),
                FileKind.SKILL,
                text,
                _body_start(text, meta),
            )
        )
    budget = MAX_SKILL_BYTES
    for resource in resources:
        if len(files) > MAX_FILES or budget <= 0:
            break
        if resource.rejected or resource.kind not in (
            ResourceKind.SCRIPT,
            ResourceKind.REFERENCE,
        ):
            continue
        if resource.relpath == "SKILL.md":
            continue
        read = _read(folder / resource.relpath, min(MAX_FILE_BYTES, budget))
        if read is None:
            continue
        budget -= len(read)
        kind = (
            FileKind.SCRIPT
            if resource.kind is ResourceKind.SCRIPT
            else FileKind.REFERENCE
        )
        files.append(
            ScannedFile(
                resource.relpath,
                str(folder / resource.relpath),
                kind,
                unix_newlines(read),
            )
        )
    return files


def _body_start(text: str, meta: SkillMeta) -> int:
    if 0 < meta.body_offset <= len(text):
        return meta.body_offset
    if text.startswith("---"):
        end = text.find("\n---", 3)
        if end >= 0:
            close = text.find("\n", end + 4)
            return close + 1 if close >= 0 else len(text)
    return 0


def _read(path: Path, limit: int = MAX_FILE_BYTES) -> str | None:
    try:
        with open(path, "rb") as handle:
            data = handle.read(limit)
    except OSError:
        return None
    if b"\x00" in data[:8192]:
        return None  # binary: nothing a model reads as text
    return data.decode("utf-8", errors="replace")
