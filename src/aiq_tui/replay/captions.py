"""One-line captions for the step-through ``/demo`` and replay: what a step did and why, in the
user's terms, from the events alone.

``caption(event, previous)`` says what ``event`` did, given the events before it in the same
session (oldest first); ``None`` for events that are no step of their own (streamed text, a
policy's silent approval) — so the events with a caption are the steps a step-through view
pauses on, and each compression step (one per stage's action) is a step of its own.
``captions(events)`` captions a whole stream in one pass, ``turn_captions(turns)`` a session
file's turns, and ``demo_summary(events)`` tells the story of a session: how skills moved,
which were evicted and which kept, each compression stage with its figures, and how to
replay it.

Events may be the engine's (:mod:`aiq_tui.events`) or their recorded form (what a session file
holds, :func:`aiq_tui.replay.record.compact_event`): both read the same. Everything here is pure
— no I/O, no clock, no UI — so the live view, Replay and ``aiq-tui replay --captions`` caption a
step identically.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Union

from aiq_tui.events import Event
from aiq_tui.figures import percent
from aiq_tui.replay.record import compact_event

Record = Mapping[str, Any]
EventLike = Union[Event, Record]

MAX_CAPTION = 240
"""A caption is one line: longer ones end in "…" (a question or a refusal can be long)."""

REPLAY_KEYS = "F4 → r (or /replay)"
"""How Replay opens in the workbench (the help screen's wording)."""

REFUSAL_PREFIX = "not sent:"
"""How the engine's message starts when a turn does not fit even after compression."""

_EVICTION_STEP = re.compile(
    r"^evicted (?P<name>\S+) \((?P<state>\w+), (?P<saved>[^)]*)\)$"
)
_KEEPER = re.compile(
    r"keeps only the top skill(?:: kept (?P<name>\S+) — (?P<why>.+)$| \((?P<old>[^)]+)\))"
)
"""The stage-95 eviction reason naming the skill it kept and why (sessions saved before the
reason said why name the skill in parentheses)."""


def _kept(found: re.Match[str]) -> str:
    return found.group("name") or found.group("old")


def record_of(event: EventLike) -> Record | None:
    """The recorded form of ``event`` (``None`` for events a session does not keep). A JSON
    line of ``ask --json`` (budget in ``breakdown``, stage in ``plan``) reads the same."""
    if not isinstance(event, Mapping):
        return compact_event(event)
    breakdown, plan = event.get("breakdown"), event.get("plan")
    if isinstance(breakdown, Mapping) and "total" not in event:
        return {
            **event,
            "total": breakdown.get("total"),
            "window": breakdown.get("window"),
        }
    if isinstance(plan, Mapping) and "stage" not in event:
        return {**event, "stage": plan.get("stage")}
    return event


@dataclass
class _Story:
    """What the events so far say that a caption needs: the budget, the last ranking, each
    skill's state and whether the model used it since it was loaded, the last stage."""

    total: int = 0
    window: int = 0
    turn: int = 0
    matches: dict[str, Record] = field(default_factory=dict)
    states: dict[str, str] = field(
        default_factory=dict
    )  # name → active | relevant | inactive | evicted
    used: set[str] = field(
        default_factory=set
    )  # called (use_skill / skill_<name>) since it was loaded
    phases: dict[str, str] = field(
        default_factory=dict
    )  # name → the phase it is loaded at (metadata | brief | full), while loaded
    stage: int = 0
    since_budget: list[str] = field(
        default_factory=list
    )  # event types since the last budget
    last_tool: Record | None = None
    last_type: str = ""
    last_keeper: str = (
        ""  # the skill the last eviction's stage kept (said once per compression)
    )
    burst: int = (
        0  # steps of the running compression so far (0 when the last event was none)
    )
    burst_before: int = 0  # the total its first step started from

    def add(self, data: Record) -> None:
        kind = str(data.get("type", ""))
        if kind == "budget_changed":
            self.total, self.window = (
                _int(data.get("total")),
                _int(data.get("window")) or self.window,
            )
            self.since_budget = []
        else:
            self.since_budget.append(kind)
        if kind == "turn_started":
            self.turn += 1
        elif kind == "skills_matched":
            self.matches = {
                str(m.get("name")): m
                for m in _items(data.get("matches"))
                if isinstance(m, Mapping)
            }
        elif kind == "skill_state_changed":
            name = str(data.get("name"))
            new = data.get("new")
            self.states[name] = str(new) if new else "evicted"
            if new in (None, "inactive"):
                self.phases.pop(name, None)
            else:
                self.phases[name] = str(data.get("phase", ""))
            keeper = _KEEPER.search(str(data.get("reason", ""))) if not new else None
            self.last_keeper = _kept(keeper) if keeper else ""
            if new in (None, "inactive") or data.get("old") in (None, "inactive"):
                self.used.discard(name)
        elif kind == "tool_call_requested":
            used = _skill_called(data)
            if used:
                self.used.add(used)
        elif kind == "tool_call_finished":
            self.last_tool = data
        elif kind == "compression_applied":
            self.stage = _int(data.get("stage"))
            if self.last_type != "compression_applied":
                self.burst, self.burst_before = 0, _int(data.get("before"))
            self.burst += 1
        if kind != "skill_state_changed":
            self.last_keeper = ""
        self.last_type = kind


def caption(event: EventLike, previous: Sequence[EventLike] = ()) -> str | None:
    """What ``event`` did and why, in one line; ``previous`` are the session's events before it,
    oldest first (the budget, ranking and skill states a caption refers to come from them)."""
    data = record_of(event)
    if data is None:
        return None
    story = _Story()
    for earlier in previous:
        before = record_of(earlier)
        if before is not None:
            story.add(before)
    return _caption(data, story)


def captions(events: Iterable[EventLike]) -> list[str | None]:
    """``caption`` of every event of a stream, in one pass (same results as calling it per event)."""
    story = _Story()
    out: list[str | None] = []
    for event in events:
        data = record_of(event)
        if data is None:
            out.append(None)
            continue
        out.append(_caption(data, story))
        story.add(data)
    return out


def turn_captions(turns: Sequence[Mapping[str, Any]]) -> list[list[str | None]]:
    """The captions of a session's recorded turns (``{"events": [...]}`` each, as a session file
    holds them), aligned with each turn's events: ``result[n - 1][k - 1]`` captions the step
    ``replay --turn n --event k`` shows. Each caption reads the turns before it too."""
    events = [
        turn.get("events", ()) if isinstance(turn.get("events"), list) else []
        for turn in turns
    ]
    flat = captions(
        data if isinstance(data, Mapping) else {} for turn in events for data in turn
    )
    out: list[list[str | None]] = []
    for turn in events:
        out.append(flat[: len(turn)])
        flat = flat[len(turn) :]
    return out


def _caption(data: Record, story: _Story) -> str | None:
    kind = data.get("type")
    text: str | None = None
    if kind == "turn_started":
        text = f'turn {story.turn + 1}: you ask "{_flat(data.get("text", ""))}"'
    elif kind == "skills_matched":
        text = _matched(data)
    elif kind == "skill_state_changed":
        text = _skill_changed(data, story)
    elif kind == "budget_changed":
        text = _budget(data, story)
    elif kind == "compression_applied":
        text = _compressed(data, story)
    elif kind == "tool_call_requested":
        text = _requested(data)
    elif kind == "tool_call_approved":
        text = (
            f"{data.get('name')}: approved by you" if data.get("by") == "user" else None
        )
    elif kind == "tool_call_denied":
        text = f"{data.get('name')}: refused — {_first_clause(data.get('reason', ''))}"
    elif kind == "tool_call_cancelled":
        text = f"{data.get('name')}: {data.get('reason', 'cancelled')}"
    elif kind == "tool_call_finished":
        outcome = "" if data.get("ok", True) else "failed: "
        text = f"{data.get('name')} returned: {outcome}{_flat(data.get('summary', ''))}"
    elif kind == "turn_finished":
        text = ("turn cancelled" if data.get("cancelled") else "answered") + _usage(
            data
        )
    elif kind == "error_raised":
        text = f"error: {_flat(data.get('message', ''))}"
    elif kind == "catalog_reloaded":
        text = _reloaded(data)
    return _line(text) if text else None


# -- one caption per kind ---------------------------------------------------------------------------
def _matched(data: Record) -> str:
    matches = [m for m in _items(data.get("matches")) if isinstance(m, Mapping)]
    if not matches:
        return "matched no skill: only the catalog goes with the question"
    top = ", ".join(
        f"{m.get('name')} {_float(m.get('confidence')):.2f}{_terms(m)}"
        for m in matches[:3]
    )
    return f"matched {len(matches)} skill{'s' if len(matches) != 1 else ''}: {top}"


def _skill_changed(data: Record, story: _Story) -> str:
    name, old, new = (
        str(data.get("name")),
        data.get("old") or "inactive",
        data.get("new"),
    )
    reason = str(data.get("reason", ""))
    phase = str(data.get("phase", ""))
    if story.states.get(name) == "evicted" and old == "inactive":
        old = "evicted"
    if not new:
        stage = _stage_of(reason) or story.stage
        text = (
            f"{name}: {old} → evicted at stage {stage}"
            if stage
            else f"{name}: {old} → evicted"
        )
        keeper = _KEEPER.search(reason)
        if keeper and _kept(keeper) != story.last_keeper:
            kept = _kept(keeper)
            if keeper.group(
                "why"
            ):  # the planner's own words: its state and why it is the top
                return f"{text}; kept {kept}: {keeper.group('why')}"
            state = story.states.get(kept, "active")
            return f"{text}; kept {kept}: {state} (stage {stage or 95} keeps only the top skill)"
        if keeper:
            return f"{text}, not the top skill"
        if "relevant but not used" in reason or (
            old == "relevant" and name not in story.used
        ):
            return f"{text}, relevant but not used"
        return f"{text} — {_after_colon(reason)}"
    if new == "inactive":
        return f"{name}: {old} → inactive, {_after_colon(reason)}"
    match = story.matches.get(name)
    why = (
        f"matched{_terms(match)} {_float(match.get('confidence')):.2f}"
        if match is not None and "confidence" in reason
        else _after_colon(reason)
    )
    was = story.phases.get(name, "")
    climbs = (
        f" — climbs from {was} to {phase}"
        if _PHASES.get(phase, 0) > _PHASES.get(was, 0) > 0
        else ""
    )
    if old == new:
        return f"{name}: {new}, now {phase}, {why}{climbs}"
    if was and was != phase:
        return f"{name}: {old} ({was}) → {new} ({phase}), {why}{climbs}"
    return f"{name}: {old} → {new} ({phase}), {why}"


_PHASES = {"metadata": 1, "brief": 2, "full": 3}
"""Progressive disclosure's order: a skill climbs metadata → brief → full."""


def _budget(data: Record, story: _Story) -> str:
    total, window = _int(data.get("total")), _int(data.get("window")) or story.window
    where = (
        f"{total:,} / {window:,} tokens ({_pct(total, window)})"
        if window
        else f"{total:,} tokens"
    )
    if not story.window:
        return f"budget {where}"
    delta = total - story.total
    since = story.since_budget
    if after_compression(data, story) is not None:
        return f"after compression: {where}"
    if "tool_call_finished" in since or "tool_call_denied" in since:
        tool = story.last_tool
        what = (
            f"tool result ({tool.get('name')}: {_flat(tool.get('summary', ''))})"
            if tool is not None and "tool_call_finished" in since
            else "tool refusal"
        )
    elif "skill_state_changed" in since or "turn_started" in since:
        what = "question and skills" if "turn_started" in since else "skills"
    elif "token_streamed" in since or story.last_type in ("tool_call_requested", ""):
        what = "the model's reply"
    else:
        what = "prompt"
    return f"{what} {_signed(delta)} tokens → {where}"


def after_compression(data: Record, story: _Story) -> int | None:
    """The measured total a compression left, when ``data`` is the budget that follows it (else
    ``None``). The one figure for "after compression": the live caption and the summary quote
    it, not the planner's own estimate in the compression's ``after``."""
    if (
        data.get("type") != "budget_changed"
        or "compression_applied" not in story.since_budget
    ):
        return None
    return _int(data.get("total"))


def _compressed(data: Record, story: _Story) -> str:
    """One step of a compression. Its first step says what started it (the share of the window
    past the first threshold); clearing older tool results is always the first stage's work,
    done first whatever the share ("stage 80 first" when a higher threshold was crossed); the
    last step says why no further stage was needed, or the next step what it is."""
    stage = _int(data.get("stage"))
    before, after = _int(data.get("before")), _int(data.get("after"))
    window = story.window
    step = _flat(data.get("step", ""))
    evicted = _EVICTION_STEP.match(step)
    if evicted:
        name, state, saved = evicted.group("name", "state", "saved")
        if state == "relevant" and name not in story.used:
            step = f"evicted {name}, relevant but not used ({saved})"
        else:
            step = f"evicted {name}, {state} ({saved})"
    first = story.last_type != "compression_applied"
    started = before if first else story.burst_before
    limits = _thresholds(data)
    label = stage
    head = ""
    if step.startswith("cleared "):
        label = round(limits[0] * 100)
        if window and started >= limits[1] * window:
            step = f"first: {step}"  # a higher threshold was crossed: the first stage acts first
    if first and window:  # why it ran at all: the threshold its first step acts for
        crossed = (
            limits[0]
            if label != stage
            else max((t for t in limits if t * 100 <= stage + 0.5), default=limits[0])
        )
        head = f"{_pct(before, window)} ≥ {round(crossed * 100)} % → "
    tail = f" → {_pct(after, window)}" if window else f" → {after:,} tokens"
    return (
        f"{head}stage {label}{'' if step.startswith('first:') else ':'} {step}{tail}"
        + _why_not_further(data, story, stage, started, after, limits, first)
    )


def _thresholds(data: Record) -> tuple[float, float, float]:
    found = data.get("thresholds")
    if isinstance(found, (list, tuple)) and len(found) == 3:
        try:
            return float(found[0]), float(found[1]), float(found[2])
        except (TypeError, ValueError):
            pass
    return 0.80, 0.90, 0.95  # a session saved before the record said (the defaults)


def _why_not_further(
    data: Record,
    story: _Story,
    stage: int,
    started: int,
    after: int,
    limits: tuple[float, float, float],
    first: bool,
) -> str:
    """After a compression's last step: why the next stage's work was not needed (seed 000's
    stages escalate: each acts only when the budget is still over its threshold after the
    milder ones)."""
    window, steps = story.window, _int(data.get("steps"))
    index = 1 if first else story.burst + 1
    if not window or not steps or index < steps or stage >= round(limits[2] * 100):
        return ""  # not the last step, a session saved before steps were counted, or the last stage
    if str(data.get("step", "")).startswith("evicted "):
        return ""
    evict_at, compress_at = round(limits[1] * 100), round(limits[0] * 100)
    if after < limits[1] * window and (
        stage >= evict_at or started >= limits[1] * window
    ):
        return f" (under {evict_at} %: no eviction needed)"
    if after < limits[0] * window and str(data.get("step", "")).startswith("cleared "):
        return f" (under {compress_at} %: no summary needed)"
    return ""


def _requested(data: Record) -> str:
    name = str(data.get("name"))
    skill = _skill_called(data)
    if skill and name == "use_skill":
        return f"the model loads {skill} with use_skill"
    given = data.get("arguments")
    arguments: Mapping[str, object] = given if isinstance(given, Mapping) else {}
    shown = ", ".join(
        f"{k}={_cut(_flat(str(v)), 60)}" for k, v in list(arguments.items())[:2]
    )
    if data.get("permission") == "ask":
        return f"the model wants {name}({shown}): it asks for your approval"
    if data.get("permission") == "deny":
        return f"the model wants {name}({shown}): denied"
    return f"the model calls {name}({shown})"


def _reloaded(data: Record) -> str | None:
    parts = [
        f"{len(_items(data.get(k)))} {k}"
        for k in ("added", "changed", "removed")
        if _items(data.get(k))
    ]
    return "skills reloaded: " + ", ".join(parts) if parts else None


# -- the summary ------------------------------------------------------------------------------------
@dataclass
class _Burst:
    turn: int
    stage: int
    before: int
    after: int
    window: int
    steps: list[str] = field(default_factory=list)


def demo_summary(
    events: Iterable[EventLike], session: str | None = None, earlier_turns: int = 0
) -> str:
    """What happened in a session and how to replay it, a few lines: each skill's journey
    (inactive → relevant → active, evicted, kept), each compression with its stage and token
    figures, then the keys and the command that replay it (``session``: its id).
    ``earlier_turns``: the session's turns before ``events`` (a demo after questions of one's
    own), so that its turns carry the numbers the captions and ``replay`` give them."""
    story = _Story()
    story.turn = earlier_turns
    journeys: dict[str, list[str]] = {}
    kept: dict[str, str] = {}
    bursts: list[_Burst] = []
    refused = 0
    window = 0  # the window the turns ran on (a demo may give the engine another one back after)
    for event in events:
        data = record_of(event)
        if data is None:
            continue
        kind = data.get("type")
        if kind == "turn_finished":
            window = story.window
        if kind == "skill_state_changed":
            _journey(journeys, data, story)
            keeper = _KEEPER.search(str(data.get("reason", "")))
            if keeper:
                name = _kept(keeper)
                why = keeper.group("why") or story.states.get(name, "active")
                kept[name] = (
                    f"kept at stage {_stage_of(str(data.get('reason', ''))) or story.stage} "
                    f"in turn {story.turn} — {why}"
                )
        elif kind == "compression_applied":
            window = story.window
            if story.last_type != "compression_applied" or not bursts:
                bursts.append(
                    _Burst(
                        story.turn,
                        _int(data.get("stage")),
                        _int(data.get("before")),
                        0,
                        window,
                    )
                )
            burst = bursts[-1]
            burst.stage = max(burst.stage, _int(data.get("stage")))
            burst.after = _int(data.get("after"))
            burst.steps.append(
                re.sub(
                    r" \((?:model summary, |fallback summary, )?[^)]*tokens\)$",
                    "",
                    _flat(data.get("step", "")),
                )
            )
        elif (measured := after_compression(data, story)) is not None and bursts:
            bursts[
                -1
            ].after = measured  # what the screen showed after it, not the estimate
        elif kind == "error_raised" and str(data.get("message", "")).startswith(
            REFUSAL_PREFIX
        ):
            refused += 1
        story.add(data)
    window = window or story.window
    count = story.turn - earlier_turns
    which = (
        f" (turns {earlier_turns + 1}–{story.turn} of the session)"
        if earlier_turns and count > 1
        else (f" (turn {story.turn} of the session)" if earlier_turns else "")
    )
    lines = [
        f"What happened: {count} turn{'s' if count != 1 else ''}{which}"
        + (f" on a {window:,}-token window." if window else ".")
    ]
    if journeys:
        lines.append("Skills:")
        for name, steps in journeys.items():
            line = f"  {name}: " + " → ".join(steps)
            if name in kept:
                line += f"; {kept[name]}"
            lines.append(line)
        for name, note in kept.items():
            if name not in journeys:
                lines.append(f"  {name}: {note}")
    if bursts:
        lines.append("Compression:")
        for b in bursts:
            share = (
                f"{_pct(b.before, b.window)} → {_pct(b.after, b.window)}, "
                if b.window
                else ""
            )
            lines.append(
                f"  turn {b.turn}: stage {b.stage} at {share}{b.before:,} → {b.after:,} tokens: "
                + "; ".join(b.steps)
            )
    else:
        lines.append("Compression: none (the prompt stayed under the first threshold).")
    if refused:
        lines.append(
            f"Refused: {refused} turn{'s' if refused != 1 else ''} did not fit even after compression."
        )
    target = session or "<session>"
    lines.append(
        f"Replay it: {REPLAY_KEYS} in the workbench; from a shell, `aiq-tui replay {target}` "
        f"(add --captions for one line per step)."
    )
    return "\n".join(lines)


def _journey(journeys: dict[str, list[str]], data: Record, story: _Story) -> None:
    name = str(data.get("name"))
    new, phase = data.get("new"), str(data.get("phase", ""))
    steps = journeys.setdefault(name, [str(data.get("old") or "inactive")])
    turn = story.turn
    if not new:
        stage = _stage_of(str(data.get("reason", ""))) or story.stage
        reason = str(data.get("reason", ""))
        why = (
            ", relevant but not used"
            if data.get("old") == "relevant"
            and ("relevant but not used" in reason or name not in story.used)
            else ""
        )
        steps.append(f"evicted (stage {stage}{why}, turn {turn})")
    elif new == "inactive":
        steps.append(f"inactive (turn {turn})")
    else:
        steps.append(f"{new} ({phase}, turn {turn})")


# -- small helpers ----------------------------------------------------------------------------------
def _skill_called(data: Record) -> str | None:
    """The skill a tool call uses: ``use_skill``'s argument, or the skill behind ``skill_<name>``."""
    name = str(data.get("name", ""))
    if name == "use_skill":
        arguments = data.get("arguments")
        if isinstance(arguments, Mapping):
            value = next(iter(arguments.values()), None)
            return str(value) if value else None
        return None
    if name.startswith("skill_"):
        return name[len("skill_") :]
    return None


def _terms(match: Record | None) -> str:
    if not match:
        return ""
    signals = [
        s for s in _items(match.get("signals")) if isinstance(s, (list, tuple)) and s
    ]
    terms = list(dict.fromkeys(str(s[0]) for s in signals))[:2]
    return " " + " ".join(f"'{t}'" for t in terms) if terms else ""


def _stage_of(reason: str) -> int:
    found = re.match(r"evicted at (\d+) %", reason)
    return int(found.group(1)) if found else 0


def _after_colon(reason: str) -> str:
    head, sep, rest = reason.partition(": ")
    return (
        rest
        if sep
        and head.split()[0] in ("inactive", "relevant", "active", "evicted", "loaded")
        else reason
    )


def _first_clause(text: Any) -> str:
    return _flat(str(text)).split(";")[0]


def _usage(data: Record) -> str:
    sent, got = _int(data.get("input_tokens")), _int(data.get("output_tokens"))
    return f" ({sent:,} tokens in, {got:,} out)" if sent or got else ""


def _pct(part: int, whole: int) -> str:
    # Floored (the one rule, aiq_tui.figures): a figure shown as 90 % is really past 90 %.
    return f"{percent(part, whole)} %" if whole else "?"


def _signed(n: int) -> str:
    return f"+{n:,}" if n >= 0 else f"−{-n:,}"


def _flat(text: Any) -> str:
    return " ".join(str(text).split())


def _cut(text: str, limit: int) -> str:
    """``text`` in at most ``limit`` characters; a cut says so ("…"), so a statement cut short
    never reads as a whole one (``…FROM , source=sample``)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _line(text: str) -> str:
    text = _flat(text)
    return text if len(text) <= MAX_CAPTION else text[: MAX_CAPTION - 1] + "…"


def _int(value: Any) -> int:
    try:
        return int(value or 0)
    except (
        TypeError,
        ValueError,
        OverflowError,
    ):  # a session file is input: null, "n/a", inf
        return 0


def _items(value: Any) -> list[Any]:
    return list(value) if isinstance(value, (list, tuple)) else []


def _float(value: Any) -> float:
    try:
        return float(value or 0.0)
    except (TypeError, ValueError):
        return 0.0


__all__ = [
    "MAX_CAPTION",
    "REFUSAL_PREFIX",
    "REPLAY_KEYS",
    "EventLike",
    "Record",
    "caption",
    "captions",
    "demo_summary",
    "record_of",
    "turn_captions",
]
