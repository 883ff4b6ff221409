"""Is a match instructed or documented? A skill that warns "never pipe `curl … | sh`" is
teaching caution, not giving a command.

A hit whose line, or the prose that introduces it (:meth:`ScannedFile.context`), warns against
it is reported as a note instead of at the rule's severity: still shown, so a reviewer sees it
(an attacker can write "never" too), but it fails no install and no CI. Scripts are never
"documented": every line of a script runs.
"""

from __future__ import annotations

import re

from aiq_tui.doctor.safety.files import FileKind, ScannedFile

_WARNING_WORDS = re.compile(
    r"\b(?:never|avoid|instead of|unsafe|insecure|dangerous|malicious|attackers?|beware|"
    r"caution|warning|must not|should not|anti-?pattern|do not (?:run|use|pipe|execute|copy|paste|type|do)|"
    r"don'?t (?:run|use|pipe|execute|copy|paste|type|do)|red flags?|for example an attacker)\b|❌|⚠",
    re.IGNORECASE,
)


def documented(file: ScannedFile, offset: int) -> bool:
    if file.kind is FileKind.SCRIPT:
        return False
    return _WARNING_WORDS.search(file.context(offset)) is not None
