"""An MCP server for the tests, on the SDK's own server (MCPServer, FastMCP's successor).

``python fixture_server.py [--crash-on-start | --hang-on-start] [--http PORT --token T]``

Tools: ``echo`` (text), ``fail`` (an error result), ``slow`` (waits on a file that never
appears — for timeouts and Esc), ``big`` (a large text), ``picture`` (an image), ``document``
(an embedded resource), ``grow`` (adds the tool ``extra`` and announces the list change),
``crash`` (the process exits mid-call), ``env`` (the environment it got), ``count`` (how many
calls it answered, how many were cancelled and how many ``slow`` calls are running now — what a
test waits on instead of sleeping).
"""

from __future__ import annotations

import argparse
import base64
import os
import sys
import time
from typing import Any

import anyio
import mcp_types as types
from mcp.server.mcpserver import Context, MCPServer


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--crash-on-start", action="store_true")
    parser.add_argument("--hang-on-start", action="store_true")
    parser.add_argument("--http", type=int, default=0)
    parser.add_argument("--token", default="")
    parser.add_argument(
        "--tools", type=int, default=0, help="add this many padding tools"
    )
    args = parser.parse_args()
    if args.crash_on_start:
        print("fixture: refusing to start", file=sys.stderr)
        sys.exit(3)
    if args.hang_on_start:
        print("fixture: hanging", file=sys.stderr, flush=True)
        time.sleep(3600)

    server = MCPServer("fixture")
    state = {"calls": 0, "cancelled": 0, "running": 0}

    @server.tool(description="Say the text back.")
    def echo(text: str) -> str:
        state["calls"] += 1
        return f"echo: {text}"

    @server.tool(description="Always fails.")
    def fail(reason: str = "broken on purpose") -> str:
        raise ValueError(reason)

    @server.tool(description="Wait (for timeouts and cancellation).")
    async def slow(seconds: float = 3600) -> str:
        state["running"] += 1
        try:
            await anyio.sleep(seconds)
        except BaseException:
            state["cancelled"] += 1
            raise
        finally:
            state["running"] -= 1
        return "woke up"

    @server.tool(description="A large text.")
    def big(size: int = 200_000) -> str:
        return "x" * size

    @server.tool(description="A small picture.")
    def picture() -> list[types.ContentBlock]:
        data = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 2040).decode()
        return [
            types.TextContent(type="text", text="a picture:"),
            types.ImageContent(type="image", data=data, mime_type="image/png"),
        ]

    @server.tool(description="An embedded document.")
    def document() -> list[types.ContentBlock]:
        return [
            types.EmbeddedResource(
                type="resource",
                resource=types.TextResourceContents(
                    uri="file:///notes/readme.md",
                    mime_type="text/markdown",
                    text="# Notes\nhello",
                ),
            )
        ]

    @server.tool(description="Add the tool `extra` and announce the change.")
    async def grow(ctx: Context) -> str:
        def extra(word: str) -> str:
            return f"extra: {word}"

        server.add_tool(extra, name="extra", description="Added at run time.")
        await ctx.notify_tools_changed()
        return "grown"

    @server.tool(description="Exit the process mid-call.")
    def crash() -> str:
        os._exit(7)

    @server.tool(description="The environment variable names this server got.")
    def env() -> str:
        return " ".join(sorted(os.environ))

    @server.tool(description="Calls answered, calls cancelled, slow calls running.")
    def count() -> str:
        return f"calls={state['calls']} cancelled={state['cancelled']} running={state['running']}"

    def padding_tool(index: int) -> Any:
        def padding(value: str) -> str:
            return f"pad {index}: {value}"

        return padding

    for index in range(args.tools):
        server.add_tool(
            padding_tool(index),
            name=f"pad_{index:03d}",
            description=f"Padding tool number {index}, with a description long enough to cost tokens.",
        )

    if args.http:
        import uvicorn
        from starlette.middleware.base import BaseHTTPMiddleware
        from starlette.responses import PlainTextResponse

        app = server.streamable_http_app()

        async def require_token(request, call_next):  # type: ignore[no-untyped-def]
            if (
                args.token
                and request.headers.get("authorization") != f"Bearer {args.token}"
            ):
                return PlainTextResponse("unauthorized", status_code=401)
            return await call_next(request)

        app.add_middleware(BaseHTTPMiddleware, dispatch=require_token)
        uvicorn.run(app, host="127.0.0.1", port=args.http, log_level="warning")
    else:
        server.run()


if __name__ == "__main__":
    main()
