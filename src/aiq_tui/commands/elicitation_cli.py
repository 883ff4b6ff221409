"""An MCP server's question to the user (elicitation) in ``aiq-tui ask``.

``--yes`` approves tool calls; it never answers a server's question. At a terminal the user is
asked, field by field (Enter keeps the server's default), then whether to send; headless
(``--json``, no terminal) the question is declined — with ``--accept-elicitation-defaults``,
answered with the server's own defaults unless a required field has none or the question looks
destructive (:func:`~aiq_tui.tools.mcp.elicitation.destructive_reason`). With that flag at a
terminal, a harmless question is answered with its defaults without asking, a destructive one is
still asked. Either way what was answered is said on stderr.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from rich.console import Console
from rich.text import Text

from aiq_tui.tools.mcp.elicitation import (
    ElicitationAnswer,
    ElicitationRequest,
    Value,
    coerce,
    destructive_reason,
    headless_answer,
)

Elicitor = Callable[[ElicitationRequest], Awaitable[ElicitationAnswer]]
Ask = Callable[[str], str]


def elicitor(
    console: Console,
    *,
    accept_defaults: bool,
    interactive: bool,
    quiet: bool,
    ask: Ask = input,
) -> Elicitor:
    """The elicitor ``ask`` installs: ``interactive`` when a person is at the terminal;
    ``quiet`` (``--json``) says nothing on stderr."""

    async def answer(request: ElicitationRequest) -> ElicitationAnswer:
        danger = destructive_reason(request)
        if interactive and (not accept_defaults or danger is not None):
            given = await asyncio.to_thread(_ask_person, console, request, danger, ask)
            how = "you answered"
        else:
            given = headless_answer(request, accept_defaults)
            how = "answered with its defaults"
        if not quiet:
            what = how if given.action == "accept" else f"{given.action}d"
            if given.reason:
                what += f": {given.reason}"
            console.print(
                Text.assemble(
                    ("mcp ", "yellow"),
                    (request.server, "yellow"),
                    (" asked: ", "yellow"),
                    (request.message, "yellow"),
                    (f" — {what}", "yellow"),
                )
            )
        return given

    return answer


def _ask_person(
    console: Console, request: ElicitationRequest, danger: str | None, ask: Ask
) -> ElicitationAnswer:
    """The question on the terminal; every character the server sent is shown as text."""
    console.print(
        Text.assemble(
            ("\nMCP server ", "bold yellow"),
            (request.server, "bold yellow"),
            (" asks: ", "bold yellow"),
            (request.message, "bold"),
        )
    )
    if danger is not None:
        console.print(
            Text(f"⚠ this looks destructive ({danger}); nothing is pre-answered")
        )
    try:
        if request.mode == "url":
            console.print(Text(f"it asks you to open {request.url}"))
            reply = ask("open it yourself, then answer: [y]es done / [N]o: ")
            if reply.strip().lower() in ("y", "yes"):
                return ElicitationAnswer("accept")
            return ElicitationAnswer("decline", reason="you said no")
        values: dict[str, Value] = {}
        for spec in request.fields:
            # A destructive question keeps no default: the person types every value.
            default = None if danger is not None else spec.default
            shown = "" if default is None else f" [{default}]"
            while True:
                typed = ask(f"{spec.label}{shown}: ")
                if not typed.strip() and default is not None:
                    values[spec.name] = default
                    break
                if not typed.strip() and danger is not None:
                    # Left out, the field would take the server's own default after all.
                    console.print(
                        Text(f"{spec.label}: type a value (nothing is pre-answered)")
                    )
                    continue
                value, problem = coerce(spec, typed)
                if not problem:
                    if value is not None:
                        values[spec.name] = value
                    break
                console.print(Text(problem))
        reply = ask("send this answer? [y]es / [N]o: ")
    except EOFError:
        return ElicitationAnswer("cancel", reason="no answer (end of input)")
    if reply.strip().lower() in ("y", "yes"):
        return ElicitationAnswer("accept", values)
    return ElicitationAnswer("decline", reason="you said no")
