"""The workbench's view state and the one fold that builds it from the engine's events.

``apply(state, record) -> state`` is pure: the live app folds every event it receives (in
the recorded form, :func:`aiq_tui.replay.record.live_record`) and Replay folds the events a
session saved, so the two cannot disagree — pausing, stepping and replaying are a cursor over
the states this fold produces. Nothing here reads files or knows a UI; widgets draw a
:class:`ViewState`, never an event.

The state holds the conversation, the skills (state, phase, tokens, confidence, the reason
of their last change and an eviction mark with its stage), every skill change of the current
turn with its reason, the budget breakdown, the current turn's compression notes, the
timeline, the tool calls, the last ranking and the prompt's size at each model request.

A session saved before replay existed has no events; :func:`turns_from_messages` turns its
messages into turns with just the conversation, so it still replays (without skills or budget).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

from aiq_tui.conversation import Message, Role
from aiq_tui.skills.model import Phase, SkillState
from aiq_tui.skills.skill_view import SkillView

STATE_RANK = {"inactive": 0, "relevant": 1, "active": 2}
MAX_REQUESTS = 64  # prompt sizes kept for the sparkline (the newest)
PHASES = {phase.label: phase for phase in Phase}
_STAGE = re.compile(r"(\d+)\s*%")


@dataclass(frozen=True)
class Entry:
    """One block of the conversation: a user turn, an answer, or a notice."""

    kind: str  # "user" | "answer" | "notice"
    text: str
    style: str = ""  # notices: info | tool | warning | error
    message_id: str = ""  # user turns: the engine's id (what a compression summarises)
    summarised: bool = (
        False  # folded into a compression summary: still shown, no longer sent
    )
    open: bool = False  # an answer still streaming


@dataclass(frozen=True)
class SkillRow:
    name: str
    state: str  # active | relevant | inactive
    phase: str  # meta | brief | full
    tokens: int = 0
    reason: str = ""
    score: float | None = None
    confidence: float | None = None
    evicted: str = ""  # "evicted at 90 %" until the skill matches again


@dataclass(frozen=True)
class Change:
    """One skill change of the current turn, with its reason."""

    name: str
    old: str  # active | relevant | inactive | none
    new: str  # active | relevant | inactive | evicted
    phase: str
    reason: str
    kind: str  # load | unload | demote | evict

    @property
    def text(self) -> str:
        return f"{self.name} {self.old}→{self.new} {self.phase}: {self.reason}"


@dataclass(frozen=True)
class ToolRow:
    call_id: str
    name: str
    status: str  # asking | running | ok | failed | denied
    summary: str = ""
    duration_s: float | None = None
    arguments: Mapping[str, Any] = field(default_factory=dict, compare=False)
    permission: str = ""
    result: Any = field(
        default=None, compare=False
    )  # live only: sessions keep results in their messages
    progress: str = (
        ""  # live only: an MCP server's latest progress (``2/4``) while the call runs
    )


@dataclass(frozen=True)
class Budget:
    parts: Mapping[str, int]
    skills: Mapping[str, int]
    window: int
    total: int
    exact: bool = True
    source: str = ""  # where the window's size came from (the gauge's subtitle)

    @property
    def fraction(self) -> float:
        return self.total / self.window if self.window else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "parts": dict(self.parts),
            "skills": dict(self.skills),
            "window": self.window,
            "total": self.total,
        }


@dataclass(frozen=True)
class MatchRow:
    name: str
    score: float
    confidence: float


@dataclass(frozen=True)
class ViewState:
    turn: int = 0  # turns started so far (1-based number of the current turn)
    event: int = 0  # events of the current turn applied so far
    conversation: tuple[Entry, ...] = ()
    skills: tuple[SkillRow, ...] = ()  # in order of first appearance
    changes: tuple[Change, ...] = ()  # this turn's skill changes, oldest first
    budget: Budget | None = None
    stage_notes: tuple[
        str, ...
    ] = ()  # this turn's compressions (cleared when the next turn starts)
    timeline: tuple[tuple[str, str, str], ...] = ()  # (clock time, kind, text)
    tools: tuple[ToolRow, ...] = ()
    matches: tuple[MatchRow, ...] = ()  # the last ranking's head
    query: str = ""  # what the last ranking was for
    requests: tuple[int, ...] = ()  # the prompt's total at each model request
    running: bool = False  # between a turn's start and its end
    turn_over: bool = (
        False  # the last turn finished: the next skill change or question starts afresh
    )
    numbered: bool = False  # Replay numbers recorded turns itself (begin_turn); live counts turn_started
    last_event: str = ""  # what the last applied event was, for captions

    @property
    def stage_note(self) -> str:
        """The gauge's line: this turn's newest compression (the timeline keeps them all)."""
        if not self.stage_notes:
            return ""
        earlier = len(self.stage_notes) - 1
        return self.stage_notes[-1] + (
            f" · {earlier} earlier this turn" if earlier else ""
        )

    def skill(self, name: str) -> SkillRow | None:
        return next((row for row in self.skills if row.name == name), None)

    def loaded(self) -> dict[str, tuple[str, str]]:
        """Skills in the prompt (Active or Relevant): name → (state, phase)."""
        return {
            row.name: (row.state, row.phase)
            for row in self.skills
            if row.state != "inactive"
        }

    def to_json(self) -> dict[str, Any]:
        return {
            "turn": self.turn,
            "event": self.event,
            "conversation": [
                {
                    "kind": e.kind,
                    "text": e.text,
                    **({"style": e.style} if e.style else {}),
                }
                for e in self.conversation
            ],
            "skills": [
                {
                    "name": r.name,
                    "state": r.state,
                    "phase": r.phase,
                    "tokens": r.tokens,
                    "reason": r.reason,
                    "score": r.score,
                    "confidence": r.confidence,
                    "evicted": r.evicted,
                }
                for r in self.skills
            ],
            "changes": [
                {
                    "name": c.name,
                    "old": c.old,
                    "new": c.new,
                    "phase": c.phase,
                    "reason": c.reason,
                    "kind": c.kind,
                }
                for c in self.changes
            ],
            "budget": self.budget.to_json() if self.budget else None,
            "stage_notes": list(self.stage_notes),
            "timeline": [
                {"time": t, "kind": k, "text": x} for t, k, x in self.timeline
            ],
            "tools": [
                {
                    "call_id": t.call_id,
                    "name": t.name,
                    "status": t.status,
                    "summary": t.summary,
                    "duration_s": t.duration_s or 0.0,
                }
                for t in self.tools
            ],
            "matches": [
                {"name": m.name, "score": m.score, "confidence": m.confidence}
                for m in self.matches
            ],
            "requests": list(self.requests),
            "last_event": self.last_event,
        }


ReplayState = ViewState  # the name Replay knew it by


# -- positions in a recorded session -----------------------------------------------------------
def event_count(turns: Sequence[Mapping[str, Any]], turn: int) -> int:
    """Events recorded in the 1-based ``turn``."""
    return len(turns[turn - 1].get("events", ())) if 1 <= turn <= len(turns) else 0


def state_at(
    turns: Sequence[Mapping[str, Any]], turn: int, event: int | None = None
) -> ViewState:
    """The state after ``event`` events of the 1-based ``turn`` (all of them when None).

    ``turn`` 0 is the empty state before the session; values past the end are clamped.
    """
    turn = max(0, min(turn, len(turns)))
    state = ViewState()
    for number in range(1, turn + 1):
        record = turns[number - 1]
        events = list(record.get("events", ()))
        upto = (
            len(events)
            if number < turn or event is None
            else max(0, min(event, len(events)))
        )
        state = begin_turn(state, number)
        start = _parse_time(record.get("at"))
        for data in events[:upto]:
            state = apply(state, data, start)
    return state


def turn_states(turns: Sequence[Mapping[str, Any]]) -> list[ViewState]:
    """The state at the end of every turn, in one pass."""
    return [states[-1] for states in all_states(turns)]


def all_states(turns: Sequence[Mapping[str, Any]]) -> list[list[ViewState]]:
    """For every turn, the state after each of its events (index 0: the turn before its first
    event), in one pass."""
    return list(_turn_folds(turns))


def _turn_folds(turns: Sequence[Mapping[str, Any]]) -> Iterator[list[ViewState]]:
    """Each turn's states (:func:`_turn_fold`), each turn starting where the one before ended."""
    state = ViewState()
    for number, record in enumerate(turns, start=1):
        states = _turn_fold(begin_turn(state, number), record)
        yield states
        state = states[-1]


def _turn_fold(state: ViewState, record: Mapping[str, Any]) -> list[ViewState]:
    """``state`` (a turn's start) and the state after each event of the turn ``record``."""
    start = _parse_time(record.get("at"))
    states = [state]
    for data in record.get("events", ()):
        state = apply(state, data, start)
        states.append(state)
    return states


class SessionStates:
    """What Replay steps through: the session folded once, keeping each turn's start; the states
    after each event of a turn are folded again from its start when that turn is shown (a turn
    is a few dozen events: well under a millisecond) and the last :data:`KEPT_TURNS` turns
    shown are kept. Memory grows with the turns, not with turns × events × what each state
    holds (a 5,000-event session's every state held a million references)."""

    KEPT_TURNS = 8

    def __init__(self, turns: Sequence[Mapping[str, Any]]) -> None:
        self.turns = list(turns)
        self.starts: list[ViewState] = []
        self._kept: dict[int, list[ViewState]] = {}
        states: list[ViewState] = []
        for states in _turn_folds(self.turns):  # only each turn's start is kept
            self.starts.append(states[0])
        if self.turns:  # Replay opens on the last turn
            self._kept[len(self.turns)] = states

    def at(self, turn: int, event: int) -> ViewState:
        """The state after ``event`` events of the 1-based ``turn`` (clamped); turn 0: empty."""
        if not 1 <= turn <= len(self.turns):
            return ViewState()
        states = self._kept.pop(turn, None)
        if states is None:
            states = _turn_fold(self.starts[turn - 1], self.turns[turn - 1])
            if len(self._kept) >= self.KEPT_TURNS:
                self._kept.pop(next(iter(self._kept)))
        self._kept[turn] = states  # the newest shown last
        return states[max(0, min(event, len(states) - 1))]


def begin_turn(state: ViewState, number: int) -> ViewState:
    """The position moves to the recorded turn ``number`` (before its first event)."""
    return replace(state, turn=number, event=0, numbered=True)


def fold(
    records: Iterable[Mapping[str, Any]], state: ViewState | None = None
) -> ViewState:
    """Every record applied in order (the live app's events, each counted in its turn)."""
    state = state or ViewState()
    for data in records:
        state = apply(state, data)
    return state


# -- the reducer ----------------------------------------------------------------------------------
def apply(
    state: ViewState, data: Mapping[str, Any], start: datetime | None = None
) -> ViewState:
    """One event applied to ``state`` (a new state; the old one is unchanged). Events come from
    session files, which are input: one whose fields have the wrong shape becomes a notice that
    it was skipped, never an exception."""
    try:
        return _apply(state, data, start)
    except (
        TypeError,
        ValueError,
        AttributeError,
        KeyError,
        IndexError,
        OverflowError,
    ) as exc:
        kind = (
            str(data.get("type", ""))
            if isinstance(data, Mapping)
            else type(data).__name__
        )
        notice = Entry(
            "notice",
            f"skipped a {kind or 'typeless'} event the session holds in an unreadable "
            f"shape ({type(exc).__name__})",
            "warning",
        )
        return replace(
            state,
            event=state.event + 1,
            last_event=kind,
            conversation=_closed(state) + (notice,),
        )


def _apply(
    state: ViewState, data: Mapping[str, Any], start: datetime | None = None
) -> ViewState:
    kind = str(data.get("type", ""))
    if (
        kind == "turn_started" and not state.numbered
    ):  # live: each question starts the next turn
        state = replace(state, turn=state.turn + 1, event=0)
    state = replace(state, event=state.event + 1, last_event=kind)
    clock = str(data.get("clock", ""))
    if not clock and start is not None:
        clock = (start + timedelta(seconds=float(data.get("dt", 0.0) or 0.0))).strftime(
            "%H:%M:%S"
        )

    def line(tag: str, text: str) -> tuple[tuple[str, str, str], ...]:
        return state.timeline + ((clock, tag, text),)

    if kind == "turn_started":
        user = Entry(
            "user",
            str(data.get("text", "")),
            message_id=str(data.get("message_id", "") or ""),
        )
        # The changes listed are this turn's: a /skill or a reload just before the question
        # belongs to it (the recorder files them there too).
        early = () if state.turn_over else state.changes
        return replace(
            state,
            conversation=_closed(state) + (user,),
            running=True,
            turn_over=False,
            changes=early,
            stage_notes=(),
        )
    if kind == "token_streamed":
        text = str(data.get("text", ""))
        last = state.conversation[-1] if state.conversation else None
        if last is not None and last.kind == "answer" and last.open:
            return replace(
                state,
                conversation=state.conversation[:-1]
                + (replace(last, text=last.text + text),),
            )
        return replace(
            state, conversation=state.conversation + (Entry("answer", text, open=True),)
        )
    if kind == "skills_matched":
        matches = tuple(_match(item) for item in data.get("matches") or ())
        top = matches[0] if matches else None
        text = (
            f"{data.get('total', len(matches))} of {data.get('considered', 0)} scored"
            + (f", top {top.name} confidence {top.confidence:.2f}" if top else "")
        )
        scores = {m.name: m for m in matches}
        skills = tuple(
            replace(
                row,
                score=scores[row.name].score,
                confidence=scores[row.name].confidence,
            )
            if row.name in scores
            else replace(row, score=None, confidence=None)
            for row in state.skills
        )
        return replace(
            state,
            matches=matches,
            query=str(data.get("query", "") or state.query),
            skills=skills,
            timeline=line("match", text),
        )
    if kind == "skill_state_changed":
        return _skill_changed(state, data, line)
    if kind == "budget_changed":
        budget = Budget(
            _counts(data.get("parts")),
            _counts(data.get("skills")),
            int(data.get("window", 0) or 0),
            int(data.get("total", 0) or 0),
            bool(data.get("exact", True)),
            str(data.get("source", "")),
        )
        notes = state.stage_notes
        if state.budget is not None and budget.window != state.budget.window:
            notes = ()  # another model's window: the notes were about the old one
        return replace(state, budget=budget, stage_notes=notes)
    if kind == "model_request_started":
        total = state.budget.total if state.budget else 0
        return replace(state, requests=(state.requests + (total,))[-MAX_REQUESTS:])
    if kind == "compression_applied":
        note = (
            f"stage {data.get('stage')}%: {data.get('step', '')} "
            f"({int(data.get('before', 0)):,} → {int(data.get('after', 0)):,})"
        )
        conversation = state.conversation
        ids = set(data.get("summarise_ids") or ())
        if ids:
            conversation = _summarised(conversation, ids)
        # Within a turn the stages add up (80, then 90, then 95); outside one (/compact) a
        # compression is a step of its own.
        notes = (state.stage_notes if state.running else ()) + (note,)
        return replace(
            state,
            budget=_stepped(state.budget, data),
            stage_notes=notes,
            timeline=line("compress", note),
            conversation=conversation,
        )
    if kind == "tool_call_requested":
        arguments = dict(data.get("arguments") or {})
        status = "asking" if data.get("permission") == "ask" else "running"
        row = ToolRow(
            str(data.get("call_id", "")),
            str(data.get("name", "")),
            status,
            arguments=arguments,
            permission=str(data.get("permission", "")),
        )
        notice = Entry(
            "notice", f"⚙ {data.get('name')}({short_args(arguments, 70)})", "tool"
        )
        return replace(
            state,
            tools=_upsert(state.tools, row),
            conversation=_closed(state) + (notice,),
            timeline=line("tool", f"{data.get('name')} {short_args(arguments, 60)}"),
        )
    if (
        kind == "mcp_progress"
    ):  # live only (not saved): the tool log shows it while the call runs
        return replace(
            state,
            tools=_update(
                state.tools,
                str(data.get("call_id", "")),
                progress=str(data.get("label", "")),
            ),
        )
    if kind == "tool_call_approved":
        return replace(
            state,
            tools=_update(state.tools, str(data.get("call_id", "")), status="running"),
        )
    if kind == "tool_call_denied":
        tools = _update(
            state.tools,
            str(data.get("call_id", "")),
            status="denied",
            summary=str(data.get("reason", "")),
        )
        notice = Entry(
            "notice",
            f"✗ {data.get('name')} denied: {data.get('reason', '')}",
            "warning",
        )
        return replace(state, tools=tools, conversation=_closed(state) + (notice,))
    if (
        kind == "tool_call_cancelled"
    ):  # it asked or ran when the turn ended: never "asking" for good
        tools = _update(
            state.tools,
            str(data.get("call_id", "")),
            status="cancelled",
            summary=str(data.get("reason", "")),
        )
        notice = Entry(
            "notice",
            f"✗ {data.get('name')} {data.get('reason', 'cancelled')}",
            "warning",
        )
        return replace(state, tools=tools, conversation=_closed(state) + (notice,))
    if kind == "tool_call_finished":
        ok = bool(data.get("ok"))
        call_id = str(data.get("call_id", ""))
        changes: dict[str, Any] = {
            "status": "ok" if ok else "failed",
            "summary": str(data.get("summary", "")),
            "duration_s": float(data.get("duration_s", 0.0) or 0.0),
        }
        if "result" in data:
            changes["result"] = data["result"]
        tools = state.tools
        if (
            _index(tools, call_id) is None
        ):  # a resumed session's call: no request recorded
            tools = tools + (
                ToolRow(
                    call_id,
                    str(data.get("name", "")),
                    "running",
                    arguments=dict(data.get("arguments") or {}),
                ),
            )
        tools = _update(tools, call_id, **changes)
        entries: tuple[Entry, ...] = (
            Entry(
                "notice",
                f"{'✓' if ok else '✗'} {data.get('name')}: {data.get('summary', '')}",
                "tool" if ok else "error",
            ),
        )
        if data.get(
            "plan"
        ):  # a composite skill's plan: the steps the agent is about to take
            entries += (
                Entry(
                    "notice", f"plan of {data.get('name')}:\n{data.get('plan')}", "info"
                ),
            )
        return replace(state, tools=tools, conversation=_closed(state) + entries)
    if kind == "turn_finished":
        conversation = _closed(state)
        final = data.get("text")
        answers = _turn_answers(conversation)
        if final and not (answers and answers[-1].text == final):
            conversation += (Entry("answer", str(final)),)
        if data.get("cancelled"):
            conversation += (
                Entry(
                    "notice", "turn cancelled — the partial answer was kept", "warning"
                ),
            )
        return replace(state, conversation=conversation, running=False, turn_over=True)
    if kind == "error_raised":
        notice = Entry("notice", f"error: {data.get('message', '')}", "error")
        return replace(state, conversation=_closed(state) + (notice,))
    if kind == "retry_scheduled":
        notice = Entry(
            "notice",
            f"retry {data.get('attempt')} in {float(data.get('delay_s', 0)):.1f} s: "
            f"{data.get('reason', '')}",
            "warning",
        )
        return replace(state, conversation=_closed(state) + (notice,))
    if kind == "catalog_reloaded":
        parts = [
            f"{label} {', '.join(data.get(label) or ())}"
            for label in ("added", "changed", "removed", "disabled")
            if data.get(label)
        ]
        timeline = line("reload", "; ".join(parts) or "no changes")
        problems = data.get("problems") or ()
        if problems:
            timeline += (
                (clock, "warn", f"{len(problems)} problem(s); last good versions kept"),
            )
        return replace(state, timeline=timeline)
    if (
        kind == "notice"
    ):  # the app's own lines (slash-command output), folded like any event
        return replace(
            state,
            conversation=_closed(state)
            + (
                Entry(
                    "notice", str(data.get("text", "")), str(data.get("style", "info"))
                ),
            ),
        )
    if kind == "mcp_server_changed":
        return replace(
            state,
            timeline=line(
                "mcp", str(data.get("line", f"{data.get('name')}: {data.get('state')}"))
            ),
        )
    if kind in ("mcp_resource_updated", "mcp_resource_refreshed"):
        return _resource_news(state, kind, data, line)
    if (
        kind == "reset"
    ):  # a new or resumed session: what was shown belonged to the one left behind
        # A resumed session keeps the skills its engine restored (folded just before); a new one
        # starts with none loaded and no eviction marks from the old one's compressions.
        skills = () if data.get("session") == "new" else state.skills
        return replace(ViewState(), skills=skills, budget=state.budget, last_event=kind)
    return state  # an event type this version does not draw


# Which part of the prompt a compression step shrinks (its ``step`` text's first word).
_STEP_PART = {
    "cleared": "tool_results",
    "cut": "tool_results",
    "summarised": "history",
    "evicted": "skills",
    "shortened": "catalog",
}


def _stepped(budget: Budget | None, data: Mapping[str, Any]) -> Budget | None:
    """The budget after one compression step, so that the gauge follows the step the captions
    show (the engine measures the prompt again only after the last step: through stage 95's
    four steps the gauge stood at 116 % while the captions counted down to 95 %). The tokens
    saved leave the part the step shrinks (an evicted skill leaves whole), any rest the
    history; the engine's next budget replaces this estimate."""
    after = _int_of(data.get("after"))
    if budget is None or after is None or after >= budget.total:
        return budget
    saved = budget.total - after
    parts, skills = dict(budget.parts), dict(budget.skills)
    step = str(data.get("step", ""))
    part = _STEP_PART.get(step.split(" ", 1)[0], "history")
    if part == "skills":
        name = step.split(" ")[1] if " " in step else ""
        taken = skills.pop(name, 0)
        parts["skills"] = max(0, parts.get("skills", 0) - taken)
        if taken > saved:  # the step saved less than the skill weighed: the rest stayed
            parts["history"] = parts.get("history", 0) + taken - saved
            taken = saved
    else:
        taken = min(saved, parts.get(part, 0))
        parts[part] = parts.get(part, 0) - taken
    for other in ("history", "tool_results", "catalog"):
        rest = min(saved - taken, parts.get(other, 0))
        parts[other] = parts.get(other, 0) - rest
        taken += rest
    return replace(budget, parts=parts, skills=skills, total=after)


def _int_of(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def skill_views(state: ViewState, catalog: Sequence[SkillView] = ()) -> list[SkillView]:
    """What the skills pane lists: the catalog's skills (Inactive unless the events say otherwise,
    with the last ranking's confidence), each overlaid with its folded row; skills the events
    name that the catalog no longer has come last."""
    rows = {row.name: row for row in state.skills}
    scores = {m.name: m for m in state.matches}
    views: list[SkillView] = []
    for base in catalog:
        row = rows.pop(base.name, None)
        if row is None:
            match = scores.get(base.name)
            views.append(
                replace(
                    base,
                    state=SkillState.INACTIVE,
                    phase=Phase.METADATA,
                    score=match.score if match else None,
                    confidence=match.confidence if match else None,
                    reason="",
                    evicted="",
                )
            )
        else:
            views.append(_view(row, base.description, base.status))
    views += [_view(row, "", "active") for row in rows.values()]
    return views


def _view(row: SkillRow, description: str, status: str) -> SkillView:
    return SkillView(
        row.name,
        description,
        SkillState(row.state),
        PHASES.get(row.phase, Phase.METADATA),
        row.tokens,
        row.score,
        row.confidence,
        row.reason,
        status,
        row.evicted,
    )


def change_kind(old: str | None, new: str | None) -> str:
    """Timeline wording: "evict" only when the budget stage removed the skill from the prompt;
    a skill that stops matching is "unload", one that drops a section is "demote"."""
    if new is None:
        return "evict"
    if new == "inactive":
        return "unload"
    if old is not None and STATE_RANK.get(new, 0) < STATE_RANK.get(old, 0):
        return "demote"
    return "load"


def _skill_changed(state: ViewState, data: Mapping[str, Any], line: Any) -> ViewState:
    name = str(data.get("name", ""))
    new = data.get("new") or None
    old = data.get("old") or None
    phase = str(data.get("phase", "meta"))
    reason = str(data.get("reason", ""))
    current = state.skill(name)
    match = next((m for m in state.matches if m.name == name), None)
    score = match.score if match else (current.score if current else None)
    confidence = (
        match.confidence if match else (current.confidence if current else None)
    )
    evicted = ""
    if new is None:
        stage = _STAGE.search(reason)
        evicted = f"evicted at {stage.group(1)} %" if stage else "evicted"
    elif new == "inactive" and current is not None:
        evicted = (
            current.evicted
        )  # still out of the prompt: the mark stays until it matches again
    row = SkillRow(
        name,
        str(new) if new else "inactive",
        phase if new else "meta",
        int(data.get("tokens", 0) or 0),
        reason,
        score,
        confidence,
        evicted,
    )
    if current is None:
        skills = state.skills + (row,)
    else:
        skills = tuple(row if r.name == name else r for r in state.skills)
    kind = change_kind(old, new)
    change = Change(
        name, str(old or "none"), str(new or "evicted"), phase, reason, kind
    )
    earlier = (
        () if state.turn_over else state.changes
    )  # the last turn's list ends with it
    return replace(
        state,
        skills=skills,
        changes=earlier + (change,),
        turn_over=False,
        timeline=line(kind, change.text),
    )


def _resource_news(
    state: ViewState, kind: str, data: Mapping[str, Any], line: Any
) -> ViewState:
    """A watched MCP resource changed on its server, and what the next message did about it
    (:class:`~aiq_tui.events.McpResourceUpdated` / ``McpResourceRefreshed``)."""
    server, uri = str(data.get("server", "")), str(data.get("uri", ""))
    mention = f"@{server}:{uri}"
    if kind == "mcp_resource_updated":
        promise = (
            "your next message re-reads it and sends the model its new text"
            if data.get("use") == "attached"
            else "your next message tells the model, which read it earlier"
        )
        notice = Entry(
            "notice", f"↻ resource {mention} updated on the server — {promise}", "info"
        )
        return replace(
            state,
            conversation=_closed(state) + (notice,),
            timeline=line("mcp", f"{mention} updated"),
        )
    outcome, summary = str(data.get("outcome", "")), str(data.get("summary", ""))
    said = {
        "attached": f"new text sent with your message ({summary})",
        "unchanged": "re-read: the same text you attached, not sent again",
        "failed": f"could not be re-read ({summary}); the model is told so",
        "told": "the model is told it changed",
        "dropped": f"not carried: {summary or 'a new conversation'}",
    }.get(outcome, outcome)
    timeline = line("mcp", f"{mention} {said}")
    if outcome not in ("unchanged", "failed"):
        return replace(state, timeline=timeline)
    notice = Entry(
        "notice", f"↻ {mention} {said}", "warning" if outcome == "failed" else "info"
    )
    return replace(state, conversation=_closed(state) + (notice,), timeline=timeline)


def _match(item: Any) -> MatchRow:
    """One match of a ``skills_matched`` event, well typed (a TypeError/ValueError otherwise)."""
    if not isinstance(item, Mapping):
        raise TypeError(f"a match is {type(item).__name__}, not an object")
    return MatchRow(
        str(item.get("name", "")),
        float(item.get("score") or 0.0),
        float(item.get("confidence") or 0.0),
    )


def _counts(value: Any) -> dict[str, int]:
    """``{name: tokens}`` of a ``budget_changed`` event, well typed."""
    return {str(key): int(count) for key, count in dict(value or {}).items()}


def _closed(state: ViewState) -> tuple[Entry, ...]:
    """The conversation with a streaming answer closed: the model paused (a tool call, an error)
    and its next words start a new block below."""
    last = state.conversation[-1] if state.conversation else None
    if last is not None and last.open:
        return state.conversation[:-1] + (replace(last, open=False),)
    return state.conversation


def _turn_answers(conversation: tuple[Entry, ...]) -> list[Entry]:
    """The answers since the last question. Looked for from the end: a fold step costs the turn,
    not the conversation (the time cursor refolds up to a keyframe's spacing of events a step)."""
    answers: list[Entry] = []
    for entry in reversed(conversation):
        if entry.kind == "user":
            break
        if entry.kind == "answer":
            answers.append(entry)
    answers.reverse()
    return answers


def _summarised(conversation: tuple[Entry, ...], ids: set[str]) -> tuple[Entry, ...]:
    """The turns whose question was folded into a summary, and what was shown for them, dimmed;
    one notice says so below."""
    result, inside, marked = [], False, 0
    for entry in conversation:
        if entry.kind == "user":
            inside = entry.message_id in ids and not entry.summarised
            marked += inside
        result.append(replace(entry, summarised=True) if inside else entry)
    if marked:
        result.append(
            Entry(
                "notice",
                f"↑ {marked} earlier turn{'s' if marked != 1 else ''} ({len(ids)} messages) "
                "now live in one summary — dimmed above, marked 'summarised'",
                "info",
            )
        )
    return tuple(result)


def _upsert(rows: tuple[ToolRow, ...], row: ToolRow) -> tuple[ToolRow, ...]:
    at = _index(rows, row.call_id)
    return rows + (row,) if at is None else rows[:at] + (row,) + rows[at + 1 :]


def _update(
    rows: tuple[ToolRow, ...], call_id: str, **changes: Any
) -> tuple[ToolRow, ...]:
    at = _index(rows, call_id)
    return (
        rows
        if at is None
        else rows[:at] + (replace(rows[at], **changes),) + rows[at + 1 :]
    )


def _index(rows: tuple[ToolRow, ...], call_id: str) -> int | None:
    """Where ``call_id``'s row is, looked for from the newest: a call is updated while it runs,
    so its row is nearly always among the last (call ids are unique within a session)."""
    for at in range(len(rows) - 1, -1, -1):
        if rows[at].call_id == call_id:
            return at
    return None


def short_args(arguments: Mapping[str, Any], limit: int) -> str:
    """The short form of a tool call's arguments (``key=value``, whitespace folded)."""

    def short(value: Any) -> str:
        text = value if isinstance(value, str) else json.dumps(value, default=str)
        return " ".join(text.split())

    text = ", ".join(f"{k}={short(v)}" for k, v in arguments.items())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _parse_time(value: Any) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


def turns_from_messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """Turns for a session saved without events: each user message starts one; tool calls
    are told as live tells them (the ``⚙`` request, then the result's first line)."""
    turns: list[dict[str, Any]] = []
    for message in messages:
        if message.role is Role.USER and not message.summary:
            turns.append(
                {
                    "at": "",
                    "events": [
                        {
                            "type": "turn_started",
                            "text": message.content,
                            "message_id": message.id or "",
                        }
                    ],
                }
            )
        elif not turns:
            continue
        elif message.role is Role.ASSISTANT:
            if message.content:
                turns[-1]["events"].append(
                    {"type": "token_streamed", "text": message.content}
                )
            for call in message.tool_calls:
                turns[-1]["events"].append(
                    {
                        "type": "tool_call_requested",
                        "call_id": call.id,
                        "name": call.name,
                        "arguments": dict(call.arguments),
                        "permission": "allow",
                    }
                )
            if message.content and not message.tool_calls:
                turns[-1]["events"].append({"type": "turn_finished"})
        elif message.role is Role.TOOL:
            first = (message.content.strip().splitlines() or [""])[0]
            turns[-1]["events"].append(
                {
                    "type": "tool_call_finished",
                    "call_id": message.tool_call_id or "",
                    "name": message.name or "tool",
                    "ok": True,
                    "summary": first[:70] + ("…" if len(first) > 70 else ""),
                }
            )
    return turns
