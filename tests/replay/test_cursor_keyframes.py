"""The time cursor keeps the events and a keyframe state every KEYFRAME_EVERY events, not a state
per event (issue 32): any event's state is folded again from the keyframe before it, and is the
same state the fold of the events up to it gives."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from aiq_tui.replay.cursor import KEYFRAME_EVERY, TimeCursor
from aiq_tui.replay.state import fold

FIXTURE = Path(__file__).parent / "fixtures" / "session_demo.json"


def records(copies: int) -> list[dict[str, Any]]:
    session = json.loads(FIXTURE.read_text(encoding="utf-8"))
    once = [
        dict(event) for turn in session["replay"]["turns"] for event in turn["events"]
    ]
    return once * copies


def test_a_long_cursor_holds_a_state_per_keyframe_not_per_event() -> None:
    cursor = TimeCursor()
    for record in records(20):
        cursor.add(record)
    events = len(cursor.records)
    assert events > 20 * KEYFRAME_EVERY
    assert cursor.kept <= events // KEYFRAME_EVERY + 2, (
        "a state per keyframe (and the head)"
    )


def test_every_event_s_state_is_the_fold_of_the_events_up_to_it() -> None:
    events = records(3)
    cursor = TimeCursor()
    for record in events:
        cursor.add(record)
    assert len(cursor.states) == len(events)
    for index in range(len(events)):
        assert cursor.states[index] == fold(events[: index + 1]), index
    assert cursor.states[-1] is cursor.head


def test_stepping_back_and_forth_shows_each_event_s_fold_and_keeps_showing_the_same_object() -> (
    None
):
    events = records(2)
    cursor = TimeCursor()
    for record in events:
        cursor.add(record)
    cursor.pause()
    for delta in [-1] * (2 * KEYFRAME_EVERY + 3) + [1] * 5 + [-7, 9, -40]:
        cursor.step(delta)
        shown = cursor.shown
        assert shown == fold(events[: cursor.index + 1]), cursor.index
        assert cursor.shown is shown, "the view compares what it drew by identity"


def test_a_turn_step_lands_on_the_turn_ends_around_the_cursor() -> None:
    events = records(2)
    cursor = TimeCursor()
    for record in events:
        cursor.add(record)
    ends = [i for i, record in enumerate(events) if record["type"] == "turn_finished"]
    cursor.pause()
    cursor.turn(-1)
    assert cursor.index == max(i for i in ends if i < len(events) - 1)
    cursor.position = ends[1]
    cursor.turn(-1)
    assert cursor.index == ends[0]
    cursor.turn(1)
    assert cursor.index == ends[1]
    cursor.position = ends[0] - 1
    cursor.turn(1)
    assert cursor.index == ends[0]


def test_a_fresh_story_folds_its_first_event_over_the_old_head() -> None:
    cursor = TimeCursor()
    for record in records(1):
        cursor.add(record)
    reset = {"type": "reset", "session": "resumed"}
    fresh = cursor.fresh(reset)
    assert fresh.records == [reset] and not fresh.paused
    assert fresh.head == fold([reset], cursor.head) and fresh.states[0] is fresh.head


def test_a_day_long_cursor_keeps_a_bounded_number_of_states_and_each_event_s_fold() -> (
    None
):
    """Past MAX_KEYFRAMES the spacing doubles: the cursor's states stay bounded however long the
    session, and every event's state is still the fold of the events up to it."""
    from aiq_tui.replay.cursor import MAX_KEYFRAMES
    from aiq_tui.replay.state import ViewState, apply

    once = records(1)
    events = once * (
        1 + 5 * MAX_KEYFRAMES * KEYFRAME_EVERY // len(once)
    )  # two doublings and more
    cursor = TimeCursor()
    for record in events:
        cursor.add(record)
    assert cursor.kept <= MAX_KEYFRAMES + 2, (
        "the keyframes (and the head), however many events"
    )
    samples = set(range(0, len(events), 97)) | {
        len(events) - 2,
        2 * MAX_KEYFRAMES * KEYFRAME_EVERY - 1,
    }
    state = ViewState()
    for index, record in enumerate(
        events
    ):  # the fold, once through, compared where sampled
        state = apply(state, record)
        if index in samples:
            assert cursor.at(index) == state, index
    cursor.pause()
    for delta in (-1, -1, -300, 5, -1):
        cursor.step(delta)
        assert cursor.shown == fold(events[: cursor.index + 1]), cursor.index


def test_stepping_back_event_by_event_folds_each_event_about_once(monkeypatch) -> None:
    """A ← refolds from the keyframe before it; the states folded on the way are kept for the
    next ←, so walking back through a session costs its events, not its events times the spacing
    (at turn 300 of the soak a step refolded 17 events, 4 ms)."""
    import aiq_tui.replay.cursor as cursor_module

    events = records(20)
    cursor = TimeCursor()
    for record in events:
        cursor.add(record)
    cursor.pause()
    folded = []
    real_apply = cursor_module.apply
    monkeypatch.setattr(
        cursor_module,
        "apply",
        lambda state, record: folded.append(1) or real_apply(state, record),
    )
    steps = 4 * KEYFRAME_EVERY
    for _ in range(steps):
        cursor.step(-1)
        assert cursor.shown == fold(events[: cursor.index + 1])
    assert len(folded) <= steps + 2 * cursor._every, (
        f"{len(folded)} folds for {steps} steps back"
    )
    before = len(folded)
    for _ in range(
        3 * KEYFRAME_EVERY
    ):  # and forward again: one fold per step, whatever the run holds
        cursor.step(1)
    assert len(folded) - before <= 3 * KEYFRAME_EVERY
    assert cursor.shown == fold(events[: cursor.index + 1])


def test_a_state_that_is_a_keyframe_itself_and_the_steps_around_it() -> None:
    """The event just before a keyframe's spacing ends is the keyframe's own state (nothing to
    refold); stepping on from it folds on as from any other."""
    events = records(3)
    cursor = TimeCursor()
    for record in events:
        cursor.add(record)
    cursor.pause()
    on_keyframe = 2 * KEYFRAME_EVERY - 1
    cursor.step(on_keyframe - cursor.index)
    assert cursor.index == on_keyframe and cursor.shown == fold(
        events[: on_keyframe + 1]
    )
    for delta in (1, 1, -1, -1, -1, 1):
        cursor.step(delta)
        assert cursor.shown == fold(events[: cursor.index + 1]), cursor.index
