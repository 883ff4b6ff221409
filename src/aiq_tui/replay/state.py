"""Rebuild what the workbench showed at any point of a recorded session — a pure fold.

:func:`state_at` applies the saved events of turns ``1…turn`` (the last one up to ``event``)
to an empty :class:`ReplayState`: the conversation, the skills with state, phase and reason,
the budget breakdown, the timeline and the tool calls. Nothing here reads files or knows a UI;
the CLI prints these states and the TUI's Replay mode draws them with the live widgets.

A session saved before replay existed has no events; :func:`turns_from_messages` turns its
messages into turns with just the conversation, so it still replays (without skills or budget).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any, Mapping, Sequence

from aiq_tui.conversation import Message, Role


@dataclass(frozen=True)
class Entry:
    """One block of the conversation: a user turn, an answer, or a notice."""

    kind: str  # "user" | "answer" | "notice"
    text: str
    style: str = ""  # notices: info | tool | warning | error


@dataclass(frozen=True)
class SkillRow:
    name: str
    state: str  # active | relevant | inactive
    phase: str  # meta | brief | full
    tokens: int = 0
    reason: str = ""
    score: float | None = None
    confidence: float | None = None


@dataclass(frozen=True)
class ToolRow:
    call_id: str
    name: str
    status: str  # asking | running | ok | failed | denied
    summary: str = ""
    duration_s: float = 0.0


@dataclass(frozen=True)
class ReplayState:
    turn: int = 0  # turns started so far (1-based number of the current turn)
    event: int = 0  # events of the current turn applied so far
    conversation: tuple[Entry, ...] = ()
    skills: tuple[SkillRow, ...] = ()  # in order of first appearance
    budget: Mapping[str, Any] | None = None  # {"parts", "skills", "window", "total"}
    timeline: tuple[tuple[str, str, str], ...] = ()  # (clock time, kind, text)
    tools: tuple[ToolRow, ...] = ()
    matches: tuple[Mapping[str, Any], ...] = ()  # the last ranking's head
    stage_note: str = ""
    last_event: str = ""  # what the last applied event was, for the scrubber's caption
    streaming: bool = field(default=False, repr=False)  # the last conversation block is an open answer

    def skill(self, name: str) -> SkillRow | None:
        return next((row for row in self.skills if row.name == name), None)

    def loaded(self) -> dict[str, tuple[str, str]]:
        """Skills in the prompt (Active or Relevant): name → (state, phase)."""
        return {row.name: (row.state, row.phase) for row in self.skills if row.state != "inactive"}

    def to_json(self) -> dict[str, Any]:
        return {
            "turn": self.turn, "event": self.event,
            "conversation": [{"kind": e.kind, "text": e.text, **({"style": e.style} if e.style else {})}
                             for e in self.conversation],
            "skills": [{"name": r.name, "state": r.state, "phase": r.phase, "tokens": r.tokens, "reason": r.reason,
                        "score": r.score, "confidence": r.confidence} for r in self.skills],
            "budget": dict(self.budget) if self.budget else None,
            "timeline": [{"time": t, "kind": k, "text": x} for t, k, x in self.timeline],
            "tools": [{"call_id": t.call_id, "name": t.name, "status": t.status, "summary": t.summary,
                       "duration_s": t.duration_s} for t in self.tools],
            "matches": [{"name": m.get("name"), "score": m.get("score"), "confidence": m.get("confidence")}
                        for m in self.matches],
            "last_event": self.last_event,
        }


def event_count(turns: Sequence[Mapping[str, Any]], turn: int) -> int:
    """Events recorded in the 1-based ``turn``."""
    return len(turns[turn - 1].get("events", ())) if 1 <= turn <= len(turns) else 0


def state_at(turns: Sequence[Mapping[str, Any]], turn: int, event: int | None = None) -> ReplayState:
    """The state after ``event`` events of the 1-based ``turn`` (all of them when None).

    ``turn`` 0 is the empty state before the session; values past the end are clamped.
    """
    turn = max(0, min(turn, len(turns)))
    state = ReplayState()
    for number in range(1, turn + 1):
        record = turns[number - 1]
        events = list(record.get("events", ()))
        upto = len(events) if number < turn or event is None else max(0, min(event, len(events)))
        state = replace(state, turn=number, event=0)
        start = _parse_time(record.get("at"))
        for data in events[:upto]:
            state = apply(state, data, start)
    return state


def turn_states(turns: Sequence[Mapping[str, Any]]) -> list[ReplayState]:
    """The state at the end of every turn, in one pass."""
    states: list[ReplayState] = []
    state = ReplayState()
    for number, record in enumerate(turns, start=1):
        state = replace(state, turn=number, event=0)
        start = _parse_time(record.get("at"))
        for data in record.get("events", ()):
            state = apply(state, data, start)
        states.append(state)
    return states


def apply(state: ReplayState, data: Mapping[str, Any], start: datetime | None = None) -> ReplayState:
    """One event applied to ``state`` (a new state; the old one is unchanged). Events come from
    session files, which are input: one whose fields have the wrong shape becomes a notice that
    it was skipped, never an exception."""
    try:
        return _apply(state, data, start)
    except (TypeError, ValueError, AttributeError, KeyError, IndexError, OverflowError) as exc:
        kind = str(data.get("type", "")) if isinstance(data, Mapping) else type(data).__name__
        notice = Entry("notice", f"skipped a {kind or 'typeless'} event the session holds in an unreadable "
                                 f"shape ({type(exc).__name__})", "warning")
        return replace(state, event=state.event + 1, last_event=kind, conversation=_closed(state) + (notice,),
                       streaming=False)


def _apply(state: ReplayState, data: Mapping[str, Any], start: datetime | None = None) -> ReplayState:  # noqa: C901
    kind = str(data.get("type", ""))
    state = replace(state, event=state.event + 1, last_event=kind)
    clock = ""
    if start is not None:
        clock = (start + timedelta(seconds=float(data.get("dt", 0.0) or 0.0))).strftime("%H:%M:%S")

    def line(tag: str, text: str) -> tuple[tuple[str, str, str], ...]:
        return state.timeline + ((clock, tag, text),)

    if kind == "turn_started":
        return replace(state, conversation=_closed(state) + (Entry("user", str(data.get("text", ""))),),
                       streaming=False)
    if kind == "token_streamed":
        text = str(data.get("text", ""))
        if state.streaming and state.conversation:
            last = state.conversation[-1]
            return replace(state, conversation=state.conversation[:-1] + (replace(last, text=last.text + text),))
        return replace(state, conversation=state.conversation + (Entry("answer", text),), streaming=True)
    if kind == "skills_matched":
        matches = tuple(_match(item) for item in data.get("matches") or ())
        top = matches[0] if matches else None
        text = f"{data.get('total', len(matches))} of {data.get('considered', 0)} scored" + (
            f", top {top.get('name')} {float(top.get('score', 0)):.2f}" if top else "")
        scores = {m.get("name"): m for m in matches}
        skills = tuple(
            replace(row, score=scores[row.name].get("score"), confidence=scores[row.name].get("confidence"))
            if row.name in scores else replace(row, score=None, confidence=None)
            for row in state.skills
        )
        return replace(state, matches=matches, skills=skills, timeline=line("match", text))
    if kind == "skill_state_changed":
        return _skill_changed(state, data, line)
    if kind == "budget_changed":
        budget = {"parts": _counts(data.get("parts")), "skills": _counts(data.get("skills")),
                  "window": int(data.get("window", 0) or 0), "total": int(data.get("total", 0) or 0)}
        return replace(state, budget=budget)
    if kind == "compression_applied":
        note = (f"stage {data.get('stage')}%: {data.get('step', '')} "
                f"({int(data.get('before', 0)):,} → {int(data.get('after', 0)):,})")
        return replace(state, stage_note=note, timeline=line("compress", note))
    if kind == "tool_call_requested":
        args = _short_args(data.get("arguments") or {}, 60)
        status = "asking" if data.get("permission") == "ask" else "running"
        tools = _upsert(state.tools, ToolRow(str(data.get("call_id", "")), str(data.get("name", "")), status))
        notice = Entry("notice", f"⚙ {data.get('name')}({_short_args(data.get('arguments') or {}, 70)})", "tool")
        return replace(state, tools=tools, conversation=_closed(state) + (notice,), streaming=False,
                       timeline=line("tool", f"{data.get('name')} {args}"))
    if kind == "tool_call_approved":
        return replace(state, tools=_update(state.tools, str(data.get("call_id", "")), status="running"))
    if kind == "tool_call_denied":
        tools = _update(state.tools, str(data.get("call_id", "")), status="denied", summary=str(data.get("reason", "")))
        notice = Entry("notice", f"✗ {data.get('name')} denied: {data.get('reason', '')}", "warning")
        return replace(state, tools=tools, conversation=_closed(state) + (notice,), streaming=False)
    if kind == "tool_call_finished":
        ok = bool(data.get("ok"))
        tools = _update(state.tools, str(data.get("call_id", "")), status="ok" if ok else "failed",
                        summary=str(data.get("summary", "")), duration_s=float(data.get("duration_s", 0.0) or 0.0))
        notice = Entry("notice", f"{'✓' if ok else '✗'} {data.get('name')}: {data.get('summary', '')}",
                       "tool" if ok else "error")
        return replace(state, tools=tools, conversation=_closed(state) + (notice,), streaming=False)
    if kind == "turn_finished":
        conversation = _closed(state)
        text = data.get("text")
        if text and not (conversation and conversation[-1].kind == "answer" and conversation[-1].text == text):
            conversation += (Entry("answer", str(text)),)
        if data.get("cancelled"):
            conversation += (Entry("notice", "turn cancelled — the partial answer was kept", "warning"),)
        return replace(state, conversation=conversation, streaming=False)
    if kind == "error_raised":
        notice = Entry("notice", f"error: {data.get('message', '')}", "error")
        return replace(state, conversation=_closed(state) + (notice,), streaming=False)
    if kind == "retry_scheduled":
        notice = Entry("notice", f"retry {data.get('attempt')} in {float(data.get('delay_s', 0)):.1f} s: "
                                 f"{data.get('reason', '')}", "warning")
        return replace(state, conversation=_closed(state) + (notice,), streaming=False)
    if kind == "catalog_reloaded":
        parts = [f"{label} {', '.join(data.get(label) or ())}" for label in ("added", "changed", "removed")
                 if data.get(label)]
        return replace(state, timeline=line("reload", "; ".join(parts) or "no changes"))
    return state  # an event type this version does not draw


def _skill_changed(state: ReplayState, data: Mapping[str, Any], line: Any) -> ReplayState:
    name = str(data.get("name", ""))
    new = data.get("new")
    old = data.get("old")
    phase = str(data.get("phase", "meta"))
    reason = str(data.get("reason", ""))
    current = state.skill(name)
    match = next((m for m in state.matches if m.get("name") == name), None)
    score = match.get("score") if match else (current.score if current else None)
    confidence = match.get("confidence") if match else (current.confidence if current else None)
    row = SkillRow(name, str(new) if new else "inactive", phase if new else "meta", int(data.get("tokens", 0) or 0),
                   reason, score, confidence)
    if current is None:
        skills = state.skills + (row,)
    else:
        skills = tuple(row if r.name == name else r for r in state.skills)
    tag = "evict" if new in (None, "inactive") else "load"
    text = f"{name} {old or 'none'}→{new or 'evicted'} {phase}: {reason}"
    return replace(state, skills=skills, timeline=line(tag, text))


def _match(item: Any) -> dict[str, Any]:
    """One match of a ``skills_matched`` event, well typed (a TypeError/ValueError otherwise)."""
    if not isinstance(item, Mapping):
        raise TypeError(f"a match is {type(item).__name__}, not an object")
    match = dict(item)
    match["name"] = str(match.get("name", ""))
    for key in ("score", "confidence"):
        match[key] = float(match.get(key) or 0.0)
    return match


def _counts(value: Any) -> dict[str, int]:
    """``{name: tokens}`` of a ``budget_changed`` event, well typed."""
    return {str(key): int(count) for key, count in dict(value or {}).items()}


def _closed(state: ReplayState) -> tuple[Entry, ...]:
    return state.conversation


def _upsert(rows: tuple[ToolRow, ...], row: ToolRow) -> tuple[ToolRow, ...]:
    if any(r.call_id == row.call_id for r in rows):
        return tuple(row if r.call_id == row.call_id else r for r in rows)
    return rows + (row,)


def _update(rows: tuple[ToolRow, ...], call_id: str, **changes: Any) -> tuple[ToolRow, ...]:
    return tuple(replace(r, **changes) if r.call_id == call_id else r for r in rows)


def _short_args(arguments: Mapping[str, Any], limit: int) -> str:
    """The tool log's short form of arguments (``key=value``, whitespace folded)."""
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
    """Turns for a session saved without events: each user message starts one."""
    turns: list[dict[str, Any]] = []
    for message in messages:
        if message.role is Role.USER:
            turns.append({"at": "", "events": [{"type": "turn_started", "text": message.content}]})
        elif not turns:
            continue
        elif message.role is Role.ASSISTANT and message.content:
            turns[-1]["events"].append({"type": "token_streamed", "text": message.content})
            turns[-1]["events"].append({"type": "turn_finished"})
        elif message.role is Role.TOOL:
            turns[-1]["events"].append({"type": "tool_call_finished", "call_id": message.tool_call_id or "",
                                        "name": message.name or "tool", "ok": True,
                                        "summary": message.content[:70]})
    return turns
