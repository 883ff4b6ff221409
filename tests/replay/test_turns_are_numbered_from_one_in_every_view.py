"""One turn numbering, from 1, in every view: the paused live view, the captions, the
end-of-demo summary and ``replay``. What comes before the first question is no "turn 0", and
a demo run after a question of one's own numbers its turns as the session does (2, 3, 4 in
the captions, the summary and ``replay --captions`` alike)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from test_replay_snapshot import demo_turns

from aiq_tui.replay.captions import captions, demo_summary
from aiq_tui.replay.cursor import TimeCursor
from aiq_tui.ui.cursor_control import paused_bar


def flat_records() -> list[dict]:
    return [dict(event) for turn in demo_turns() for event in turn["events"]]


def test_the_paused_bar_never_says_turn_0() -> None:
    cursor = TimeCursor()
    first_budget = next(r for r in flat_records() if r["type"] == "budget_changed")
    for record in [first_budget, *flat_records()]:  # live: a budget before any question
        cursor.add(record)
    cursor.pause()
    cursor.step(-len(cursor.states))
    assert cursor.shown.turn == 0
    bar = paused_bar(cursor)
    assert "turn 0" not in bar and "before the first question" in bar
    first_question = next(
        i for i, r in enumerate(cursor.records) if r["type"] == "turn_started"
    )
    cursor.step(first_question)
    assert "· turn 1 ·" in paused_bar(cursor)


def test_a_demo_after_a_question_numbers_its_turns_as_the_captions_do() -> None:
    records = flat_records()
    starts = [i for i, r in enumerate(records) if r["type"] == "turn_started"]
    assert len(starts) >= 3
    # The first recorded turn plays the user's own question; the demo starts after it.
    demo = records[starts[1] :]
    said = [
        int(m.group(1))
        for text in captions(records)
        if text and (m := re.match(r"turn (\d+): you ask", text))
    ]
    summary = demo_summary(demo, "s-1", earlier_turns=1)
    count = len(starts) - 1
    assert summary.startswith(
        f"What happened: {count} turns (turns 2–{len(starts)} of the session)"
    ), summary
    compressed_in = {int(n) for n in re.findall(r"^  turn (\d+): stage", summary, re.M)}
    assert compressed_in and compressed_in <= set(said[1:]), (compressed_in, said)
    journeys = {int(n) for n in re.findall(r", turn (\d+)\)", summary)}
    assert journeys and journeys <= set(said[1:]), (journeys, said)
