"""``mcp__<server>__read_resource``: the model reads one of a server's resources by URI.

Offered for each ready server that declares ``resources``, under the same permission policy as
its tools (its own name is its key; ``tools.permissions.mcp__<server>`` covers it). Its
description names the resources the server listed (the first :data:`LISTED`), so the model
knows what there is without a second call. What it reads is cut to ``mcp.resource_max_bytes``.
A server's own tool called ``read_resource`` keeps the name (the fleet registers this one
only when the name is free).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from aiq_tui.conversation import ToolSpec
from aiq_tui.tools.base import CallObserver, ToolResult
from aiq_tui.tools.mcp.tool import ServerTool

if TYPE_CHECKING:
    from aiq_tui.tools.mcp.catalog import Resource
    from aiq_tui.tools.mcp.connection import McpConnection

READ_RESOURCE = "read_resource"
LISTED = 30


def describe_resources(server: str, resources: Sequence[Resource]) -> str:
    lines = [
        f"Read a resource of the MCP server {server} by its URI (its text; binary contents are described)."
    ]
    fixed = [r for r in resources if not r.template]
    templates = [r for r in resources if r.template]
    if fixed:
        lines.append("Resources:")
        lines += [
            f"- {r.uri}" + (f" — {r.name}" if r.name and r.name not in r.uri else "")
            for r in fixed[:LISTED]
        ]
        if len(fixed) > LISTED:
            lines.append(f"- … and {len(fixed) - LISTED} more")
    if templates:
        lines.append("URI templates (fill in the {parameters}):")
        lines += [
            f"- {r.uri}"
            + (f" — {r.description or r.name}" if r.description or r.name else "")
            for r in templates[:LISTED]
        ]
    return "\n".join(lines)


class McpResourceTool(ServerTool):
    """Reads a resource through the server's live connection."""

    def __init__(
        self,
        name: str,
        server: str,
        resources: Sequence[Resource],
        connection: McpConnection,
        max_bytes: int,
        *,
        from_project: bool = False,
        project_trusted: bool = False,
    ) -> None:
        super().__init__(
            ToolSpec(
                name=name,
                description=describe_resources(server, resources),
                parameters={
                    "type": "object",
                    "properties": {
                        "uri": {"type": "string", "description": "the resource's URI"}
                    },
                    "required": ["uri"],
                },
            ),
            server,
            connection,
            max_bytes,
            from_project=from_project,
            project_trusted=project_trusted,
        )

    def describe(self, arguments: dict[str, Any]) -> str:
        return f"MCP server {self.server} › read resource {arguments.get('uri', '')}".rstrip()

    async def run_observed(
        self, arguments: dict[str, Any], observer: CallObserver | None
    ) -> ToolResult:
        from aiq_tui.tools.mcp.catalog import resource_text
        from aiq_tui.tools.mcp.connection import McpError

        uri = arguments.get("uri")
        if not isinstance(uri, str) or not uri.strip():
            return ToolResult.failure(
                "read_resource needs `uri`: one of the URIs in this tool's description"
            )
        try:
            result = await self._connection.read_resource(uri.strip())
        except McpError as exc:
            return ToolResult.failure(f"MCP server {self.server}: {exc}")
        text, summary = resource_text(result, self._limit)
        return ToolResult(ok=True, content=text, summary=summary)
