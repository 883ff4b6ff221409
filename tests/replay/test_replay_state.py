"""Replay rebuilds, from the saved events alone, exactly the state the live run showed."""

from __future__ import annotations

import json
from pathlib import Path

from aiq_tui.agent.sessions import Session, SessionStore
from aiq_tui.conversation import Message, Role
from aiq_tui.replay.record import REPLAY_VERSION, load_turns
from aiq_tui.replay.state import event_count, state_at, turn_states, turns_from_messages
from aiq_tui.skills.model import SkillState
from tests.agent.helpers import demo_engine

TURNS = (
    "show the tables in the sample database",
    "make a markdown report from the query results",
    "thanks, and what about http requests to an api?",
)


def live_view(engine) -> dict:
    loaded = {
        v.name: (v.state.value, v.phase.label)
        for v in engine.skill_views()
        if v.state is not SkillState.INACTIVE
    }
    answers = [
        m.content
        for m in engine.session.messages
        if m.role is Role.ASSISTANT and m.content
    ]
    users = [m.content for m in engine.session.messages if m.role is Role.USER]
    return {
        "loaded": loaded,
        "parts": engine.breakdown.parts(),
        "window": engine.breakdown.window,
        "users": users,
        "answers": answers,
    }


def replay_view(state) -> dict:
    return {
        "loaded": state.loaded(),
        "parts": state.budget.parts,
        "window": state.budget.window,
        "users": [e.text for e in state.conversation if e.kind == "user"],
        "answers": [e.text for e in state.conversation if e.kind == "answer"],
    }


async def test_replay_of_the_saved_session_equals_the_live_run_turn_by_turn(
    tmp_path: Path,
) -> None:
    engine, _ = demo_engine(tmp_path / "home")
    live = []
    for text in TURNS:
        await engine.send(text)
        live.append(live_view(engine))
    saved = SessionStore(engine.sessions.directory).load(engine.session.id)
    assert len(saved.replay) == len(TURNS)
    states = turn_states(saved.replay)
    assert [replay_view(s) for s in states] == live
    assert any(state.loaded() for state in states), "the demo run loads skills"
    # state_at (what --turn and the scrubber use) agrees with the one-pass fold
    assert state_at(saved.replay, 2) == states[1]


async def test_stepping_event_by_event_shows_the_turn_unfold(tmp_path: Path) -> None:
    engine, _ = demo_engine(tmp_path / "home")
    await engine.send(TURNS[0])
    turns = SessionStore(engine.sessions.directory).load(engine.session.id).replay
    first = state_at(turns, 1, 1)
    assert (
        first.last_event == "turn_started" and first.conversation[-1].text == TURNS[0]
    )
    assert first.budget is None and not first.skills
    kinds = [
        state_at(turns, 1, n).last_event for n in range(1, event_count(turns, 1) + 1)
    ]
    assert (
        kinds[0] == "turn_started"
        and kinds[1] == "skills_matched"
        and kinds[-1] == "turn_finished"
    )
    assert (
        "token_streamed" in kinds
        and kinds.count("token_streamed") <= kinds.count("tool_call_finished") + 1
    )


async def test_events_are_saved_compactly_with_a_version(tmp_path: Path) -> None:
    engine, _ = demo_engine(tmp_path / "home")
    await engine.send(TURNS[0])
    data = json.loads(engine.sessions.path_for(engine.session.id).read_text())
    assert data["replay"]["version"] == REPLAY_VERSION
    events = data["replay"]["turns"][0]["events"]
    assert all("dt" in e for e in events)
    assert not any(e["type"] == "session_saved" for e in events)
    streamed = [i for i, e in enumerate(events) if e["type"] == "token_streamed"]
    assert all(
        events[i + 1]["type"] != "token_streamed"
        for i in streamed
        if i + 1 < len(events)
    )
    matched = next(e for e in events if e["type"] == "skills_matched")
    assert len(matched["matches"]) <= 10 and matched["query"] == TURNS[0]


def test_an_old_session_without_events_loads_and_replays_its_messages(
    tmp_path: Path,
) -> None:
    old = {
        "version": 1,
        "id": "old-1",
        "messages": [
            Message(Role.USER, "hello", id="m1").to_json(),
            Message(Role.ASSISTANT, "hi there", id="m2").to_json(),
        ],
    }
    session = Session.from_json(old)
    assert session.replay == []
    states = turn_states(turns_from_messages(session.messages))
    assert [(e.kind, e.text) for e in states[-1].conversation] == [
        ("user", "hello"),
        ("answer", "hi there"),
    ]


def test_a_newer_or_broken_replay_format_is_ignored_not_fatal() -> None:
    assert load_turns({"version": REPLAY_VERSION + 1, "turns": [{"events": []}]}) == []
    assert load_turns({"version": "x"}) == []
    assert load_turns(None) == []
    assert load_turns({"version": 1, "turns": [{"events": []}, "junk"]}) == [
        {"events": []}
    ]


async def test_a_cleared_session_does_not_replay_the_previous_sessions_skills(
    tmp_path: Path,
) -> None:
    engine, _ = demo_engine(tmp_path / "home")
    await engine.send(TURNS[0])
    engine.clear()
    await engine.send("thanks, and what about http requests to an api?")
    [turn] = engine.session.replay
    names = {e["name"] for e in turn["events"] if e["type"] == "skill_state_changed"}
    assert "sql-explorer" not in names and "http-api" in names
    assert turn["events"][0]["type"] == "turn_started"


async def test_a_skill_activated_before_the_question_is_part_of_the_turn(
    tmp_path: Path,
) -> None:
    engine, _ = demo_engine(tmp_path / "home")
    assert await engine.activate("file-notes")
    await engine.send(TURNS[0])
    [turn] = engine.session.replay
    first = turn["events"][0]
    assert (
        first["type"] == "skill_state_changed"
        and first["name"] == "file-notes"
        and first["dt"] == 0.0
    )
    assert turn_states(engine.session.replay)[0].loaded()["file-notes"][0] == "active"
