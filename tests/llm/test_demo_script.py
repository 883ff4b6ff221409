"""``/demo``'s story, played on the real engine and the demo model: a data question, a report
saved to a file (asks), a follow-up command (asks), then follow-ups that drive the budget
through the 80 %, 90 % and 95 % compression stages in order, with an Active skill kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from aiq_tui.agent.engine import Engine
from aiq_tui.events import CompressionApplied, ErrorRaised, SkillStateChanged, TurnStarted
from aiq_tui.llm.demo import LABEL, DemoScript
from aiq_tui.llm.demo_script import STORY_OPENING
from aiq_tui.skills.model import SkillState
from aiq_tui.tools.base import ApprovalRequest, Decision
from aiq_tui.workspace import Workspace
from tests.agent.helpers import Recorder, write_config


def _engine(tmp_path: Path, window: int | None = None) -> tuple[Engine, Recorder]:
    home = tmp_path / "home"
    if window:
        write_config(home, f"context:\n  window: {window}\n")
    engine = Engine.create(Workspace.open(home_flag=home, cwd=tmp_path / "project"))
    recorder = Recorder()
    engine.subscribe(recorder)
    return engine, recorder


async def test_the_story_asks_before_writing_the_report_and_before_running_the_command(tmp_path: Path) -> None:
    (tmp_path / "project").mkdir()
    engine, seen = _engine(tmp_path)
    asked: list[ApprovalRequest] = []

    async def approve(request: ApprovalRequest) -> Decision:
        asked.append(request)
        return Decision.ALLOW_ONCE

    engine.approver = approve
    script = DemoScript.for_engine(engine)
    answers = [await engine.send(script.next_turn(engine.breakdown.fraction) or "") for _ in STORY_OPENING]
    assert [e.text for e in seen.of(TurnStarted)] == list(STORY_OPENING)
    assert all(answer.startswith(LABEL) for answer in answers)
    assert "| title | units_sold |" in answers[0]
    assert [(r.tool, r.permission) for r in asked] == [("file_operations", "file_write"), ("execute_command", "execute_command")]
    report = (tmp_path / "project" / "reports" / "bestsellers.md").read_text(encoding="utf-8")
    assert report.startswith("# Bestsellers") and "| title | units_sold |" in report and "SELECT" in report
    assert "Saved `reports/bestsellers.md`" in answers[1]
    assert "wc -l reports/bestsellers.md` exited with 0" in answers[2]
    assert engine.skills.state_of("data-report") is SkillState.ACTIVE
    assert not seen.of(ErrorRaised)


@pytest.mark.parametrize("window", [None, 8_500, 9_500, 10_500, 12_000])
async def test_the_story_fires_80_90_and_95_in_order_and_keeps_an_active_skill(tmp_path: Path, window: int | None) -> None:
    engine, seen = _engine(tmp_path, window)  # nobody approves: the write and the command are refused
    script = DemoScript.for_engine(engine)
    while (text := script.next_turn(engine.breakdown.fraction)) is not None:
        await engine.send(text)
        assert engine.breakdown.total <= engine.window
    stages = [int(e.plan.stage) for e in seen.of(CompressionApplied)]
    first = {stage: stages.index(stage) for stage in (80, 90, 95) if stage in stages}
    assert list(first) == [80, 90, 95], stages
    assert script.fired == [80, 90, 95] and script.played <= 20, (script.fired, script.played)
    assert not seen.of(ErrorRaised)
    evicted = [e.name for e in seen.of(SkillStateChanged) if e.new is None]
    assert evicted, "an eviction is visible"
    assert any(v.state is SkillState.ACTIVE for v in engine.skill_views()), "the Active skill survives"
    summarised = {i for e in seen.of(CompressionApplied) for i in e.plan.summarise_ids}
    first_question = seen.of(TurnStarted)[0]
    assert first_question.message_id in summarised, "turn events name the messages compression folds"
    assert script.observe not in engine._sinks, "the script stops watching when it is done"


async def test_follow_ups_are_sized_by_rows_and_learn_what_a_row_costs(tmp_path: Path) -> None:
    engine, _ = _engine(tmp_path)
    script = DemoScript.for_engine(engine)
    for _ in range(len(STORY_OPENING) + 1):
        await engine.send(script.next_turn(engine.breakdown.fraction) or "")
    follow_up = next(iter(script.per_row))
    assert 5 < script.per_row[follow_up] < 80
    # Sized by rows: aiming at the 90 % band, a budget further from it asks for more rows.
    script.fired = [80]
    near, far = script.next_turn(0.75) or "", script.next_turn(0.60) or ""
    rows = [int(next(word for word in text.split() if word.isdigit())) for text in (near, far)]
    assert 2 <= rows[0] < rows[1] and "(demo:" not in near + far
