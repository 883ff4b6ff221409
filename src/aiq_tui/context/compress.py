"""Compression: a pure planner, a pure apply, and an async helper that runs both with events.

Steps, in the order they lose least (seed 000's stages, with the seed implementation's
mistakes fixed, and Claude Code's habit of clearing old tool outputs before summarising):

* below ``compress_at`` nothing happens; with ``compression: false`` nothing ever happens
  (a prompt over the window is then refused);
* ≥ ``compress_at`` (80 %), first at every stage: older tool results — those of turns that
  have ended — are cleared to their extract (the tool, its one-line summary, the start of what
  it returned), oldest first, until the total is under ``compress_at``. The call and its
  result stay paired. When that is enough, nothing else happens;
* otherwise the budget is measured again and its stage applies (the plan's ``stage``) —
  ≥ 80 %: the oldest messages are folded into one summary, keeping the last ``keep_last`` (10)
  messages verbatim; the summary is budgeted at ``summary_share`` of what it replaces, at most
  ``summary_max_tokens``;
* ≥ ``evict_at`` (90 %) *after that*: skills are evicted, Inactive before Relevant, least
  relevant first, and only until the total is back under ``evict_at``. Active skills stay, and
  so does the skill the 95 % stage would keep (the top Relevant one when none is Active);
* ≥ ``aggressive_at`` (95 %): everything but the last ``keep_last_aggressive`` (5) messages is
  summarised and only the top skill is kept — the top Active one, or the top Relevant one
  when none is Active (Inactive skills never survive this stage);
* still over the window: the skills catalog is shortened for the turn (shorter descriptions,
  names only, only the Active skills: the mildest that fits);
* still over: the running turn's own tool results, largest first, are cut to fit — their
  start and end kept, a line in the middle saying what was left out — never below
  :data:`MIN_CUT_TOKENS`. A single result larger than the window is what this is for.

Invariants: a tool call and its results are never split
(the cut moves earlier); skill tokens count toward the total; the summary is budgeted at
``plan.summary_tokens`` (the helper truncates to it), so the real total after applying is ≤
the planned one; a summary that would not save tokens is not made. When even all of that
leaves the request over the window, the plan says ``fits=False`` and the engine refuses to
send instead of truncating silently.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from aiq_tui.config import ContextSettings
from aiq_tui.context.model import (
    CatalogCut,
    CatalogOption,
    CompressionApplied,
    CompressionPlan,
    Eviction,
    ShrunkResult,
    Stage,
)
from aiq_tui.context.summary import (
    SummariserFn,
    SummaryResult,
    cut_tool_result,
    is_cleared,
    summarise_with_fallback,
    tool_result_extract,
)
from aiq_tui.context.tokens import MESSAGE_OVERHEAD, TokenCounter
from aiq_tui.conversation import Message, Role
from aiq_tui.figures import decisive
from aiq_tui.skills.model import SkillState

MIN_SUMMARY_TOKENS = 48
"""A summary budget below this is not worth making: the header line alone takes about 12
tokens, so there would be no room for the facts it is meant to keep."""

MIN_CUT_TOKENS = 96
"""A tool result is never cut below this: the note about the cut takes about 40 tokens, and
what is left must still show the start of the result."""

_STATE_RANK = {SkillState.ACTIVE: 0, SkillState.RELEVANT: 1, SkillState.INACTIVE: 2}


@dataclass(frozen=True)
class SkillCost:
    """A loaded skill as the planner sees it. Within a state, the skill kept longest is the
    one with the highest ``confidence`` for the current question, then the one referenced
    most recently, then the one loaded first; ties keep the caller's order."""

    name: str
    state: SkillState
    tokens: int
    confidence: float = (
        0.0  # this turn's confidence for the current question (0: not matched)
    )
    referenced: int = (
        0  # when the skill was last referenced (a turn counter: higher = more recent)
    )
    loaded: int = 0  # load order (lower = loaded earlier)


@dataclass(frozen=True)
class ContextState:
    """Everything that takes room in the window. Messages need unique, non-empty ids."""

    history: tuple[Message, ...]
    skills: tuple[SkillCost, ...]
    fixed: int  # system (base, use_skill instructions, framing, tool specs), + catalog when ``catalog`` is 0
    reserve: int
    window: int
    catalog: int = 0  # the catalog's tokens, when the caller can offer shorter ones
    catalog_options: tuple[CatalogOption, ...] = ()  # shorter catalogs, mildest first
    tool_summaries: Mapping[str, str] = field(
        default_factory=dict
    )  # tool call id → "6 rows"
    turn_open: bool = (
        True  # the last user message's turn is running: its tool results are in use
    )


@dataclass(frozen=True)
class CompressionOutcome:
    state: ContextState
    plan: CompressionPlan
    summary: SummaryResult | None = None
    tokens_after: int = 0  # measured after applying (≤ plan.tokens_after)


def stage_for(fraction: float, settings: ContextSettings) -> Stage:
    """The compression stage for a share of the window (thresholds from the config)."""
    if fraction >= settings.aggressive_at:
        return Stage.AGGRESSIVE
    if fraction >= settings.evict_at:
        return Stage.EVICT
    if fraction >= settings.compress_at:
        return Stage.COMPRESS
    return Stage.NONE


def with_ids(messages: Sequence[Message], prefix: str = "m") -> tuple[Message, ...]:
    """Messages with an id each (``<prefix><index>`` where one is missing)."""
    return tuple(
        m if m.id else replace(m, id=f"{prefix}{index}")
        for index, m in enumerate(messages)
    )


def state_total(state: ContextState, counter: TokenCounter) -> int:
    return (
        state.fixed
        + state.catalog
        + state.reserve
        + sum(skill.tokens for skill in state.skills)
        + counter.count_messages(state.history)
    )


def priority_order(skills: Sequence[SkillCost]) -> list[SkillCost]:
    """Most important first: Active > Relevant > Inactive (seed 000), then this turn's
    confidence, then the most recent reference, then load order, then input order."""
    indexed = list(enumerate(skills))
    indexed.sort(
        key=lambda item: (
            _STATE_RANK[item[1].state],
            -item[1].confidence,
            -item[1].referenced,
            item[1].loaded,
            item[0],
        )
    )
    return [skill for _, skill in indexed]


def keeper_reason(keeper: SkillCost, skills: Sequence[SkillCost]) -> str:
    """Why ``keeper`` is the top skill of ``skills`` (what :func:`priority_order` decided), in
    the user's terms: ``active, confidence 0.24 (highest)``."""
    state = keeper.state.value
    peers = [s for s in skills if s.state is keeper.state and s is not keeper]
    shown = decisive(keeper.confidence, [s.confidence for s in peers])
    head = f"{state}, confidence {shown}"
    if keeper.state is not SkillState.ACTIVE:
        head += " (no Active skill)" if not peers else " (highest; no Active skill)"
        return head
    if not peers:
        return f"{head} (the only Active skill)"
    if all(keeper.confidence > s.confidence for s in peers):
        return f"{head} (highest)"
    tied = [s for s in peers if s.confidence == keeper.confidence]
    if all(keeper.referenced > s.referenced for s in tied):
        return f"{head} (tied), referenced most recently"
    return f"{head} (tied), loaded first"


def safe_cut(history: Sequence[Message], cut: int) -> int:
    """Move ``cut`` (history[:cut] summarised) earlier until no tool call/result pair spans it."""
    cut = max(0, min(cut, len(history)))
    call_at: dict[str, int] = {}
    spans: list[tuple[int, int]] = []
    for index, message in enumerate(history):
        for call in message.tool_calls:
            call_at[call.id] = index
        if message.role is Role.TOOL and message.tool_call_id in call_at:
            spans.append((call_at[message.tool_call_id], index))
    moved = True
    while moved and cut > 0:
        moved = False
        for start, end in spans:
            if start < cut <= end:
                cut, moved = start, True
    # A TOOL message whose call is unknown still must not open the kept part alone.
    while 0 < cut < len(history) and history[cut].role is Role.TOOL:
        cut -= 1
    return cut


def summary_id(ids: Sequence[str]) -> str:
    return "summary-" + hashlib.sha1("\x1f".join(ids).encode()).hexdigest()[:10]


def _check_ids(history: Sequence[Message]) -> None:
    ids = [m.id for m in history]
    if any(not i for i in ids) or len(set(ids)) != len(ids):
        raise ValueError(
            "compression needs a unique id on every message; pass the history through with_ids()"
        )


def older_tool_results(history: Sequence[Message], turn_open: bool = True) -> list[int]:
    """Indexes of the tool results whose turn has ended (a later user message follows them),
    oldest first, not yet cleared. While a turn runs (``turn_open``) its own results are what
    the model is working with; between turns (``/compact``) every result has had its answer."""
    end = len(history)
    if turn_open:
        end = max(
            (i for i, m in enumerate(history) if m.role is Role.USER and not m.summary),
            default=-1,
        )
    return [
        i
        for i, m in enumerate(history[: max(end, 0)])
        if m.role is Role.TOOL and not is_cleared(m)
    ]


def cleared_message(message: Message, summaries: Mapping[str, str]) -> Message:
    """``message`` (a tool result) replaced by its extract; same id, call id and tool name."""
    return replace(
        message,
        content=tool_result_extract(
            message, summaries.get(message.tool_call_id or "", "")
        ),
    )


def clearable_tokens(
    history: Sequence[Message],
    counter: TokenCounter,
    summaries: Mapping[str, str] | None = None,
    turn_open: bool = True,
) -> int:
    """What clearing every older tool result of ``history`` to its extract would free."""
    summaries = summaries or {}
    total = 0
    for index in older_tool_results(history, turn_open):
        message = history[index]
        total += max(
            0,
            counter.count_message(message)
            - counter.count_message(cleared_message(message, summaries)),
        )
    return total


def _plan_clearing(
    history: list[Message],
    state: ContextState,
    total: int,
    target: float,
    counter: TokenCounter,
) -> tuple[list[ShrunkResult], int]:
    """Clear older tool results in ``history`` (in place), oldest first, until ``total`` is
    under ``target``; returns what was cleared and the new total."""
    cleared: list[ShrunkResult] = []
    for index in older_tool_results(history, state.turn_open):
        if total < target:
            break
        message = history[index]
        shorter = cleared_message(message, state.tool_summaries)
        before, after = counter.count_message(message), counter.count_message(shorter)
        if after >= before:
            continue  # already shorter than its extract
        history[index] = shorter
        cleared.append(ShrunkResult(message.id, message.name or "tool", before, after))
        total -= before - after
    return cleared, total


def plan(
    state: ContextState, settings: ContextSettings, counter: TokenCounter
) -> CompressionPlan:
    """What to clear, summarise, evict and shorten for ``state``; pure and deterministic."""
    _check_ids(state.history)
    window = state.window
    before = state_total(state, counter)
    started = stage_for(before / window if window else float("inf"), settings)
    if not settings.compression:
        fits = before <= window
        off = (
            f"{before - window} tokens over the {window}-token window and compression is off "
            "(context.compression: false)"
        )
        return CompressionPlan(
            Stage.NONE, window, before, before, fits=fits, notes=() if fits else (off,)
        )
    if started is Stage.NONE:
        return CompressionPlan(started, window, before, before, fits=before <= window)

    notes: list[str] = []
    history = list(state.history)
    cleared, after = _plan_clearing(
        history, state, before, settings.compress_at * window, counter
    )
    # The budget is measured again after clearing: the stage it is in now decides what else
    # is lost (nothing, when clearing alone got it under the first threshold).
    stage = stage_for(after / window if window else float("inf"), settings)

    summarised: Sequence[Message] = ()
    summary_tokens = 0
    evictions: list[Eviction] = []
    if stage is not Stage.NONE:
        summarised, summary_tokens, after = _plan_summary(
            history, stage, after, settings, counter, notes
        )
        evictions, after = _plan_evictions(state.skills, stage, after, settings, window)

    catalog = None
    if after > window and state.catalog_options:
        catalog, after = _plan_catalog(state, after)
    cut: list[ShrunkResult] = []
    if after > window:
        cut, after = _plan_cuts(history, len(summarised), state, after, counter)

    fits = after <= window
    if not fits:
        notes.append(
            f"still {after - window} tokens over the {window}-token window after the most aggressive "
            "plan; refusing to send — shorten the message, unload a skill or raise context.window"
        )
    return CompressionPlan(
        # The stage whose steps the plan takes; clearing alone is the first stage's work.
        stage=stage if stage is not Stage.NONE else Stage.COMPRESS,
        window=window,
        tokens_before=before,
        tokens_after=after,
        summarise_ids=tuple(m.id for m in summarised),
        keep_last=len(history) - len(summarised),
        evictions=tuple(evictions),
        fits=fits,
        notes=tuple(notes),
        cleared=tuple(cleared),
        summary_tokens=summary_tokens,
        catalog=catalog,
        cut=tuple(cut),
        thresholds=(settings.compress_at, settings.evict_at, settings.aggressive_at),
    )


def _plan_summary(
    history: Sequence[Message],
    stage: Stage,
    after: int,
    settings: ContextSettings,
    counter: TokenCounter,
    notes: list[str],
) -> tuple[Sequence[Message], int, int]:
    """The oldest messages to fold into one summary (none when it would not pay), the summary's
    budget, and the total after it; why nothing is folded goes into ``notes``."""
    keep = (
        settings.keep_last_aggressive
        if stage is Stage.AGGRESSIVE
        else settings.keep_last
    )
    cut = safe_cut(history, len(history) - keep)
    if 0 < cut < len(history) - keep:
        notes.append(
            f"kept {len(history) - cut} messages so that a tool call stays with its results"
        )
    summarised = history[:cut]
    replaced = counter.count_messages(summarised)
    budget = min(settings.summary_max_tokens, int(replaced * settings.summary_share))
    if not summarised:
        notes.append(f"no messages older than the last {keep} to summarise")
    elif len(summarised) == 1 and summarised[0].summary:
        notes.append("only an earlier summary is older than the kept messages")
    elif budget < MIN_SUMMARY_TOKENS or replaced <= MESSAGE_OVERHEAD + budget:
        notes.append(
            f"summarising {len(summarised)} messages ({replaced} tokens) would not save tokens"
        )
    else:
        return summarised, budget, after - replaced + MESSAGE_OVERHEAD + budget
    return (), 0, after


def _plan_evictions(
    skills: Sequence[SkillCost],
    stage: Stage,
    after: int,
    settings: ContextSettings,
    window: int,
) -> tuple[list[Eviction], int]:
    evictions: list[Eviction] = []
    if stage < Stage.EVICT:
        return evictions, after
    ordered = priority_order(skills)
    # The skill the 95 % stage keeps; the milder 90 % stage must never evict it (seed 000).
    keeper = next((s for s in ordered if s.state is not SkillState.INACTIVE), None)
    if stage is Stage.AGGRESSIVE:
        for skill in reversed(ordered):
            if skill is keeper:
                continue
            why = (
                f"aggressive stage keeps only the top skill: kept {keeper.name} — {keeper_reason(keeper, skills)}"
                if keeper
                else "aggressive stage: no Active or Relevant skill to keep"
            )
            evictions.append(Eviction(skill.name, skill.state, skill.tokens, why))
            after -= skill.tokens
        return evictions, after
    limit = settings.evict_at * window
    for skill in reversed(ordered):
        if after < limit or skill.state is SkillState.ACTIVE or skill is keeper:
            break
        label = (
            "inactive (not matched recently)"
            if skill.state is SkillState.INACTIVE
            else "relevant but not used"
        )
        evictions.append(
            Eviction(
                skill.name,
                skill.state,
                skill.tokens,
                f"{label}; evicted to get under {settings.evict_at:.0%} of the window",
            )
        )
        after -= skill.tokens
    return evictions, after


def _plan_catalog(state: ContextState, after: int) -> tuple[CatalogCut | None, int]:
    """The mildest shorter catalog that makes the prompt fit (the shortest when none does)."""
    window = state.window
    options = [o for o in state.catalog_options if o.tokens < state.catalog]
    if not options:
        return None, after
    chosen = next(
        (o for o in options if after - (state.catalog - o.tokens) <= window),
        options[-1],
    )
    return (
        CatalogCut(chosen.level, chosen.label, state.catalog, chosen.tokens),
        after - (state.catalog - chosen.tokens),
    )


def running_tool_results(
    history: Sequence[Message], turn_open: bool = True
) -> list[int]:
    """Indexes of the running turn's tool results (after the last user message)."""
    if not turn_open:
        return []
    start = max(
        (i for i, m in enumerate(history) if m.role is Role.USER and not m.summary),
        default=-1,
    )
    return [i for i in range(start + 1, len(history)) if history[i].role is Role.TOOL]


def _cut_message(
    message: Message, tokens: int, state: ContextState, counter: TokenCounter
) -> Message:
    return cut_tool_result(
        message,
        tokens,
        counter,
        state.tool_summaries.get(message.tool_call_id or "", ""),
    )


def _plan_cuts(
    history: list[Message],
    summarised: int,
    state: ContextState,
    after: int,
    counter: TokenCounter,
) -> tuple[list[ShrunkResult], int]:
    """Cut the running turn's tool results (in ``history``, in place; the first ``summarised``
    messages are folded into the summary already), largest first, until the total fits the
    window; none below :data:`MIN_CUT_TOKENS`."""
    cuts: list[ShrunkResult] = []
    sizes = {
        i: counter.count_message(history[i])
        for i in running_tool_results(history, state.turn_open)
        if i >= summarised
    }
    for index in sorted(sizes, key=lambda i: (-sizes[i], i)):
        over = after - state.window
        if over <= 0:
            break
        message, before = history[index], sizes[index]
        target = max(MIN_CUT_TOKENS, before - over)
        if target >= before:
            continue
        shorter = _cut_message(message, target, state, counter)
        tokens = counter.count_message(shorter)
        if tokens >= before:
            continue
        history[index] = shorter
        cuts.append(ShrunkResult(message.id, message.name or "tool", before, tokens))
        after -= before - tokens
    return cuts, after


# -- applying a plan: one function per step, so the helper can report each ------------------


def clear_results(state: ContextState, cleared: Sequence[ShrunkResult]) -> ContextState:
    """The state with the named tool results replaced by their extracts."""
    if not cleared:
        return state
    ids = {c.message_id for c in cleared}
    found = {m.id for m in state.history if m.id in ids and m.role is Role.TOOL}
    if found != ids:
        raise ValueError(
            "the plan does not match this history (a tool result it clears is not there)"
        )
    history = tuple(
        cleared_message(m, state.tool_summaries) if m.id in ids else m
        for m in state.history
    )
    return replace(state, history=history)


def summarise(
    state: ContextState, summarise_ids: Sequence[str], summary_text: str
) -> ContextState:
    """One summary message replaces the summarised prefix."""
    count = len(summarise_ids)
    if not count:
        return state
    prefix = tuple(m.id for m in state.history[:count])
    if prefix != tuple(summarise_ids):
        raise ValueError(
            "the plan does not match this history (its summarised ids are not the oldest messages)"
        )
    summary = Message(
        Role.SYSTEM, summary_text, summary=True, id=summary_id(summarise_ids)
    )
    return replace(state, history=(summary, *state.history[count:]))


def evict(state: ContextState, evictions: Sequence[Eviction]) -> ContextState:
    evicted = {e.name for e in evictions}
    return replace(
        state, skills=tuple(s for s in state.skills if s.name not in evicted)
    )


def shorten_catalog(state: ContextState, cut: CatalogCut | None) -> ContextState:
    if cut is None:
        return state
    return replace(state, catalog=cut.tokens_after, catalog_options=())


def cut_results(
    state: ContextState, cuts: Sequence[ShrunkResult], counter: TokenCounter
) -> ContextState:
    """The state with the named tool results cut to the planned size."""
    if not cuts:
        return state
    sizes = {c.message_id: c.tokens_after for c in cuts}
    if {m.id for m in state.history if m.id in sizes and m.role is Role.TOOL} != set(
        sizes
    ):
        raise ValueError(
            "the plan does not match this history (a tool result it cuts is not there)"
        )
    history = tuple(
        _cut_message(m, sizes[m.id], state, counter) if m.id in sizes else m
        for m in state.history
    )
    return replace(state, history=history)


def apply(
    state: ContextState,
    plan: CompressionPlan,
    summary_text: str = "",
    counter: TokenCounter | None = None,
) -> ContextState:
    """The state after ``plan``: older tool results cleared, one summary message (the caller
    keeps ``summary_text`` within ``plan.summary_tokens``) for the summarised prefix, evicted
    skills gone, the catalog at its shorter cost, the running turn's results cut (this step
    needs the ``counter`` the plan was made with)."""
    state = clear_results(state, plan.cleared)
    state = summarise(state, plan.summarise_ids, summary_text)
    state = evict(state, plan.evictions)
    state = shorten_catalog(state, plan.catalog)
    if plan.cut:
        if counter is None:
            raise ValueError("cutting tool results needs the plan's token counter")
        state = cut_results(state, plan.cut, counter)
    return state


def _tokens(n: int) -> str:
    return f"−{n:,} tokens"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


async def compress(
    state: ContextState,
    settings: ContextSettings,
    counter: TokenCounter,
    summariser: SummariserFn | None = None,
    emit: Callable[[CompressionApplied], None] | None = None,
) -> CompressionOutcome:
    """Plan, summarise (provider or fallback), apply step by step, emitting one
    :class:`CompressionApplied` per step, in the plan's order: the cleared tool results (one
    event), the summary, each eviction, the shorter catalog. Each ``step`` says what was done
    and what it saved, in the user's terms."""
    the_plan = plan(state, settings, counter)
    current = state
    before = state_total(state, counter)
    if the_plan.is_noop:
        return CompressionOutcome(state, the_plan, None, before)

    def step(new_state: ContextState, text: Callable[[int], str]) -> ContextState:
        nonlocal before
        after = state_total(new_state, counter)
        if emit:
            emit(CompressionApplied(the_plan, text(before - after), before, after))
        before = after
        return new_state

    if the_plan.cleared:
        count = len(the_plan.cleared)
        current = step(
            clear_results(current, the_plan.cleared),
            lambda saved: (
                f"cleared {_plural(count, 'older tool result')} to "
                f"{'its' if count == 1 else 'their'} extract ({_tokens(saved)})"
            ),
        )
    result: SummaryResult | None = None
    if the_plan.summarise_ids:
        messages = current.history[: len(the_plan.summarise_ids)]
        budget = the_plan.summary_tokens
        result = await summarise_with_fallback(
            messages, summariser, max_chars=budget * 4, max_tokens=budget
        )
        text = counter.truncate(result.text, budget)
        source = "model" if result.source == "provider" else "fallback"
        current = step(
            summarise(current, the_plan.summarise_ids, text),
            lambda saved: (
                f"summarised {_plural(len(messages), 'message')} "
                f"({source} summary, {_tokens(saved)})"
            ),
        )
    for eviction in the_plan.evictions:
        current = step(
            evict(current, (eviction,)),
            lambda saved: (
                f"evicted {eviction.name} ({eviction.state.value}, {_tokens(saved)})"  # noqa: B023 - step() calls it at once
            ),
        )
    if the_plan.catalog is not None:
        catalog = the_plan.catalog
        current = step(
            shorten_catalog(current, catalog),
            lambda saved: (
                f"shortened the skills catalog to {catalog.label} ({_tokens(saved)})"
            ),
        )
    for cut in the_plan.cut:
        current = step(
            cut_results(current, (cut,), counter),
            lambda saved: (
                f"cut this turn's {cut.tool} result to fit the window "  # noqa: B023 - called at once
                f"({cut.tokens_before:,} → {cut.tokens_after:,} tokens, {_tokens(saved)})"  # noqa: B023
            ),
        )
    return CompressionOutcome(current, the_plan, result, before)
