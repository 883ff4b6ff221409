"""An MCP server for the completion tests (the SDK's own MCPServer).

``python completion_server.py [--no-completions]``

The template ``notes://day/{day}`` and the prompt ``review`` (``topic`` required, ``depth``
optional). With completions (the default), ``completion/complete`` answers a day's or a topic's
values by prefix (a depth's from the topic given in the context); the value ``slow`` is answered
after 30 s and ``boom`` with an error. ``--no-completions`` declares no ``completions``.
"""

from __future__ import annotations

import asyncio
import sys

import mcp_types as types
from mcp.server.mcpserver import MCPServer

DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
TOPICS = ["the plan", "the budget", "the code"]


def main() -> None:
    server = MCPServer("completion")

    @server.resource("notes://day/{day}", name="day", description="A day's note")
    def day(day: str) -> str:
        return f"note of {day}"

    @server.prompt(description="Review something")
    def review(topic: str, depth: str = "short") -> str:
        return f"Please review {topic} ({depth})."

    if "--no-completions" not in sys.argv:

        @server.completion()
        async def complete(
            ref: object,
            argument: types.CompletionArgument,
            context: types.CompletionContext | None,
        ) -> types.Completion:
            if argument.value == "slow":
                await asyncio.sleep(30)
            if argument.value == "boom":
                raise ValueError("no completions today")
            if argument.name == "day":
                values = DAYS
            elif argument.name == "topic":
                values = TOPICS
            else:
                topic = (context.arguments or {}).get("topic", "") if context else ""
                values = ["short", "deep"] if topic == "the code" else ["short"]
            return types.Completion(
                values=[v for v in values if v.startswith(argument.value)]
            )

    server.run("stdio")


if __name__ == "__main__":
    main()
