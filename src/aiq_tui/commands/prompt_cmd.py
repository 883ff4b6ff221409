"""``aiq-tui prompt``: show the prompt that would be sent and its token breakdown, or
simulate a long conversation and watch the compression stages fire."""

from __future__ import annotations

import argparse
import random
import sys
from typing import TYPE_CHECKING, Any

from aiq_tui.commands.common import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    make_console,
    open_workspace,
    option,
    print_json,
    window_label,
)
from aiq_tui.figures import percent
from aiq_tui.llm.windows import resolve_window

if TYPE_CHECKING:
    from aiq_tui.context.model import Breakdown
    from aiq_tui.context.prompt import Prompt
    from aiq_tui.context.tokens import TokenCounter
    from aiq_tui.workspace import Workspace


def register(
    subparsers: Any, parents: list[argparse.ArgumentParser], action: str | None = None
) -> None:
    parser = subparsers.add_parser(
        "prompt",
        parents=parents,
        help="show the prompt and token budget for a query",
        description=(
            "Build the prompt that would be sent for QUERY — system prompt (base instructions, "
            "skills catalog, matched skills, use_skill instructions), messages and tools — and "
            "show the per-part token breakdown and which catalog lines are shortened, from what to "
            "what and why (disclosure.descriptions_share of the window). With --simulate N, feed N synthetic turns and "
            "print each compression stage as it fires: the conversation grows past 80 %% of the "
            "window, then one large tool result lands it past 90 %%, a later one past 95 %%, so "
            "that each stage fires at least once in enough turns (about 12 on the default window)."
        ),
    )
    parser.add_argument(
        "query", nargs="?", metavar="QUERY", help="the user's request, quoted"
    )
    parser.add_argument(
        "--window",
        type=int,
        metavar="N",
        help="context window in tokens (default: config)",
    )
    parser.add_argument(
        "--simulate",
        type=int,
        metavar="N",
        help="feed N synthetic turns and show compression",
    )
    from aiq_tui.skills.harnesses import names

    parser.add_argument(
        "--harness",
        metavar="NAME",
        choices=names(),
        help="instead: the skill listing that agent would send its model from this machine "
        "and project — its folders in its precedence, each description cut as it cuts them, "
        "names alone past its character budget (" + ", ".join(names()) + ")",
    )
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.set_defaults(handler=_prompt)


def _prompt(args: argparse.Namespace) -> int:
    query, simulate, window = (
        option(args, "query"),
        option(args, "simulate"),
        option(args, "window"),
    )
    if option(args, "harness"):
        workspace = open_workspace(args)
        if workspace is None:
            return EXIT_USAGE
        return _harness_listing(args, workspace, option(args, "harness"))
    if query is None and simulate is None:
        print(
            "aiq-tui prompt: give a QUERY or --simulate N (see --help)", file=sys.stderr
        )
        return EXIT_USAGE
    if window is not None and window < 1:
        print(
            "aiq-tui prompt: --window must be a positive number of tokens",
            file=sys.stderr,
        )
        return EXIT_USAGE
    if simulate is not None and simulate < 1:
        print("aiq-tui prompt: --simulate needs at least 1 turn", file=sys.stderr)
        return EXIT_USAGE
    workspace = open_workspace(args)
    if workspace is None:
        return EXIT_USAGE
    window = window or resolve_window(workspace.config).tokens
    if simulate is not None:
        return _simulate(args, workspace, simulate, window, query)
    return _show(args, workspace, query, window)


# -- aiq-tui prompt --harness NAME -----------------------------------------------------------


def _harness_listing(args: argparse.Namespace, workspace: Workspace, name: str) -> int:
    from aiq_tui.commands.sources_cmd import harness_views
    from aiq_tui.skills.harness_view import listing_text
    from aiq_tui.skills.harnesses import profile

    harness = profile(name)
    [view] = harness_views(workspace, harness.name)
    text, bare = listing_text(harness, view)
    manual = [s.name for s in view.skills if s.manual_only and not s.shadowed_by]
    over = view.budget is not None and view.listing_chars > view.budget
    if option(args, "json"):
        print_json(
            {
                "harness": view.harness,
                "listing": text,
                "chars": view.listing_chars,
                "budget": view.budget,
                "budget_why": view.budget_why,
                "names_only": bare,
                "manual_only": manual,
                "shadowed": [s.path for s in view.shadowed],
            }
        )
        return EXIT_OK
    from rich.rule import Rule

    console = make_console(args)
    console.print(Rule(f"{view.title}'s skill listing"))
    console.print(text or "(no skills)", markup=False, highlight=False, soft_wrap=True)
    console.print(Rule())
    budget = (
        f"{view.budget:,}-character budget ({view.budget_why})"
        if view.budget is not None
        else view.budget_why
    )
    console.print(
        f"{view.listing_chars:,} characters whole; {budget}"
        + (f"; past it {bare} skill(s) are listed by name alone" if over else ""),
        markup=False,
        soft_wrap=True,
    )
    if manual:
        console.print(
            f"not listed (disable-model-invocation: only you run them): {', '.join(manual)}",
            markup=False,
            soft_wrap=True,
        )
    if view.shadowed:
        console.print(
            f"shadowed (another folder wins the name): {len(view.shadowed)} — "
            f"`aiq-tui sources list --harness {view.harness}` shows which",
            markup=False,
            soft_wrap=True,
        )
    return EXIT_OK


# -- shared ---------------------------------------------------------------------------------


def _breakdown_rows(b: Breakdown) -> list[tuple[str, int]]:
    rows = [
        ("system (base, use_skill, tools)", b.system),
        ("skills catalog", b.catalog),
    ]
    rows += [(f"skill: {name}", tokens) for name, tokens in b.skills.items()]
    rows += [
        ("history", b.history),
        ("tool results", b.tool_results),
        ("reserved output", b.reserve),
    ]
    return rows


def _breakdown_json(b: Breakdown) -> dict[str, Any]:
    return {
        "system": b.system,
        "catalog": b.catalog,
        "skills": dict(b.skills),
        "history": b.history,
        "tool_results": b.tool_results,
        "reserve": b.reserve,
        "total": b.total,
        "window": b.window,
        "fraction": round(b.fraction, 4),
        "exact": b.exact,
        "encoding": b.encoding,
    }


# -- aiq-tui prompt "QUERY" -----------------------------------------------------------------


def _build(
    workspace: Workspace, query: str, window: int
) -> tuple[Prompt, Any, TokenCounter]:
    """The engine's own prompt for ``query`` (one code path with ``ask``): same system text,
    skill sections, tools (only loaded ``skill_*`` tools; the MCP servers' that fit their share)
    and breakdown; with the engine's loaded skills (their order and priorities are the ones
    compression keeps them by)."""
    import msgspec

    from aiq_tui.agent.engine import Engine

    config = workspace.config
    if window != resolve_window(config).tokens:
        workspace.config = msgspec.structs.replace(
            config, context=msgspec.structs.replace(config.context, window=window)
        )
    engine = Engine.create(workspace)
    if (
        engine.mcp.definitions()
    ):  # MCP servers: started as ask starts them, so their tools count too
        import asyncio

        async def with_servers() -> Prompt:
            try:
                await engine.start_mcp()
                return engine.preview(query)
            finally:
                await engine.mcp.aclose()

        return asyncio.run(with_servers()), engine.skills, engine.counter
    prompt = engine.preview(query)
    return prompt, engine.skills, engine.counter


def _catalog_json(
    prompt: Prompt, cuts: tuple[Any, ...], manual: list[str] | None = None
) -> dict[str, Any]:
    fit = prompt.catalog_fit
    shape = (
        {}
        if fit is None
        else {
            "description_chars": fit.cap_chars,
            "reason": fit.reason,
            "share": fit.share,
            "budget": fit.budget,
            "why": fit.why() if cuts else "",
        }
    )
    return {
        "listed": prompt.catalog_listed,
        "omitted": prompt.catalog_omitted,
        # disable-model-invocation: only the user runs them, so the model is never shown them
        "manual_only": list(manual or []),
        **shape,
        "shortened": [cut.to_json() for cut in cuts],
    }


def _show(
    args: argparse.Namespace, workspace: Workspace, query: str, window: int
) -> int:
    from aiq_tui.context.budget import stage_for
    from aiq_tui.context.prompt import catalog_cuts

    prompt, skills, counter = _build(workspace, query, window)
    cuts = catalog_cuts(prompt, counter.count)
    loaded = skills.loaded()
    b = prompt.breakdown
    over = b.total > b.window
    if option(args, "json"):
        print_json(
            {
                "system": prompt.system,
                "messages": [m.to_json() for m in prompt.messages],
                "tools": [spec.name for spec in prompt.tools],
                "skills": [
                    {"name": s.name, "state": s.state.value, "phase": s.phase.label}
                    for s in loaded
                ],
                "catalog": _catalog_json(prompt, cuts, skills.manual_only()),
                "breakdown": _breakdown_json(b),
                "window_source": window_label(args, workspace.config),
                "stage": int(stage_for(b.fraction, workspace.config.context)),
                "fits": not over,
                "note": counter.info.note,
            }
        )
        return EXIT_FAILED if over else EXIT_OK

    from rich.rule import Rule
    from rich.table import Table

    console = make_console(args)
    console.print(Rule("system prompt"))
    console.print(prompt.system.rstrip(), markup=False)
    console.print(Rule("messages"))
    for message in prompt.messages:
        console.print(f"[{message.role.value}] {message.content}", markup=False)
    console.print(Rule(f"tools ({len(prompt.tools)})"))
    console.print(", ".join(spec.name for spec in prompt.tools) or "none", markup=False)
    table = Table(
        title="token breakdown" + ("" if b.exact else " (estimated)"), show_footer=True
    )
    table.add_column("part", footer="total")
    table.add_column("tokens", justify="right", footer=str(b.total))
    table.add_column("share", justify="right", footer=f"{b.fraction:.1%} of {b.window}")
    for label, tokens in _breakdown_rows(b):
        table.add_row(
            label, str(tokens), f"{tokens / b.window:.1%}" if b.window else "-"
        )
    console.print(table)
    counted = "estimated (≈4 chars/token)" if not b.exact else f"exact ({b.encoding})"
    console.print(
        f"counts: {counted}" + (f" — {counter.info.note}" if counter.info.note else ""),
        markup=False,
    )
    console.print(f"window {window_label(args, workspace.config)}", markup=False)
    if prompt.catalog_omitted:
        console.print(
            f"catalog: {prompt.catalog_listed} listed, {prompt.catalog_omitted} left out "
            f"(context.catalog_share)",
            markup=False,
        )
    if cuts and prompt.catalog_fit is not None:
        console.print(
            f"catalog: {len(cuts)} description(s) shortened — {prompt.catalog_fit.why()}:",
            markup=False,
        )
        for cut in cuts:
            console.print(f"  {cut.text()}", markup=False)
    elif prompt.catalog_listed:
        console.print(
            f"catalog: every description whole ({prompt.catalog_listed} listed)",
            markup=False,
        )
    manual = skills.manual_only()
    if manual:
        console.print(
            f"not listed to the model: {', '.join(manual)} — disable-model-invocation: only you "
            "run them (/skill NAME or /NAME in the TUI)",
            markup=False,
            soft_wrap=True,
        )
    stage = stage_for(b.fraction, workspace.config.context)
    if stage:
        console.print(
            f"compression stage {int(stage)} % would apply before sending", markup=False
        )
    if over:
        console.print(
            f"over the window by {b.total - b.window} tokens: this prompt would be refused",
            markup=False,
        )
        return EXIT_FAILED
    return EXIT_OK


# -- aiq-tui prompt --simulate N ------------------------------------------------------------

_TOPICS = [
    "the sales report",
    "the deploy script",
    "customer orders",
    "the HTTP API",
    "disk usage",
    "the SQLite schema",
    "a PDF export",
    "log rotation",
]
_FILLER = [
    "We",
    "looked",
    "at",
    "{topic}",
    "and",
    "the",
    "numbers",
    "for",
    "the",
    "last",
    "quarter,",
    "compared",
    "them",
    "with",
    "the",
    "previous",
    "run,",
    "and",
    "noted",
    "where",
    "the",
    "pipeline",
    "slowed",
    "down.",
]


def _synthetic(words: int, topic: str) -> str:
    return " ".join(_FILLER[i % len(_FILLER)] for i in range(words)).replace(
        "{topic}", topic
    )


def synthetic_turn(turn: int, rng: random.Random, rows: int | None = None) -> list[Any]:
    """One user question and its answer (realistic lengths); every third turn uses a tool,
    whose result has ``rows`` rows (20–80 at random when None)."""
    from aiq_tui.conversation import Message, Role, ToolCall

    topic = rng.choice(_TOPICS)
    out = [
        Message(
            Role.USER,
            f"Turn {turn}: can you check {topic}? "
            + _synthetic(rng.randint(15, 60), topic),
            id=f"u{turn}",
        )
    ]
    if turn % 3 == 0:
        call = ToolCall(
            f"call{turn}",
            "execute_sql",
            {"query": f"SELECT * FROM orders LIMIT {rng.randint(5, 50)}"},
        )
        out.append(Message(Role.ASSISTANT, "", tool_calls=(call,), id=f"c{turn}"))
        count = rng.randint(20, 80) if rows is None else rows
        out.append(
            Message(
                Role.TOOL,
                _rows(count, rng),
                tool_call_id=call.id,
                name="execute_sql",
                id=f"t{turn}",
            )
        )
    out.append(
        Message(
            Role.ASSISTANT,
            f"About {topic}: " + _synthetic(rng.randint(80, 300), topic),
            id=f"a{turn}",
        )
    )
    return out


def _rows(count: int, rng: random.Random) -> str:
    return "\n".join(
        f"{i}|Customer {i}|{rng.randint(1, 999)}.00 EUR" for i in range(count)
    )


def aimed_rows(
    budget: Any, counter: TokenCounter, target: float, question: int
) -> int | None:
    """Rows for the next tool result so that it lands the budget at ``target`` (a share of the
    window) even after the engine clears every older tool result first — how a later stage is
    reached at all: clearing alone brings a budget that creeps past 80 % back under it.
    ``question``: the tokens the turn's question and call add before the result. None when the
    result cannot reach it (the window is too small for the rows)."""
    from aiq_tui.context.compress import clearable_tokens

    need = (
        target * budget.window
        - budget.total
        - question
        + clearable_tokens(budget.history, counter)
    )
    per_row = max(1, counter.count(_rows(50, random.Random(0))) / 50)
    rows = int(need / per_row)
    return rows if 0 < rows <= 4 * budget.window else None


def _simulate(
    args: argparse.Namespace,
    workspace: Workspace,
    turns: int,
    window: int,
    query: str | None,
) -> int:
    from aiq_tui.context.budget import TokenBudget
    from aiq_tui.context.compress import compress
    from aiq_tui.events import CompressionApplied

    prompt, skills, counter = _build(
        workspace, query or "analyse the sales report with sql", window
    )
    config = workspace.config
    budget = TokenBudget.from_prompt(
        counter, config.context, prompt, skills.loaded(), skills.costs()
    )
    budget.set_history([])
    rng = random.Random(turns)  # deterministic for a given N
    as_json = bool(option(args, "json"))
    console = None if as_json else make_console(args)
    records: list[dict[str, Any]] = []
    refused = False
    turn = 0

    if console is not None:
        b = budget.breakdown()
        console.print(
            f"window {window_label(args, config)}; start {b.total} ({b.fraction:.1%}); skills loaded: "
            f"{', '.join(b.skills) or 'none'}; counts {'exact' if b.exact else 'estimated'}",
            markup=False,
        )
    settings = config.context
    # The stages still to show, each as a share to aim a tool result at: past 90 % (below 95 %),
    # then past 95 % — once the first stage has fired on its own.
    aims = [
        ((settings.evict_at + settings.aggressive_at) / 2, 90),
        ((settings.aggressive_at + 1.0) / 2, 95),
    ]
    fired: set[int] = set()
    for turn in range(1, turns + 1):
        rows = None
        if turn % 3 == 0 and 80 in fired and aims:
            aims = [aim for aim in aims if aim[1] not in fired]
            if aims:
                probe = synthetic_turn(turn, random.Random(rng.random()), rows=0)
                rows = aimed_rows(
                    budget,
                    counter,
                    aims[0][0],
                    sum(counter.count_message(m) for m in probe[:2]) + 4,
                )
        # The engine checks the budget before every request, i.e. after every message.
        for message in synthetic_turn(turn, rng, rows):
            budget.add_message(message)
            events: list[CompressionApplied] = []
            import asyncio

            outcome = asyncio.run(
                compress(
                    budget.context_state(), config.context, counter, None, events.append
                )
            )
            plan = outcome.plan
            if not plan.is_noop:
                budget.sync(outcome.state)
                fired.add(int(plan.stage))
            if events or not plan.fits:
                records.append(
                    {
                        "turn": turn,
                        "message": message.id,
                        "stage": int(plan.stage),
                        "tokens_before": plan.tokens_before,
                        "tokens_after": budget.total,
                        "summarised": len(plan.summarise_ids),
                        "kept": plan.keep_last,
                        "evicted": [e.name for e in plan.evictions],
                        "fits": plan.fits,
                        "notes": list(plan.notes),
                        "steps": [
                            {"step": e.step, "before": e.before, "after": e.after}
                            for e in events
                        ],
                    }
                )
            if console is not None and events:
                console.print(
                    f"turn {turn}: stage {int(plan.stage)} % — {plan.tokens_before} → {budget.total} tokens "
                    f"({percent(plan.tokens_before, window)}% → {percent(budget.total, budget.window)}%)",
                    markup=False,
                )
                for event in events:
                    console.print(
                        f"  {event.step}: {event.before} → {event.after}", markup=False
                    )
                for note in plan.notes:
                    console.print(f"  note: {note}", markup=False)
            if not plan.fits:
                refused = True
                if console is not None:
                    console.print(
                        f"turn {turn}: the prompt does not fit the window even after compression; "
                        "the engine would refuse to send",
                        markup=False,
                    )
                break
        if refused:
            break
    if as_json:
        print_json(
            {
                "window": window,
                "window_source": window_label(args, config),
                "turns": turns,
                "stages": records,
                "refused": refused,
                "final": _breakdown_json(budget.breakdown()),
            }
        )
    elif console is not None:
        b = budget.breakdown()
        stages = [r["stage"] for r in records if r["steps"]]
        per_stage = ", ".join(
            f"stage {stage}: {stages.count(stage)}" for stage in sorted(set(stages))
        )
        console.print(
            f"after {turn} turns: {b.total} tokens ({b.fraction:.1%} of {window}); "
            f"compression fired {len(stages)} times ({per_stage or 'never'}); "
            f"messages kept: {len(budget.history)}",
            markup=False,
        )
    return EXIT_FAILED if refused else EXIT_OK
