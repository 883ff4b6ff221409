"""``/demo``: a short analyst story played against the offline demo model, long enough to
walk the token budget through every compression stage (80 %, then 90 %, then 95 %).

The story is real questions the demo model answers with real tool calls on the bundled
sample database: a data question, a report saved to a file (a write: it asks for approval),
a follow-up command (asks too), then follow-up data questions. The script chooses how many
rows each follow-up asks for, so that the query's result lands the budget in the middle of
the next stage's band at the engine's next budget check — once the engine has cleared older
tool results to their extract (it does that first, so the script adds what that frees) — and
the engine then compresses at that stage, summarising older messages and evicting skills,
while the Active skill stays.

It is tuned for small windows (the demo model's 8,192 tokens, and up to about 12,000): one
query returns at most :data:`~aiq_tui.llm.demo_routes.MAX_ROWS` rows, so with a much larger
``context.window`` the story ends after ``max_turns`` before the later stages.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from aiq_tui.events import BudgetChanged, CompressionApplied, TurnFinished, TurnStarted
from aiq_tui.llm.demo_routes import MAX_ROWS

STORY_OPENING = (
    "Which books sell best?",
    "Use the data-report skill: write that up as a short report and save it to reports/bestsellers.md",
    "Use the shell-basics skill to check the saved report: run `wc -l reports/bestsellers.md`",
)
"""A data question, a report (a file write: it asks for approval), a follow-up command (asks too)."""

FOLLOW_UPS: tuple[tuple[str, float], ...] = (
    ("Show the {n} most recent orders with their customers.", 24.0),
    ("Who are our top {n} customers by money spent?", 20.0),
    ("List the {n} latest reviews with their ratings.", 20.0),
    ("Which {n} books are lowest in stock?", 18.0),
    ("Show the {n} most expensive books and their authors.", 20.0),
)
"""Follow-ups sized by the rows they ask for, each with a first guess of the tokens one row
of its query result costs (learnt from the budget as the demo runs)."""

SHORT_QUESTIONS = (
    "How many customers do we have?",
    "How many orders are there?",
    "How many reviews are there?",
)
"""Small answers, sent when the budget is already past a stage (the engine compresses first)."""

_CALL_TOKENS = 120  # first guess: the question and the model's SQL call before the result lands


@dataclass
class DemoScript:
    """Turns for ``/demo``. Use ``script = DemoScript.for_engine(engine)`` and, before each
    turn, ``text = script.next_turn(engine.breakdown.fraction)``; ``None`` means every stage
    has fired (or ``max_turns`` were played).

    Attached to an engine the script watches its events: which stages fired, and how many
    tokens each query result cost (to size the next one). Without an engine
    (:meth:`from_settings`) it judges the stages by the budget after each turn.
    """

    window: int
    thresholds: tuple[float, float, float] = (0.80, 0.90, 0.95)
    max_turns: int = 40
    played: int = 0
    fired: list[int] = field(default_factory=list)  # compression stages seen, first time each
    per_row: dict[str, float] = field(default_factory=dict)
    stage: int = 0  # without an engine: how many thresholds the budget has crossed
    _watching: bool = False
    _detach: Callable[[], None] | None = None
    _asked: tuple[str, int] | None = None  # the pending follow-up: template, rows
    _tool_tokens: int | None = None
    _result_tokens: int = 0
    _engine: Any = None  # to ask what clearing older tool results would free
    _total: int | None = None  # the last budget total seen
    _growth: int = 0  # tokens the running turn added (compression not counted)
    _growth_before_result: int = 0  # … before its last tool result landed
    _overhead: int = _CALL_TOKENS  # learnt: what a follow-up adds before its query's rows
    _follow_ups: int = 0
    _shorts: int = 0
    _start: float | None = None

    @classmethod
    def from_settings(cls, window: int, settings: Any) -> "DemoScript":
        """Thresholds from a :class:`~aiq_tui.config.ContextSettings`."""
        return cls(window=window, thresholds=(settings.compress_at, settings.evict_at, settings.aggressive_at))

    @classmethod
    def for_engine(cls, engine: Any) -> "DemoScript":
        """A script that watches ``engine``'s events until it is done."""
        script = cls.from_settings(engine.window, engine.config.context)
        engine.subscribe(script.observe)
        script._watching = True
        script._engine = engine
        script._detach = lambda: engine.unsubscribe(script.observe)
        return script

    # -- what the engine reports --------------------------------------------------------------
    def observe(self, event: Any) -> None:
        if isinstance(event, CompressionApplied):
            stage = int(event.plan.stage)
            if stage not in self.fired:
                self.fired.append(stage)
        elif isinstance(event, TurnStarted):
            self._growth = self._growth_before_result = 0
        elif isinstance(event, BudgetChanged):
            # The last tool result of a follow-up turn is its query's rows (a table listing
            # may come first when the schema was cleared or summarised away).
            tool_results = event.breakdown.tool_results
            if self._tool_tokens is not None and tool_results > self._tool_tokens:
                self._result_tokens = tool_results - self._tool_tokens
                self._growth_before_result = self._growth
            self._tool_tokens = tool_results
            total = event.breakdown.total
            if self._total is not None and total > self._total:
                self._growth += total - self._total
            self._total = total
        elif isinstance(event, TurnFinished) and self._asked is not None:
            template, rows = self._asked
            if self._result_tokens:
                self.per_row[template] = max(4.0, self._result_tokens / rows)
                self._overhead = max(_CALL_TOKENS, self._growth_before_result)
            self._asked, self._result_tokens = None, 0

    # -- the next turn ----------------------------------------------------------------------------
    def next_turn(self, fraction: float) -> str | None:
        next_stage = self._next_stage(fraction)
        if self.played >= self.max_turns or next_stage >= len(self.thresholds):
            self.close()
            return None
        if fraction >= self.thresholds[0]:
            # The engine compresses before this turn is answered: keep the turn short and aim
            # again once the budget after compression is known.
            return self._short()
        if self.played < len(STORY_OPENING):
            self.played += 1
            return STORY_OPENING[self.played - 1]
        low = self.thresholds[next_stage]
        high = self.thresholds[next_stage + 1] if next_stage + 1 < len(self.thresholds) else 0.98
        target = low + (high - low) * 0.4  # the lower half: a guess that is off stays in the band
        if self._start is None:
            self._start = fraction
        # Climb to the first stage in a few steps, so that there is far more history than
        # ``keep_last`` messages to summarise when it fires.
        step = max(0.06, (low - self._start) / 2) if next_stage == 0 and not self.fired else 1.0
        goal = min(target, fraction + step)
        # The engine clears older tool results before anything else; past the first stage
        # they are all cleared, so the rows must also fill what that frees.
        freed = self._clearable() if next_stage > 0 else 0
        return self._follow_up(max(0.0, goal - fraction) * self.window + freed - self._overhead)

    def _clearable(self) -> int:
        engine = self._engine
        if engine is None:
            return 0
        from aiq_tui.context.compress import clearable_tokens

        summaries = {record.call_id: record.summary for record in engine.session.tool_calls}
        return clearable_tokens(engine.session.messages, engine.counter, summaries, turn_open=False)

    def _next_stage(self, fraction: float) -> int:
        if self._watching:
            stages = [int(round(t * 100)) for t in self.thresholds]
            reached = 0
            while reached < len(stages) and stages[reached] in self.fired:
                reached += 1
            return reached
        self.stage = max(self.stage, sum(1 for t in self.thresholds if fraction >= t))
        return self.stage

    def _follow_up(self, tokens: float) -> str:
        template, guess = FOLLOW_UPS[self._follow_ups % len(FOLLOW_UPS)]
        self._follow_ups += 1
        rows = max(2, min(MAX_ROWS, int(tokens / self.per_row.get(template, guess))))
        self._asked = (template, rows)
        self.played += 1
        return template.format(n=rows)

    def _short(self) -> str:
        self._asked = None
        self._shorts += 1
        self.played += 1
        return SHORT_QUESTIONS[(self._shorts - 1) % len(SHORT_QUESTIONS)]

    def close(self) -> None:
        """Stop watching the engine (called when the script is done)."""
        if self._detach is not None:
            self._detach()
            self._detach = None
