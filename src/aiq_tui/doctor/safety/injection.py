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
    r"|\byour\s+(?:new|real|actual|true|updated)\s+system\s+(?:prompt|instructions?|message)\b"
    r"|\bsystem\s+prompt\s+override\b|\boverride\s+(?:the\s+|your\s+)system\s+prompt\b"
    r"|<\|im_start\|>\s*system|\[/?INST\]|<\s*/?\s*system(?:[-_ ]prompt)?\s*>",
    re.IGNORECASE,
)
_CONCEAL = re.compile(
    r"\b(?:do\s+not|don'?t|never)\s+(?:tell|inform|alert|notify|mention\s+(?:this|it|that)\s+to|"
    r"reveal\s+(?:this\s+|it\s+)?to|disclose\s+(?:this\s+|it\s+)?to)\s+the\s+user"
    r"(?:\s+(?:about|of|that\s+you|what\s+you|anything|this|how\s+you)\b|\s*[.,;:!)\-\"'”]|\s*$)"
    r"|\b(?:do\s+not|don'?t|never)\s+let\s+the\s+user\s+(?:know|see|notice|find\s+out)\b"
    r"|\bwithout\s+(?:telling|informing|alerting|notifying)\s+the\s+user\b"
    r"|\b(?:hide|conceal|keep)\s+(?:this|it|these\s+\w+)\s+(?:from\s+the\s+user|secret\s+from)",
    re.IGNORECASE | re.MULTILINE,
)
# "Never push without telling the user" asks for the opposite of concealment.
_NEGATED = re.compile(r"\b(?:never|not|no)\b|n't\b", re.IGNORECASE)
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
    "user + tell inform alert notify mention reveal disclose let telling informing alerting "
    "notifying hide conceal keep",
)
_ROLE_ANCHORS = anchors(
    "now + you",
    "mode + developer god jailbreak dan",
    "pretend act imagine + restrictions rules limits guidelines filters bound",
)


# Every phrase above spans less than this either side of its anchor word, wrapped or not.
REACH = 80


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
        for start, region in file.regions_with(words, REACH):
            for found in pattern.finditer(region):
                at = start + found.start()
                concealing = pattern is _CONCEAL
                if concealing and found.group().lower().startswith("without"):
                    sentence = region[: found.start()].rsplit(".", 1)[-1][-60:]
                    if _NEGATED.search(sentence):
                        continue
                hit = _hit(file, at, start + found.end(), rule, what, found.group())
                # A chat template's tokens in a code sample document a prompt format (a skill
                # about Llama or ChatML); in prose they pose as the system's own turn.
                if found.group()[:1] in "<[" and file.in_code(at) is not None:
                    if file.kind is not FileKind.SCRIPT:
                        hit = Hit(
                            hit.rule, hit.file, hit.offset, hit.detail, Level.INFO
                        )
                # Hiding from the user reads as injection, but a skill may say it for a
                # reason ("do not tell the user the password"): a warning, not an error.
                if concealing and hit.level is None:
                    hit = Hit(hit.rule, hit.file, hit.offset, hit.detail, Level.WARNING)
                yield hit


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
