"""Builders shared by the context tests (imported as a plain module under importlib mode)."""

from __future__ import annotations

from aiq_tui.config import ContextSettings
from aiq_tui.context.compress import ContextState, SkillCost
from aiq_tui.conversation import Message, Role, ToolCall
from aiq_tui.skills.model import SkillState

WORDS = [
    "the",
    "quick",
    "brown",
    "fox",
    "jumps",
    "over",
    "the",
    "lazy",
    "dog",
    "while",
    "Ada",
    "Lovelace",
    "reviews",
    "the",
    "report",
]


def text(n_words: int, seed: int = 0) -> str:
    return " ".join(WORDS[(seed + i) % len(WORDS)] for i in range(n_words))


def turns(n: int, words: int = 40, tool_every: int = 0) -> list[Message]:
    """n user/assistant turns (2 messages each; +2 for a tool call and result every ``tool_every``)."""
    out: list[Message] = []
    for t in range(n):
        out.append(Message(Role.USER, f"question {t}: " + text(words, t), id=f"u{t}"))
        if tool_every and t % tool_every == 0:
            call = ToolCall(f"c{t}", "http_get", {"url": f"https://example.com/{t}"})
            out.append(Message(Role.ASSISTANT, "", tool_calls=(call,), id=f"a{t}call"))
            out.append(
                Message(
                    Role.TOOL,
                    f"200 OK result {t} " + text(words, t + 1),
                    tool_call_id=f"c{t}",
                    name="http_get",
                    id=f"t{t}",
                )
            )
        out.append(
            Message(Role.ASSISTANT, f"answer {t}: " + text(words, t + 2), id=f"a{t}")
        )
    return out


def state(
    history: list[Message],
    skills: list[SkillCost] | None = None,
    *,
    fixed: int = 200,
    reserve: int = 100,
    window: int = 4000,
) -> ContextState:
    return ContextState(tuple(history), tuple(skills or ()), fixed, reserve, window)


def skill(
    name: str, state_: SkillState, tokens: int, confidence: float = 0.0
) -> SkillCost:
    return SkillCost(name, state_, tokens, confidence)


SETTINGS = ContextSettings(summary_max_tokens=100)
