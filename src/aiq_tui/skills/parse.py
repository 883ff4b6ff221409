"""SKILL.md → frontmatter fields + markdown body, tolerant of what real authors write.

Two entry points:

* :func:`parse_skill_text` parses a whole file already in memory (used when a body is needed).
* :func:`read_frontmatter` reads only the head of a file, up to the closing ``---``, so that
  metadata-only discovery never reads the bodies of big files.

Neither raises for bad input: every defect becomes a :class:`~aiq_tui.problems.Problem` in the
result. Newlines are normalised to ``\\n`` and a UTF-8 BOM is dropped, so ``body_offset`` is a
character offset into that normalised text.

Hostile YAML is bounded before it is built (:func:`yaml_limits_problem`): at most
:data:`MAX_FRONTMATTER_CHARS` characters, :data:`MAX_DEPTH` levels of nesting and
:data:`MAX_EXPANDED_NODES` nodes once aliases are expanded (a 575-byte alias bomb expands to
billions); an alias inside its own anchor is refused. Every value that comes back is
JSON-safe (dates → ISO text, binary → base64, sets → lists), so ``--json`` never fails on a
field. :func:`~aiq_tui.file_io.open_regular` opens a SKILL.md without blocking on a FIFO and refuses anything
that is not a regular file.

The fields the Agent Skills specification defines as text (:data:`TEXT_FIELDS`, and the values
of ``metadata``) are read as written: ``name: 12345`` is the name ``"12345"``, ``version: 1.0``
under ``metadata`` is ``"1.0"`` — as the reference validator (skills-ref, whose YAML is all
text) reads them, rather than YAML 1.1's number, boolean or date. Defects other clients refuse
but this parser can read — a field given twice (the last one is used, as PyYAML does) and a
byte-order mark before ``---`` — are warnings here; ``skills validate --strict`` makes them
errors.
"""

from __future__ import annotations

import datetime as _dt
import functools
import json
import math
import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, BinaryIO

import msgspec

from aiq_tui.file_io import open_regular
from aiq_tui.problems import Problem, Severity

# libyaml's loader is ~10x faster; the pure-Python one behaves the same.


@functools.cache
def _yaml() -> tuple[Any, Any]:
    """PyYAML and its safe loader, imported by the first frontmatter the fast path cannot
    read: a start served from the catalog cache, or a catalog of plain ``key: value``
    frontmatter, never loads it."""
    import yaml

    return yaml, getattr(yaml, "CSafeLoader", yaml.SafeLoader)


BOM = b"\xef\xbb\xbf"
"""The UTF-8 byte-order mark (read past, and reported: see :func:`bom_problem`)."""
_BOM = BOM
TEXT_FIELDS = frozenset(
    {"name", "description", "license", "compatibility", "allowed-tools"}
)
"""Top-level fields the Agent Skills specification defines as text: a plain scalar is read as
written (see the module docstring)."""
MAX_FRONTMATTER_CHARS = 65_536
MAX_DEPTH = 32
MAX_EXPANDED_NODES = 20_000
_CHUNK = 4096
_FIELD_LINE = re.compile(r"^([A-Za-z_][A-Za-z0-9_.-]*)[ \t]*:")

# The fast path takes `key: value` lines whose value YAML would certainly read as the same
# plain string. Anything that might resolve to another type, or needs YAML's grammar
# (quotes, flow collections, block scalars, anchors, comments), goes to the real parser.
_SIMPLE_KEY = re.compile(r"[A-Za-z][A-Za-z0-9_-]*\Z")
_UNSAFE_FIRST = frozenset("-?:,[]{}#&*!|>'\"%@`=<~+.0123456789 \t")
_RESOLVED_WORDS = frozenset(
    [
        "yes",
        "Yes",
        "YES",
        "no",
        "No",
        "NO",
        "true",
        "True",
        "TRUE",
        "false",
        "False",
        "FALSE",
        "on",
        "On",
        "ON",
        "off",
        "Off",
        "OFF",
        "null",
        "Null",
        "NULL",
    ]
)


class ParseResult(msgspec.Struct, frozen=True):
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
    field_lines: Mapping[str, int] = msgspec.field(default_factory=dict)
    has_frontmatter: bool = False

    @property
    def ok(self) -> bool:
        return self.meta_fields is not None and not any(
            p.severity is Severity.ERROR for p in self.problems
        )


def parse_skill_text(text: str, path: Path | None = None) -> ParseResult:
    """Split ``text`` into frontmatter and body and parse the frontmatter."""
    bom = text.startswith("\ufeff")
    if bom:
        text = text[1:]
    text = unix_newlines(text)
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
    if bom:
        problems = (bom_problem(path), *problems)
    return ParseResult(fields, text[body_start:], body_start, problems, lines, True)


def read_frontmatter(path: Path | str, max_bytes: int) -> ParseResult:
    """Parse only the frontmatter of the file at ``path``, reading no further than needed."""
    try:
        handle, _ = open_regular(path)
        with handle:
            return read_frontmatter_from(handle, Path(path), max_bytes)
    except OSError as exc:
        return ParseResult(None, "", 0, (_unreadable(Path(path), exc),))


def read_frontmatter_from(
    handle: BinaryIO, path: Path | str, max_bytes: int
) -> ParseResult:
    """:func:`read_frontmatter` on an open binary file."""
    return _read_frontmatter(handle.read, path, max_bytes)


def read_frontmatter_fd(fd: int, path: Path | str, max_bytes: int) -> ParseResult:
    """:func:`read_frontmatter` on an open descriptor (discovery's: see :func:`~aiq_tui.file_io.open_regular_fd`)."""
    return _read_frontmatter(functools.partial(os.read, fd), path, max_bytes)


def _read_frontmatter(
    read: Callable[[int], bytes], where: Path | str, max_bytes: int
) -> ParseResult:
    path = Path(where)  # problems name their file as a Path
    bom = False
    try:
        head = read(_CHUNK)
        if head.startswith(_BOM):
            head, bom = head[3:], True
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
                return ParseResult(
                    None, "", 0, (_unclosed(path, max_bytes),), has_frontmatter=True
                )
            more = read(_CHUNK)
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
        return ParseResult(
            None, "", 0, (_undecodable(path, exc),), has_frontmatter=True
        )
    text = unix_newlines(text)
    first_end = text.find("\n")
    if text[:first_end].rstrip() != "---":  # e.g. "----" or "---x": not a delimiter
        return ParseResult({}, "", 0)
    close = _find_close(text, first_end + 1)
    if close is None:  # only possible when a lone "\r" confused the byte search
        return ParseResult(None, "", 0, (_unclosed(path),), has_frontmatter=True)
    fields, lines, problems = _parse_frontmatter(text[first_end + 1 : close[0]], path)
    if bom:
        problems = (bom_problem(path), *problems)
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
    if len(source) > MAX_FRONTMATTER_CHARS:  # before any parsing, fast path included
        message = f"frontmatter is {len(source)} characters, over the {MAX_FRONTMATTER_CHARS}-character limit"
        return (
            None,
            {},
            (
                _problem(
                    path, message, None, "move long material into the body or resources"
                ),
            ),
        )
    fast = _fast_fields(source)
    if fast is not None:
        return fast[0], fast[1], ()
    lines = _field_lines(source)
    limited = yaml_limits_problem(source)
    if limited is not None:
        return (
            None,
            lines,
            (
                _problem(
                    path,
                    limited,
                    None,
                    "simplify the frontmatter: plain `field: value` lines",
                ),
            ),
        )
    yaml, _ = _yaml()
    try:
        data, duplicates = _load(source)
    except yaml.YAMLError as exc:
        return _retry_with_quotes(source, path, lines, exc)
    except (
        ValueError,
        TypeError,
        RecursionError,
    ) as exc:  # libyaml oddities on hostile input
        return None, lines, (_problem(path, f"invalid YAML frontmatter: {exc}", None),)
    return _as_mapping(data, path, lines, _duplicate_problems(duplicates, path))


@functools.cache
def _frontmatter_loader() -> type:
    """The safe loader, noting every key a mapping gives twice (YAML requires unique keys;
    PyYAML silently keeps the last value, strictyaml and YAML 1.2 parsers refuse the file)."""
    yaml, base = _yaml()

    class FrontmatterLoader(base):  # type: ignore[misc, valid-type]
        def __init__(self, stream: str) -> None:
            super().__init__(stream)
            self.root: Any = None
            self.duplicates: list[
                tuple[str, int, bool]
            ] = []  # (key, 0-based line, top level)

        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            seen: set[tuple[str, str]] = set()
            for key_node, _value in node.value:
                if (
                    isinstance(key_node, yaml.ScalarNode)
                    and key_node.tag != "tag:yaml.org,2002:merge"
                ):
                    key = (key_node.tag, key_node.value)
                    if key in seen:
                        self.duplicates.append(
                            (
                                key_node.value,
                                key_node.start_mark.line,
                                node is self.root,
                            )
                        )
                    seen.add(key)
            return super().construct_mapping(node, deep=deep)

    return FrontmatterLoader


def _load(source: str) -> tuple[Any, list[tuple[str, int, bool]]]:
    """The frontmatter's data (text fields read as written) and the keys given twice."""
    loader = _frontmatter_loader()(source)
    try:
        node = loader.get_single_node()
        if node is None:
            return None, []
        loader.root = node
        data = loader.construct_document(node)
        _read_as_written(data, node)
        return data, loader.duplicates
    finally:
        loader.dispose()


def _plain_text(node: Any) -> str | None:
    """The source text of a plain (unquoted, untagged-by-hand) scalar node, else None."""
    yaml, _ = _yaml()
    if isinstance(node, yaml.ScalarNode) and not node.style:
        return str(node.value)
    return None


def _read_as_written(data: Any, node: Any) -> None:
    """Put back, as the text written, the plain scalars YAML 1.1 typed as something else
    (number, boolean, null, date) in the spec's text fields and the values of ``metadata``."""
    yaml, _ = _yaml()
    if not isinstance(data, dict) or not isinstance(node, yaml.MappingNode):
        return
    for key_node, value_node in node.value:
        key = _plain_text(key_node)
        if key is None or key not in data:
            continue
        if key in TEXT_FIELDS:
            text = _plain_text(value_node)
            if text is not None and not isinstance(data[key], str):
                data[key] = text
        elif (
            key == "metadata"
            and isinstance(data[key], dict)
            and isinstance(value_node, yaml.MappingNode)
        ):
            metadata = data[key]
            for inner_key_node, inner_value_node in value_node.value:
                inner = _plain_text(inner_key_node)
                text = _plain_text(inner_value_node)
                if (
                    inner in metadata
                    and text is not None
                    and not isinstance(metadata[inner], str)
                ):
                    metadata[inner] = text


def _duplicate_problems(
    duplicates: list[tuple[str, int, bool]], path: Path | None
) -> tuple[Problem, ...]:
    return tuple(
        Problem(
            path,
            f"field `{key}` is given more than once; the last one is used"
            if top
            else f"key `{key}` is given more than once in its mapping; the last one is used",
            field=key if top else None,
            line=line + 2,  # the opening "---" is line 1
            hint="keep one of them: YAML requires unique keys, and other Agent Skills clients "
            "(skills-ref) refuse the file",
            severity=Severity.WARNING,
        )
        for key, line, top in duplicates
    )


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
        if key in fields:
            return None  # a field given twice: the real parser reports it
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
    source: str, path: Path | None, lines: dict[str, int], error: Exception
) -> tuple[dict[str, Any] | None, dict[str, int], tuple[Problem, ...]]:
    """Authors often write ``description: Use when: …`` unquoted; quote such lines and retry."""
    yaml, _ = _yaml()
    rewritten: list[str] = []
    quoted: list[tuple[str, int]] = []
    for index, line in enumerate(source.split("\n")):
        match = _FIELD_LINE.match(line)
        if match:
            value = line[match.end() :].strip()
            if value and value[0] not in "'\"[{|>&*!" and ":" in value:
                rewritten.append(
                    f"{match.group(1)}: {json.dumps(value, ensure_ascii=False)}"
                )
                quoted.append((match.group(1), index + 2))
                continue
        rewritten.append(line)
    if quoted and yaml_limits_problem("\n".join(rewritten)) is None:
        try:
            data, duplicates = _load("\n".join(rewritten))
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
            return _as_mapping(
                data, path, lines, warnings + _duplicate_problems(duplicates, path)
            )
    mark = getattr(error, "problem_mark", None)
    at_line = mark.line + 2 if mark is not None else None
    reason = getattr(error, "problem", None) or str(error).splitlines()[0]
    return (
        None,
        lines,
        (_problem(path, f"invalid YAML frontmatter: {reason}", at_line),),
    )


def _as_mapping(
    data: Any, path: Path | None, lines: dict[str, int], problems: tuple[Problem, ...]
) -> tuple[dict[str, Any] | None, dict[str, int], tuple[Problem, ...]]:
    if data is None:
        return {}, lines, problems
    try:
        data = json_safe(data)
    except (ValueError, RecursionError) as exc:
        return (
            None,
            lines,
            problems
            + (_problem(path, f"frontmatter cannot be represented: {exc}", None),),
        )
    if not isinstance(data, dict):
        message = f"frontmatter must be a mapping of fields, found {_kind(data)}"
        return (
            None,
            lines,
            problems
            + (_problem(path, message, 2, "write one `field: value` per line"),),
        )
    # Keys like `1:` or `yes:` come back as int/bool; report instead of guessing.
    bad = [key for key in data if not isinstance(key, str)]
    if bad:
        message = (
            f"field names must be text, found {', '.join(repr(k) for k in bad[:3])}"
        )
        problems += (_problem(path, message, None, "quote the field name"),)
        data = {str(key): value for key, value in data.items()}
    return data, lines, problems


# -- bounds and JSON safety ------------------------------------------------------------------


def yaml_limits_problem(source: str) -> str | None:
    """Why ``source`` is too big, too deep or expands too far to be built; None when it is fine.

    Walks the parser's events (no objects are built): the expanded size of every anchor is
    known when it closes, so each alias adds that many nodes without being expanded."""
    if len(source) > MAX_FRONTMATTER_CHARS:
        return f"frontmatter is {len(source)} characters, over the {MAX_FRONTMATTER_CHARS}-character limit"
    if (
        "&" not in source
        and "*" not in source
        and source.count("[") + source.count("{") < MAX_DEPTH
        and source.count("\n-") < MAX_DEPTH
    ):
        return None  # no anchors and too few openers to nest deeply: nothing to bound
    yaml, _Loader = _yaml()
    sizes: dict[str, int] = {}
    open_anchors: set[str] = set()
    stack: list[
        tuple[int, str | None]
    ] = []  # (nodes so far, anchor) per open collection
    total = 0
    try:
        for event in yaml.parse(source, Loader=_Loader):
            if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                if len(stack) >= MAX_DEPTH:
                    return f"frontmatter nests deeper than {MAX_DEPTH} levels"
                if event.anchor:
                    open_anchors.add(event.anchor)
                stack.append((1, event.anchor))
                continue
            if isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                count, anchor = stack.pop()
                if anchor:
                    sizes[anchor] = count
                    open_anchors.discard(anchor)
            elif isinstance(event, yaml.ScalarEvent):
                count = 1
                if event.anchor:
                    sizes[event.anchor] = 1
            elif isinstance(event, yaml.AliasEvent):
                if event.anchor in open_anchors:
                    return f"alias *{event.anchor} refers to its own anchor (a recursive structure)"
                count = sizes.get(event.anchor, 1)
            else:
                continue
            total += count
            if stack:
                stack[-1] = (stack[-1][0] + count, stack[-1][1])
            if total > MAX_EXPANDED_NODES or count > MAX_EXPANDED_NODES:
                return f"frontmatter expands to more than {MAX_EXPANDED_NODES} values (aliases)"
    except (yaml.YAMLError, ValueError, TypeError, RecursionError):
        return None  # the real load reports the error (with its line for syntax errors)
    return None


def json_safe(value: Any, _depth: int = 0) -> Any:
    """``value`` with only JSON types: dates → ISO text, bytes → base64, sets → lists,
    non-finite floats → text, non-text keys → text."""
    if _depth > MAX_DEPTH + 2:
        raise ValueError("nesting is too deep")
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, (_dt.date, _dt.datetime, _dt.time)):
        return value.isoformat()
    if isinstance(value, (bytes, bytearray)):
        import base64  # a YAML !!binary value: rare, and the module costs every start a millisecond

        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, dict):
        return {
            key if isinstance(key, str) else str(key): json_safe(item, _depth + 1)
            for key, item in value.items()
        }
    if isinstance(value, (list, tuple, set, frozenset)):
        items = (
            sorted(value, key=repr) if isinstance(value, (set, frozenset)) else value
        )
        return [json_safe(item, _depth + 1) for item in items]
    return str(value)


# -- problems -------------------------------------------------------------------------------


def _kind(value: Any) -> str:
    return {
        list: "a list",
        str: "a string",
        int: "a number",
        float: "a number",
        bool: "a boolean",
    }.get(type(value), type(value).__name__)


def _problem(
    path: Path | None, message: str, line: int | None, hint: str | None = None
) -> Problem:
    return Problem(
        path,
        message,
        line=line,
        hint=hint
        or "fix the YAML between the two `---` lines (quote values containing ': ')",
    )


def _binary(path: Path | None) -> Problem:
    return Problem(
        path,
        "file is binary, not a text SKILL.md",
        hint="replace it with a UTF-8 markdown file",
    )


def _undecodable(path: Path | None, exc: UnicodeDecodeError) -> Problem:
    return Problem(
        path,
        f"file is not valid UTF-8 (byte {exc.start})",
        hint="save the file as UTF-8",
    )


def _unreadable(path: Path | None, exc: OSError) -> Problem:
    reason = exc.strerror or type(exc).__name__
    return Problem(
        path,
        f"cannot read file: {reason}",
        hint="check the file's permissions and links",
    )


def bom_problem(path: Path | str | None) -> Problem:
    """A SKILL.md that starts with a UTF-8 byte-order mark: read here (the mark is dropped), but
    a client that looks for ``---`` at the very start (skills-ref; a plain Node.js read) finds no
    frontmatter."""
    return Problem(
        Path(path) if path is not None else None,
        "file starts with a UTF-8 byte-order mark before `---`",
        line=1,
        hint="save it as UTF-8 without a BOM: other Agent Skills clients (skills-ref) then find no frontmatter",
        severity=Severity.WARNING,
    )


def _unclosed(path: Path | None, limit: int | None = None) -> Problem:
    within = f" within the first {limit} bytes" if limit else ""
    return Problem(
        path,
        f"frontmatter starts with `---` but has no closing `---` line{within}",
        line=1,
        hint="end the frontmatter with a line containing only ---",
    )


def unix_newlines(text: str) -> str:
    """``text`` with CRLF and lone CR line ends as LF: what every offset of a parse (the body's
    included) counts in."""
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def decode_skill_bytes(
    data: bytes, path: Path | None
) -> tuple[str | None, Problem | None]:
    """Bytes of a whole SKILL.md → text, or a problem (binary, not UTF-8)."""
    if data.startswith(_BOM):
        data = data[3:]
    if b"\x00" in data:
        return None, _binary(path)
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        return None, _undecodable(path, exc)
