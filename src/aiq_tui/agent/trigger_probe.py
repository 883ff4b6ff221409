"""What the model itself does with a trigger eval set (``match --eval FILE --llm``).

Each query goes to the configured provider as the first message of a new conversation, in
the request the engine builds for it before any skill is disclosed
(:meth:`~aiq_tui.agent.engine.Engine.catalog_prompt`: the catalog, the ``use_skill``
instructions, the tools). The model triggers the skill when it calls ``use_skill`` with the
skill's name — the measure skill-creator's ``run_eval`` takes with Claude Code's Skill tool,
here for any OpenAI-compatible or Anthropic endpoint. Each query runs ``runs`` times; it
counts as triggered when the share of runs that called the skill reaches ``threshold``
(skill-creator: 3 runs, 0.5). Only the first reply is read: no tool runs, nothing is saved.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from aiq_tui.llm.base import ProviderError, ToolCallReady
from aiq_tui.ranking.trigger_eval import TriggerCase, TriggerFigures

USE_SKILL = "use_skill"
REPLY_TOKENS = 512  # the decision comes first; a long answer after it is not read


@dataclass(frozen=True)
class ModelTrigger:
    """The model's decisions for one case over its runs."""

    case: TriggerCase
    runs: int
    triggers: int  # runs that called use_skill for the case's skill
    called: tuple[
        str, ...
    ] = ()  # every skill the model asked for, in order of first call
    errors: tuple[str, ...] = ()  # runs that failed (not counted in the rate)

    @property
    def answered(self) -> int:
        return self.runs - len(self.errors)

    @property
    def rate(self) -> float:
        return self.triggers / self.answered if self.answered else 0.0

    def triggered(self, threshold: float) -> bool:
        return self.answered > 0 and self.rate >= threshold

    def passed(self, threshold: float) -> bool:
        return (
            self.answered > 0 and self.triggered(threshold) == self.case.should_trigger
        )

    def to_json(self, threshold: float) -> dict[str, Any]:
        return {
            "query": self.case.query,
            "skill": self.case.skill,
            "should_trigger": self.case.should_trigger,
            "where": self.case.where,
            "runs": self.runs,
            "triggers": self.triggers,
            "trigger_rate": round(self.rate, 4),
            "passed": self.passed(threshold),
            "called": list(self.called),
            "errors": list(self.errors),
        }


@dataclass(frozen=True)
class ModelFigures:
    """Per skill: the pass-based figures (as the matcher's) and the raw trigger rates."""

    figures: TriggerFigures
    trigger_rate: float  # Σ triggers / Σ answered runs over should-trigger queries
    false_trigger_rate: float  # the same over should-not queries

    def to_json(self) -> dict[str, Any]:
        data = self.figures.to_json()
        del data[
            "recall_full"
        ]  # the model loads a skill whole: there is no brief phase
        return {
            **data,
            "trigger_rate": round(self.trigger_rate, 4),
            "false_trigger_rate": round(self.false_trigger_rate, 4),
        }


def model_figures(
    results: Sequence[ModelTrigger], threshold: float
) -> tuple[list[ModelFigures], ModelFigures]:
    """Per skill (by name) and overall."""
    by_skill: dict[str, list[ModelTrigger]] = {}
    for result in results:
        by_skill.setdefault(result.case.skill, []).append(result)
    skills = [
        _figures(name, group, threshold) for name, group in sorted(by_skill.items())
    ]
    return skills, _figures("", list(results), threshold)


def _figures(name: str, results: list[ModelTrigger], threshold: float) -> ModelFigures:
    should = [r for r in results if r.case.should_trigger]
    should_not = [r for r in results if not r.case.should_trigger]
    figures = TriggerFigures(
        name,
        len(should),
        len(should_not),
        sum(r.triggered(threshold) for r in should),
        0,
        sum(r.triggered(threshold) for r in should_not),
    )

    def rate(group: list[ModelTrigger]) -> float:
        answered = sum(r.answered for r in group)
        return sum(r.triggers for r in group) / answered if answered else 0.0

    return ModelFigures(figures, rate(should), rate(should_not))


Progress = Callable[[int, int], None]


async def probe_triggers(
    engine: Any,
    cases: Sequence[TriggerCase],
    runs: int,
    concurrency: int,
    on_progress: Progress | None = None,
) -> list[ModelTrigger]:
    """Send every case's query ``runs`` times; results in the order of ``cases``.

    A run that fails is recorded as an error of its case; the first failure the provider
    says retrying will not fix (a missing key, a bad model name) stops the probe and is raised
    as :class:`~aiq_tui.llm.base.ProviderError`, since every other run would fail alike.
    """
    prompts = {}
    for (
        case
    ) in cases:  # built one after another: the engine's matcher is not thread-safe
        if case.query not in prompts:
            prompts[case.query] = engine.catalog_prompt(case.query)
    gate = asyncio.Semaphore(concurrency)
    total = len(prompts) * runs
    done = 0
    max_tokens = max(1, min(REPLY_TOKENS, engine.reserve))

    async def one(query: str) -> list[str] | str:
        nonlocal done
        prompt = prompts[query]
        async with gate:
            called: list[str] | str
            try:
                called = await _skills_called(engine.provider, prompt, max_tokens)
            except ProviderError as exc:
                if not exc.retryable:
                    raise
                called = str(exc)
            finally:
                done += 1
                if on_progress is not None:
                    on_progress(done, total)
        return called

    queries = list(prompts)
    tasks = [
        asyncio.ensure_future(one(query)) for query in queries for _ in range(runs)
    ]
    try:
        outcomes = await asyncio.gather(*tasks)
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
    per_query = {
        query: outcomes[i * runs : (i + 1) * runs] for i, query in enumerate(queries)
    }
    results = []
    for case in cases:
        got = per_query[case.query]
        answers = [called for called in got if isinstance(called, list)]
        called: list[str] = []
        for names in answers:
            called.extend(name for name in names if name not in called)
        results.append(
            ModelTrigger(
                case,
                runs,
                sum(case.skill in names for names in answers),
                tuple(called),
                tuple(error for error in got if isinstance(error, str)),
            )
        )
    return results


async def _skills_called(provider: Any, prompt: Any, max_tokens: int) -> list[str]:
    """The skills the model's first reply asks for with use_skill."""
    names: list[str] = []
    async for item in provider.stream(
        prompt.system, prompt.messages, prompt.tools, max_tokens
    ):
        if isinstance(item, ToolCallReady) and item.call.name == USE_SKILL:
            name = str(item.call.arguments.get("skill_name", "")).strip()
            if name and name not in names:
                names.append(name)
    return names


__all__ = ["ModelFigures", "ModelTrigger", "model_figures", "probe_triggers"]
