"""What an approval shows of a call besides its one-line ``detail``: every argument, and the
text a file write would put on disk.

An approval that cut the arguments' JSON at a few hundred characters let a long harmless first
argument hide the one that mattered (``path``), and the user's "y" wrote a file they never saw
named. So every argument is shown, each on its own line under its key — nested objects and
lists flattened to ``options.path`` / ``items[2]`` — and only a *value* is ever cut (and says
how much was left out): a key is never hidden. The TUI dialog and the terminal prompt both show
:func:`argument_lines`; a file write's content is shown by the dialog whole (it scrolls) and by
the terminal as :func:`content_preview` (the first lines, then how many more).

Text is escaped with :func:`~aiq_tui.terminal_text.exact`: what is shown is every character
that would be sent.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from aiq_tui.terminal_text import exact

VALUE_CHARS = 300
"""Characters of one value an approval shows before "… (+N characters)"."""
CONTENT_LINES = 40
"""Lines of a file write the terminal prompt shows before "… N more lines"."""
CONTENT_LINE_CHARS = 400
"""Characters of one such line before it is cut (a minified file is one long line)."""
WRITE_OPERATIONS = ("write", "append")


def written_content(arguments: Mapping[str, Any]) -> str | None:
    """The text a file write asks to put on disk, or None for any other call."""
    content = arguments.get("content")
    if arguments.get("operation") in WRITE_OPERATIONS and isinstance(content, str):
        return content
    return None


def _leaves(arguments: Mapping[str, Any]) -> Iterator[tuple[str, Any]]:
    """``(key path, value)`` for every scalar (and empty container) in ``arguments``, in order.
    Iterative: arguments nested as deep as JSON allows do not run out of stack here."""
    stack: list[tuple[str, Any]] = [
        (str(key), value) for key, value in reversed(list(arguments.items()))
    ]
    while stack:
        path, value = stack.pop()
        if isinstance(value, Mapping) and value:
            stack.extend(
                (f"{path}.{key}", item) for key, item in reversed(list(value.items()))
            )
        elif isinstance(value, (list, tuple)) and value:
            stack.extend(
                (f"{path}[{index}]", item)
                for index, item in reversed(list(enumerate(value)))
            )
        else:
            yield path, value


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… (+{len(text) - limit:,} characters)"


def _value_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


def argument_lines(
    arguments: Mapping[str, Any], value_chars: int = VALUE_CHARS
) -> list[str]:
    """One ``key: value`` line per argument (nested ones by their path), values cut at
    ``value_chars`` and on one line, keys whole. A file write's content is named with its size
    (it is shown in full elsewhere: :func:`written_content`)."""
    content = written_content(arguments)
    lines = []
    for path, value in _leaves(arguments):
        if content is not None and path == "content":
            count = _line_count(content)
            shown = f"{count:,} line{'' if count == 1 else 's'}, {len(content.encode('utf-8', 'replace')):,} bytes"
        else:
            shown = _on_one_line(exact(_cut(_value_text(value), value_chars)))
        lines.append(f"{_on_one_line(exact(path))}: {shown}")
    return lines


def _on_one_line(text: str) -> str:
    return text.replace(
        "\n", "\\n"
    )  # exact() keeps newlines; an argument's line must not break


def _line_count(text: str) -> int:
    return text.count("\n") + (0 if text.endswith("\n") or not text else 1)


def content_preview(
    content: str, lines: int = CONTENT_LINES, line_chars: int = CONTENT_LINE_CHARS
) -> str:
    """The first ``lines`` lines of a file write (each cut at ``line_chars``), escaped, then
    "… N more lines" when there are more."""
    parts = content.split("\n")
    if parts and parts[-1] == "":
        parts.pop()
    shown = [exact(_cut(line, line_chars)) for line in parts[:lines]]
    more = len(parts) - len(shown)
    if more > 0:
        shown.append(f"… {more:,} more line{'' if more == 1 else 's'}")
    return "\n".join(shown)


def one_line(arguments: Mapping[str, Any], value_chars: int = 60) -> str:
    """Every argument as ``key=value`` on one line, values cut short, keys all there: what a
    log line or a one-line detail shows."""
    return " ".join(
        f"{path}={_cut(json.dumps(value, ensure_ascii=False, default=str), value_chars)}"
        for path, value in _leaves(arguments)
    )


def terminal_approval(title: str, detail: str, arguments: Mapping[str, Any]) -> str:
    """The whole of a terminal approval prompt: the title and detail, every argument, and the
    start of a file write's content."""
    from aiq_tui.terminal_text import approval_text, hidden_note

    parts = [f"{title}: {approval_text(detail)}"]
    parts += [f"  {line}" for line in argument_lines(arguments)]
    content = written_content(arguments)
    if content is not None:
        parts.append("  ── content " + "─" * 40)
        parts += [f"  │ {line}" for line in content_preview(content).split("\n")]
    note = hidden_note(
        "".join(f"{path}{_value_text(value)}" for path, value in _leaves(arguments))
    )
    if note and note not in parts[0]:
        parts.append(note)
    return "\n".join(parts)
