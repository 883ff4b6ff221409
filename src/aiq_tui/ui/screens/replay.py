"""Replay mode: step through a recorded session turn by turn and event by event.

The screen draws :func:`aiq_tui.replay.state.state_at` with the live workbench's own widgets
(conversation, the three skill sections, the budget gauge, the timeline), so what it shows is
what the workbench showed at that point. Read-only: there is no prompt, and Esc returns to
live mode. :class:`ReplayApp` hosts the screen on its own for ``aiq-tui replay --svg``.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Static

from aiq_tui.agent.views import SkillView
from aiq_tui.context.model import Breakdown
from aiq_tui.replay.state import ReplayState, event_count, state_at
from aiq_tui.skills.model import Phase, SkillState
from aiq_tui.ui.plain import plain
from aiq_tui.ui.widgets.budget_gauge import BudgetGauge
from aiq_tui.ui.widgets.conversation import Conversation
from aiq_tui.ui.widgets.skills_pane import SkillsPane
from aiq_tui.ui.widgets.timeline import Timeline

PHASES = {phase.label: phase for phase in Phase}
_NO_TIME = datetime(2000, 1, 1)


CatalogRows = Callable[[], Sequence[tuple[str, str, int]]]  # (name, description, catalog-line tokens)


def skill_views(state: ReplayState, describe: Callable[[str], str],
                catalog: Sequence[tuple[str, str, int]] = ()) -> list[SkillView]:
    """The recorded skills, then (when given) the rest of the catalog as Inactive, as live shows it."""
    views = [
        SkillView(row.name, describe(row.name), SkillState(row.state), PHASES.get(row.phase, Phase.METADATA),
                  row.tokens, row.score, row.confidence, row.reason)
        for row in state.skills
    ]
    seen = {row.name for row in state.skills}
    scores = {m.get("name"): m for m in state.matches}
    for name, description, tokens in catalog:
        if name not in seen:
            match = scores.get(name) or {}
            views.append(SkillView(name, description, SkillState.INACTIVE, Phase.METADATA, tokens,
                                   match.get("score"), match.get("confidence")))
    return views


def breakdown_of(budget: Mapping[str, Any] | None) -> Breakdown | None:
    if not budget:
        return None
    parts = budget.get("parts") or {}
    return Breakdown(
        system=int(parts.get("system", 0)), catalog=int(parts.get("catalog", 0)),
        skills={str(k): int(v) for k, v in (budget.get("skills") or {}).items()},
        history=int(parts.get("history", 0)), tool_results=int(parts.get("tool_results", 0)),
        reserve=int(parts.get("reserve", 0)), window=int(budget.get("window", 0)),
    )


class ReplayScreen(Screen[None]):
    """``ReplayScreen(turns, title)`` — ``turns`` as saved in a session's ``replay``."""

    # Priority: the conversation would otherwise scroll on these keys instead of scrubbing.
    BINDINGS = [
        Binding("escape", "live", "Back to live", priority=True),
        Binding("left", "step(-1)", "◀ event", priority=True),
        Binding("right", "step(1)", "event ▶", priority=True),
        Binding("up,pageup", "turn(-1)", "◀ turn", priority=True),
        Binding("down,pagedown", "turn(1)", "turn ▶", priority=True),
        Binding("home", "jump(0)", "Start", show=False, priority=True),
        Binding("end", "jump(-1)", "End", show=False, priority=True),
    ]

    def __init__(self, turns: Sequence[Mapping[str, Any]], title: str, *, turn: int | None = None,
                 describe: Callable[[str], str] | None = None, note: str = "",
                 thresholds: tuple[float, float, float] = (0.8, 0.9, 0.95),
                 catalog: CatalogRows | None = None) -> None:
        super().__init__()
        self.catalog_rows = catalog
        self.turns = list(turns)
        self.title_text = title
        self.note = note
        self.describe = describe or (lambda name: "")
        self.thresholds = thresholds
        self.turn = len(self.turns) if turn is None else max(0, min(turn, len(self.turns)))
        self.event = event_count(self.turns, self.turn)
        self.state = ReplayState()
        self._shown_conversation: tuple = ()
        self._shown_timeline: tuple = ()

    def compose(self) -> ComposeResult:
        yield Static("", id="replay-bar", markup=False)
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield Conversation(id="conversation")
            with Vertical(id="right"):
                yield SkillsPane(id="skills")
                yield BudgetGauge(self.thresholds, id="gauge")
                yield Timeline(lambda: _NO_TIME, id="timeline")
        yield Footer()

    async def on_mount(self) -> None:
        self.query_one(Conversation).border_title = plain(f"Replay (read-only): {self.title_text}")
        timeline = self.query_one(Timeline)
        timeline.border_title = "Timeline"
        timeline.styles.height = 11
        await self.show()

    # -- navigation ------------------------------------------------------------------------
    async def action_step(self, delta: int) -> None:
        turn, event = self.turn, self.event + delta
        if event < 0 and turn > 1:
            turn -= 1
            event = event_count(self.turns, turn) - 1
        elif event > event_count(self.turns, turn) and turn < len(self.turns):
            turn, event = turn + 1, 1
        self.turn = turn
        self.event = max(0, min(event, event_count(self.turns, turn)))
        await self.show()

    async def action_turn(self, delta: int) -> None:
        self.turn = max(1 if self.turns else 0, min(len(self.turns), self.turn + delta))
        self.event = event_count(self.turns, self.turn)
        await self.show()

    async def action_jump(self, where: int) -> None:
        if where == 0:
            self.turn, self.event = (1, 0) if self.turns else (0, 0)
        else:
            self.turn = len(self.turns)
            self.event = event_count(self.turns, self.turn)
        await self.show()

    def action_live(self) -> None:
        self.dismiss(None)

    async def go(self, turn: int, event: int | None = None) -> None:
        """Show the state after ``event`` events of ``turn`` (the whole turn when None)."""
        self.turn = max(0, min(turn, len(self.turns)))
        total = event_count(self.turns, self.turn)
        self.event = total if event is None else max(0, min(event, total))
        await self.show()

    # -- drawing ---------------------------------------------------------------------------
    async def _draw_conversation(self, entries: tuple) -> None:
        """Redraw only what changed: a step usually adds or drops a block at the end, and a
        long session has dozens of rendered answers above it."""
        conversation = self.query_one(Conversation)
        shown = self._shown_conversation
        keep = 0
        while keep < min(len(shown), len(entries)) and shown[keep] == entries[keep]:
            keep += 1
        children = list(conversation.children)
        if len(children) != len(shown):  # not one widget per block: start over
            await conversation.reset()
            keep = 0
        else:
            for widget in children[keep:]:
                await widget.remove()
        await _mount_entries(conversation, entries[keep:])
        self._shown_conversation = entries

    def caption(self) -> str:
        total = event_count(self.turns, self.turn)
        what = self.state.last_event.replace("_", " ") or "start"
        note = f" · {self.note}" if self.note else ""
        return (f"⏵ Replay · turn {self.turn}/{len(self.turns)} · event {self.event}/{total} ({what}){note}"
                " · ←/→ event · ↑/↓ turn · Esc live")

    async def show(self) -> None:
        self.state = state_at(self.turns, self.turn, self.event)
        state = self.state
        self.query_one("#replay-bar", Static).update(self.caption())
        if state.conversation != self._shown_conversation:
            await self._draw_conversation(state.conversation)
        pane = self.query_one(SkillsPane)
        pane.set_views(skill_views(state, self.describe, self.catalog_rows() if self.catalog_rows else ()))
        last_change = next((line for line in reversed(state.timeline) if line[1] in ("load", "evict")), None)
        pane.show_reason(last_change[2] if last_change else "")
        gauge = self.query_one(BudgetGauge)
        gauge.breakdown = breakdown_of(state.budget)
        gauge.stage_note = state.stage_note
        timeline = self.query_one(Timeline)
        shown = self._shown_timeline
        if state.timeline[:len(shown)] == shown:  # stepping forward: append the new lines only
            new = state.timeline[len(shown):]
        else:
            timeline.clear()
            timeline.entries.clear()
            new = state.timeline
        for clock, kind, text in new:
            moment = _time(clock)
            timeline.clock = lambda moment=moment: moment
            timeline.add(kind, text)
        self._shown_timeline = state.timeline


async def _mount_entries(conversation: Conversation, entries: Sequence[Any]) -> None:
    for entry in entries:
        if entry.kind == "user":
            await conversation.add_user(entry.text)
        elif entry.kind == "answer":
            await conversation.add_answer(entry.text)
        else:
            await conversation.add_notice(entry.text, entry.style or "info")


def _time(clock: str) -> datetime:
    try:
        return datetime.strptime(clock, "%H:%M:%S")
    except ValueError:
        return _NO_TIME


class ReplayApp(App[None]):
    """The Replay screen on its own (``aiq-tui replay --svg`` and snapshot tests)."""

    CSS_PATH = str(Path(__file__).resolve().parents[1] / "app.tcss")
    TITLE = "aiq-tui replay"

    def __init__(self, turns: Sequence[Mapping[str, Any]], title: str, *, turn: int | None = None,
                 note: str = "", describe: Callable[[str], str] | None = None) -> None:
        super().__init__()
        self.replay = ReplayScreen(turns, title, turn=turn, note=note, describe=describe)

    def on_mount(self) -> None:
        self.push_screen(self.replay, callback=lambda _: self.exit())
