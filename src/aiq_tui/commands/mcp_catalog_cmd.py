"""``aiq-tui mcp resources [SERVER]`` and ``aiq-tui mcp prompts [SERVER]``: what each server offers
besides tools.

Both start the servers the way a turn would (same fleet, same trust rules), list, and stop them.
A resource is read by the model through ``mcp__SERVER__read_resource`` or attached to a question
as ``@SERVER:URI``; a prompt runs in the TUI as ``/mcp__SERVER__PROMPT``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from aiq_tui.commands.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, option, print_json

if TYPE_CHECKING:
    from aiq_tui.tools.mcp.fleet import McpFleet


def register(actions: Any, parents: list[argparse.ArgumentParser]) -> None:
    resources = actions.add_parser(
        "resources",
        parents=parents,
        help="each server's resources (attach one as @SERVER:URI)",
        description="Start the servers as a turn would and list their resources and URI templates. The "
        "model reads them with mcp__SERVER__read_resource; a question attaches one as @SERVER:URI.",
    )
    resources.add_argument(
        "server", metavar="SERVER", nargs="?", help="only this server"
    )
    resources.add_argument(
        "--json", action="store_true", help="machine-readable output"
    )
    resources.set_defaults(handler=_resources)

    prompts = actions.add_parser(
        "prompts",
        parents=parents,
        help="each server's prompts (in the TUI: /mcp__SERVER__PROMPT)",
        description="Start the servers as a turn would and list their prompts with their arguments. In the "
        "TUI each one runs as the slash command /mcp__SERVER__PROMPT.",
    )
    prompts.add_argument("server", metavar="SERVER", nargs="?", help="only this server")
    prompts.add_argument("--json", action="store_true", help="machine-readable output")
    prompts.set_defaults(handler=_prompts)


def _listed(
    args: argparse.Namespace, read: Callable[[McpFleet, str | None], list[Any]]
) -> tuple[list[Any], int]:
    """What ``read`` lists once the servers started; the exit code (usage: unknown server)."""
    import asyncio

    from aiq_tui.commands.mcp_cmd import _fleet

    fleet = _fleet(args)
    if fleet is None:
        return [], EXIT_USAGE
    wanted = option(args, "server")
    names = {d.name.lower(): d.name for d in fleet.definitions()}
    if wanted is not None and wanted.lower() not in names:
        known = ", ".join(names.values()) or "none configured"
        print(
            f"error: no MCP server named {wanted!r} (servers: {known})", file=sys.stderr
        )
        return [], EXIT_USAGE
    server = names[wanted.lower()] if wanted is not None else None

    failed: list[Any] = []

    async def run() -> list[Any]:
        try:
            await fleet.start()
            failed.extend(
                s
                for s in fleet.statuses()
                if s.state != "ready" and server in (None, s.name)
            )
            return read(fleet, server)
        finally:
            await fleet.aclose()

    if fleet.definitions() and not option(args, "json"):
        print(f"starting {len(fleet.definitions())} server(s)…", file=sys.stderr)
    items = asyncio.run(run())
    for status in failed:
        print(
            f"warning: MCP server {status.name}: {status.state} — {(status.message.splitlines() or [''])[0]}",
            file=sys.stderr,
        )
    return items, EXIT_FAILED if failed and server is not None else EXIT_OK


def _resources(args: argparse.Namespace) -> int:
    items, code = _listed(args, lambda fleet, server: fleet.resources(server))
    if option(args, "json"):
        print_json(
            {
                "resources": [
                    {
                        "server": r.server,
                        "uri": r.uri,
                        "name": r.name,
                        "description": r.description,
                        "mime_type": r.mime_type,
                        "template": r.template,
                    }
                    for r in items
                ]
            }
        )
        return code
    if not items:
        print("no resources")
    for r in items:
        kind = "template " if r.template else ""
        extra = f"  {r.description}" if r.description else ""
        print(
            f"@{r.server}:{r.uri}  {kind}{r.name}{(' (' + r.mime_type + ')') if r.mime_type else ''}{extra}"
        )
    return code


def _prompts(args: argparse.Namespace) -> int:
    items, code = _listed(args, lambda fleet, server: fleet.prompts(server))
    if option(args, "json"):
        print_json(
            {
                "prompts": [
                    {
                        "server": p.server,
                        "name": p.name,
                        "command": p.command,
                        "description": p.description,
                        "arguments": [
                            {
                                "name": a.name,
                                "description": a.description,
                                "required": a.required,
                            }
                            for a in p.arguments
                        ],
                    }
                    for p in items
                ]
            }
        )
        return code
    if not items:
        print("no prompts")
    for p in items:
        arguments = " ".join(
            f"{a.name}" if a.required else f"[{a.name}]" for a in p.arguments
        )
        print(
            f"{p.command}{(' ' + arguments) if arguments else ''}  {p.description}".rstrip()
        )
    return code
