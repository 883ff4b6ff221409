"""An MCP server for the protocol tests beyond tools (the SDK's own MCPServer).

``python protocol_server.py``

Resources: ``notes://today`` (a short text), ``notes://big`` (200,000 characters), the template
``notes://day/{day}``. Prompt: ``review`` (``topic`` required, ``depth`` optional). Tools:
``steps`` (reports progress n times), ``ask_name`` / ``ask_colour`` (ask the user through
elicitation; the colour has a default), ``delete_everything`` (a confirmation defaulting to yes), ``roots`` (the client's roots), ``client_capabilities`` (what the client declared), ``more_prompts``
(adds the prompt ``later`` and announces it), ``haiku`` (asks the client's model: sampling),
``rewrite_today`` (changes ``notes://today`` and announces the update to listen streams).
"""

from __future__ import annotations

import json
from typing import Annotated

import mcp_types as types
from mcp.server.mcpserver import (
    Context,
    Elicit,
    ElicitationResult,
    ListRoots,
    MCPServer,
    Resolve,
    Sample,
)
from pydantic import BaseModel, Field


class Name(BaseModel):
    name: str = Field(description="Your name")
    polite: bool = Field(default=True, description="Say please")


# Questions to the client go through resolvers: on a 2026-07-28 connection they travel as an
# InputRequiredResult, on older ones as server-to-client requests. (Module level: the SDK
# evaluates the tools' annotations in this module's namespace.)
def want_name() -> Elicit[Name]:
    return Elicit("What is your name?", Name)


class Colour(BaseModel):
    colour: str = Field(default="blue", description="A colour")


def want_colour() -> Elicit[Colour]:
    return Elicit("Which colour?", Colour)


class Confirm(BaseModel):
    confirm: bool = Field(default=True, description="Delete them all")


def want_confirm() -> Elicit[Confirm]:
    return Elicit("Confirm deleting every repository?", Confirm)


def want_roots() -> ListRoots:
    return ListRoots()


def want_haiku(topic: str) -> Sample:
    return Sample(
        [
            types.SamplingMessage(
                role="user",
                content=types.TextContent(type="text", text=f"A haiku on {topic}"),
            )
        ],
        max_tokens=60,
        system_prompt="You write haiku.",
    )


def main() -> None:
    server = MCPServer("protocol")
    notes = {"today": "buy milk"}

    @server.resource(
        "notes://today",
        name="today",
        description="Today's note",
        mime_type="text/plain",
    )
    def today() -> str:
        return notes["today"]

    @server.resource("notes://big", name="big", mime_type="text/plain")
    def big() -> str:
        return "x" * 200_000

    @server.resource("notes://day/{day}", name="day", description="A day's note")
    def day(day: str) -> str:
        return f"note of {day}"

    @server.prompt(description="Review something")
    def review(topic: str, depth: str = "short") -> str:
        return f"Please review {topic} ({depth})."

    @server.tool(description="Count to n, reporting progress.")
    async def steps(n: int, ctx: Context) -> str:
        for index in range(1, n + 1):
            await ctx.report_progress(index, n, f"step {index}")
        return f"counted to {n}"

    @server.tool(description="Ask the user for a name.")
    def ask_name(answer: Annotated[ElicitationResult[Name], Resolve(want_name)]) -> str:
        if answer.action == "accept":
            return f"hello {answer.data.name}"
        return f"no name: {answer.action}"

    @server.tool(
        description="Ask the user for a colour (blue unless they say otherwise)."
    )
    def ask_colour(
        answer: Annotated[ElicitationResult[Colour], Resolve(want_colour)],
    ) -> str:
        return (
            f"colour {answer.data.colour}"
            if answer.action == "accept"
            else f"no colour: {answer.action}"
        )

    @server.tool(description="Delete every repository, once the user confirms.")
    def delete_everything(
        answer: Annotated[ElicitationResult[Confirm], Resolve(want_confirm)],
    ) -> str:
        if answer.action == "accept" and answer.data.confirm:
            return "deleted every repository"
        return f"kept them: {answer.action}"

    @server.tool(description="The client's roots.")
    def roots(listed: Annotated[types.ListRootsResult, Resolve(want_roots)]) -> str:
        return json.dumps([str(root.uri) for root in listed.roots])

    @server.tool(description="Add the prompt `later` and announce the change.")
    async def more_prompts(ctx: Context) -> str:
        def later() -> str:
            return "Later."

        server.prompt(name="later", description="Added at run time")(later)
        await ctx.notify_prompts_changed()
        return "added"

    @server.tool(description="A haiku from the client's model (sampling).")
    def haiku(
        topic: str, sampled: Annotated[types.CreateMessageResult, Resolve(want_haiku)]
    ) -> str:
        return f"sampled: {sampled.content.text} ({sampled.model})"

    @server.tool(
        description="Rewrite today's note and announce the update `times` times."
    )
    async def rewrite_today(text: str, ctx: Context, times: int = 1) -> str:
        notes["today"] = text
        for _ in range(times):
            await ctx.notify_resource_updated("notes://today")
        return "rewritten"

    @server.tool(description="What the client declared.")
    def client_capabilities(ctx: Context) -> str:
        declared = ctx.client_capabilities
        return json.dumps(declared.model_dump(exclude_none=True) if declared else {})

    server.run("stdio")


if __name__ == "__main__":
    main()
