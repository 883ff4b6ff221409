"""The one fold from events to the view state: pure, and its panes agree at every event.

For the recorded fixture, for a fresh ``/demo`` run and for generated event sequences, the
state after each event prefix is the fold of that prefix, and:
- a skill evicted at event k is in no Active/Relevant section from event k on (until a later
  event loads it again), and it carries the eviction mark with its stage until it matches again
  (Active or Relevant): becoming Inactive meanwhile keeps the mark; a skill never evicted, or
  matched since, carries none;
- the gauge total is the total of the last ``budget_changed`` at or before k;
- every skill change of the current turn is listed with its reason;
- the stage notes are this turn's, and none survives a change of window.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from aiq_tui.llm.demo import DemoScript
from aiq_tui.replay.record import live_record
from aiq_tui.replay.state import ViewState, all_states, apply, fold, state_at
from tests.agent.helpers import demo_engine

FIXTURE = Path(__file__).parent / "fixtures" / "session_demo.json"


def fixture_turns() -> list[dict[str, Any]]:
    return json.loads(FIXTURE.read_text(encoding="utf-8"))["replay"]["turns"]


def check_panes_agree(
    records: Sequence[Mapping[str, Any]], states: Sequence[ViewState]
) -> None:
    """``states[i]`` is the state after ``records[:i + 1]``: check every invariant the screen relies on."""
    evicted: dict[str, str] = {}  # skill → the mark it must carry ("evicted at 90 %")
    budget_total = None
    window = None
    for index, (data, state) in enumerate(zip(records, states)):
        kind = data.get("type")
        if kind == "skill_state_changed":
            name = data["name"]
            stage = re.search(r"(\d+) %", data.get("reason", ""))
            if data.get("new") is None:
                evicted[name] = f"evicted at {stage.group(1)} %" if stage else "evicted"
            elif data["new"] in ("active", "relevant"):  # matched again: the mark goes
                evicted.pop(name, None)
            # "inactive": still out of the prompt, so the mark stays
        if kind == "compression_applied" and budget_total is not None:
            # The gauge follows each step: the prompt stands at the step's ``after``.
            budget_total = min(budget_total, int(data["after"]))
        if kind == "budget_changed":
            budget_total = data["total"]
            if window is not None and data["window"] != window:
                assert state.stage_notes == (), (
                    "a stage note about another window stayed"
                )
            window = data["window"]
        if kind == "turn_started":
            assert state.stage_notes == () and state.running
        for name, mark in evicted.items():
            row = state.skill(name)
            assert row is not None and row.state == "inactive", (
                f"{name} evicted but shown {row} at {index}"
            )
            assert row.evicted == mark, (
                f"{name} carries {row.evicted!r}, not {mark!r}, at {index}"
            )
        for row in state.skills:
            if row.name not in evicted:
                assert row.evicted == "", (
                    f"{row.name} carries {row.evicted!r} but is not evicted at {index}"
                )
        if budget_total is not None:
            assert state.budget is not None and state.budget.total == budget_total
        loaded = state.loaded()
        for section, phase in loaded.values():
            assert section in ("active", "relevant") and phase in (
                "brief",
                "full",
                "meta",
            )
        if kind == "skill_state_changed":
            assert state.changes and state.changes[-1].name == data["name"]
            assert state.changes[-1].reason == data.get("reason", "")


def test_the_fixture_state_after_every_event_is_the_fold_of_that_prefix() -> None:
    turns = fixture_turns()
    per_turn = all_states(turns)
    flat_records: list[dict[str, Any]] = []
    flat_states: list[ViewState] = []
    for number, states in enumerate(per_turn, start=1):
        events = turns[number - 1]["events"]
        for k in range(len(events) + 1):
            assert state_at(turns, number, k) == states[k]
        flat_records += events
        flat_states += states[1:]
    check_panes_agree(flat_records, flat_states)


def test_a_skill_change_lists_every_change_of_the_turn_with_its_reason() -> None:
    turns = fixture_turns()
    second = state_at(turns, 2)
    recorded = [e for e in turns[1]["events"] if e["type"] == "skill_state_changed"]
    assert [(c.name, c.reason) for c in second.changes] == [
        (e["name"], e["reason"]) for e in recorded
    ]
    assert len(second.changes) >= 2, "the fixture's second turn changes several skills"


async def test_a_fresh_demo_run_folds_live_events_with_every_pane_in_agreement(
    tmp_path: Path,
) -> None:
    engine, seen = demo_engine(tmp_path / "home", window=12_000)
    script = DemoScript.for_engine(engine)
    try:
        while (text := script.next_turn(engine.breakdown.fraction)) is not None:
            await engine.send(text)
    finally:
        script.close()
    records = [r for r in map(live_record, seen.events) if r is not None]
    states, state = [], ViewState()
    for data in records:
        state = apply(state, data)
        states.append(state)
    assert states[-1] == fold(records)
    check_panes_agree(records, states)
    assert any(r["type"] == "compression_applied" for r in records)
    assert any(
        r["type"] == "skill_state_changed" and r.get("new") is None for r in records
    ), "the demo evicts"
    assert len(states[-1].requests) >= len(
        [r for r in records if r["type"] == "turn_started"]
    )
    # the saved session replays to the same skills and budget the live fold ended on
    saved = all_states(engine.session.replay)[-1][-1]
    # (after the story the demo gives the engine its own window back: no turn of the session)
    end = max(i for i, r in enumerate(records) if r["type"] == "turn_finished")
    assert saved.loaded() == states[end].loaded() and saved.budget == states[end].budget


# -- generated sequences --------------------------------------------------------------------------
NAMES = ("alpha", "beta", "gamma")
SECTIONS = (None, "inactive", "relevant", "active")


def _skill_event(name: str, new: str | None, stage: int) -> dict[str, Any]:
    reason = (
        f"evicted at {stage} %: least recently used"
        if new is None
        else f"{new}: confidence 0.50"
    )
    return {
        "type": "skill_state_changed",
        "name": name,
        "old": "relevant",
        "new": new,
        "phase": "full"
        if new == "active"
        else "brief"
        if new == "relevant"
        else "meta",
        "reason": reason,
        "tokens": 40,
    }


events = st.one_of(
    st.builds(
        _skill_event,
        st.sampled_from(NAMES),
        st.sampled_from(SECTIONS),
        st.sampled_from((80, 90, 95)),
    ),
    st.builds(
        lambda total, window: {
            "type": "budget_changed",
            "parts": {"history": total},
            "skills": {},
            "window": window,
            "total": total,
        },
        st.integers(0, 9000),
        st.sampled_from((8192, 128_000)),
    ),
    st.builds(lambda text: {"type": "turn_started", "text": text}, st.text(max_size=5)),
    st.builds(
        lambda text: {"type": "token_streamed", "text": text}, st.text(max_size=5)
    ),
    st.just({"type": "turn_finished"}),
    st.just({"type": "model_request_started"}),
    st.builds(
        lambda stage: {
            "type": "compression_applied",
            "stage": stage,
            "step": "summarised 2 messages",
            "before": 100,
            "after": 50,
        },
        st.sampled_from((80, 90, 95)),
    ),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(events, max_size=40))
@example(
    [_skill_event("alpha", None, 90), _skill_event("alpha", "inactive", 80)]
)  # the mark outlives Inactive
def test_generated_sequences_keep_every_pane_in_agreement(
    records: list[dict[str, Any]],
) -> None:
    states, state = [], ViewState()
    for data in records:
        state = apply(state, data)
        states.append(state)
    check_panes_agree(records, states)
    for k in range(
        len(records) + 1
    ):  # the fold of a prefix is the state reached after it
        assert fold(records[:k]) == (states[k - 1] if k else ViewState())


def test_an_evicted_skill_keeps_its_mark_while_inactive_and_loses_it_when_it_matches_again() -> (
    None
):
    records = [
        _skill_event("alpha", "active", 80),
        _skill_event("alpha", None, 90),
        _skill_event("alpha", "inactive", 80),
        _skill_event("alpha", "inactive", 80),
        _skill_event("alpha", "relevant", 80),
    ]
    marks = [
        (row.state, row.evicted)
        for state in (fold(records[:k]) for k in range(1, 6))
        for row in state.skills
    ]
    assert marks == [
        ("active", ""),
        ("inactive", "evicted at 90 %"),
        ("inactive", "evicted at 90 %"),
        ("inactive", "evicted at 90 %"),
        ("relevant", ""),
    ]


def test_each_skill_change_is_folded_into_its_row_and_a_worded_change() -> None:
    """Found by `make mutate`: the row takes the event's phase, tokens and reason, and the
    change names old → new with the timeline's word for it."""

    def change(
        old: str | None, new: str | None, phase: str, tokens: int
    ) -> dict[str, Any]:
        return {
            "type": "skill_state_changed",
            "name": "alpha",
            "old": old,
            "new": new,
            "phase": phase,
            "reason": f"to {new}",
            "tokens": tokens,
        }

    records = [
        change(None, "relevant", "brief", 180),
        change("relevant", "active", "full", 640),
        change("active", "relevant", "brief", 180),
        change("relevant", "inactive", "meta", 0),
        change("inactive", "active", "full", 640),
        change("active", None, "full", 640),
    ]
    rows, changes = [], []
    for k in range(1, len(records) + 1):
        state = fold(records[:k])
        row = state.skill("alpha")
        rows.append((row.state, row.phase, row.tokens, row.reason))
        last = state.changes[-1]
        changes.append((last.old, last.new, last.phase, last.kind))
    assert rows == [
        ("relevant", "brief", 180, "to relevant"),
        ("active", "full", 640, "to active"),
        ("relevant", "brief", 180, "to relevant"),
        ("inactive", "meta", 0, "to inactive"),
        ("active", "full", 640, "to active"),
        ("inactive", "meta", 640, "to None"),
    ]
    assert changes == [
        ("none", "relevant", "brief", "load"),
        ("relevant", "active", "full", "load"),
        ("active", "relevant", "brief", "demote"),
        ("relevant", "inactive", "meta", "unload"),
        ("inactive", "active", "full", "load"),
        ("active", "evicted", "full", "evict"),
    ]


def test_an_unreadable_event_becomes_a_notice_not_an_exception() -> None:
    state = apply(
        ViewState(), {"type": "budget_changed", "parts": "nonsense", "total": "x"}
    )
    assert (
        state.conversation[-1].kind == "notice"
        and "skipped" in state.conversation[-1].text
    )
