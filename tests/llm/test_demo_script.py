"""``/demo``'s story, played on the real engine and the demo model: a data question with the
sql-explorer skill, a report saved to a file with the data-report skill (asks) that drives the
budget through the 80 %, 90 % and 95 % stages in order, and a command (asks)."""

from __future__ import annotations

from pathlib import Path

import pytest

from aiq_tui.agent.engine import Engine
from aiq_tui.events import (
    BudgetChanged,
    CompressionApplied,
    ErrorRaised,
    SkillStateChanged,
    TurnStarted,
)
from aiq_tui.llm.demo import LABEL, DemoScript
from aiq_tui.llm.demo_script import DEMO_WINDOW, FIRST_AIM, STORY
from aiq_tui.skills.model import SkillState
from aiq_tui.tools.base import ApprovalRequest, Decision
from aiq_tui.workspace import Workspace
from tests.agent.helpers import Recorder, write_config


def _engine(tmp_path: Path, window: int | None = None) -> tuple[Engine, Recorder]:
    home = tmp_path / "home"
    if window:
        write_config(home, f"context:\n  window: {window}\n")
    (tmp_path / "project").mkdir(exist_ok=True)
    engine = Engine.create(Workspace.open(home_flag=home, cwd=tmp_path / "project"))
    recorder = Recorder()
    engine.subscribe(recorder)
    return engine, recorder


async def test_the_story_asks_before_writing_the_report_and_before_running_the_command(
    tmp_path: Path,
) -> None:
    engine, seen = _engine(tmp_path)
    asked: list[ApprovalRequest] = []

    async def approve(request: ApprovalRequest) -> Decision:
        asked.append(request)
        return Decision.ALLOW_ONCE

    engine.approver = approve
    script = DemoScript.for_engine(engine)
    answers = []
    while (text := script.next_turn(engine.breakdown.fraction)) is not None:
        answers.append(await engine.send(text))
    questions = [e.text for e in seen.of(TurnStarted)]
    assert len(questions) == len(STORY) and questions[2] == STORY[2]
    assert all(answer.startswith(LABEL) for answer in answers)
    assert [(r.tool, r.permission) for r in asked] == [
        ("file_operations", "file_write"),
        ("execute_command", "execute_command"),
    ]
    report = (tmp_path / "project" / "reports" / "orders.md").read_text(
        encoding="utf-8"
    )
    assert (
        report.startswith("# Orders")
        and "| order_id | customer |" in report
        and "SELECT" in report
    )
    assert "wc -l reports/orders.md` exited with 0" in answers[2]
    assert not seen.of(ErrorRaised)


@pytest.mark.parametrize("window", [None, 8_500, 12_000, 32_000])
async def test_the_story_fires_80_90_and_95_in_order_and_keeps_the_top_active_skill(
    tmp_path: Path, window: int | None
) -> None:
    engine, seen = _engine(
        tmp_path, window
    )  # nobody approves: the write and the command are refused
    script = DemoScript.for_engine(engine)
    while (text := script.next_turn(engine.breakdown.fraction)) is not None:
        await engine.send(text)
        assert engine.breakdown.total <= engine.window
    stages = [int(e.plan.stage) for e in seen.of(CompressionApplied)]
    first = {stage: stages.index(stage) for stage in (80, 90, 95) if stage in stages}
    assert list(first) == [80, 90, 95], stages
    assert script.fired[:3] == [80, 90, 95] and script.played == len(STORY)
    assert not seen.of(ErrorRaised)
    evicted = {e.name: e.reason for e in seen.of(SkillStateChanged) if e.new is None}
    assert "relevant but not used" in " ".join(evicted.values()), (
        "a skill evicted at 90 %"
    )
    assert (
        "kept data-report — active, confidence 0.85 (highest)"
        in evicted["sql-explorer"]
    ), evicted
    assert engine.skills.state_of("data-report") is SkillState.ACTIVE
    assert script.observe not in engine._sinks, (
        "the script stops watching when it is done"
    )
    assert engine.window == (window or DEMO_WINDOW), (
        "the engine has its own window back"
    )
    if window and window != DEMO_WINDOW:
        assert script.window_note and f"{DEMO_WINDOW:,}" in script.window_note


async def test_the_first_question_is_sized_to_land_near_its_aim_and_a_row_is_learnt(
    tmp_path: Path,
) -> None:
    engine, seen = _engine(tmp_path)
    script = DemoScript.for_engine(engine)
    await engine.send(script.next_turn(engine.breakdown.fraction) or "")
    after_rows = seen.of(BudgetChanged)[
        -2
    ].breakdown.fraction  # the last is after the answer
    assert abs(after_rows - FIRST_AIM) < 0.04, after_rows
    assert 15 < next(iter(script.per_row.values())) < 45
    # The second question asks for fewer rows when less room is left for them.
    near = script._rows_to(STORY[1], 0.92)
    assert script._rows_to(STORY[1], 0.99) > near > script._rows_to(STORY[1], 0.85)
