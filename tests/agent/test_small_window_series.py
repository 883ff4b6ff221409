"""Issue 22 item 7: at ``context.window: 4000`` (a small local model's window) compression makes
room before it refuses — six short questions in one ``ask --session`` series are all answered,
and every compression they need is an event that ``ask``, the captions and replay show."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from aiq_tui.cli import main
from aiq_tui.locations import Home

SERIES = (
    "show the tables in the sample database",
    "which books sell best",
    "list all customers with their orders",
    "show every order with its items",
    "how many orders are there",
    "what is in stock",
)


def _ask(
    question: str, session: str | None, capsys: pytest.CaptureFixture[str]
) -> tuple[int, list[dict]]:
    argv = ["ask", "--json", "--yes", question] + (
        ["--session", session] if session else []
    )
    code = main(argv)
    return code, [json.loads(line) for line in capsys.readouterr().out.splitlines()]


@pytest.fixture
def series(
    isolated_home: Home, capsys: pytest.CaptureFixture[str]
) -> tuple[str, list[tuple[int, list[dict]]]]:
    config = Path(isolated_home.root) / "config"
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.yaml").write_text("context:\n  window: 4000\n", encoding="utf-8")
    runs: list[tuple[int, list[dict]]] = []
    session: str | None = None
    for question in SERIES:
        code, events = _ask(question, session, capsys)
        runs.append((code, events))
        session = session or events[-1]["session_id"]
    assert session is not None
    return session, runs


def test_six_questions_at_a_4000_token_window_are_all_answered(series) -> None:
    _, runs = series
    refused = [
        (SERIES[i], e["message"])
        for i, (_, events) in enumerate(runs)
        for e in events
        if e["type"] == "error_raised"
    ]
    assert refused == []
    assert [code for code, _ in runs] == [0] * len(SERIES)
    for _, events in runs:
        finished = [e for e in events if e["type"] == "turn_finished"]
        assert len(finished) == 1 and finished[0]["text"].startswith("[demo model]")
        for budget in (e["breakdown"] for e in events if e["type"] == "budget_changed"):
            assert budget["window"] == 4000


def test_every_request_sent_fits_the_window(series) -> None:
    _, runs = series
    for _, events in runs:
        # The budget just before each model request (the last budget_changed before streaming).
        last_budget = None
        for event in events:
            if event["type"] == "budget_changed":
                last_budget = event["breakdown"]
            elif event["type"] == "token_streamed" and last_budget is not None:
                assert last_budget["total"] <= 4000
                last_budget = None


def test_old_tool_results_are_cleared_to_their_extract_before_anything_is_refused(
    series,
) -> None:
    _, runs = series
    steps = [
        e["step"]
        for _, events in runs
        for e in events
        if e["type"] == "compression_applied"
    ]
    assert any(
        step.startswith("cleared") and "tool result" in step and "extract" in step
        for step in steps
    ), steps
    for _, events in runs:
        for event in (e for e in events if e["type"] == "compression_applied"):
            assert event["after"] < event["before"], event["step"]
            assert "tokens)" in event["step"], "each step says what it saved"


def test_every_compression_is_in_the_replay_of_the_session(
    series, capsys: pytest.CaptureFixture[str]
) -> None:
    session, runs = series
    steps = [
        e["step"]
        for _, events in runs
        for e in events
        if e["type"] == "compression_applied"
    ]
    assert steps
    assert main(["replay", session]) == 0
    text = capsys.readouterr().out
    for step in steps:
        assert step in text
    assert "error:" not in text


def test_replay_shows_each_turns_own_answer_and_no_phantom_reload(
    series, capsys: pytest.CaptureFixture[str]
) -> None:
    session, runs = series
    assert main(["replay", session]) == 0
    text = capsys.readouterr().out
    turns = text.split("\nturn ")[1:]
    assert len(turns) == len(SERIES)
    for turn, (_, events) in zip(turns, runs):
        finished = next(e for e in events if e["type"] == "turn_finished")["text"]
        answer = next(
            line for line in turn.splitlines() if line.startswith("  answer: ")
        )
        assert " ".join(finished.split())[:100] in answer
    # sql-explorer is Active from turn 1 on: resuming the session for a later turn does not
    # show it loading again (nor unloading first).
    assert text.count("skill sql-explorer: inactive → active") == 1
    assert "skill sql-explorer: active → inactive" not in text


def test_a_refused_turn_shows_its_refusal_not_the_previous_answer(
    isolated_home: Home, capsys: pytest.CaptureFixture[str]
) -> None:
    config = Path(isolated_home.root) / "config"
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.yaml").write_text("context:\n  window: 4000\n", encoding="utf-8")
    code, first = _ask("how many customers are there?", None, capsys)
    session = first[-1]["session_id"]
    code, second = _ask("please read this " + "enormous " * 4000, session, capsys)
    assert code == 1
    error = next(e for e in second if e["type"] == "error_raised")["message"]
    assert error.startswith("not sent:") and "still" in error and "tokens over" in error
    assert next(e for e in second if e["type"] == "turn_finished")["text"] == ""
    assert main(["replay", session]) == 0
    refused = capsys.readouterr().out.split("\nturn 2: ")[1]
    assert "error: not sent:" in refused
    assert "answer:" not in refused


def test_every_compression_has_a_caption_naming_its_stage_and_what_it_saved(
    series, capsys: pytest.CaptureFixture[str]
) -> None:
    from aiq_tui.replay.captions import captions

    session, runs = series
    for _, events in runs:  # the live stream (ask --json lines)
        texts = captions(events)
        for event, text in zip(events, texts):
            if event["type"] == "compression_applied":
                # clearing older tool results is the first stage's work, done first at every stage
                stage = (
                    "80 first"
                    if event["step"].startswith("cleared ")
                    and event["plan"]["stage"] > 80
                    else event["plan"]["stage"]
                )
                assert (
                    text is not None
                    and f"stage {stage}: " in text
                    and "tokens)" in text
                )
    assert (
        main(["replay", session, "--captions"]) == 0
    )  # and the saved session, step by step
    replayed = capsys.readouterr().out
    steps = [
        e["step"]
        for _, events in runs
        for e in events
        if e["type"] == "compression_applied"
    ]
    step_captions = [
        line
        for line in replayed.splitlines()
        if re.match(
            r"\s*\d+\.\d+\s+(\d+ % ≥ \d+ % → )?stage \d+(?: first)?: .*tokens\)", line
        )
    ]
    assert len(step_captions) == len(steps)
    assert "Refused" not in replayed
