"""Thresholds (seed 000: 80 / 90 / 95 %) and the incremental budget."""

from __future__ import annotations

import pytest

from aiq_tui.config import ContextSettings
from aiq_tui.context.budget import TokenBudget, stage_for
from aiq_tui.context.model import Stage
from aiq_tui.context.prompt import LoadedSkill, PromptBuilder, PromptInputs
from aiq_tui.context.tokens import TokenCounter
from aiq_tui.conversation import Message, Role
from aiq_tui.skills.model import Phase, SkillState
from tests.context.helpers import text, turns


@pytest.mark.parametrize(
    "fraction, stage",
    [
        (0.0, Stage.NONE),
        (0.79, Stage.NONE),
        (0.80, Stage.COMPRESS),
        (0.89, Stage.COMPRESS),
        (0.90, Stage.EVICT),
        (0.94, Stage.EVICT),
        (0.95, Stage.AGGRESSIVE),
        (1.3, Stage.AGGRESSIVE),
    ],
)
def test_thresholds_80_90_95_choose_the_stage(fraction: float, stage: Stage) -> None:
    assert stage_for(fraction, ContextSettings()) is stage


def test_thresholds_come_from_the_config() -> None:
    settings = ContextSettings(compress_at=0.5, evict_at=0.6, aggressive_at=0.7)
    assert stage_for(0.55, settings) is Stage.COMPRESS
    assert stage_for(0.65, settings) is Stage.EVICT
    assert stage_for(0.7, settings) is Stage.AGGRESSIVE


def loaded(n: int) -> list[LoadedSkill]:
    states = [SkillState.ACTIVE, SkillState.RELEVANT, SkillState.INACTIVE]
    return [
        LoadedSkill(f"skill-{i}", f"Skill {i}.", text(80, i), states[i % 3])
        for i in range(n)
    ]


def test_budget_matches_the_prompt_builder_for_the_same_inputs() -> None:
    counter, settings = TokenCounter(), ContextSettings()
    inputs = PromptInputs(
        catalog=[("a", "Alpha")],
        loaded=loaded(6),
        history=turns(10, tool_every=3),
        window=16000,
        reserve=settings.reserve_output,
    )
    prompt = PromptBuilder(counter, settings).build(inputs)
    budget = TokenBudget.from_prompt(counter, settings, prompt, inputs.loaded)
    assert budget.breakdown() == prompt.breakdown
    assert budget.total == prompt.breakdown.total


def test_adding_a_message_updates_history_and_tool_results_incrementally() -> None:
    counter = TokenCounter()
    budget = TokenBudget(counter, ContextSettings(), 8000, system=100, catalog=50)
    before = budget.breakdown()
    tokens = budget.add_message(Message(Role.USER, "hello world", id="u1"))
    assert budget.breakdown().history == before.history + tokens
    tool_tokens = budget.add_message(
        Message(Role.TOOL, "result", tool_call_id="c", name="x", id="t1")
    )
    assert budget.breakdown().tool_results == tool_tokens
    assert budget.total == before.total + tokens + tool_tokens


def test_adding_a_message_counts_only_the_new_text() -> None:
    counter = TokenCounter()
    budget = TokenBudget(counter, ContextSettings(), 64000)
    for skill in loaded(10):
        budget.set_skill(skill)
    budget.extend(turns(50))
    misses = counter.misses
    budget.add_message(Message(Role.USER, "a brand new question", id="new"))
    budget.breakdown()
    assert counter.misses == misses + 1


def test_skill_phase_changes_are_counted_and_cached() -> None:
    counter = TokenCounter()
    budget = TokenBudget(counter, ContextSettings(), 8000)
    brief = LoadedSkill(
        "pdf", "PDF work.", "Short brief.", SkillState.RELEVANT, Phase.BRIEF
    )
    full = LoadedSkill("pdf", "PDF work.", text(300), SkillState.ACTIVE, Phase.FULL)
    small = budget.set_skill(brief)
    large = budget.set_skill(full)
    assert large > small and budget.breakdown().skills == {"pdf": large}
    misses = counter.misses
    budget.set_skill(brief)
    assert counter.misses == misses and budget.breakdown().skills == {"pdf": small}


def test_breakdown_lists_skills_by_priority_and_stage_follows_the_fraction() -> None:
    budget = TokenBudget(TokenCounter(), ContextSettings(), 1000, reserve=0)
    budget.set_skill(LoadedSkill("ina", "", "x", SkillState.INACTIVE))
    budget.set_skill(LoadedSkill("act", "", "y", SkillState.ACTIVE))
    assert list(budget.breakdown().skills) == ["act", "ina"]
    assert budget.stage() is Stage.NONE
    budget.set_fixed(system=850)
    assert budget.stage() is Stage.COMPRESS
    budget.set_fixed(system=960)
    assert budget.stage() is Stage.AGGRESSIVE


def test_context_state_and_sync_round_trip_a_compression() -> None:
    counter = TokenCounter()
    budget = TokenBudget(counter, ContextSettings(), 8000, system=10, catalog=5)
    budget.set_skill(LoadedSkill("act", "", "y", SkillState.ACTIVE))
    budget.set_skill(LoadedSkill("ina", "", "x", SkillState.INACTIVE))
    budget.extend(turns(3))
    s = budget.context_state()
    assert s.fixed == 15 and [k.name for k in s.skills] == ["act", "ina"]
    budget.sync(type(s)(s.history[2:], s.skills[:1], s.fixed, s.reserve, s.window))
    assert list(budget.breakdown().skills) == ["act"] and len(budget.history) == 4
