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
