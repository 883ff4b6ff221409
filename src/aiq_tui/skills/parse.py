"""SKILL.md → frontmatter fields + markdown body, tolerant of what real authors write.

Two entry points:

* :func:`parse_skill_text` parses a whole file already in memory (used when a body is needed).
* :func:`read_frontmatter` reads only the head of a file, up to the closing ``---``, so that
  metadata-only discovery never reads the bodies of big files.

Neither raises for bad input: every defect becomes a :class:`~aiq_tui.problems.Problem` in the
result. Newlines are normalised to ``\\n`` and a UTF-8 BOM is dropped, so ``body_offset`` is a
character offset into that normalised text.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Mapping

import yaml

from aiq_tui.problems import Problem, Severity

# libyaml's loader is ~10x faster; the pure-Python one behaves the same.
_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_BOM = b"\xef\xbb\xbf"
_CHUNK = 4096
_FIELD_LINE = re.compile(r"^([A-Za-z_][A-Za-z0-9_.-]*)[ \t]*:")

# The fast path takes `key: value` lines whose value YAML would certainly read as the same
# plain string. Anything that might resolve to another type, or needs YAML's grammar
# (quotes, flow collections, block scalars, anchors, comments), goes to the real parser.
_SIMPLE_KEY = re.compile(r"[A-Za-z][A-Za-z0-9_-]*\Z")
_UNSAFE_FIRST = frozenset("-?:,[]{}#&*!|>'\"%@`=<~+.0123456789 \t")
_RESOLVED_WORDS = frozenset(
    "yes Yes YES no No NO true True TRUE false False FALSE on On ON off Off OFF null Null NULL".split()
)


@dataclass(frozen=True)
class ParseResult:
    """What a SKILL.md holds.

    ``meta_fields`` is ``{}`` when the file has no frontmatter (the whole file is the body) and
    ``None`` when the frontmatter exists but cannot be used (invalid YAML, not a mapping,
    unreadable). ``field_lines`` maps each top-level field to its 1-based line in the file.
    From :func:`read_frontmatter` the ``body`` is always ``""`` (it is not read).
    """

    meta_fields: dict[str, Any] | None
    body: str
    body_offset: int
    problems: tuple[Problem, ...] = ()
    field_lines: Mapping[str, int] = field(default_factory=dict)
    has_frontmatter: bool = False

    @property
    def ok(self) -> bool:
        return self.meta_fields is not None and not any(
            p.severity is Severity.ERROR for p in self.problems
        )


def parse_skill_text(text: str, path: Path | None = None) -> ParseResult:
    """Split ``text`` into frontmatter and body and parse the frontmatter."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "\x00" in text:
        return ParseResult(None, "", 0, (_binary(path),))
    first_end = text.find("\n")
    first = text if first_end < 0 else text[:first_end]
    if first.rstrip() != "---":
        return ParseResult({}, text, 0)
    close = _find_close(text, first_end + 1 if first_end >= 0 else len(text))
    if close is None:
        return ParseResult(None, "", 0, (_unclosed(path),), has_frontmatter=True)
    fm_end, body_start = close
    fields, lines, problems = _parse_frontmatter(text[first_end + 1 : fm_end], path)
    return ParseResult(fields, text[body_start:], body_start, problems, lines, True)


def read_frontmatter(path: Path | str, max_bytes: int) -> ParseResult:
    """Parse only the frontmatter of the file at ``path``, reading no further than needed."""
    try:
        with open(path, "rb") as handle:
            return read_frontmatter_from(handle, Path(path), max_bytes)
    except OSError as exc:
        return ParseResult(None, "", 0, (_unreadable(Path(path), exc),))


def read_frontmatter_from(handle: BinaryIO, path: Path, max_bytes: int) -> ParseResult:
    """:func:`read_frontmatter` on an open binary file (discovery already holds one)."""
    try:
        head = handle.read(_CHUNK)
        if head.startswith(_BOM):
            head = head[3:]
        if not head.startswith(b"---"):
            if b"\x00" in head:
                return ParseResult(None, "", 0, (_binary(path),))
            return ParseResult({}, "", 0)
        # Read on until the closing delimiter line (or the size limit).
        while True:
            found = _find_close_bytes(head)
            if found is not None:
                break
            if len(head) >= max_bytes:
                return ParseResult(None, "", 0, (_unclosed(path, max_bytes),), has_frontmatter=True)
            more = handle.read(_CHUNK)
            if not more:
                # At end of file a closing `---` needs no newline after it.
                found = _find_close_bytes(head + b"\n")
                if found is not None:
                    found = (found[0], len(head))
                break
            head += more
    except OSError as exc:
        return ParseResult(None, "", 0, (_unreadable(path, exc),))
    if b"\x00" in head[: (found[1] if found else len(head))]:
        return ParseResult(None, "", 0, (_binary(path),))
    if found is None:
        return ParseResult(None, "", 0, (_unclosed(path),), has_frontmatter=True)
    try:
        text = head[: found[1]].decode("utf-8")
    except UnicodeDecodeError as exc:
        return ParseResult(None, "", 0, (_undecodable(path, exc),), has_frontmatter=True)
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    first_end = text.find("\n")
    if text[:first_end].rstrip() != "---":  # e.g. "----" or "---x": not a delimiter
        return ParseResult({}, "", 0)
    close = _find_close(text, first_end + 1)
    if close is None:  # only possible when a lone "\r" confused the byte search
        return ParseResult(None, "", 0, (_unclosed(path),), has_frontmatter=True)
    fields, lines, problems = _parse_frontmatter(text[first_end + 1 : close[0]], path)
    return ParseResult(fields, "", close[1], problems, lines, True)


# -- delimiters -----------------------------------------------------------------------------


def _find_close(text: str, start: int) -> tuple[int, int] | None:
    """(end of frontmatter, start of body) for the first ``---`` line at or after ``start``."""
    pos = start
    while pos <= len(text):
        end = text.find("\n", pos)
        line = text[pos:] if end < 0 else text[pos:end]
        if line.rstrip() == "---":
            return pos, len(text) if end < 0 else end + 1
        if end < 0:
            return None
        pos = end + 1
    return None


def _find_close_bytes(data: bytes) -> tuple[int, int] | None:
    """Byte version of :func:`_find_close` after the opening line; ``None`` if not (yet) found."""
    pos = data.find(b"\n") + 1
    if pos == 0:
        return None
    while True:
        end = data.find(b"\n", pos)
        if end < 0:
            return None  # an unterminated last line may still grow; EOF is handled by the caller
        if data[pos:end].rstrip() == b"---":
            return pos, end + 1
        pos = end + 1


# -- frontmatter ----------------------------------------------------------------------------


def _parse_frontmatter(
    source: str, path: Path | None
) -> tuple[dict[str, Any] | None, dict[str, int], tuple[Problem, ...]]:
    fast = _fast_fields(source)
    if fast is not None:
        return fast[0], fast[1], ()
    lines = _field_lines(source)
    try:
        data = yaml.load(source, Loader=_Loader)  # noqa: S506 - a safe loader
    except yaml.YAMLError as exc:
        return _retry_with_quotes(source, path, lines, exc)
    except (ValueError, TypeError, RecursionError) as exc:  # libyaml oddities on hostile input
        return None, lines, (_problem(path, f"invalid YAML frontmatter: {exc}", None),)
    return _as_mapping(data, path, lines, ())


def _fast_fields(source: str) -> tuple[dict[str, Any], dict[str, int]] | None:
    fields: dict[str, Any] = {}
    lines: dict[str, int] = {}
    for index, line in enumerate(source.split("\n")):
        if not line.strip(" "):
            continue
        key, sep, value = line.partition(": ")
        value = value.rstrip()
        if (
            not sep
            or not value
            or value[0] in _UNSAFE_FIRST
            or value[-1] == ":"
            or ": " in value
            or " #" in value
            or "\t" in value
            or value in _RESOLVED_WORDS
            or key in _RESOLVED_WORDS
            or not _SIMPLE_KEY.match(key)
            or not line.isprintable()
        ):
            return None
        fields[key] = value
        lines[key] = index + 2  # the opening "---" is line 1
    return fields, lines


def _field_lines(source: str) -> dict[str, int]:
    lines: dict[str, int] = {}
    for index, line in enumerate(source.split("\n")):
        match = _FIELD_LINE.match(line)
        if match and match.group(1) not in lines:
            lines[match.group(1)] = index + 2
    return lines


def _retry_with_quotes(
    source: str, path: Path | None, lines: dict[str, int], error: yaml.YAMLError
) -> tuple[dict[str, Any] | None, dict[str, int], tuple[Problem, ...]]:
    """Authors often write ``description: Use when: …`` unquoted; quote such lines and retry."""
    rewritten: list[str] = []
    quoted: list[tuple[str, int]] = []
    for index, line in enumerate(source.split("\n")):
        match = _FIELD_LINE.match(line)
        if match:
            value = line[match.end() :].strip()
            if value and value[0] not in "'\"[{|>&*!" and ":" in value:
                rewritten.append(f"{match.group(1)}: {json.dumps(value, ensure_ascii=False)}")
                quoted.append((match.group(1), index + 2))
                continue
        rewritten.append(line)
    if quoted:
        try:
            data = yaml.load("\n".join(rewritten), Loader=_Loader)  # noqa: S506
        except (yaml.YAMLError, ValueError, TypeError, RecursionError):
            pass
        else:
            warnings = tuple(
                Problem(
                    path,
                    "value contains ': ' and is not quoted; read it as one string",
                    field=key,
                    line=line,
                    hint='put the value in double quotes, e.g. description: "Use when: …"',
                    severity=Severity.WARNING,
                )
                for key, line in quoted
            )
            return _as_mapping(data, path, lines, warnings)
    mark = getattr(error, "problem_mark", None)
    line = mark.line + 2 if mark is not None else None
    reason = getattr(error, "problem", None) or str(error).splitlines()[0]
    return None, lines, (_problem(path, f"invalid YAML frontmatter: {reason}", line),)


def _as_mapping(
    data: Any, path: Path | None, lines: dict[str, int], problems: tuple[Problem, ...]
) -> tuple[dict[str, Any] | None, dict[str, int], tuple[Problem, ...]]:
    if data is None:
        return {}, lines, problems
    if not isinstance(data, dict):
        message = f"frontmatter must be a mapping of fields, found {_kind(data)}"
        return None, lines, problems + (_problem(path, message, 2, "write one `field: value` per line"),)
    # Keys like `1:` or `yes:` come back as int/bool; report instead of guessing.
    bad = [key for key in data if not isinstance(key, str)]
    if bad:
        message = f"field names must be text, found {', '.join(repr(k) for k in bad[:3])}"
        problems += (_problem(path, message, None, "quote the field name"),)
        data = {str(key): value for key, value in data.items()}
    return data, lines, problems


# -- problems -------------------------------------------------------------------------------


def _kind(value: Any) -> str:
    return {list: "a list", str: "a string", int: "a number", float: "a number", bool: "a boolean"}.get(
        type(value), type(value).__name__
    )


def _problem(path: Path | None, message: str, line: int | None, hint: str | None = None) -> Problem:
    return Problem(
        path,
        message,
        line=line,
        hint=hint or "fix the YAML between the two `---` lines (quote values containing ': ')",
    )


def _binary(path: Path | None) -> Problem:
    return Problem(path, "file is binary, not a text SKILL.md", hint="replace it with a UTF-8 markdown file")


def _undecodable(path: Path | None, exc: UnicodeDecodeError) -> Problem:
    return Problem(
        path,
        f"file is not valid UTF-8 (byte {exc.start})",
        hint="save the file as UTF-8",
    )


def _unreadable(path: Path | None, exc: OSError) -> Problem:
    reason = exc.strerror or type(exc).__name__
    return Problem(path, f"cannot read file: {reason}", hint="check the file's permissions and links")


def _unclosed(path: Path | None, limit: int | None = None) -> Problem:
    within = f" within the first {limit} bytes" if limit else ""
    return Problem(
        path,
        f"frontmatter starts with `---` but has no closing `---` line{within}",
        line=1,
        hint="end the frontmatter with a line containing only ---",
    )


def decode_skill_bytes(data: bytes, path: Path | None) -> tuple[str | None, Problem | None]:
    """Bytes of a whole SKILL.md → text, or a problem (binary, not UTF-8)."""
    if data.startswith(_BOM):
        data = data[3:]
    if b"\x00" in data:
        return None, _binary(path)
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        return None, _undecodable(path, exc)
