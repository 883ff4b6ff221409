"""Properties of compression over random conversations, skills and windows."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aiq_tui.config import ContextSettings
from aiq_tui.context.compress import ContextState, SkillCost, apply, plan, state_total
from aiq_tui.context.summary import CUT_MARK, is_cleared
from aiq_tui.context.tokens import TokenCounter
from aiq_tui.conversation import Message, Role, ToolCall
from aiq_tui.skills.model import SkillState

COUNTER = TokenCounter()
SETTINGS = ContextSettings(summary_max_tokens=60)
WORDS = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "Ada Lovelace",
    "42 ms",
    "/tmp/x.txt",
    "we will use it.",
]


@st.composite
def histories(draw: st.DrawFn) -> list[Message]:
    n = draw(st.integers(min_value=0, max_value=30))
    out: list[Message] = []
    for i in range(n):
        words = draw(st.integers(min_value=1, max_value=120))
        body = " ".join(WORDS[(i + j) % len(WORDS)] for j in range(words))
        kind = draw(st.sampled_from(["user", "assistant", "tool"]))
        if kind == "tool":
            call = ToolCall(f"c{i}", "http_get", {"n": i})
            out.append(Message(Role.ASSISTANT, "", tool_calls=(call,), id=f"a{i}"))
            out.append(
                Message(
                    Role.TOOL, body, tool_call_id=f"c{i}", name="http_get", id=f"t{i}"
                )
            )
        else:
            out.append(Message(Role(kind), body, id=f"m{i}"))
    return out


@st.composite
def states(draw: st.DrawFn) -> ContextState:
    history = draw(histories())
    count = draw(st.integers(min_value=0, max_value=6))
    skills = tuple(
        SkillCost(
            f"s{i}",
            draw(st.sampled_from(list(SkillState))),
            draw(st.integers(1, 800)),
            draw(st.floats(0, 1)),
        )
        for i in range(count)
    )
    base = ContextState(
        tuple(history), skills, draw(st.integers(0, 300)), draw(st.integers(0, 200)), 1
    )
    total = state_total(base, COUNTER)
    fraction = draw(st.floats(min_value=0.5, max_value=1.6))
    return ContextState(
        base.history, skills, base.fixed, base.reserve, max(1, int(total / fraction))
    )


def top_active(state: ContextState) -> str | None:
    actives = [
        (i, s) for i, s in enumerate(state.skills) if s.state is SkillState.ACTIVE
    ]
    if not actives:
        return None
    return min(actives, key=lambda item: (-item[1].confidence, item[0]))[1].name


FAST = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@FAST
@given(states())
def test_after_compression_total_fits_the_window_whenever_the_plan_says_so(
    state: ContextState,
) -> None:
    p = plan(state, SETTINGS, COUNTER)
    summary = COUNTER.truncate("summary fact " * 100, p.summary_tokens)
    after = apply(state, p, summary, COUNTER)
    assert state_total(after, COUNTER) <= p.tokens_after
    if p.fits:
        assert state_total(after, COUNTER) <= state.window
    else:
        assert p.tokens_after > state.window and p.notes


@FAST
@given(states())
def test_the_top_active_skill_and_the_last_k_messages_survive(
    state: ContextState,
) -> None:
    p = plan(state, SETTINGS, COUNTER)
    after = apply(state, p, "[Earlier conversation]", COUNTER)
    top = top_active(state)
    if top is not None:
        assert top in {s.name for s in after.skills}
    if p.stage >= 90 and p.stage < 95:
        # Below the aggressive stage every Active skill survives.
        assert {s.name for s in state.skills if s.state is SkillState.ACTIVE} <= {
            s.name for s in after.skills
        }
    k = SETTINGS.keep_last_aggressive if p.stage == 95 else SETTINGS.keep_last
    tail = state.history[-k:] if k <= len(state.history) else state.history
    kept = after.history[len(after.history) - len(tail) :]
    # The last k messages stay, in order; a tool result among them may be cleared to its
    # extract (an ended turn's) or cut to fit (the running turn's), still paired with its call.
    assert [m.id for m in kept] == [m.id for m in tail]
    for old, new in zip(tail, kept):
        assert new == old or (
            old.role is Role.TOOL
            and (is_cleared(new) or CUT_MARK in new.content)
            and new.tool_call_id == old.tool_call_id
        )


@FAST
@given(states())
def test_only_tool_results_of_ended_turns_are_cleared(state: ContextState) -> None:
    p = plan(state, SETTINGS, COUNTER)
    last_user = max(
        (i for i, m in enumerate(state.history) if m.role is Role.USER), default=-1
    )
    ended = {m.id for m in state.history[: max(last_user, 0)] if m.role is Role.TOOL}
    assert {c.message_id for c in p.cleared} <= ended
    assert all(c.tokens_after < c.tokens_before for c in p.cleared)
    # Cutting is for the running turn's results, and only when nothing milder made it fit.
    assert not {c.message_id for c in p.cut} & ended
    assert all(c.tokens_after < c.tokens_before for c in p.cut)


@FAST
@given(states())
def test_tool_calls_and_results_stay_on_the_same_side(state: ContextState) -> None:
    p = plan(state, SETTINGS, COUNTER)
    summarised = set(p.summarise_ids)
    for message in state.history:
        if message.role is Role.TOOL:
            call_owner = next(
                m
                for m in state.history
                if any(c.id == message.tool_call_id for c in m.tool_calls)
            )
            assert (message.id in summarised) == (call_owner.id in summarised)


@FAST
@given(states())
def test_plans_are_deterministic(state: ContextState) -> None:
    assert plan(state, SETTINGS, COUNTER) == plan(state, SETTINGS, COUNTER)
