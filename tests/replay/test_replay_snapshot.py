"""A committed session is a fixture: its replayed screens are compared with committed snapshots,
so a UI regression shows up on a real conversation. Regenerate with --snapshot-update."""

from __future__ import annotations

import json
from pathlib import Path

from textual.pilot import Pilot

from aiq_tui.agent.sessions import Session
from aiq_tui.ui.screens.replay import ReplayApp

FIXTURE = Path(__file__).parent / "fixtures" / "session_demo.json"
SIZE = (120, 36)


def replay_app(turn: int) -> ReplayApp:
    session = Session.from_json(json.loads(FIXTURE.read_text(encoding="utf-8")))
    app = ReplayApp(session.replay, session.display_title, turn=turn)
    app.animation_level = "none"
    return app


def test_turn_two_of_the_demo_session(snap_compare) -> None:
    assert snap_compare(replay_app(2), terminal_size=SIZE)


def test_mid_turn_after_the_skills_loaded(snap_compare) -> None:
    async def run_before(pilot: Pilot) -> None:
        await pilot.pause()
        await pilot.app.replay.go(1, 4)  # question, match, two skills loaded
        await pilot.pause()

    assert snap_compare(replay_app(1), terminal_size=SIZE, run_before=run_before)


def demo_turns() -> list[dict]:
    """A recorded /demo run (tests/ui/fixtures/demo_records.json) as a session's turns."""
    records = json.loads(
        (Path(__file__).parents[1] / "ui" / "fixtures" / "demo_records.json").read_text(
            "utf-8"
        )
    )
    turns: list[dict] = []
    current: list[dict] = []
    for record in records:
        current.append(record)
        if record["type"] == "turn_finished":
            turns.append({"at": "2025-01-02T12:00:00+00:00", "events": current})
            current = []
    return turns


def test_just_after_an_eviction(snap_compare) -> None:
    turns = demo_turns()
    turn, event = next(
        (t, k)
        for t, record in enumerate(turns, 1)
        for k, e in enumerate(record["events"], 1)
        if e["type"] == "skill_state_changed" and e.get("new") is None
    )

    async def run_before(pilot: Pilot) -> None:
        await pilot.pause()
        await pilot.app.replay.go(turn, event)
        await pilot.pause()

    app = ReplayApp(turns, "the /demo story", turn=turn)
    app.animation_level = "none"
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
