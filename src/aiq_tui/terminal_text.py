"""The one terminal sanitiser: text a model, a tool, a skill file or a session file wrote is
shown, never obeyed, by the terminal.

A terminal acts on control characters and escape sequences in what it prints: OSC 52 writes
the clipboard, OSC 0 the window title, OSC 8 makes a link whose target differs from its
text, ``CSI 2J`` clears the screen and ``ESC M`` moves the cursor up a line so that the next
line overwrites one already shown. Any of them in a model's answer, a tool's output, a skill's
description or a session's title would act on the user's terminal. Here every such character
is replaced by a visible escape (``ESC`` → ``\\x1b``), so ``\\x1b]52;c;…`` shows as text:

* :func:`printable` — for text meant to be read (answers, tool output, notices, replays,
  listings): C0 and C1 controls, DEL, lone surrogates, bidi overrides/isolates and line or
  paragraph separators are escaped; newlines and tabs stay (``\\r\\n`` becomes ``\\n``).
  ``one_line=True`` escapes newlines and tabs too (titles, table cells).
* :func:`exact` — for what the user approves (a command, a script, SQL, a URL): additionally
  every invisible or look-alike character (zero-width, format, non-breaking and other odd
  spaces, ``\\r``, tabs) is escaped, so what is shown is every character that will run;
  :func:`hidden_note` says when that happened, so a literal ``\\x1b`` typed in a command cannot
  pass for a real one.
* :func:`for_terminal` — a deep copy of an event, a dict or a list with :func:`printable`
  applied to every string in it (what a UI shows of an engine event or a session file).
* :func:`json_safe` — ``--json`` text with C1 controls (which ``json.dumps(ensure_ascii=False)``
  leaves raw) written as ``\\u0080``-style escapes; the JSON value is unchanged.

Pure functions, no imports beyond the standard library: the core, the CLI and the TUI all use
them. Text that needs no change is returned as the same object (the common case costs one
scan by a compiled regex).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

# C0 controls except TAB and LF, DEL, C1 controls, lone surrogates, bidi embeddings/overrides
# (U+202A–U+202E) and isolates (U+2066–U+2069), line and paragraph separators.
_UNSAFE = (
    "\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\u202a-\u202e\u2066-\u2069\u2028\u2029"
)
_UNSAFE_MULTILINE = re.compile(f"[{_UNSAFE}]")
_UNSAFE_ONE_LINE = re.compile(f"[\t\n{_UNSAFE}]")
_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}

# For exact(): every character that is invisible, zero-width or looks like another one.
_INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp", "Zs"})
_LOOK_ALIKE_BLANKS = frozenset(
    "\u115f\u1160\u3164\uffa0\u2800"
)  # Hangul fillers, braille blank


def _escape(char: str) -> str:
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def _escape_match(match: re.Match[str]) -> str:
    return _escape(match.group(0))


def printable(text: str, *, one_line: bool = False) -> str:
    """``text`` with every character a terminal would act on shown as an escape.

    Newlines and tabs stay unless ``one_line``; ``\\r\\n`` line ends become ``\\n`` (a lone
    ``\\r``, which would let a line overwrite itself, shows as ``\\r``). The result holds no
    control character but ``\\n``/``\\t`` and encodes as UTF-8 (lone surrogates are escaped).
    """
    pattern = _UNSAFE_ONE_LINE if one_line else _UNSAFE_MULTILINE
    if pattern.search(text) is None:
        return text
    if not one_line and "\r\n" in text:
        text = text.replace("\r\n", "\n")
    return pattern.sub(_escape_match, text)


def _invisible(char: str) -> bool:
    if char == " " or char == "\n":
        return False
    if char.isascii():
        return not char.isprintable()
    import unicodedata

    return (
        unicodedata.category(char) in _INVISIBLE_CATEGORIES
        or char in _LOOK_ALIKE_BLANKS
    )


def exact(text: str) -> str:
    """What the user approves, character for character: everything :func:`printable` escapes
    plus ``\\r``, tabs, zero-width and format characters, non-breaking and other odd spaces.
    Only newlines stay (a multi-line script reads as lines)."""
    if text.isascii() and text.isprintable():
        return text
    return "".join(_escape(char) if _invisible(char) else char for char in text)


def hidden_characters(text: str) -> int:
    """How many characters :func:`exact` shows as escapes."""
    if text.isascii() and text.isprintable():
        return 0
    return sum(1 for char in text if _invisible(char))


def hidden_note(text: str) -> str | None:
    """A warning for an approval prompt when ``text`` holds characters it shows escaped."""
    count = hidden_characters(text)
    if not count:
        return None
    many = count != 1
    return (
        f"⚠ {count} control or invisible character{'s' if many else ''} in this text "
        f"{'are' if many else 'is'} shown escaped (\\x1b, \\u200b, …); "
        f"{'they are' if many else 'it is'} part of what would run"
    )


def for_terminal(value: Any) -> Any:
    """``value`` with :func:`printable` applied to every string inside it: through dataclasses
    (a copy via their fields), dicts (keys too), lists and tuples. Anything else is returned
    as it is; so is a value that needed no change (no copy is made)."""
    if isinstance(value, str):
        return printable(value)
    if isinstance(value, Mapping):
        cleaned: dict[Any, Any] = {}
        changed = not isinstance(value, dict)
        for key, item in value.items():
            clean_key, clean_item = for_terminal(key), for_terminal(item)
            changed = changed or clean_key is not key or clean_item is not item
            cleaned[clean_key] = clean_item
        return cleaned if changed else value
    if isinstance(value, (list, tuple)):
        items = [for_terminal(item) for item in value]
        if all(a is b for a, b in zip(items, value)):
            return value
        if isinstance(value, list):
            return items
        return type(value)(*items) if hasattr(value, "_fields") else type(value)(items)
    import dataclasses  # here: the CLI imports this module for every command, --json ones too

    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {}
        for field in dataclasses.fields(value):
            if not field.init:
                continue
            current = getattr(value, field.name)
            cleaned = for_terminal(current)
            if cleaned is not current:
                changes[field.name] = cleaned
        return dataclasses.replace(value, **changes) if changes else value
    return value


_C1 = re.compile("[\x80-\x9f\u2028\u2029]")


def json_safe(text: str) -> str:
    """JSON text with C1 controls (and U+2028/U+2029) as ``\\uXXXX`` escapes: the same JSON
    value, but nothing a terminal acts on (``json.dumps`` escapes C0 controls itself)."""
    if text.isascii() or _C1.search(text) is None:
        return text
    return _C1.sub(lambda match: f"\\u{ord(match.group(0)):04x}", text)


def approval_text(detail: str) -> str:
    """What an approval prompt shows of ``detail`` (the command, script, SQL or URL that
    would run): :func:`exact`, followed by :func:`hidden_note` when it escaped anything."""
    note = hidden_note(detail)
    return f"{exact(detail)}\n{note}" if note else exact(detail)
