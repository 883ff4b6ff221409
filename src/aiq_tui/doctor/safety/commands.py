"""Dangerous commands: the executor's own check (:func:`aiq_tui.skills.executor.find_dangerous`,
the filter that refuses them at run time) over scripts and over the code in markdown, so the
doctor and the runtime never disagree. A first filter; the sandbox is what enforces."""

from __future__ import annotations

from collections.abc import Iterator

from aiq_tui.doctor.model import Level
from aiq_tui.doctor.safety.documented import documented
from aiq_tui.doctor.safety.files import FileKind, ScannedFile
from aiq_tui.doctor.safety.rules import DANGEROUS_COMMAND, Hit
from aiq_tui.skills.executor import find_dangerous


def dangerous_commands(file: ScannedFile) -> Iterator[Hit]:
    if file.kind is FileKind.SCRIPT:
        pattern = find_dangerous(file.text)
        if pattern:
            yield Hit(
                DANGEROUS_COMMAND,
                file,
                _script_offset(file.text),
                f"matches '{pattern}'",
            )
        return
    spans = file.code()
    if not spans:
        return
    # One scan of all the code first (the usual answer is "nothing"); only then find which span.
    together = find_dangerous("\n".join(span.text for span in spans))
    if together is None:
        return
    found = False
    for span in spans:
        pattern = find_dangerous(span.text)
        if pattern:
            offset = span.start + _script_offset(span.text)
            yield Hit(
                DANGEROUS_COMMAND,
                file,
                offset,
                f"matches '{pattern}'",
                Level.INFO if documented(file, offset) else None,
            )
            found = True
    if not found:  # only the snippets together match: say where the code starts
        yield Hit(DANGEROUS_COMMAND, file, spans[0].start, f"matches '{together}'")


def _script_offset(text: str) -> int:
    """The offset of the first line that is dangerous on its own (0 when it takes several)."""
    if "\n" not in text.strip():
        return 0
    position = 0
    for line in text.split("\n"):
        if line.strip() and find_dangerous(line):
            return position
        position += len(line) + 1
    return 0
