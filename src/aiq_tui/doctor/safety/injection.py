"""Prompt injection and role overrides: sentences that cancel the agent's instructions, hide
what it does from the user, or redefine who it is. Matched in prose and code alike (the model
reads both), case-insensitively, over the whole text in one regex pass per group."""

from __future__ import annotations

import re
from collections.abc import Iterator

from aiq_tui.doctor.model import Level
from aiq_tui.doctor.safety.documented import documented
from aiq_tui.doctor.safety.files import FileKind, ScannedFile, anchors
from aiq_tui.doctor.safety.rules import PROMPT_INJECTION, ROLE_OVERRIDE, Hit, Rule

_OVERRIDE = re.compile(
    r"\b(?:ignore|disregard|forget|override|bypass|skip)\s+(?:all\s+|any\s+|every\s+)?(?:of\s+)?"
    r"(?:the\s+|your\s+|these\s+|those\s+)?(?:previous|prior|above|earlier|preceding|former|"
    r"original|system|safety|developer|other)\s+(?:instructions?|prompts?|rules|guidelines|"
    r"directives|messages?|guardrails|policies|constraints)\b"
    r"|\bforget\s+(?:everything|all)\s+(?:you\s+(?:were|have\s+been)\s+told|above|before)\b"
    r"|\b(?:new|updated|real|actual|overriding|override)\s+system\s+(?:prompt|instructions?|message)\b"
    r"|\bsystem\s+prompt\s+override\b"
    r"|<\|im_start\|>\s*system|\[/?INST\]|<\s*/?\s*system(?:[-_ ]prompt)?\s*>",
    re.IGNORECASE,
)
_CONCEAL = re.compile(
    r"\b(?:do\s+not|don'?t|never)\s+(?:tell|inform|alert|notify|mention\s+(?:this|it|that)\s+to|reveal\s+(?:this\s+)?to|"
    r"disclose\s+(?:this\s+)?to|let)\s+the\s+user\b(?!\s+(?:wait|down))"
    r"|\bwithout\s+(?:telling|informing|alerting|notifying)\s+the\s+user\b"
    r"|\b(?:hide|conceal|keep)\s+(?:this|it|these\s+\w+)\s+(?:from\s+the\s+user|secret\s+from)",
    re.IGNORECASE,
)
_ROLE = re.compile(
    r"\byou\s+are\s+now\s+(?:DAN\b|no\s+longer\b|free\b|unrestricted\b|jailbroken\b|unfiltered\b|"
    r"in\s+(?:developer|god|dan|jailbreak|unrestricted)\s+mode\b|an?\s+(?:unrestricted|unfiltered|"
    r"uncensored|different|new)\s)"
    r"|\bfrom\s+now\s+on,?\s+you\s+(?:are|will\s+act\s+as|have\s+no)\b"
    r"|\b(?:developer|god|jailbreak|DAN)\s+mode\s+(?:enabled|on|activated)\b"
    r"|\b(?:pretend|act\s+as\s+if|imagine)\s+(?:that\s+)?you\s+(?:are|have)\s+(?:no|not\s+bound\s+by)\s+"
    r"(?:restrictions|rules|limits|guidelines|filters)\b",
    re.IGNORECASE,
)


# Words every match of each pattern contains: the pattern is searched only around them.
_OVERRIDE_ANCHORS = anchors(
    "ignore disregard forget override bypass skip + instruction instructions prompt prompts "
    "rules guidelines directives directive message messages guardrails policies constraints "
    "everything all",
    "system + prompt instructions instruction message override",
    "inst",
    "im_start",
)
_CONCEAL_ANCHORS = anchors(
    "tell inform alert notify mention reveal disclose let telling informing alerting notifying + user",
    "hide conceal keep + user secret",
)
_ROLE_ANCHORS = anchors(
    "now + you",
    "mode + developer god jailbreak dan",
    "pretend act imagine + restrictions rules limits guidelines filters bound",
)


def injections(file: ScannedFile) -> Iterator[Hit]:
    for pattern, words, rule, what in (
        (
            _OVERRIDE,
            _OVERRIDE_ANCHORS,
            PROMPT_INJECTION,
            "overrides the agent's instructions",
        ),
        (
            _CONCEAL,
            _CONCEAL_ANCHORS,
            PROMPT_INJECTION,
            "hides what the agent does from the user",
        ),
        (_ROLE, _ROLE_ANCHORS, ROLE_OVERRIDE, "redefines the agent"),
    ):
        for start, region in file.regions_with(words):
            for found in pattern.finditer(region):
                yield _hit(
                    file,
                    start + found.start(),
                    start + found.end(),
                    rule,
                    what,
                    found.group(),
                )


def _hit(
    file: ScannedFile, start: int, end: int, rule: Rule, what: str, text: str
) -> Hit:
    # A phrase quoted in a sentence that warns of it documents an attack (security guides
    # do); quoted or not, a script that says it is still code.
    lowered = (
        _quoted(file, start, end)
        and file.kind is not FileKind.SCRIPT
        and documented(file, start)
    )
    return Hit(
        rule,
        file,
        start,
        f"{what}: “{' '.join(text.split())}”",
        Level.INFO if lowered else None,
    )


def _quoted(file: ScannedFile, start: int, end: int) -> bool:
    """Whether the match sits inside a quotation on its line (a quote opens before it and
    closes after it)."""
    line_start = file.text.rfind("\n", 0, start) + 1
    line_end = file.text.find("\n", end)
    before = file.text[line_start:start]
    after = file.text[end : line_end if line_end >= 0 else len(file.text)]
    return any(q in before for q in "\"'`“‘«") and any(q in after for q in "\"'`”’»")
