"""``aiq-tui ask "QUESTION"``: one agent turn headless — the answer streamed on stdout, what
the engine does (skills, tools, budget, compression) on stderr, or every event as JSON lines."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from aiq_tui.commands.common import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    make_console,
    open_engine,
    option,
    print_json_line,
    run_exported,
    session_exit_code,
    survive_closed_stdout,
)

if TYPE_CHECKING:
    from rich.console import Console

    from aiq_tui.events import Event
    from aiq_tui.tools.base import ApprovalRequest


def register(
    subparsers: Any, parents: list[argparse.ArgumentParser], action: str | None = None
) -> None:
    parser = subparsers.add_parser(
        "ask",
        parents=parents,
        help="run one agent turn headless and print the answer",
        description=(
            "Send QUESTION to the agent: skills are matched and loaded, tools run, the answer "
            "streams to stdout and the engine's events (skills, tool calls, budget, compression) "
            "go to stderr. With --json every event is one JSON line on stdout. The turn is saved "
            "as a session; continue it with --session ID. Tool calls that need approval are "
            "asked on the terminal, approved with --yes, or refused with --deny-all. @SERVER:URI in "
            "the question attaches that MCP server's resource (aiq-tui mcp resources lists them). With "
            "OTEL_EXPORTER_OTLP_ENDPOINT set (or telemetry: in config.yaml) the turn is also exported "
            "as OpenTelemetry traces (needs the telemetry extra); OTEL_TRACES_EXPORTER=console prints "
            "the spans on stderr instead."
        ),
    )
    parser.add_argument(
        "question",
        metavar="QUESTION",
        help="the question, quoted; '-' reads it from stdin",
    )
    parser.add_argument(
        "--session", metavar="ID", help="continue a saved session (id or unique prefix)"
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="print every event as one JSON line on stdout",
    )
    approval = parser.add_mutually_exclusive_group()
    approval.add_argument(
        "--yes",
        action="store_true",
        help="approve every tool call that asks, except a write of a file another program "
        "runs (a git hook, .claude/settings.json, .vscode/tasks.json, …) and the first run of "
        "an imported skill's script: only an interactive yes approves those; never answers an "
        "MCP server's question",
    )
    parser.add_argument(
        "--accept-elicitation-defaults",
        action="store_true",
        help="answer an MCP server's question with the server's own defaults instead of "
        "asking (headless: instead of declining) — never one that looks destructive (a "
        "confirmation defaulting to yes, 'delete', 'drop'…): at a terminal that is asked, "
        "headless it is declined",
    )
    approval.add_argument(
        "--deny-all", action="store_true", help="refuse every tool call that asks"
    )
    parser.set_defaults(handler=_ask)


def _ask(args: argparse.Namespace) -> int:
    from aiq_tui.agent.sessions import SessionError

    question = sys.stdin.read() if args.question == "-" else args.question
    if not question.strip():
        print("aiq-tui ask: the question is empty", file=sys.stderr)
        return EXIT_USAGE
    engine = open_engine(args)
    if engine is None:
        return EXIT_USAGE
    return run_exported(
        engine, lambda: _run(args, engine, question.strip(), SessionError)
    )


async def _run(
    args: argparse.Namespace, engine: Any, question: str, session_error: type[Exception]
) -> int:
    as_json = bool(option(args, "json"))
    console = make_console(args, stderr=True)
    failed: list[str] = []
    try:
        if option(args, "session"):
            try:
                await engine.resume(args.session)
            except (
                session_error
            ) as exc:  # unknown id: usage (2); unreadable file: failure (1)
                print(f"aiq-tui ask: {exc}", file=sys.stderr)
                return session_exit_code(exc)
        engine.approver = _approver(args, console, as_json)
        from aiq_tui.commands.elicitation_cli import elicitor

        engine.mcp.elicitor = elicitor(
            console,
            accept_defaults=bool(option(args, "accept_elicitation_defaults")),
            interactive=not as_json and sys.stdin.isatty(),
            quiet=as_json,
        )
        engine.subscribe(
            survive_closed_stdout(
                _json_sink(failed)
                if as_json
                else _text_sink(
                    console, failed, engine.workspace.cwd, engine.config.mcp.tool_search
                )
            )
        )
        if not as_json:
            from aiq_tui.tools.permission_rules import of_permissions

            for problem in of_permissions(
                engine.workspace.problems
            ):  # a typo is otherwise a silent no-op
                console.print(f"warning: {problem}", style="yellow", markup=False)
        if engine.is_demo and not as_json:
            console.print(
                "[demo model] offline demo — set OPENAI_API_KEY or ANTHROPIC_API_KEY and pass "
                "--provider to use a real model",
                style="dim",
                markup=False,
            )
        await engine.send(question)
        if not as_json:
            console.print(
                f"session {engine.session.id} (continue with --session {engine.session.id})",
                style="dim",
                markup=False,
            )
    finally:
        await engine.aclose()
    return EXIT_FAILED if failed else EXIT_OK


# -- output -------------------------------------------------------------------------------------
def _json_sink(failed: list[str]) -> Callable[[Event], None]:
    from aiq_tui.events import ErrorRaised, to_json

    def sink(event: Event) -> None:
        if isinstance(event, ErrorRaised):
            failed.append(event.message)
        print_json_line(to_json(event))

    return sink


def _text_sink(
    console: Console, failed: list[str], cwd: Any = None, tool_search: bool = True
) -> Callable[[Event], None]:
    from aiq_tui.events import (
        CompressionApplied,
        ErrorRaised,
        McpProgress,
        McpResourceUpdated,
        McpServerChanged,
        RetryScheduled,
        SkillStateChanged,
        TokenStreamed,
        ToolCallApproved,
        ToolCallCancelled,
        ToolCallDenied,
        ToolCallFinished,
        ToolCallRequested,
        TurnFinished,
    )
    from aiq_tui.tools.launcher import describe_sandbox, scope_warning

    streamed: list[bool] = [False]
    told_sandbox: list[bool] = [False]

    def note(text: str, style: str = "dim") -> None:
        if streamed[0]:  # finish the streamed line before writing to stderr
            sys.stdout.write("\n")
            sys.stdout.flush()
            streamed[0] = False
        console.print(
            text, style=style, markup=False, emoji=False
        )  # `@s:notes://a` is not :notes:

    def note_mcp(event: McpServerChanged) -> None:
        # A failed or refused server is a warning, not a failed turn: its tools are simply absent.
        if event.state == "ready":
            text = f"mcp {event.name}: ready, {len(event.tools)} tools"
            if event.omitted:
                reach = (
                    "the model can find them with tool_search"
                    if tool_search
                    else "mcp.tool_search is off"
                )
                text += f" ({len(event.omitted)} not offered up front: past mcp.tools_share of the window; {reach})"
            note(text, "yellow" if event.omitted else "dim")
        elif event.state in ("failed", "not approved"):
            note(f"mcp {event.name}: {event.state} — {event.message}", "yellow")

    def sink(event: Event) -> None:
        if isinstance(event, TokenStreamed):
            # errors="backslashreplace": a lone surrogate prints as \\ud83d instead of crashing.
            sys.stdout.write(
                event.text.encode("utf-8", "backslashreplace").decode("utf-8")
            )
            sys.stdout.flush()
            streamed[0] = not event.text.endswith("\n")
        elif isinstance(event, SkillStateChanged):
            new = event.new.value if event.new is not None else "evicted"
            note(
                f"skill {event.name}: {new} ({event.phase.label}, {event.tokens} tokens) — {event.reason}"
            )
        elif isinstance(event, ToolCallRequested):
            if not told_sandbox[
                0
            ]:  # which enforcement confines what the tools start, once
                told_sandbox[0] = True
                note(describe_sandbox())
                if scope_warning(
                    cwd
                ):  # the project directory the tools work in (--cwd)
                    note(scope_warning(cwd), "yellow")
            args = ", ".join(f"{k}={v!r}" for k, v in event.arguments.items())
            note(f"tool {event.name}({args[:160]})")
        elif isinstance(event, ToolCallFinished):
            note(
                f"tool {event.name}: {'ok' if event.ok else 'failed'}, {event.summary} "
                f"({event.duration_s * 1000:.0f} ms)"
            )
        elif isinstance(event, ToolCallApproved) and event.by == "skill":
            note(f"tool {event.name}: pre-approved by the active skill's allowed-tools")
        elif isinstance(event, ToolCallDenied):
            note(f"tool {event.name} denied: {event.reason}", "yellow")
        elif isinstance(event, ToolCallCancelled):
            note(f"tool {event.name}: {event.reason}", "yellow")
        elif isinstance(event, CompressionApplied):
            note(
                f"compression {int(event.plan.stage)} %: {event.step}; {event.before} → {event.after} tokens",
                "magenta",
            )
        elif isinstance(event, RetryScheduled):
            note(
                f"retry {event.attempt} in {event.delay_s:.1f} s: {event.reason}",
                "yellow",
            )
        elif isinstance(event, McpServerChanged):
            note_mcp(event)
        elif isinstance(event, McpProgress):
            note(
                f"mcp {event.server}: {event.label()}"
                + (f" — {event.message}" if event.message else "")
            )
        elif isinstance(
            event, McpResourceUpdated
        ):  # a watched resource changed during the answer
            note(
                f"mcp {event.server}: resource @{event.server}:{event.uri} updated on the server"
            )
        elif isinstance(event, ErrorRaised):
            failed.append(event.message)
            note(f"error: {event.message}", "bold red")
        elif isinstance(event, TurnFinished):
            if streamed[0]:
                sys.stdout.write("\n")
                sys.stdout.flush()
                streamed[0] = False
            if event.cancelled:
                note("cancelled", "yellow")

    return sink


# -- approval -----------------------------------------------------------------------------------
def _approver(args: argparse.Namespace, console: Console, as_json: bool) -> Any:
    from aiq_tui.tools.registry import approve_all, deny_all

    if option(args, "yes"):
        return approve_all
    if option(args, "deny_all"):
        return deny_all
    if as_json or not sys.stdin.isatty():
        return None  # nobody to ask: the registry refuses and says to use --yes
    return _terminal_approver(console)


def _terminal_approver(console: Console) -> Callable[[ApprovalRequest], Any]:
    from aiq_tui.tools.approval_view import terminal_approval
    from aiq_tui.tools.base import Decision

    async def ask(request: ApprovalRequest) -> Decision:
        # Every character that would run, control characters shown escaped (ESC M cannot
        # hide a line of the command from the prompt); every argument under its key, and
        # the start of what a file write would put on disk.
        console.print(
            "\n" + terminal_approval(request.title, request.detail, request.arguments),
            style="bold yellow",
            markup=False,
        )
        import asyncio

        question = (
            "allow? [y]es once / [a]lways / [N]o: "
            if request.rememberable
            else "allow? [y]es once / [N]o: "
        )
        answer = await asyncio.to_thread(input, question)
        choice = answer.strip().lower()
        if choice in ("a", "always") and request.rememberable:
            return Decision.ALLOW_ALWAYS
        if choice in ("y", "yes"):
            return Decision.ALLOW_ONCE
        return Decision.DENY

    return ask
