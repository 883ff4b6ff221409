"""Session files are input, never authority (issue 23, finding 11 held out): whatever shape a
file in ``sessions/`` has — nested a hundred thousand deep, a list where an object belongs,
``1e999`` tokens, replay events with fields of the wrong type, an id full of escape sequences —
``sessions list|show|export`` and ``replay`` (text, ``--json`` and the TUI) report it and go on;
none of them ends in a traceback, and one bad file never hides the others."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aiq_tui.cli import main
from aiq_tui.locations import Home

GOOD_ID = "20250101000000-aaaaaa"
BAD_ID = "20250101000000-bbbbbb"


def _good(**fields: object) -> dict:
    return {"id": BAD_ID, "version": 1, "title": "t", "messages": [], **fields}


MALFORMED = {
    "nested a hundred thousand deep": "[" * 100_000 + "]" * 100_000,
    "a list at the top": json.dumps([1, 2]),
    "infinite tokens": json.dumps(_good(tokens={"window": 1e999})),
    "skill states as a list": json.dumps(_good(skill_states=[1])),
    "a skill state as a string": json.dumps(_good(skill_states={"x": "active"})),
    "an id with escape sequences": json.dumps(_good(id="\x1b]0;owned\x07")),
}

EVENTS = [
    {
        "type": "skills_matched",
        "matches": ["not an object", {"name": "x", "score": "high"}],
    },
    {
        "type": "skills_matched",
        "matches": [{"name": "x", "score": 0.5, "confidence": None}],
        "total": 1,
    },
    {"type": "budget_changed", "parts": {"history": "many"}, "window": {}},
    {"type": "compression_applied", "before": "x", "after": [1]},
    {"type": "tool_call_finished", "name": "x", "duration_s": {"a": 1}},
    {"type": "turn_started", "at": 7, "text": {"nested": True}},
    {"type": "retry_scheduled", "delay_s": "\ud800"},
    "not an event",
    {"type": "catalog_reloaded", "added": True},
]


@pytest.fixture
def sessions(
    isolated_home: Home, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Path:
    isolated_home.ensure()
    monkeypatch.chdir(tmp_path)
    good = {"id": GOOD_ID, "version": 1, "title": "the good one", "messages": []}
    (isolated_home.sessions_dir / f"session_{GOOD_ID}.json").write_text(
        json.dumps(good)
    )
    return isolated_home.sessions_dir


@pytest.mark.parametrize("text", list(MALFORMED.values()), ids=list(MALFORMED))
def test_a_malformed_session_file_is_reported_and_the_rest_still_listed(
    sessions: Path, text: str, capsys
) -> None:
    (sessions / f"session_{BAD_ID}.json").write_text(text)
    for argv in (["sessions", "list"], ["sessions", "list", "--json"]):
        assert main(argv) in (0, 1)
        out = capsys.readouterr()
        assert GOOD_ID in out.out
        assert "\x1b" not in out.out + out.err
    for argv in (
        ["sessions", "show", BAD_ID],
        ["sessions", "export", BAD_ID],
        ["replay", BAD_ID],
        ["replay", str(sessions / f"session_{BAD_ID}.json")],
    ):
        assert main(argv) == 1, argv
        err = capsys.readouterr().err
        assert "cannot read session" in err
        assert "\x1b" not in err


def test_replay_events_of_the_wrong_shape_are_named_not_raised(
    sessions: Path, capsys
) -> None:
    data = _good(
        replay={
            "version": 1,
            "turns": [{"at": "2025-01-01T00:00:00", "events": EVENTS}],
        }
    )
    (sessions / f"session_{BAD_ID}.json").write_text(json.dumps(data))
    assert main(["replay", BAD_ID]) == 0
    text = capsys.readouterr().out
    assert "unreadable shape" in text
    assert main(["replay", BAD_ID, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["turns"] == 1


async def test_the_tui_replay_of_malformed_events_draws_every_turn(
    tmp_path: Path,
) -> None:
    from aiq_tui.ui.screens.replay import ReplayApp

    turns = [
        {"at": "2025-01-01T00:00:00", "events": EVENTS},
        {"events": [{"type": "turn_started", "text": "next"}]},
    ]
    app = ReplayApp(turns, "hostile", turn=1)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        await app.replay.go(2)
        await pilot.pause()
        assert "next" in app.export_screenshot()
