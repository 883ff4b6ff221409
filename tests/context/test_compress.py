"""Seed 000 — compression at 80 / 90 / 95 %, skill priority, and the fixes to the seed's mistakes."""

from __future__ import annotations

import dataclasses
import itertools

import pytest

from aiq_tui.config import ContextSettings
from aiq_tui.context.compress import (
    ContextState,
    SkillCost,
    apply,
    compress,
    keeper_reason,
    plan,
    priority_order,
    safe_cut,
    state_total,
    with_ids,
)
from aiq_tui.context.model import Stage
from aiq_tui.context.tokens import TokenCounter
from aiq_tui.conversation import Message, Role, ToolCall
from aiq_tui.events import CompressionApplied
from aiq_tui.figures import decisive
from aiq_tui.skills.model import SkillState
from tests.context.helpers import SETTINGS, skill, state, turns

ACTIVE, RELEVANT, INACTIVE = SkillState.ACTIVE, SkillState.RELEVANT, SkillState.INACTIVE


@pytest.fixture
def counter() -> TokenCounter:
    return TokenCounter()


def at_fraction(
    s: ContextState, fraction: float, counter: TokenCounter
) -> ContextState:
    """The same state with a window chosen so that it fills ``fraction`` of it."""
    return dataclasses.replace(s, window=int(state_total(s, counter) / fraction))


def test_below_80_percent_nothing_is_compressed(counter: TokenCounter) -> None:
    s = at_fraction(state(turns(20)), 0.79, counter)
    p = plan(s, SETTINGS, counter)
    assert p.stage is Stage.NONE and p.is_noop and p.fits
    assert p.tokens_after == p.tokens_before


def test_compress_history_at_80_percent_keeps_recent_10_messages(
    counter: TokenCounter,
) -> None:
    history = turns(20)
    s = at_fraction(state(history, [skill("a", INACTIVE, 50)]), 0.82, counter)
    p = plan(s, SETTINGS, counter)
    assert p.stage is Stage.COMPRESS
    assert p.summarise_ids == tuple(m.id for m in history[:-10])
    assert p.keep_last == 10 and not p.evictions  # 80 % never evicts
    assert p.tokens_after < p.tokens_before


def test_evict_low_priority_skills_at_90_percent_after_compression(
    counter: TokenCounter,
) -> None:
    history = turns(6)  # 12 messages: summarising 2 saves nothing
    skills = [
        skill("act", ACTIVE, 600),
        skill("rel", RELEVANT, 600),
        skill("ina", INACTIVE, 600),
    ]
    s = at_fraction(state(history, skills), 0.92, counter)
    p = plan(s, SETTINGS, counter)
    assert p.stage is Stage.EVICT
    evicted = [e.name for e in p.evictions]
    assert evicted[0] == "ina"  # inactive goes first
    assert "act" not in evicted  # active skills are never evicted at 90 %
    assert p.tokens_after < 0.90 * s.window


def test_eviction_stops_as_soon_as_the_total_is_under_90_percent(
    counter: TokenCounter,
) -> None:
    skills = [
        skill("act", ACTIVE, 300),
        skill("rel", RELEVANT, 300),
        skill("ina", INACTIVE, 300),
    ]
    base = state(turns(3), skills)  # 6 messages: nothing to summarise
    s = dataclasses.replace(base, window=int(state_total(base, counter) / 0.91))
    p = plan(s, SETTINGS, counter)
    assert [e.name for e in p.evictions] == ["ina"]  # enough; the relevant skill stays


def test_skills_priority_active_over_relevant_over_inactive_least_relevant_first(
    counter: TokenCounter,
) -> None:
    skills = [
        skill("rel-high", RELEVANT, 400, confidence=0.9),
        skill("ina-high", INACTIVE, 400, confidence=0.5),
        skill("act", ACTIVE, 400),
        skill("rel-low", RELEVANT, 400, confidence=0.2),
        skill("ina-low", INACTIVE, 400, confidence=0.1),
    ]
    base = state(turns(2), skills, fixed=0, reserve=0)
    s = dataclasses.replace(base, window=int(state_total(base, counter) / 0.94))
    # A low eviction threshold forces every non-active skill out, showing the whole order.
    p = plan(
        s, ContextSettings(compress_at=0.3, evict_at=0.3, aggressive_at=1.0), counter
    )
    assert [e.name for e in p.evictions] == [
        "ina-low",
        "ina-high",
        "rel-low",
        "rel-high",
    ]
    assert "act" not in {e.name for e in p.evictions}


def test_aggressive_compression_at_95_percent_keeps_last_5_messages_and_top_active_skill(
    counter: TokenCounter,
) -> None:
    history = turns(15)
    skills = [
        skill("act-top", ACTIVE, 200, 0.9),
        skill("act-2", ACTIVE, 200, 0.5),
        skill("rel", RELEVANT, 200),
        skill("ina", INACTIVE, 200),
    ]
    s = at_fraction(state(history, skills), 0.97, counter)
    p = plan(s, SETTINGS, counter)
    assert p.stage is Stage.AGGRESSIVE
    assert p.keep_last == 5
    assert p.summarise_ids == tuple(m.id for m in history[:-5])
    assert {e.name for e in p.evictions} == {"act-2", "rel", "ina"}
    after = apply(s, p, "[Earlier conversation: 25 messages summarised]")
    assert [k.name for k in after.skills] == ["act-top"]
    assert len(after.history) == 6 and after.history[0].summary
    assert after.history[1:] == tuple(history[-5:])


def test_aggressive_without_an_active_skill_keeps_the_most_relevant_one(
    counter: TokenCounter,
) -> None:
    skills = [
        skill("rel-a", RELEVANT, 200, 0.3),
        skill("rel-b", RELEVANT, 200, 0.8),
        skill("ina", INACTIVE, 200),
    ]
    s = at_fraction(state(turns(10), skills), 0.97, counter)
    p = plan(s, SETTINGS, counter)
    assert {e.name for e in p.evictions} == {"rel-a", "ina"}


def test_among_active_skills_the_95_stage_keeps_the_highest_confidence_then_the_latest_reference(
    counter: TokenCounter,
) -> None:
    first_loaded = SkillCost(
        "data-report", ACTIVE, 200, confidence=0.09, referenced=2, loaded=1
    )
    best_match = SkillCost(
        "sql-explorer", ACTIVE, 200, confidence=0.24, referenced=8, loaded=3
    )
    s = at_fraction(state(turns(10), [first_loaded, best_match]), 0.97, counter)
    p = plan(s, SETTINGS, counter)
    assert [(e.name, e.reason) for e in p.evictions] == [
        (
            "data-report",
            "aggressive stage keeps only the top skill: kept sql-explorer — active, confidence 0.24 (highest)",
        )
    ]
    # Same confidence: the one the conversation referenced last; then the one loaded first.
    older = dataclasses.replace(best_match, confidence=0.09, referenced=1)
    assert (
        keeper_reason(priority_order([first_loaded, older])[0], [first_loaded, older])
        == "active, confidence 0.09 (tied), referenced most recently"
    )
    same = dataclasses.replace(older, referenced=2)
    assert priority_order([same, first_loaded])[0] is first_loaded
    assert (
        keeper_reason(first_loaded, [same, first_loaded])
        == "active, confidence 0.09 (tied), loaded first"
    )


def test_a_kept_skills_confidence_shows_the_digits_that_decide() -> None:
    assert decisive(0.243, [0.241, 0.1]) == "0.243"
    assert decisive(0.24, [0.1]) == "0.24"
    kept = SkillCost("a", ACTIVE, 1, confidence=0.2436)
    assert (
        keeper_reason(kept, [kept, SkillCost("b", ACTIVE, 1, confidence=0.2429)])
        == "active, confidence 0.244 (highest)"
    )


def test_skill_tokens_count_toward_the_budget(counter: TokenCounter) -> None:
    history = turns(3)
    small = state(history, [], window=2000)
    big = state(history, [skill("huge", ACTIVE, 1500)], window=2000)
    assert state_total(big, counter) == state_total(small, counter) + 1500
    assert plan(small, SETTINGS, counter).stage is Stage.NONE
    assert plan(big, SETTINGS, counter).stage is not Stage.NONE


def test_tool_call_and_its_results_are_never_split(counter: TokenCounter) -> None:
    call = ToolCall("c1", "sql_read", {"q": "select 1"})
    history = with_ids(
        [Message(Role.USER, "q " * 100)] * 3
        + [
            Message(
                Role.ASSISTANT, "", tool_calls=(call, ToolCall("c2", "http_get", {}))
            ),
            Message(Role.TOOL, "row " * 50, tool_call_id="c1", name="sql_read"),
            Message(Role.TOOL, "ok " * 50, tool_call_id="c2", name="http_get"),
        ]
        + [Message(Role.ASSISTANT, "a " * 100)] * 8
    )
    # keep_last=10 would cut between the call (index 3) and its results (4, 5).
    assert safe_cut(history, len(history) - 10) == 3
    s = at_fraction(state(list(history)), 0.85, counter)
    p = plan(s, SETTINGS, counter)
    assert p.summarise_ids == tuple(m.id for m in history[:3])
    assert p.keep_last == 11
    assert any("tool call" in note for note in p.notes)


def test_orphan_tool_result_never_starts_the_kept_part() -> None:
    history = with_ids(
        [
            Message(Role.USER, "x"),
            Message(Role.TOOL, "r", tool_call_id="gone"),
            Message(Role.USER, "y"),
        ]
    )
    assert safe_cut(history, 1) == 0


def test_95_percent_stage_really_keeps_5_messages_not_more(
    counter: TokenCounter,
) -> None:
    history = turns(30)
    s = at_fraction(state(history), 0.99, counter)
    p = plan(s, SETTINGS, counter)
    assert p.keep_last == 5 and len(p.summarise_ids) == len(history) - 5


def test_when_even_the_aggressive_plan_is_over_the_window_it_refuses_to_send(
    counter: TokenCounter,
) -> None:
    huge_last = [Message(Role.USER, "data " * 3000, id="big")]
    s = state(turns(10) + huge_last, [skill("act", ACTIVE, 500)], window=2000)
    p = plan(s, SETTINGS, counter)
    assert p.stage is Stage.AGGRESSIVE and not p.fits
    assert p.tokens_after > p.window
    assert any("refusing to send" in note for note in p.notes)


def test_planned_tokens_after_are_an_upper_bound_on_the_real_result(
    counter: TokenCounter,
) -> None:
    s = at_fraction(state(turns(20), [skill("ina", INACTIVE, 300)]), 0.96, counter)
    p = plan(s, SETTINGS, counter)
    summary = counter.truncate("fact " * 1000, p.summary_tokens)
    assert 0 < p.summary_tokens <= SETTINGS.summary_max_tokens
    assert state_total(apply(s, p, summary, counter), counter) <= p.tokens_after


def test_summary_costing_more_than_it_replaces_is_not_made(
    counter: TokenCounter,
) -> None:
    tiny = with_ids([Message(Role.USER, "hi")] * 12)
    s = state(list(tiny), [skill("act", ACTIVE, 3000)], window=3600)
    p = plan(s, SETTINGS, counter)
    assert p.summarise_ids == () and any("would not save" in note for note in p.notes)


def test_plan_needs_message_ids(counter: TokenCounter) -> None:
    s = state([Message(Role.USER, "no id")], window=10)
    with pytest.raises(ValueError, match="with_ids"):
        plan(s, SETTINGS, counter)


def test_apply_rejects_a_plan_for_another_history(counter: TokenCounter) -> None:
    s = at_fraction(state(turns(20)), 0.85, counter)
    p = plan(s, SETTINGS, counter)
    other = state(turns(20)[1:], window=s.window)
    with pytest.raises(ValueError, match="does not match"):
        apply(other, p, "x")


def test_plans_are_deterministic(counter: TokenCounter) -> None:
    s = at_fraction(
        state(
            turns(20, tool_every=3),
            [skill("a", ACTIVE, 100), skill("b", INACTIVE, 300)],
        ),
        0.96,
        counter,
    )
    assert plan(s, SETTINGS, counter) == plan(s, SETTINGS, TokenCounter())


async def test_compress_emits_one_event_per_step_with_before_and_after(
    counter: TokenCounter,
) -> None:
    skills = [
        skill("act", ACTIVE, 200),
        skill("rel", RELEVANT, 200),
        skill("ina", INACTIVE, 200),
    ]
    s = at_fraction(state(turns(15), skills), 0.97, counter)
    events: list[CompressionApplied] = []
    outcome = await compress(s, SETTINGS, counter, None, events.append)
    assert [e.step.split()[0] for e in events] == ["summarised", "evicted", "evicted"]
    assert "fallback" in events[0].step
    for earlier, later in itertools.pairwise(events):
        assert earlier.after == later.before
    assert all(e.after < e.before for e in events)
    assert (
        events[-1].after == outcome.tokens_after == state_total(outcome.state, counter)
    )
    assert outcome.tokens_after <= outcome.plan.tokens_after <= s.window
    assert outcome.state.history[0].summary
    assert outcome.state.history[0].content.startswith(
        "[Earlier conversation: 25 messages summarised]"
    )


async def test_compress_uses_the_provider_summary_and_caps_its_length(
    counter: TokenCounter,
) -> None:
    async def provider(messages, max_tokens):
        return "The user asked about foxes. " * 200

    s = at_fraction(state(turns(20)), 0.85, counter)
    outcome = await compress(s, SETTINGS, counter, provider)
    assert outcome.summary is not None and outcome.summary.source == "provider"
    assert (
        counter.count(outcome.state.history[0].content) <= SETTINGS.summary_max_tokens
    )


async def test_compress_below_threshold_changes_nothing(counter: TokenCounter) -> None:
    s = at_fraction(state(turns(5)), 0.5, counter)
    events: list[CompressionApplied] = []
    outcome = await compress(s, SETTINGS, counter, None, events.append)
    assert outcome.state == s and not events
