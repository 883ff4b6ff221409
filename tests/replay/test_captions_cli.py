"""The captions from the command line: ``aiq-tui demo`` plays the ``/demo`` story headless with
one caption per step, and ``aiq-tui replay SESSION --captions`` tells a saved session the same way."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from aiq_tui.cli import main
from aiq_tui.locations import Home

FIXTURE = Path(__file__).parent / "fixtures" / "session_demo.json"
STEP = re.compile(r"^\s*(\d+)\.(\d+)\s+(.*)$")


def _steps(out: str) -> list[tuple[int, int, str]]:
    return [
        (int(m.group(1)), int(m.group(2)), m.group(3))
        for m in map(STEP.match, out.splitlines())
        if m
    ]


def test_replay_captions_tells_a_saved_session_step_by_step_then_sums_it_up(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["replay", str(FIXTURE), "--captions"]) == 0
    out = capsys.readouterr().out
    steps = _steps(out)
    assert steps[0][:2] == (1, 1) and steps[0][2].startswith("turn 1: you ask ")
    assert (
        2,
        3,
        "data-report: relevant (brief) → active (full), matched 'result' 'markdown' 0.79 "
        "— climbs from brief to full",
    ) in steps
    assert {turn for turn, _, _ in steps} == {1, 2, 3}
    assert "What happened: 3 turns on a 8,192-token window." in out
    assert "aiq-tui replay " in out and "F4 → r" in out


def test_replay_captions_with_turn_shows_only_that_turns_steps(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["replay", str(FIXTURE), "--captions", "--turn", "2"]) == 0
    out = capsys.readouterr().out
    steps = _steps(out)
    assert steps and {turn for turn, _, _ in steps} == {2}
    assert "What happened" not in out
    assert main(["replay", str(FIXTURE), "--captions", "--turn", "7"]) == 2
    assert "out of range" in capsys.readouterr().err


@pytest.fixture
def demo_run(
    isolated_home: Home, capsys: pytest.CaptureFixture[str]
) -> tuple[str, str]:
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    session = re.search(r"aiq-tui replay (\S+)`", out)
    assert session is not None
    return out, session.group(1)


def test_demo_plays_the_story_headless_with_a_caption_per_step_and_a_summary(
    demo_run,
) -> None:
    out, _ = demo_run
    texts = [text for _, _, text in _steps(out)]
    assert texts[0].startswith('turn 1: you ask "Use the sql-explorer skill: show the ')
    for stage in (80, 90, 95):
        assert any(re.search(rf"(?:^|% → )stage {stage}[: ]", t) for t in texts), stage
    assert any("relevant but not used" in t for t in texts)
    assert "What happened: " in out and "Compression:" in out


def test_the_saved_demo_replays_with_the_same_captions_and_step_numbers(
    demo_run, capsys: pytest.CaptureFixture[str]
) -> None:
    out, session = demo_run
    assert main(["replay", session, "--captions"]) == 0
    replayed = capsys.readouterr().out
    assert _steps(replayed) == _steps(out)


def test_demo_json_prints_one_line_per_step_then_the_summary(
    isolated_home: Home, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["demo", "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    steps, summary = lines[:-1], lines[-1]
    assert all(set(s) == {"turn", "event", "type", "caption"} for s in steps)
    assert summary["type"] == "summary" and summary["stages"] == [80, 90, 95]
    assert (
        summary["text"].startswith("What happened: ")
        and summary["session"] in summary["text"]
    )


def test_demo_refuses_another_provider(
    isolated_home: Home, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--provider", "openai", "demo"]) == 2
    assert "demo model" in capsys.readouterr().err


def test_demo_plays_on_the_demo_model_whatever_provider_the_config_makes_the_default(
    isolated_home: Home, capsys: pytest.CaptureFixture[str]
) -> None:
    config = Path(isolated_home.root) / "config"
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.yaml").write_text(
        "llm:\n  provider: openai\ncontext:\n  window: 12000\n", encoding="utf-8"
    )
    assert main(["demo", "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    summary = lines[-1]
    assert summary["stages"] == [80, 90, 95] and "8,192-token window" in summary["text"]
    assert lines[0] == {
        "type": "note",
        "text": "the demo runs on the demo model's 8,192-token window "
        "(yours, 12,000, is back when it ends)",
    }
