"""Where the headless commands meet the terminal: everything they print passes the one
sanitiser (:mod:`aiq_tui.terminal_text`).

Two doors, both fitted once:

* :class:`~aiq_tui.commands.safe_console.SafeConsole` — the rich console every command gets
  from ``make_console`` (its own module: rich is imported only by commands that print text);
* :func:`sanitised_streams` — for the time a command runs, ``sys.stdout`` and ``sys.stderr``
  escape what is written to them (a streamed answer, a script's output, an error message
  quoting a file). The consoles write to the streams underneath (:func:`raw_stream`), so
  their styling survives; ``--json`` writes bytes to ``sys.stdout.buffer`` and escapes what
  JSON leaves raw itself (``common._write_utf8``).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any, TextIO

from aiq_tui.terminal_text import printable


class SanitisedStream:
    """A text stream that writes :func:`printable` text to the stream it wraps."""

    def __init__(self, raw: TextIO) -> None:
        self.raw = raw

    def write(self, text: str) -> int:
        self.raw.write(printable(text))
        return len(text)

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(
        self, name: str
    ) -> Any:  # flush, fileno, isatty, buffer, encoding, …
        return getattr(self.raw, name)


def raw_stream(stream: Any) -> Any:
    """The stream under a :class:`SanitisedStream` (itself otherwise)."""
    return stream.raw if isinstance(stream, SanitisedStream) else stream


@contextmanager
def sanitised_streams() -> Iterator[None]:
    """``sys.stdout`` and ``sys.stderr`` escape what a command writes, until the block ends."""
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = SanitisedStream(out), SanitisedStream(err)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = out, err
