"""Summaries of earlier conversation: the provider's when it works, a deterministic one otherwise;
and the extract an older tool result is cleared to.

The fallback never calls a model. It keeps what a later turn most likely needs: what tools
returned, the names, numbers, paths and URLs mentioned, and what was decided. A cleared tool
result keeps the same short account of what the tool returned (:func:`tool_result_extract`).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from aiq_tui.conversation import Message, Role

if TYPE_CHECKING:
    from aiq_tui.context.tokens import TokenCounter

MAX_TOOL_RESULTS = 8
MAX_ENTITIES = 20
MAX_DECISIONS = 8
RESULT_CHARS = 120
SENTENCE_CHARS = 200
DEFAULT_MAX_CHARS = 2000

_URL = re.compile(r"https?://[^\s<>()\"'`]+")
_PATH = re.compile(
    r"(?<![\w/])(?:~|\.{1,2})?/(?:[\w.@-]+/)*[\w.@-]+|\b(?:[\w.-]+/)+[\w-]+\.\w{1,8}\b"
)
_NAME = re.compile(
    r"\b[A-Z][a-z]+(?:[ -](?:[A-Z][a-z]+|of|de|van|von))*[ -][A-Z][a-z]+\b"
)
_QUANTITY = re.compile(
    r"(?<![\w.])[$€£]?\d+(?:[.,]\d+)*\s?(?:%|ms|s|sec|seconds?|minutes?|min|hours?|h|days?|"
    r"weeks?|years?|[kKMGT]i?B|bytes?|tokens?|rows?|files?|items?|users?|requests?|km|kg|g|m|cm|mm|"
    r"USD|EUR|GBP|dollars?|euros?|°C|°F)(?![\w])"
)
_SENTENCE = re.compile(r"[^.!?\n]+[.!?]?")
_DECISION = re.compile(
    r"\b(decided|decide|decision|will|we'll|i'll|let's|lets|use|using|going to|agreed|chose|choose|"
    r"plan is|should)\b",
    re.IGNORECASE,
)
_STARTS_SENTENCE_NAMES = {
    "The",
    "This",
    "That",
    "These",
    "Those",
    "We",
    "It",
    "I",
    "You",
    "Let",
}


SummariserFn = Callable[[Sequence[Message], int], Awaitable[str]]
"""``async (messages, max_tokens) -> str``: e.g. a provider's ``summarise``."""

CLEARED_MARK = "[tool result cleared to make room"
"""How a cleared tool result begins (so it is never cleared twice)."""


@dataclass(frozen=True)
class SummaryResult:
    text: str
    source: str  # "provider" | "fallback"
    error: str = ""  # why the provider was not used, when it failed


def _dedupe(items: list[str], limit: int) -> list[str]:
    seen: set[str] = set()
    kept: list[str] = []
    for item in items:
        key = item.lower()
        if key not in seen:
            seen.add(key)
            kept.append(item)
        if len(kept) >= limit:
            break
    return kept


def _short(text: str, limit: int) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def is_cleared(message: Message) -> bool:
    return message.role is Role.TOOL and message.content.startswith(CLEARED_MARK)


def _gist(content: str) -> str:
    """What a tool result said, in one short line (its extract's text)."""
    if content.startswith(CLEARED_MARK):  # already an extract: its text after the mark
        content = content.split("]", 1)[-1]
    return _short(content, RESULT_CHARS) or "(empty)"


def tool_result_extract(message: Message, summary: str = "") -> str:
    """What an older tool result shrinks to when compression clears it: the tool, its one-line
    summary (e.g. "6 rows") and the start of what it returned. The message keeps its
    ``tool_call_id``, so the call and its result stay paired; the model can run the tool again."""
    tool = message.name or "tool"
    about = f"{tool}: {summary}" if summary else tool
    return f"{CLEARED_MARK} — {about}] {_gist(message.content)}"


CUT_MARK = "[… cut to fit the context window"
_CUT_LINE = re.compile(r"\n?\[… cut to fit the context window[^\n]*\]\n?")


def cut_tool_result(
    message: Message, max_tokens: int, counter: TokenCounter, summary: str = ""
) -> Message:
    """``message`` (a tool result the running turn needs) cut to at most ``max_tokens`` in the
    request: its start and its end, and a line in the middle saying what was left out and how
    to see it (the way Codex keeps the head and tail of a long tool output)."""
    tool = message.name or "tool"
    about = f"{tool}: {summary}" if summary else tool
    note = (
        f"\n{CUT_MARK} — {about}; the middle was left out. Ask for less (fewer rows, a filter, "
        "an aggregate) to see it]\n"
    )
    text = _CUT_LINE.sub(
        "\n", message.content
    )  # cut again: from the text, not the old note
    frame = counter.count_message(replace(message, content=""))
    room = max(0, max_tokens - frame - counter.count(note))
    head = counter.truncate(text, room * 2 // 3)
    rest = text[len(head) :]
    tail_chars = min(len(rest), max(0, room - counter.count(head)) * 4)
    while True:
        tail = rest[len(rest) - tail_chars :] if tail_chars else ""
        shorter = replace(message, content=head + note + tail)
        if counter.count_message(shorter) <= max_tokens or not tail_chars:
            return shorter
        tail_chars = tail_chars * 4 // 5


def _tool_names(messages: Sequence[Message]) -> dict[str, str]:
    return {call.id: call.name for message in messages for call in message.tool_calls}


def extract_entities(text: str) -> list[str]:
    found: list[str] = []
    found += [url.rstrip(".,;:!?") for url in _URL.findall(text)]
    without_urls = _URL.sub(" ", text)
    found += [match.group(0) for match in _PATH.finditer(without_urls)]
    found += [match.group(0) for match in _QUANTITY.finditer(without_urls)]
    for match in _NAME.finditer(without_urls):
        words = match.group(0).split()
        if words[0] in _STARTS_SENTENCE_NAMES:
            words = words[1:]
        if len(words) >= 2:
            found.append(" ".join(words))
    return found


def extract_decisions(text: str) -> list[str]:
    sentences = (match.group(0).strip() for match in _SENTENCE.finditer(text))
    return [
        _short(s, SENTENCE_CHARS)
        for s in sentences
        if len(s) > 12 and _DECISION.search(s)
    ]


def fallback_summary(
    messages: Sequence[Message], max_chars: int = DEFAULT_MAX_CHARS
) -> str:
    """``[Earlier conversation: N messages summarised]`` plus key facts, at most ``max_chars``."""
    names = _tool_names(messages)
    results: list[str] = []
    entities: list[str] = []
    decisions: list[str] = []
    for message in messages:
        if message.role is Role.TOOL:
            tool = message.name or names.get(message.tool_call_id or "", "tool")
            results.append(f"{tool}: {_gist(message.content)}")
            entities += extract_entities(message.content)
            continue
        if message.summary:
            # Facts of an earlier summary carry over as they are (minus its header line).
            for line in message.content.splitlines()[1:]:
                if line.startswith("- ") and line[2:].strip():
                    decisions.append(line[2:].strip())
            continue
        for call in message.tool_calls:
            entities += extract_entities(call.arguments_json())
        entities += extract_entities(message.content)
        if message.role in (Role.USER, Role.ASSISTANT):
            decisions += extract_decisions(message.content)

    lines = [f"[Earlier conversation: {len(messages)} messages summarised]"]
    kept_results = _dedupe(results, MAX_TOOL_RESULTS)
    if kept_results:
        lines.append("Tool results:")
        lines += [f"- {item}" for item in kept_results]
    kept_entities = _dedupe(entities, MAX_ENTITIES)
    if kept_entities:
        lines.append("Mentioned: " + "; ".join(kept_entities))
    kept_decisions = _dedupe(decisions, MAX_DECISIONS)
    if kept_decisions:
        lines.append("Decisions and plans:")
        lines += [f"- {item}" for item in kept_decisions]
    text = "\n".join(lines)
    if len(text) > max_chars:
        text = text[: max_chars - 1].rstrip() + "…"
    return text


async def summarise_with_fallback(
    messages: Sequence[Message],
    provider_summarise: SummariserFn | None,
    max_chars: int = DEFAULT_MAX_CHARS,
    max_tokens: int = DEFAULT_MAX_CHARS // 4,
) -> SummaryResult:
    """The provider's summary (asked for at most ``max_tokens``) when given and it works; the
    deterministic fallback (at most ``max_chars``) otherwise.

    Any exception from the provider, or an empty answer, falls back — compression must not
    fail because the model did.
    """
    if provider_summarise is not None:
        try:
            text = (await provider_summarise(messages, max_tokens)).strip()
        except Exception as exc:  # any provider failure → fallback, reported
            return SummaryResult(
                fallback_summary(messages, max_chars),
                "fallback",
                f"{type(exc).__name__}: {exc}",
            )
        if text:
            header = f"[Earlier conversation: {len(messages)} messages summarised]"
            return SummaryResult(
                text
                if text.startswith("[Earlier conversation")
                else f"{header}\n{text}",
                "provider",
            )
        return SummaryResult(
            fallback_summary(messages, max_chars),
            "fallback",
            "the provider returned an empty summary",
        )
    return SummaryResult(
        fallback_summary(messages, max_chars),
        "fallback",
        "no provider configured for summaries",
    )
