"""What the TUI does for MCP servers besides their tools: their questions to the user (a
dialog), their prompts as slash commands, their progress in the status line.

Kept out of ``app.py``: the app hands itself over and calls these three functions.

* :func:`install_elicitor` — the fleet's questions (``elicitation/create``) open
  :class:`~aiq_tui.ui.screens.mcp_elicitation.McpElicitationScreen`; the answer goes back.
* :func:`run_prompt_command` — ``/mcp__<server>__<prompt> [ARG…]``: arguments as
  ``name=value`` or in the prompt's order; missing required ones are asked for in the same
  dialog; the prompt's text is then sent as the user's message.
* :func:`progress_line` — the prompt's status line while a call reports progress.
"""

from __future__ import annotations

import asyncio
import shlex
from typing import TYPE_CHECKING, Any

from aiq_tui.tools.mcp.elicitation import (
    ElicitationAnswer,
    ElicitationField,
    ElicitationRequest,
)

if TYPE_CHECKING:
    from aiq_tui.events import McpProgress
    from aiq_tui.tools.mcp.catalog import Prompt


async def ask_in_dialog(
    app: Any, request: ElicitationRequest, **options: Any
) -> ElicitationAnswer:
    """The user's answer to ``request`` through the dialog (pushed from the app's loop)."""
    from aiq_tui.ui.screens.mcp_elicitation import McpElicitationScreen

    future: asyncio.Future[ElicitationAnswer] = (
        asyncio.get_running_loop().create_future()
    )

    def decided(answer: ElicitationAnswer | None) -> None:
        if not future.done():
            future.set_result(answer or ElicitationAnswer("cancel"))

    app.call_later(
        lambda: (
            None
            if future.done()
            else app.push_screen(
                McpElicitationScreen(request, **options), callback=decided
            )
        )
    )
    return await future


def install_elicitor(app: Any, fleet: Any) -> None:
    async def elicit(request: ElicitationRequest) -> ElicitationAnswer:
        return await ask_in_dialog(app, request)

    fleet.elicitor = elicit


def prompt_arguments(prompt: Prompt, rest: str) -> dict[str, str]:
    """``name=value`` words, else words in the prompt's argument order (quotes group words)."""
    try:
        words = shlex.split(rest)
    except ValueError:
        words = rest.split()
    names = [a.name for a in prompt.arguments]
    given: dict[str, str] = {}
    positional: list[str] = []
    for word in words:
        name, found, value = word.partition("=")
        if found and name in names:
            given[name] = value
        else:
            positional.append(word)
    free = [name for name in names if name not in given]
    for name, value in zip(free, positional):
        given[name] = value
    if len(positional) > len(free) and free:
        given[free[-1]] = " ".join([given[free[-1]], *positional[len(free) :]])
    return given


def arguments_request(prompt: Prompt, given: dict[str, str]) -> ElicitationRequest:
    fields = tuple(
        ElicitationField(
            a.name,
            "string",
            description=a.description,
            required=a.required,
            default=given.get(a.name),
        )
        for a in prompt.arguments
    )
    return ElicitationRequest(
        prompt.server,
        prompt.description or f"Arguments of {prompt.name}",
        fields=fields,
    )


async def run_prompt_command(app: Any, command: str, rest: str) -> bool:
    """Run ``/mcp__<server>__<prompt>``; False when no ready server has that prompt."""
    fleet = getattr(app.engine, "mcp", None)
    prompt = fleet.find_prompt(command) if fleet is not None else None
    if prompt is None:
        return False
    app.run_worker(
        _run_prompt(app, fleet, prompt, rest), group="mcp-prompt", exit_on_error=False
    )
    return True


async def _run_prompt(app: Any, fleet: Any, prompt: Prompt, rest: str) -> None:
    from aiq_tui.tools.mcp.connection import McpError

    given = prompt_arguments(prompt, rest)
    if any(a.required and not given.get(a.name) for a in prompt.arguments):
        answer = await ask_in_dialog(
            app,
            arguments_request(prompt, given),
            title=f"Run {prompt.command}",
            accept_label="Run",
        )
        if answer.action != "accept":
            await app.note(f"{prompt.command}: not run", "info")
            return
        given = {
            name: str(value)
            for name, value in answer.content.items()
            if value is not None
        }
    try:
        text = await fleet.get_prompt(prompt, given)
    except McpError as exc:
        await app.note(f"{prompt.command}: {exc}", "warning")
        return
    if not text.strip():
        await app.note(f"{prompt.command}: the server's prompt is empty", "warning")
        return
    app.send(text)


def progress_line(event: McpProgress) -> str:
    """``working… mcp everything 2/4 step 2 · Esc cancels``."""
    message = f" {event.message}" if event.message else ""
    return f"working… mcp {event.server} {event.label()}{message} · Esc cancels"
