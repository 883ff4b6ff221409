"""``aiq-tui replay``: a committed session replays the same way every time, headless."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from aiq_tui.cli import main

FIXTURE = Path(__file__).parent / "fixtures" / "session_demo.json"


def test_text_replay_tells_each_turn(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(FIXTURE)]) == 0
    out = capsys.readouterr().out
    assert "3 turn(s)" in out
    assert "turn 2: make a markdown report from the query results" in out
    assert (
        "skill data-report: relevant → active (full, 370 tokens) — loaded full: confidence 0.79 ≥ 0.7"
        in out
    )
    assert "budget 5,510 / 8,192 (67%)" in out


def test_json_prints_the_state_after_each_turn_and_turn_selects_one(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["replay", str(FIXTURE), "--json"]) == 0
    every = json.loads(capsys.readouterr().out)
    assert [s["turn"] for s in every["states"]] == [1, 2, 3]
    assert main(["replay", str(FIXTURE), "--json", "--turn", "2"]) == 0
    [second] = json.loads(capsys.readouterr().out)["states"]
    assert second == every["states"][1]
    active = {s["name"] for s in second["skills"] if s["state"] == "active"}
    assert active == {"data-report"}
    assert second["budget"]["total"] == 5510


def test_a_saved_session_is_found_by_id_prefix(
    capsys: pytest.CaptureFixture[str], isolated_home
) -> None:
    isolated_home.sessions_dir.mkdir(parents=True, exist_ok=True)
    shutil.copy(
        FIXTURE, isolated_home.sessions_dir / "session_20250102120000-demo01.json"
    )
    assert main(["replay", "20250102120000-de", "--turn", "1"]) == 0
    assert "turn 1: show the tables in the sample database" in capsys.readouterr().out


def test_usage_and_missing_sessions(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(FIXTURE), "--turn", "9"]) == 2
    assert "out of range" in capsys.readouterr().err
    assert main(["replay", "no-such-session"]) == 2, (
        "an id that names no session is a usage error, as in sessions show"
    )
    assert "no session" in capsys.readouterr().err


def test_svg_writes_one_screenshot_per_turn(tmp_path: Path) -> None:
    assert main(["replay", str(FIXTURE), "--svg", str(tmp_path / "shots")]) == 0
    shots = sorted(p.name for p in (tmp_path / "shots").glob("*.svg"))
    assert shots == ["turn-01.svg", "turn-02.svg", "turn-03.svg"]
    import html

    assert "turn 2/3" in html.unescape(
        (tmp_path / "shots" / "turn-02.svg").read_text()
    ).replace("\xa0", " ")


def test_a_session_saved_before_replay_replays_its_conversation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = json.loads(FIXTURE.read_text(encoding="utf-8"))
    del old["replay"]
    path = tmp_path / "session_old.json"
    path.write_text(json.dumps(old), encoding="utf-8")
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert "recorded before replay: conversation only" in out
    assert "turn 3: thanks, and what about http requests to an api?" in out


def test_event_k_prints_the_state_after_that_event_with_the_turn_fields(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from aiq_tui.replay.state import state_at

    turns = json.loads(FIXTURE.read_text(encoding="utf-8"))["replay"]["turns"]
    assert main(["replay", str(FIXTURE), "--turn", "1", "--event", "4", "--json"]) == 0
    [state] = json.loads(capsys.readouterr().out)["states"]
    assert state == json.loads(json.dumps(state_at(turns, 1, 4).to_json()))
    assert main(["replay", str(FIXTURE), "--turn", "1", "--json"]) == 0
    [whole] = json.loads(capsys.readouterr().out)["states"]
    assert set(state) == set(whole) and state["event"] == 4
    assert main(["replay", str(FIXTURE), "--turn", "1", "--event", "99"]) == 2
    assert "out of range" in capsys.readouterr().err
    assert main(["replay", str(FIXTURE), "--event", "2"]) == 2
    assert "--event needs --turn" in capsys.readouterr().err


def test_every_event_of_a_demo_session_agrees_with_itself(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = json.loads(
        (Path(__file__).parents[1] / "ui" / "fixtures" / "demo_records.json").read_text(
            "utf-8"
        )
    )
    turns, current = [], []
    for record in records:
        current.append(record)
        if record["type"] == "turn_finished":
            turns.append({"at": "2025-01-02T12:00:00+00:00", "events": current})
            current = []
    session = json.loads(FIXTURE.read_text(encoding="utf-8"))
    session["replay"] = {"version": 1, "turns": turns}
    path = tmp_path / "session_demo_run.json"
    path.write_text(json.dumps(session), encoding="utf-8")
    budget = None
    for number, turn in enumerate(turns, 1):
        for k, event in enumerate(turn["events"], 1):
            assert (
                main(
                    [
                        "replay",
                        str(path),
                        "--turn",
                        str(number),
                        "--event",
                        str(k),
                        "--json",
                    ]
                )
                == 0
            )
            [state] = json.loads(capsys.readouterr().out)["states"]
            budget = event["total"] if event["type"] == "budget_changed" else budget
            if event["type"] == "compression_applied" and budget is not None:
                budget = min(budget, event["after"])  # the gauge follows each step
            evicted = {s["name"] for s in state["skills"] if s["evicted"]}
            loaded = {
                s["name"]
                for s in state["skills"]
                if s["state"] in ("active", "relevant")
            }
            assert not evicted & loaded, (number, k, evicted & loaded)
            assert budget is None or state["budget"]["total"] == budget, (number, k)
