"""The safety scan of one skill: every rule over every file, each file read once.

:func:`scan_skill` is what the doctor, ``skills install`` / ``update`` and ``skills import``
call; it returns doctor :class:`~aiq_tui.doctor.model.Finding` records with the rule's id, the
file and line, the severity and why. These are first-filter text checks: the sandbox, the
permission policy and the approvals are what enforce (docs/SANDBOX.md).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence

from aiq_tui.doctor.model import Finding, Kind, Level, Location
from aiq_tui.doctor.safety.commands import dangerous_commands
from aiq_tui.doctor.safety.exfiltration import (
    data_in_urls,
    encoded_uploads,
    secret_exfiltration,
)
from aiq_tui.doctor.safety.files import ScannedFile, skill_files
from aiq_tui.doctor.safety.grants import tool_grants
from aiq_tui.doctor.safety.hidden_text import (
    bidi_controls,
    hidden_comments,
    invisible_characters,
)
from aiq_tui.doctor.safety.injection import injections
from aiq_tui.doctor.safety.rules import Hit
from aiq_tui.skills.model import Resource, SkillMeta

FILE_DETECTORS: tuple[Callable[[ScannedFile], Iterable[Hit]], ...] = (
    dangerous_commands,
    injections,
    hidden_comments,
    invisible_characters,
    bidi_controls,
    secret_exfiltration,
    data_in_urls,
    encoded_uploads,
)
MAX_FINDINGS = (
    40  # per skill: a hostile skill is reported, not allowed to flood the report
)


def scan_skill(
    meta: SkillMeta,
    resources: Sequence[Resource],
    skill_text: str | None = None,
    files: Sequence[ScannedFile] | None = None,
) -> list[Finding]:
    """The safety findings of one skill (``files`` when the caller read them already)."""
    if files is None:
        files = skill_files(meta, resources, skill_text)
    findings: list[Finding] = []
    for hit in _hits(meta, files):
        findings.append(_finding(meta, hit))
        if len(findings) >= MAX_FINDINGS:
            break
    return findings


def _hits(meta: SkillMeta, files: Sequence[ScannedFile]) -> Iterator[Hit]:
    yield from tool_grants(meta, files)
    for file in files:
        for detector in FILE_DETECTORS:
            yield from detector(file)


def shown(text: str) -> str:
    """Outside text as a finding quotes it: one line, terminal controls escaped, and every
    invisible or reordering character written as its ``\\uXXXX`` escape (the finding is about
    them: a reviewer must see where they are)."""
    from aiq_tui.terminal_text import printable

    return _INVISIBLE.sub(_escape, printable(text, one_line=True))


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


_INVISIBLE = re.compile(
    "[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff\U000e0000-\U000e007f]"
)


def _finding(meta: SkillMeta, hit: Hit) -> Finding:
    rule = hit.rule
    level = hit.level or rule.level
    # Detectors lower a hit to a note only when the text around it warns against it.
    documented = level is Level.INFO and rule.level is not Level.INFO
    file = hit.file
    why = shown(hit.detail) + " — " + rule.why
    if documented:
        why += " (a note: the text around it warns against it, so it reads as documentation)"
    return Finding(
        Kind.SAFETY,
        level,
        (meta.name,),
        f"{meta.name}: {rule.title} in {file.relpath}:{file.line_of(hit.offset)}",
        why=why,
        fix=rule.fix,
        rule=rule.id,
        location=Location(
            file.path, file.line_of(hit.offset), file.column_of(hit.offset)
        ),
    )
