"""``/demo`` reaches its point in a few dozen steps: stepped with → (approvals granted), the
steps are the events the workbench stops on — folded by the same time cursor and captioned by
the same captions as the TUI — and the story shows a skill climbing to full and the first stage
by step 25, an eviction with the Active skill kept by step 48, and its summary by step 80; each
stage is a step of its own, and every stage 95 keeps the Active skill with the highest
confidence for that turn's question and says so."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest

from aiq_tui.agent.engine import Engine
from aiq_tui.llm.demo import DemoScript
from aiq_tui.replay.captions import captions, demo_summary
from aiq_tui.replay.cursor import TimeCursor
from aiq_tui.replay.record import live_record
from aiq_tui.tools.base import Decision
from aiq_tui.workspace import Workspace
from tests.agent.helpers import write_config
from tests.replay.bands import compressions, out_of_band


def _stepped_demo(
    home: Path, window: int | None = None
) -> tuple[list[tuple[int, str]], list[dict[str, Any]], Engine]:
    """Play /demo as the workbench does and step it with → from the start: (step, caption)
    of every step, the records, and the engine."""
    if window:
        write_config(home, f"context:\n  window: {window}\n")
    (home.parent / "project").mkdir(exist_ok=True)
    engine = Engine.create(Workspace.open(home_flag=home, cwd=home.parent / "project"))
    cursor = TimeCursor()
    cursor.add(
        {"type": "notice", "text": "step-through demo", "style": "info"}
    )  # where /demo starts

    def take(event: Any) -> None:
        record = live_record(event)
        if record is not None:
            cursor.add(record)

    async def allow(request: Any) -> Decision:  # the user grants every approval dialog
        return Decision.ALLOW_ONCE

    engine.approver = allow
    engine.subscribe(take)

    async def play() -> None:
        script = DemoScript.for_engine(engine)
        try:
            while (text := script.next_turn(engine.breakdown.fraction)) is not None:
                await engine.send(text)
        finally:
            script.close()
        await engine.aclose()

    asyncio.run(play())
    cursor.add(
        {"type": "notice", "text": demo_summary(cursor.records[1:]), "style": "info"}
    )
    texts = captions(cursor.records)

    def is_step(
        index: int,
    ) -> bool:  # the app's rule: a captioned event, or the app's own notice
        return texts[index] is not None or cursor.records[index].get("type") == "notice"

    cursor.position = 0  # paused on the demo's notice
    steps: list[tuple[int, str]] = []
    while cursor.next_step(is_step):  # → , → , …
        steps.append(
            (
                len(steps) + 1,
                texts[cursor.index]
                or str(cursor.records[cursor.index].get("text", "")),
            )
        )
    return steps, cursor.records, engine


@pytest.fixture(scope="module")
def demo(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[list[tuple[int, str]], list[dict[str, Any]], Engine]:
    return _stepped_demo(tmp_path_factory.mktemp("demo") / "home")


def first(steps: list[tuple[int, str]], pattern: str) -> int:
    found = [step for step, text in steps if re.search(pattern, text)]
    assert found, f"no step matches {pattern!r}: " + "\n".join(
        text for _, text in steps
    )
    return found[0]


def test_a_skill_climbs_to_full_and_the_first_stage_fires_within_25_steps(demo) -> None:
    steps, _, _ = demo
    assert first(steps, r"^[\w-]+: \w+ → active \(full\)") <= 25
    assert first(steps, r"^\d+ % ≥ 80 % → stage 80") <= 25


def test_by_step_48_a_skill_is_evicted_and_the_top_active_one_is_kept(demo) -> None:
    steps, _, _ = demo
    assert first(steps, r"^[\w-]+: \w+ → evicted at stage \d+") <= 48
    assert first(steps, r"kept [\w-]+: active, confidence \d\.\d+ \(highest\)") <= 48


def test_the_summary_comes_by_step_80(demo) -> None:
    steps, _, _ = demo
    assert first(steps, r"^What happened: ") <= 80
    assert steps[-1][1].startswith("What happened: ")


def test_each_stage_is_its_own_step_past_its_threshold_in_order(demo) -> None:
    steps, _, _ = demo
    started, seen = 0, {}
    for step, text in steps:
        head = re.match(r"(\d+) % ≥ \d+ % → ", text)
        if head:
            started = int(head.group(1))
        found = re.search(r"(?:^|→ )stage (\d+)(?: first)?:", text)
        if found:
            seen.setdefault(int(found.group(1)), (step, started))
    assert sorted(seen) == [80, 90, 95] and seen[80][0] < seen[90][0] < seen[95][0], (
        seen
    )
    assert all(share >= stage for stage, (_, share) in seen.items()), seen


def test_every_stage_95_keeps_the_active_skill_with_the_highest_confidence_for_its_question(
    demo,
) -> None:
    _, records, _ = demo
    confidence: dict[str, float] = {}
    states: dict[str, str] = {}
    kept_any = False
    texts = captions(records)
    for record, text in zip(records, texts):
        kind = record.get("type")
        if kind == "skills_matched":
            confidence = {m["name"]: m["confidence"] for m in record["matches"]}
        elif kind == "skill_state_changed":
            reason = str(record.get("reason", ""))
            kept = re.search(r"keeps only the top skill: kept ([\w-]+) — ", reason)
            if kept and text and "; kept " in text:
                active = [name for name, state in states.items() if state == "active"]
                best = max(active, key=lambda name: confidence.get(name, 0.0))
                assert kept.group(1) == best, (
                    kept.group(1),
                    {n: confidence.get(n, 0.0) for n in active},
                )
                shown = f"{confidence.get(best, 0.0):.2f}"
                assert re.search(
                    rf"kept {best}: active, confidence {shown}\d* \((?:highest|the only Active skill)",
                    text,
                )
                kept_any = True
            states[record["name"]] = record.get("new") or "evicted"
    assert kept_any, "the story shows stage 95 keeping a skill"


def test_the_story_still_asks_before_writing_and_running(demo) -> None:
    steps, _, _ = demo
    asks = [text for _, text in steps if text.endswith("it asks for your approval")]
    assert [a.split("(")[0] for a in asks] == [
        "the model wants file_operations",
        "the model wants execute_command",
    ]
    assert first(steps, "approved by you") < first(steps, "stage 95")


def test_on_another_window_the_demo_uses_its_own_and_gives_the_window_back(
    tmp_path: Path,
) -> None:
    steps, records, engine = _stepped_demo(tmp_path / "home", window=12_000)
    budgets = [r for r in records if r.get("type") == "budget_changed"]
    assert {r["window"] for r in budgets[1:-1]} == {8_192}
    assert first(steps, r"kept [\w-]+: active, confidence") <= 48
    assert engine.window == 12_000


def test_the_summary_quotes_the_after_compression_figures_the_steps_showed(
    demo,
) -> None:
    steps, _, _ = demo
    shown = [
        re.match(r"after compression: ([\d,]+) / [\d,]+ tokens \((\d+ %)\)", text)
        for _, text in steps
    ]
    live = [(m.group(1), m.group(2)) for m in shown if m]
    summary = steps[-1][1]
    quoted = re.findall(r"at \d+ % → (\d+ %), [\d,]+ → ([\d,]+) tokens:", summary)
    assert live and [(tokens, share) for share, tokens in quoted] == live, (
        live,
        summary,
    )


def test_every_compression_fires_in_its_own_stages_band(demo) -> None:
    _, records, _ = demo
    fired = compressions(records)
    assert {stage for stage, _ in fired} == {80, 90, 95}, fired
    assert not out_of_band(records), fired


def test_a_skill_climbs_metadata_brief_full_as_the_questions_narrow_and_the_caption_says_so(
    demo,
) -> None:
    steps, records, _ = demo
    phases: dict[str, list[str]] = {}
    for record in records:
        if record.get("type") == "skill_state_changed" and record.get("new"):
            seen = phases.setdefault(record["name"], ["metadata"])
            if seen[-1] != record["phase"]:
                seen.append(record["phase"])
    climbed = [
        name
        for name, seen in phases.items()
        if seen[:3] == ["metadata", "brief", "full"]
    ]
    assert climbed, phases
    brief = first(steps, rf"^{climbed[0]}: inactive → relevant \(brief\)")
    full = first(
        steps,
        rf"^{climbed[0]}: relevant \(brief\) → active \(full\), .* climbs from brief to full",
    )
    assert brief < full <= 25, (brief, full)
