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
    assert "skill data-report: relevant → active (full, 370 tokens) — loaded full: confidence 0.79 ≥ 0.7" in out
    assert "budget 5,510 / 8,192 (67%)" in out


def test_json_prints_the_state_after_each_turn_and_turn_selects_one(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(FIXTURE), "--json"]) == 0
    every = json.loads(capsys.readouterr().out)
    assert [s["turn"] for s in every["states"]] == [1, 2, 3]
    assert main(["replay", str(FIXTURE), "--json", "--turn", "2"]) == 0
    [second] = json.loads(capsys.readouterr().out)["states"]
    assert second == every["states"][1]
    active = {s["name"] for s in second["skills"] if s["state"] == "active"}
    assert active == {"data-report"}
    assert second["budget"]["total"] == 5510


def test_a_saved_session_is_found_by_id_prefix(capsys: pytest.CaptureFixture[str], isolated_home) -> None:
    isolated_home.sessions_dir.mkdir(parents=True, exist_ok=True)
    shutil.copy(FIXTURE, isolated_home.sessions_dir / "session_20250102120000-demo01.json")
    assert main(["replay", "20250102120000-de", "--turn", "1"]) == 0
    assert "turn 1: show the tables in the sample database" in capsys.readouterr().out


def test_usage_and_missing_sessions(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(FIXTURE), "--turn", "9"]) == 2
    assert "out of range" in capsys.readouterr().err
    assert main(["replay", "no-such-session"]) == 1
    assert "no session" in capsys.readouterr().err


def test_svg_writes_one_screenshot_per_turn(tmp_path: Path) -> None:
    assert main(["replay", str(FIXTURE), "--svg", str(tmp_path / "shots")]) == 0
    shots = sorted(p.name for p in (tmp_path / "shots").glob("*.svg"))
    assert shots == ["turn-01.svg", "turn-02.svg", "turn-03.svg"]
    import html

    assert "turn 2/3" in html.unescape((tmp_path / "shots" / "turn-02.svg").read_text()).replace("\xa0", " ")


def test_a_session_saved_before_replay_replays_its_conversation(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    old = json.loads(FIXTURE.read_text(encoding="utf-8"))
    del old["replay"]
    path = tmp_path / "session_old.json"
    path.write_text(json.dumps(old), encoding="utf-8")
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert "recorded before replay: conversation only" in out
    assert "turn 3: thanks, and what about http requests to an api?" in out
