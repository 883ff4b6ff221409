"""``/demo``: a short analyst story played against the offline demo model that walks the token
budget through every compression stage — 80 %, then 90 %, then 95 % — within three turns, each
stage its own step.

The story is three real requests the demo model answers with real tool calls on the bundled
sample database:

1. ``Use the sql-explorer skill: show the N most recent orders, for a data report later.`` —
   sql-explorer climbs to full (named: Active, loaded in full), data-report (only mentioned)
   comes in Relevant at brief, and the rows fill the window to about :data:`FIRST_AIM` of it, so
   that the next question crosses the first threshold;
2. ``Use the data-report skill: write the M most recent orders up as a short report and save it
   to reports/orders.md`` — the question narrows to data-report, which climbs from brief to full
   (Active); the question crosses 80 % and the first stage clears the older tool results; the
   query's rows land the budget high in the 90 % band, so that the second stage's summary is not
   enough and it evicts a skill that is relevant but not used; the report's write (it asks for
   approval; the report is data-report's short one, so its size does not grow with M) lands it
   in the 95 % band, and the last stage keeps only the top skill: two are Active, and it keeps
   data-report, the one with the highest confidence for this question, not sql-explorer, loaded
   first;
3. ``Check the saved report with `wc -l reports/orders.md``` — a command that asks too; it loads
   no skill in full, so that its question lands in the first stage's band again.

Each stage thus fires in its own band (80–89, 90–94, 95–100 %) — from a fresh session, which
the story is sized for: :meth:`DemoScript.needs_own_session` says when it must start its own.

The script chooses N and M from the live budget — the question's own cost (the skills the
engine will load for it, matched here exactly as the engine will), what clearing the older tool
results will free, and what a row of the orders query costs (learnt from the first turn) — so
the story lands in each stage's band with exact or estimated token counts. It is written for the
demo model's window (:data:`DEMO_WINDOW`): attached to an engine with another window it uses
that one for the story (:attr:`DemoScript.window_note` says so) and gives the engine its window
back when it closes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiq_tui.events import (
    BudgetChanged,
    CompressionApplied,
    ToolCallRequested,
    TurnFinished,
    TurnStarted,
)
from aiq_tui.llm.demo_routes import MAX_ROWS

DEMO_WINDOW = 8_192
"""The window the story is written for: the demo model's own."""

STORY = (
    "Use the sql-explorer skill: show the {n} most recent orders, for a data report later.",
    "Use the data-report skill: write the {n} most recent orders up as a short report and save it to "
    "reports/orders.md",
    "Check the saved report with `wc -l reports/orders.md`",
)
"""The three requests: a data question, a report saved to a file (asks), a command (asks)."""

FIRST_AIM = 0.75
"""Where the first turn's rows land the budget, as a share of the window: the second question
(and the data-report skill it loads in full) then crosses the first threshold."""

ROW_TOKENS = 28.5
"""First guess of what one row of the orders query costs, its share of the call included
(learnt from the first turn)."""

_CALL_TOKENS = (
    60  # first guess of what asking costs beyond its text (without an engine)
)
_USE_SKILL_TOKENS = 70  # use_skill's call and result
_LISTING_TOKENS = (
    500  # first guess: the table listing (its CREATE statements) with its call
)


@dataclass
class DemoScript:
    """Turns for ``/demo``. Use ``script = DemoScript.for_engine(engine)`` and, before each
    turn, ``text = script.next_turn(engine.breakdown.fraction)``; ``None`` means the story is
    told (or ``max_turns`` were played).

    Attached to an engine the script watches its events: which stages fired, what the table
    listing and a row of the query cost. Without an engine (:meth:`from_settings`) it asks
    for rows by its first guesses.
    """

    window: int
    thresholds: tuple[float, float, float] = (0.80, 0.90, 0.95)
    max_turns: int = len(STORY)
    played: int = 0
    fired: list[int] = field(
        default_factory=list
    )  # compression stages seen, first time each
    per_row: dict[str, float] = field(
        default_factory=dict
    )  # template → tokens one row of its query costs
    window_note: str = ""  # said when the engine's own window is not the story's
    _detach: Callable[[], None] | None = None
    _engine: Any = None
    _asked: tuple[str, int] | None = None  # the running turn's template and rows
    _tool_tokens: int | None = None
    _result_tokens: int = 0
    _listing: int = _LISTING_TOKENS
    _listing_pending: bool = False
    _own_window: int | None = (
        None  # the engine's configured window, given back on close
    )
    _restore: bool = False
    _total: int | None = None  # the last budget total seen
    _turn_start: int | None = (
        None  # the total when the running turn started (until its first budget)
    )
    _predicted: int | None = (
        None  # what the running turn's question was predicted to add
    )
    _question_error: int = (
        0  # how far the last prediction was off (what the engine adds beyond it)
    )
    _compressed: bool = False  # a compression step came since the last budget

    @classmethod
    def from_settings(cls, window: int, settings: Any) -> DemoScript:
        """Thresholds from a :class:`~aiq_tui.config.ContextSettings`."""
        return cls(
            window=window,
            thresholds=(
                settings.compress_at,
                settings.evict_at,
                settings.aggressive_at,
            ),
        )

    @classmethod
    def for_engine(cls, engine: Any) -> DemoScript:
        """A script that watches ``engine``'s events until it is done, on :data:`DEMO_WINDOW`."""
        script = cls.from_settings(DEMO_WINDOW, engine.config.context)
        if engine.window != DEMO_WINDOW:
            script._own_window, script._restore = engine.config.context.window, True
            script.window_note = (
                f"the demo runs on the demo model's {DEMO_WINDOW:,}-token window "
                f"(yours, {engine.window:,}, is back when it ends)"
            )
            engine.use_window(DEMO_WINDOW)
        engine.subscribe(script.observe)
        script._engine = engine
        script._detach = lambda: engine.unsubscribe(script.observe)
        return script

    @staticmethod
    def needs_own_session(engine: Any) -> bool:
        """Whether the story must start its own session on ``engine``: it is sized from a fresh
        one (no message, no skill loaded); on a conversation's history and skills the stages
        would not each fire in their own band."""
        session = getattr(engine, "session", None)
        if session is not None and getattr(session, "messages", None):
            return True
        skills = getattr(engine, "skills", None)
        loaded = getattr(skills, "loaded", None)
        return bool(loaded()) if callable(loaded) else False

    # -- what the engine reports --------------------------------------------------------------
    def observe(self, event: Any) -> None:
        if isinstance(event, CompressionApplied):
            stage = int(event.plan.stage)
            if stage not in self.fired:
                self.fired.append(stage)
        elif isinstance(event, TurnStarted):
            self._result_tokens, self._turn_start, self._compressed = (
                0,
                self._total,
                False,
            )
        elif isinstance(event, ToolCallRequested):
            self._listing_pending = "sqlite_master" in str(event.arguments)
        elif isinstance(event, BudgetChanged):
            self._budget_changed(event.breakdown)
        elif isinstance(event, TurnFinished) and self._asked is not None:
            template, rows = self._asked
            if (
                self._result_tokens and self.played == 1
            ):  # the first turn's last result is its rows
                self.per_row[template] = max(4.0, self._result_tokens / rows)
            self._asked = None
        if isinstance(event, CompressionApplied):
            self._compressed = True

    def _budget_changed(self, breakdown: Any) -> None:
        """What each step cost, from the budget's total (what the next stage is judged by): the
        question with its skills (against what was predicted), the table listing, the rows —
        each with the model's call that came before it."""
        total, tool_results = breakdown.total, breakdown.tool_results
        if self._turn_start is not None and self._predicted is not None:
            self._question_error = (
                total - self._turn_start - self._predicted
            )  # e.g. a skill's tool specs
            self._predicted = None
        self._turn_start = None
        grew = self._tool_tokens is not None and tool_results > self._tool_tokens
        if grew and self._total is not None and not self._compressed:
            if self._listing_pending:
                self._listing = total - self._total
                self._listing_pending = False
            else:
                self._result_tokens = total - self._total
        self._tool_tokens, self._total, self._compressed = tool_results, total, False

    # -- the next turn ----------------------------------------------------------------------------
    def next_turn(self, fraction: float) -> str | None:
        if self.played >= min(self.max_turns, len(STORY)):
            self.close()
            return None
        template = STORY[self.played]
        self.played += 1
        if "{n}" not in template:
            self._asked = None
            return template
        if self.played == 1:
            rows = self._first_rows(template, fraction)
        else:
            low, high = self.thresholds[1], self.thresholds[2]
            rows = self._rows_to(
                template, low + (high - low) * 0.75
            )  # in the 90 % band
        self._asked = (template, rows)
        return template.format(n=rows)

    def _row_tokens(self, template: str) -> float:
        learnt = list(
            self.per_row.values()
        )  # every story question queries the same orders
        return self.per_row.get(template, learnt[0] if learnt else ROW_TOKENS)

    def _first_rows(self, template: str, fraction: float) -> int:
        """Rows that bring the budget to :data:`FIRST_AIM` once they land: after the question
        (and the skill it loads), use_skill, the table listing and the calls."""
        question = self._question_tokens(template.format(n=MAX_ROWS))
        self._predicted = question
        need = (
            FIRST_AIM * self.window
            - fraction * self.window
            - question
            - _USE_SKILL_TOKENS
            - self._listing
        )
        return self._bounded(need / self._row_tokens(template))

    def _rows_to(self, template: str, target: float) -> int:
        """Rows that land the budget at ``target`` once they arrive, after the engine has
        cleared every older tool result (it clears them first, oldest first, at each check
        past the first threshold): the question and its skills, use_skill, the table listing
        when clearing took the one the model had, and the calls come before the rows."""
        engine = self._engine
        question = self._question_tokens(template.format(n=MAX_ROWS))
        self._predicted = question
        growth = question + self._question_error + _USE_SKILL_TOKENS
        if engine is None:
            before = self.thresholds[0] * self.window
        else:
            from aiq_tui.context.compress import clearable_tokens

            summaries = {
                record.call_id: record.summary for record in engine.session.tool_calls
            }
            total = engine.breakdown.total
            before = total - clearable_tokens(
                engine.session.messages, engine.counter, summaries, turn_open=False
            )
            if self._relists(total + growth):
                growth += self._listing
        return self._bounded(
            (target * self.window - before - growth) / self._row_tokens(template)
        )

    def _relists(self, total: float) -> bool:
        """Whether the model will list the tables again: the check after the question clears
        older tool results, oldest first, until the budget (``total`` tokens then) is under the
        first threshold — when that takes the listing, the schema is no longer known."""
        engine = self._engine
        from aiq_tui.context.compress import cleared_message, older_tool_results
        from aiq_tui.llm.demo import known_tables

        messages = list(engine.session.messages)
        summaries = {
            record.call_id: record.summary for record in engine.session.tool_calls
        }
        for index in older_tool_results(messages, turn_open=False):
            if total < self.thresholds[0] * self.window:
                break
            shorter = cleared_message(messages[index], summaries)
            total -= max(
                0,
                engine.counter.count_message(messages[index])
                - engine.counter.count_message(shorter),
            )
            messages[index] = shorter
        return not known_tables(messages)

    def _bounded(self, rows: float) -> int:
        return max(2, min(MAX_ROWS, int(rows)))

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
        earlier = [
            m.content
            for m in engine.session.messages
            if m.role is Role.USER and not m.summary
        ]
        ranking = engine.matcher.rank(
            question, context=tuple(earlier[-keep:]) if keep else (), top_k=None
        )
        skills = engine.skills
        current = {cost.name: cost for cost in skills.costs()}
        previous = {name: cost.state for name, cost in current.items()}
        changes = assign_states(
            ranking,
            engine.config.matching.top_k,
            engine.config.disclosure,
            explicit=frozenset(skills.explicit),
            previous=previous,
        )
        new_active = any(change.new is SkillState.ACTIVE for change in changes)
        growth = engine.counter.count_message(Message(Role.USER, question, id="next"))
        for change in changes:
            cost = current.get(change.name)
            meta = skills.catalog.get(change.name)
            if meta is None or (
                cost is not None and cost.state is SkillState.ACTIVE and not new_active
            ):
                continue  # the Active skill stays Active until another one wins
            if change.new is SkillState.INACTIVE:
                growth -= cost.tokens if cost else 0
                continue
            text = skills.texts.text_for(change.name, change.phase)
            section = skill_section(
                LoadedSkill(
                    change.name, meta.description, text, change.new, change.phase
                )
            )
            growth += engine.counter.count(section) - (cost.tokens if cost else 0)
        return growth

    def close(self) -> None:
        """Stop watching the engine and give it its own window back (called when the story ends)."""
        if self._detach is not None:
            self._detach()
            self._detach = None
        if self._restore and self._engine is not None:
            self._restore = False
            self._engine.use_window(self._own_window)
