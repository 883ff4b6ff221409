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

To land in a band (80–90 %, 90–95 %) rather than past it, a follow-up is sized from what the
turn will add before its rows: the question and the skills the engine will load or unload
for it (matched here exactly as the engine will), the table listing when the model no longer
has the schema (already, or once the check after the question has cleared it), and the call.

It is tuned for small windows (about 7,500 to 12,000 tokens; the demo model has 8,192): one
query returns at most :data:`~aiq_tui.llm.demo_routes.MAX_ROWS` rows, so with a much larger
``context.window`` the story ends after ``max_turns`` before the later stages.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from aiq_tui.events import BudgetChanged, CompressionApplied, ToolCallRequested, TurnFinished, TurnStarted
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

_CALL_TOKENS = 60  # first guess: the model's SQL call message before the result lands
_LISTING_TOKENS = 500  # first guess: the sample database's table listing (its CREATE statements)


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
    _growth: int = 0  # tokens the running turn added after its question (compression not counted)
    _asked_question: bool = False  # the running turn's first budget (question and skills) was seen
    _growth_before_result: int = 0  # … before its last tool result landed
    _overhead: int = _CALL_TOKENS  # learnt: what a follow-up adds between its question and its query's rows
    _listing: int = _LISTING_TOKENS  # learnt: what the table listing costs when the model lists again
    _listing_pending: bool = False
    _listed: int = 0  # tokens the running turn's table listing added
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
            self._growth = self._growth_before_result = self._listed = 0
            self._asked_question = False
        elif isinstance(event, ToolCallRequested):
            self._listing_pending = "sqlite_master" in str(event.arguments)
        elif isinstance(event, BudgetChanged):
            # The last tool result of a follow-up turn is its query's rows; a table listing
            # comes first when the schema was cleared or summarised away, and is counted apart
            # (the next follow-up may or may not need one).
            tool_results = event.breakdown.tool_results
            if self._tool_tokens is not None and tool_results > self._tool_tokens:
                if self._listing_pending:
                    self._listing = self._listed = tool_results - self._tool_tokens
                    self._listing_pending = False
                else:
                    self._result_tokens = tool_results - self._tool_tokens
                    self._growth_before_result = self._growth
            self._tool_tokens = tool_results
            total = event.breakdown.total
            # The question and the skills it loads are predicted when the turn is planned.
            if self._total is not None and total > self._total and self._asked_question:
                self._growth += total - self._total
            self._asked_question = True
            self._total = total
        elif isinstance(event, TurnFinished) and self._asked is not None:
            template, rows = self._asked
            if self._result_tokens:
                self.per_row[template] = max(4.0, self._result_tokens / rows)
                self._overhead = max(0, self._growth_before_result - self._listed)
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
        if next_stage + 1 < len(self.thresholds):
            # Below the next stage's band, in its lower part: falling short only repeats an
            # earlier stage (the script aims again), overshooting would fire the next one first.
            target = low + (self.thresholds[next_stage + 1] - low) * 0.4
        else:
            target = (low + 1.0) / 2  # the last stage has no band above it but the window
        if self._start is None:
            self._start = fraction
        # Climb to the first stage in a few steps, so that there is far more history than
        # ``keep_last`` messages to summarise when it fires.
        step = max(0.06, (low - self._start) / 2) if next_stage == 0 and not self.fired else 1.0
        goal = min(target, fraction + step)
        # The engine clears older tool results before anything else; past the first stage
        # they are all cleared, so the rows must also fill what that frees.
        freed = self._clearable() if next_stage > 0 else 0
        listing = self._listing if self._will_list(fraction) else 0
        tokens = max(0.0, goal - fraction) * self.window + freed - self._overhead - listing
        template = self._template_for(tokens)
        asked = self._question_tokens(template.format(n=MAX_ROWS))
        return self._follow_up(template, tokens - asked)

    def _clearable(self) -> int:
        engine = self._engine
        if engine is None:
            return 0
        from aiq_tui.context.compress import clearable_tokens

        summaries = {record.call_id: record.summary for record in engine.session.tool_calls}
        return clearable_tokens(engine.session.messages, engine.counter, summaries, turn_open=False)

    def _question_tokens(self, question: str) -> int:
        """What asking ``question`` adds to the prompt before the model answers: the message,
        and the skills the engine loads, upgrades or unloads for it (it matches before anything
        is sent: a skill loaded in full costs hundreds of tokens)."""
        engine = self._engine
        if engine is None:
            return _CALL_TOKENS
        from aiq_tui.context.prompt import LoadedSkill, skill_section
        from aiq_tui.conversation import Message, Role
        from aiq_tui.ranking.disclose import assign_states
        from aiq_tui.skills.model import SkillState

        keep = engine.config.matching.context_messages
        earlier = [m.content for m in engine.session.messages if m.role.value == "user" and not m.summary]
        ranking = engine.matcher.rank(question, context=tuple(earlier[-keep:]) if keep else (), top_k=None)
        skills = engine.skills
        current = {cost.name: cost for cost in skills.costs()}
        previous = {name: cost.state for name, cost in current.items()}
        changes = assign_states(ranking, engine.config.matching.top_k, engine.config.disclosure,
                                explicit=frozenset(skills.explicit), previous=previous)
        new_active = any(change.new is SkillState.ACTIVE for change in changes)
        growth = engine.counter.count_message(Message(Role.USER, question, id="next"))
        for change in changes:
            cost = current.get(change.name)
            meta = skills.catalog.get(change.name)
            if meta is None or (cost is not None and cost.state is SkillState.ACTIVE and not new_active):
                continue  # the Active skill stays Active until another one wins
            if change.new is SkillState.INACTIVE:
                growth -= cost.tokens if cost else 0
                continue
            section = skill_section(LoadedSkill(change.name, meta.description, skills.texts.text_for(change.name, change.phase),
                                                change.new, change.phase))
            growth += engine.counter.count(section) - (cost.tokens if cost else 0)
        return growth

    def _will_list(self, fraction: float) -> bool:
        """Whether the demo model will list the tables before the follow-up's query: it does
        when the schema is no longer in the conversation — already, or once the engine's check
        after the question has cleared older tool results (oldest first, until under the first
        threshold), which can clear the last listing. Its tokens then land before the rows."""
        engine = self._engine
        if engine is None:
            return False
        from aiq_tui.context.compress import cleared_message, older_tool_results
        from aiq_tui.llm.demo import known_tables

        messages = list(engine.session.messages)
        summaries = {record.call_id: record.summary for record in engine.session.tool_calls}
        total = fraction * self.window + _CALL_TOKENS
        for index in older_tool_results(messages, turn_open=False):
            if total < self.thresholds[0] * self.window:
                break
            shorter = cleared_message(messages[index], summaries)
            total -= max(0, engine.counter.count_message(messages[index]) - engine.counter.count_message(shorter))
            messages[index] = shorter
        return not known_tables(messages)

    def _next_stage(self, fraction: float) -> int:
        if self._watching:
            stages = [int(round(t * 100)) for t in self.thresholds]
            reached = 0
            while reached < len(stages) and stages[reached] in self.fired:
                reached += 1
            return reached
        self.stage = max(self.stage, sum(1 for t in self.thresholds if fraction >= t))
        return self.stage

    def _row_tokens(self, template: str) -> float:
        return self.per_row.get(template, dict(FOLLOW_UPS)[template])

    def _template_for(self, tokens: float) -> str:
        """The next follow-up in turn, or the one with the largest rows when the next one's
        query cannot return ``tokens``."""
        template = FOLLOW_UPS[self._follow_ups % len(FOLLOW_UPS)][0]
        self._follow_ups += 1
        if tokens > MAX_ROWS * self._row_tokens(template):
            template = max((t for t, _ in FOLLOW_UPS), key=self._row_tokens)
        return template

    def _follow_up(self, template: str, tokens: float) -> str:
        rows = max(2, min(MAX_ROWS, int(tokens / self._row_tokens(template))))
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
