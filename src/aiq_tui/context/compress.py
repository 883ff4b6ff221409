"""Compression: a pure planner, a pure apply, and an async helper that runs both with events.

Rules (seed 000, with the seed implementation's mistakes fixed):

* below ``compress_at`` nothing happens;
* ≥ ``compress_at`` (80 %): the oldest messages are folded into one summary, keeping the last
  ``keep_last`` (10) messages verbatim;
* ≥ ``evict_at`` (90 %) *after that*: skills are evicted, Inactive before Relevant, least
  relevant first, and only until the total is back under ``evict_at``. Active skills stay, and
  so does the skill the 95 % stage would keep (the top Relevant one when none is Active);
* ≥ ``aggressive_at`` (95 %): everything but the last ``keep_last_aggressive`` (5) messages is
  summarised and only the top skill is kept — the top Active one, or the top Relevant one
  when none is Active (Inactive skills never survive this stage).

Invariants: a tool call and its results are never split (the cut moves earlier); skill
tokens count toward the total; the summary is budgeted at ``summary_max_tokens`` (the
helper truncates to it), so the real total after applying is ≤ the planned one; a summary
that would cost more than what it replaces is not made. When even the aggressive plan
leaves the request over the window, the plan says ``fits=False`` and the engine refuses to
send instead of truncating silently.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from typing import Callable, Sequence

from aiq_tui.events import CompressionApplied
from aiq_tui.config import ContextSettings
from aiq_tui.context.model import CompressionPlan, Eviction, Stage
from aiq_tui.context.summary import SummaryResult, SummariserFn, summarise_with_fallback
from aiq_tui.context.tokens import MESSAGE_OVERHEAD, TokenCounter
from aiq_tui.conversation import Message, Role
from aiq_tui.skills.model import SkillState

_STATE_RANK = {SkillState.ACTIVE: 0, SkillState.RELEVANT: 1, SkillState.INACTIVE: 2}


@dataclass(frozen=True)
class SkillCost:
    """A loaded skill as the planner sees it. Higher ``relevance`` is kept longer; ties
    keep the caller's order (earlier = more important)."""

    name: str
    state: SkillState
    tokens: int
    relevance: float = 0.0


@dataclass(frozen=True)
class ContextState:
    """Everything that takes room in the window. Messages need unique, non-empty ids."""

    history: tuple[Message, ...]
    skills: tuple[SkillCost, ...]
    fixed: int  # system (base, use_skill instructions, framing, tool specs) + catalog
    reserve: int
    window: int


@dataclass(frozen=True)
class CompressionOutcome:
    state: ContextState
    plan: CompressionPlan
    summary: SummaryResult | None = None
    tokens_after: int = 0  # measured after applying (≤ plan.tokens_after)


def stage_for(fraction: float, settings: ContextSettings) -> Stage:
    """The compression stage for a share of the window (thresholds from the config)."""
    if fraction >= settings.aggressive_at:
        return Stage.AGGRESSIVE
    if fraction >= settings.evict_at:
        return Stage.EVICT
    if fraction >= settings.compress_at:
        return Stage.COMPRESS
    return Stage.NONE


def with_ids(messages: Sequence[Message], prefix: str = "m") -> tuple[Message, ...]:
    """Messages with an id each (``<prefix><index>`` where one is missing)."""
    return tuple(m if m.id else replace(m, id=f"{prefix}{index}") for index, m in enumerate(messages))


def state_total(state: ContextState, counter: TokenCounter) -> int:
    return (
        state.fixed
        + state.reserve
        + sum(skill.tokens for skill in state.skills)
        + counter.count_messages(state.history)
    )


def priority_order(skills: Sequence[SkillCost]) -> list[SkillCost]:
    """Most important first: Active > Relevant > Inactive, then relevance, then input order."""
    indexed = list(enumerate(skills))
    indexed.sort(key=lambda item: (_STATE_RANK[item[1].state], -item[1].relevance, item[0]))
    return [skill for _, skill in indexed]


def safe_cut(history: Sequence[Message], cut: int) -> int:
    """Move ``cut`` (history[:cut] summarised) earlier until no tool call/result pair spans it."""
    cut = max(0, min(cut, len(history)))
    call_at: dict[str, int] = {}
    spans: list[tuple[int, int]] = []
    for index, message in enumerate(history):
        for call in message.tool_calls:
            call_at[call.id] = index
        if message.role is Role.TOOL and message.tool_call_id in call_at:
            spans.append((call_at[message.tool_call_id], index))
    moved = True
    while moved and cut > 0:
        moved = False
        for start, end in spans:
            if start < cut <= end:
                cut, moved = start, True
    # A TOOL message whose call is unknown still must not open the kept part alone.
    while 0 < cut < len(history) and history[cut].role is Role.TOOL:
        cut -= 1
    return cut


def summary_id(ids: Sequence[str]) -> str:
    return "summary-" + hashlib.sha1("\x1f".join(ids).encode()).hexdigest()[:10]


def _check_ids(history: Sequence[Message]) -> None:
    ids = [m.id for m in history]
    if any(not i for i in ids) or len(set(ids)) != len(ids):
        raise ValueError("compression needs a unique id on every message; pass the history through with_ids()")


def plan(state: ContextState, settings: ContextSettings, counter: TokenCounter) -> CompressionPlan:
    """What to summarise and evict for ``state``; pure and deterministic."""
    _check_ids(state.history)
    window = state.window
    before = state_total(state, counter)
    stage = stage_for(before / window if window else float("inf"), settings)
    if stage is Stage.NONE:
        return CompressionPlan(stage, window, before, before, fits=before <= window)

    notes: list[str] = []
    history = state.history
    aggressive = stage is Stage.AGGRESSIVE
    keep = settings.keep_last_aggressive if aggressive else settings.keep_last
    cut = safe_cut(history, len(history) - keep)
    if 0 < cut < len(history) - keep:
        notes.append(f"kept {len(history) - cut} messages so that a tool call stays with its results")
    summarised = history[:cut]
    replaced = counter.count_messages(summarised)
    summary_cost = MESSAGE_OVERHEAD + settings.summary_max_tokens
    after = before
    if not summarised:
        notes.append(f"no messages older than the last {keep} to summarise")
    elif len(summarised) == 1 and summarised[0].summary:
        notes.append("only an earlier summary is older than the kept messages")
        summarised = ()
    elif replaced <= summary_cost:
        notes.append(f"summarising {len(summarised)} messages ({replaced} tokens) would not save tokens")
        summarised = ()
    else:
        after = before - replaced + summary_cost

    evictions: list[Eviction] = []
    ordered = priority_order(state.skills)
    # The skill the 95 % stage keeps; the milder 90 % stage must never evict it (seed 000).
    keeper = next((s for s in ordered if s.state is not SkillState.INACTIVE), None)
    if aggressive:
        for skill in reversed(ordered):
            if skill is keeper:
                continue
            why = f"aggressive stage keeps only the top skill ({keeper.name})" if keeper else \
                "aggressive stage: no Active or Relevant skill to keep"
            evictions.append(Eviction(skill.name, skill.state, skill.tokens, why))
            after -= skill.tokens
    else:
        limit = settings.evict_at * window
        for skill in reversed(ordered):
            if after < limit or skill.state is SkillState.ACTIVE or skill is keeper:
                break
            label = "inactive (not matched recently)" if skill.state is SkillState.INACTIVE else "relevant but not used"
            evictions.append(Eviction(skill.name, skill.state, skill.tokens,
                                      f"{label}; evicted to get under {settings.evict_at:.0%} of the window"))
            after -= skill.tokens

    fits = after <= window
    if not fits:
        notes.append(
            f"still {after - window} tokens over the {window}-token window after the most aggressive "
            "plan; refusing to send — shorten the message, unload a skill or raise context.window"
        )
    return CompressionPlan(
        stage=stage,
        window=window,
        tokens_before=before,
        tokens_after=after,
        summarise_ids=tuple(m.id for m in summarised),
        keep_last=len(history) - len(summarised),
        evictions=tuple(evictions),
        fits=fits,
        notes=tuple(notes),
    )


def apply(state: ContextState, plan: CompressionPlan, summary_text: str = "") -> ContextState:
    """The state after ``plan``: one summary message replaces the summarised prefix (the
    caller keeps ``summary_text`` within ``summary_max_tokens``); evicted skills are gone."""
    history = state.history
    count = len(plan.summarise_ids)
    if count:
        prefix = tuple(m.id for m in history[:count])
        if prefix != plan.summarise_ids:
            raise ValueError("the plan does not match this history (its summarised ids are not the oldest messages)")
        summary = Message(Role.SYSTEM, summary_text, summary=True, id=summary_id(plan.summarise_ids))
        history = (summary, *history[count:])
    evicted = {e.name for e in plan.evictions}
    skills = tuple(s for s in state.skills if s.name not in evicted)
    return replace(state, history=history, skills=skills)


async def compress(
    state: ContextState,
    settings: ContextSettings,
    counter: TokenCounter,
    summariser: SummariserFn | None = None,
    emit: Callable[[CompressionApplied], None] | None = None,
) -> CompressionOutcome:
    """Plan, summarise (provider or fallback), apply step by step, emitting one
    :class:`CompressionApplied` per step (the summary, then each eviction)."""
    the_plan = plan(state, settings, counter)
    current = state
    before = state_total(state, counter)
    if the_plan.is_noop:
        return CompressionOutcome(state, the_plan, None, before)
    result: SummaryResult | None = None
    if the_plan.summarise_ids:
        messages = state.history[: len(the_plan.summarise_ids)]
        result = await summarise_with_fallback(messages, summariser, max_chars=settings.summary_max_tokens * 4)
        text = counter.truncate(result.text, settings.summary_max_tokens)
        current = apply(current, replace(the_plan, evictions=()), text)
        after = state_total(current, counter)
        if emit:
            emit(CompressionApplied(the_plan, f"summarised {len(messages)} messages ({result.source})", before, after))
        before = after
    for eviction in the_plan.evictions:
        step = CompressionPlan(the_plan.stage, the_plan.window, before, before - eviction.tokens, evictions=(eviction,))
        current = apply(current, step)
        after = state_total(current, counter)
        if emit:
            emit(CompressionApplied(the_plan, f"evicted {eviction.name} ({eviction.state.value})", before, after))
        before = after
    return CompressionOutcome(current, the_plan, result, before)
