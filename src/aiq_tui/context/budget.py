"""The live token budget: cached per-message and per-skill counts, updated incrementally.

The engine feeds it what changes (a message added, a skill loaded at a new phase, the fixed
parts rebuilt); :meth:`TokenBudget.breakdown` is then O(number of skills), with no text
counted again. The figures equal what :class:`~aiq_tui.context.prompt.PromptBuilder` reports
for the same inputs, because both use the same section formats and counter.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from aiq_tui.config import ContextSettings
from aiq_tui.context.compress import ContextState, SkillCost, priority_order, stage_for
from aiq_tui.context.model import Breakdown, Stage
from aiq_tui.context.prompt import LoadedSkill, Prompt, skill_section
from aiq_tui.context.tokens import TokenCounter
from aiq_tui.conversation import Message, Role
from aiq_tui.skills.model import Phase, SkillState

__all__ = ["TokenBudget", "stage_for"]


class TokenBudget:
    """Running totals of one conversation's prompt, in tokens."""

    def __init__(
        self,
        counter: TokenCounter,
        settings: ContextSettings,
        window: int,
        *,
        system: int = 0,
        catalog: int = 0,
        reserve: int | None = None,
    ) -> None:
        self.counter = counter
        self.settings = settings
        self.window = window
        self.system = system
        self.catalog = catalog
        self.reserve = settings.reserve_output if reserve is None else reserve
        self._history: list[Message] = []
        self._history_tokens = 0
        self._tool_tokens = 0
        # name → (state, phase, tokens, rank); rank = load order (lower = loaded earlier)
        self._skills: dict[str, tuple[SkillState, Phase, int, int]] = {}
        # name → (confidence for the current question, last reference), as the engine's skills say
        self._priority: dict[str, tuple[float, int]] = {}
        # (name, phase, hash of content) → tokens, so re-loading a phase costs nothing
        self._skill_costs: dict[tuple[str, Phase, int], int] = {}
        self._rank = 0

    @classmethod
    def from_prompt(
        cls,
        counter: TokenCounter,
        settings: ContextSettings,
        prompt: Prompt,
        loaded: Sequence[LoadedSkill] = (),
        priorities: Sequence[SkillCost] = (),
    ) -> TokenBudget:
        """A budget holding exactly what ``prompt`` holds (``loaded`` = the skills it was built
        with; ``priorities`` = the engine's :meth:`~aiq_tui.agent.skillset.LoadedSkills.costs`,
        so that the planner keeps the skills the engine would keep)."""
        b = prompt.breakdown
        budget = cls(
            counter,
            settings,
            b.window,
            system=b.system,
            catalog=b.catalog,
            reserve=b.reserve,
        )
        for skill in loaded:
            budget.set_skill(skill)
        budget.set_priorities(priorities)
        budget.set_history(prompt.messages)
        return budget

    # -- fixed parts ----------------------------------------------------------------------

    def set_fixed(
        self,
        *,
        system: int | None = None,
        catalog: int | None = None,
        reserve: int | None = None,
        window: int | None = None,
    ) -> None:
        if system is not None:
            self.system = system
        if catalog is not None:
            self.catalog = catalog
        if reserve is not None:
            self.reserve = reserve
        if window is not None:
            self.window = window

    # -- skills ---------------------------------------------------------------------------

    def set_skill(self, skill: LoadedSkill, relevance_rank: int | None = None) -> int:
        """Load or update a skill (state/phase/content); returns its tokens."""
        key = (skill.name, skill.phase, hash(skill.content) ^ hash(skill.description))
        tokens = self._skill_costs.get(key)
        if tokens is None:
            tokens = self.counter.count(skill_section(skill))
            self._skill_costs[key] = tokens
        previous = self._skills.get(skill.name)
        if relevance_rank is None:
            if previous is not None:
                relevance_rank = previous[3]
            else:
                relevance_rank, self._rank = self._rank, self._rank + 1
        self._skills[skill.name] = (skill.state, skill.phase, tokens, relevance_rank)
        return tokens

    def set_priorities(self, costs: Sequence[SkillCost]) -> None:
        """Each skill's confidence for the current question and its last reference (what
        :func:`~aiq_tui.context.compress.priority_order` ranks by after the state)."""
        self._priority = {
            cost.name: (cost.confidence, cost.referenced) for cost in costs
        }

    def set_state(self, name: str, state: SkillState) -> None:
        current = self._skills[name]
        self._skills[name] = (state, current[1], current[2], current[3])

    def remove_skill(self, name: str) -> None:
        self._skills.pop(name, None)

    def skill_names(self) -> list[str]:
        return [name for name, _ in self._ordered_skills()]

    def _costs(self) -> list[SkillCost]:
        return [
            SkillCost(
                name,
                entry[0],
                entry[2],
                *self._priority.get(name, (0.0, 0)),
                loaded=entry[3],
            )
            for name, entry in self._skills.items()
        ]

    def _ordered_skills(self) -> list[tuple[str, tuple[SkillState, Phase, int, int]]]:
        """Priority order, the planner's (the same as the engine's prompt order)."""
        return [
            (cost.name, self._skills[cost.name])
            for cost in priority_order(self._costs())
        ]

    # -- history --------------------------------------------------------------------------

    def add_message(self, message: Message) -> int:
        """Append a message; costs only the new message's text. Returns its tokens."""
        tokens = self.counter.count_message(message)
        self._history.append(message)
        if message.role is Role.TOOL:
            self._tool_tokens += tokens
        else:
            self._history_tokens += tokens
        return tokens

    def extend(self, messages: Iterable[Message]) -> None:
        for message in messages:
            self.add_message(message)

    def set_history(self, messages: Iterable[Message]) -> None:
        """Replace the history (after compression); unchanged messages hit the count cache."""
        self._history, self._history_tokens, self._tool_tokens = [], 0, 0
        self.extend(messages)

    @property
    def history(self) -> tuple[Message, ...]:
        return tuple(self._history)

    # -- figures --------------------------------------------------------------------------

    def breakdown(self) -> Breakdown:
        return Breakdown(
            system=self.system,
            catalog=self.catalog,
            skills={name: entry[2] for name, entry in self._ordered_skills()},
            history=self._history_tokens,
            tool_results=self._tool_tokens,
            reserve=self.reserve,
            window=self.window,
            exact=self.counter.exact,
            encoding=self.counter.encoding,
        )

    @property
    def total(self) -> int:
        return (
            self.system
            + self.catalog
            + sum(entry[2] for entry in self._skills.values())
            + self._history_tokens
            + self._tool_tokens
            + self.reserve
        )

    @property
    def fraction(self) -> float:
        return self.total / self.window if self.window else 0.0

    def stage(self) -> Stage:
        return stage_for(self.fraction, self.settings)

    def stage_for(self, fraction: float) -> Stage:
        return stage_for(fraction, self.settings)

    # -- compression ----------------------------------------------------------------------

    def context_state(self) -> ContextState:
        """What :func:`~aiq_tui.context.compress.plan` needs, the skills in priority order
        (confidence for the current question, then last reference, then load order)."""
        skills = tuple(priority_order(self._costs()))
        return ContextState(
            tuple(self._history),
            skills,
            self.system + self.catalog,
            self.reserve,
            self.window,
        )

    def sync(self, state: ContextState) -> None:
        """Adopt a compressed state: its history, and only the skills it still holds."""
        kept = {skill.name for skill in state.skills}
        for name in list(self._skills):
            if name not in kept:
                del self._skills[name]
        self.set_history(state.history)
