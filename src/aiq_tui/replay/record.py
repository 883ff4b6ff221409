"""Record the engine's events per turn, compactly, for the session file.

What is kept is what the replay shows: the query and the top of the ranking (with the terms
that scored), every skill transition with its reason, each budget breakdown, compressions,
tool calls with their durations (arguments shortened, results left out: the messages hold
them), errors, and the streamed answer with consecutive fragments joined into one.

Format (``"replay"`` in the session JSON)::

    {"version": 1, "turns": [{"at": "2026-…Z", "events": [{"type": "turn_started", "dt": 0.0, …}, …]}]}

``dt`` is seconds since the turn started. Unknown event types are kept as they come, and an
unknown ``version`` is not read at all (see :func:`load_turns`).
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

from aiq_tui.events import (
    BudgetChanged,
    CatalogReloaded,
    CompressionApplied,
    Event,
    McpCallFinished,
    McpCallStarted,
    McpProgress,
    McpServerChanged,
    ModelRequestFinished,
    ModelRequestStarted,
    SemanticProgress,
    SessionSaved,
    SkillsMatched,
    TokenStreamed,
    ToolCallFinished,
    ToolCallRequested,
    TurnFinished,
    TurnStarted,
    event_type,
    to_json,
)

REPLAY_VERSION = 1
TOP_MATCHES = 10  # matches kept per query: the ranking's head is what explains a turn
TOP_SIGNALS = 8  # scoring terms kept per match
ARGUMENT_CHARS = 200  # longer string arguments of a tool call are shortened


def compact_event(event: Event) -> dict[str, Any] | None:
    """The saved form of one event, or None for events replay does not need."""
    if isinstance(
        event,
        (
            SessionSaved,
            ModelRequestFinished,
            SemanticProgress,
            McpServerChanged,
            McpCallStarted,
            McpCallFinished,
            McpProgress,
        ),
    ):
        return None  # the turn's figures are in turn_finished; the rest is the app's chrome (or traces')
    if isinstance(event, ModelRequestStarted):
        return {
            "type": "model_request_started"
        }  # where the prompt-size sparkline takes its sample
    if isinstance(event, TokenStreamed):
        return {"type": "token_streamed", "text": event.text}
    if isinstance(event, SkillsMatched):
        ranking = event.ranking
        return {
            "type": "skills_matched",
            "query": ranking.query,
            "considered": ranking.considered,
            "total": len(ranking.matches),
            "matches": [
                {
                    "name": m.name,
                    "score": round(m.score, 4),
                    "confidence": round(m.confidence, 4),
                    "signals": [
                        [s.term, s.field, round(s.weight, 3)]
                        for s in sorted(m.signals, key=lambda s: -s.weight)[
                            :TOP_SIGNALS
                        ]
                    ],
                }
                for m in ranking.matches[:TOP_MATCHES]
            ],
        }
    if isinstance(event, BudgetChanged):
        b = event.breakdown
        return {
            "type": "budget_changed",
            "parts": b.parts(),
            "skills": dict(b.skills),
            "window": b.window,
            "total": b.total,
            "exact": b.exact,
            "source": b.window_source,
        }
    if isinstance(event, ToolCallRequested):
        return {
            "type": "tool_call_requested",
            "call_id": event.call_id,
            "name": event.name,
            "arguments": {k: _short(v) for k, v in event.arguments.items()},
            "permission": event.permission,
        }
    if isinstance(event, ToolCallFinished):
        return {
            "type": "tool_call_finished",
            "call_id": event.call_id,
            "name": event.name,
            "ok": event.ok,
            "summary": event.summary,
            "duration_s": round(event.duration_s, 4),
        }
    if isinstance(event, TurnStarted):
        return {
            "type": "turn_started",
            "text": event.text,
            "message_id": event.message_id,
        }
    data = to_json(event)
    data.pop("turn_id", None)
    if isinstance(event, TurnFinished):
        data.pop(
            "text", None
        )  # the streamed fragments hold it; kept below when they do not
    if (
        "plan" in data
    ):  # compression: the stage, the figures and which turns were summarised
        plan = data.pop("plan")
        data["stage"] = plan.get("stage")
        data["summarise_ids"] = plan.get("summarise_ids") or []
        # What a caption needs to say why a step ran and why the next stage did not.
        data["thresholds"] = plan.get("thresholds")
        data["steps"] = (
            event.plan.step_count if isinstance(event, CompressionApplied) else None
        )
    return data


def live_record(event: Event) -> dict[str, Any] | None:
    """What the live app folds for ``event``: the saved form, plus what only a live screen has
    (full tool arguments and results, a composite skill's plan, the header's notes). None for
    events the view state does not hold."""
    if isinstance(event, (SemanticProgress, McpServerChanged, SessionSaved)):
        return None
    if isinstance(
        event, McpProgress
    ):  # the tool log's running call; not saved (compact_event)
        return {
            "type": "mcp_progress",
            "call_id": event.call_id,
            "label": event.label(),
        }
    data = compact_event(event)
    if data is None:
        return None
    if isinstance(event, ToolCallRequested):
        data["arguments"] = dict(event.arguments)
    elif isinstance(event, ToolCallFinished):
        data["result"] = event.result
        if event.ok:
            from aiq_tui.skills.executor import format_plan

            plan = format_plan(event.result)
            if plan:
                data["plan"] = plan
    elif isinstance(event, CatalogReloaded) and event.problems:
        data["problems"] = [str(p.message) for p in event.problems]
    return data


def _short(value: Any) -> Any:
    if isinstance(value, str) and len(value) > ARGUMENT_CHARS:
        return value[:ARGUMENT_CHARS] + "…"
    return value


class TurnRecorder:
    """Collects compact events until a turn finishes; :meth:`add` returns the finished turn."""

    def __init__(self) -> None:
        self._events: list[dict[str, Any]] = []
        self._started = time.monotonic()
        self._at = _now()
        self._streamed = ""

    def reset(self) -> None:
        self.__init__()  # type: ignore[misc]

    def add(self, event: Event) -> dict[str, Any] | None:
        if isinstance(event, TurnStarted):
            self._started, self._at = time.monotonic(), _now()
            self._streamed = ""
            for early in (
                self._events
            ):  # a /skill or reload before the question: part of this turn
                early["dt"] = 0.0
        data = compact_event(event)
        if data is None:
            return None
        if isinstance(event, TokenStreamed):
            self._streamed += event.text
            last = self._events[-1] if self._events else None
            if last is not None and last["type"] == "token_streamed":
                last["text"] += event.text
                return None
        elif isinstance(event, ToolCallRequested):
            self._streamed = ""
        data["dt"] = round(max(0.0, time.monotonic() - self._started), 3)
        if (
            isinstance(event, TurnFinished)
            and event.text
            and event.text != self._streamed
        ):
            data["text"] = event.text
        self._events.append(data)
        if isinstance(event, TurnFinished):
            turn = {"at": self._at, "events": self._events}
            self._events, self._streamed = [], ""
            return turn
        return None


def dump_turns(turns: list[dict[str, Any]]) -> dict[str, Any]:
    return {"version": REPLAY_VERSION, "turns": turns}


def load_turns(data: Any) -> list[dict[str, Any]]:
    """Turns from a session's ``"replay"`` value; [] for sessions saved before replay existed,
    for a newer format, or for anything malformed (the session itself still loads)."""
    if not isinstance(data, dict) or not isinstance(data.get("turns"), list):
        return []
    try:
        version = int(data.get("version", 0))
    except (TypeError, ValueError):
        return []
    if version < 1 or version > REPLAY_VERSION:
        return []
    return [
        turn
        for turn in data["turns"]
        if isinstance(turn, dict) and isinstance(turn.get("events"), list)
    ]


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


__all__ = [
    "REPLAY_VERSION",
    "TurnRecorder",
    "compact_event",
    "dump_turns",
    "event_type",
    "live_record",
    "load_turns",
]
