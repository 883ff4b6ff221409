"""One MCP server tool as the registry sees it: ``mcp__<server>__<tool>``, the server's own
JSON schema, the permission key of its own name (``ask`` unless ``tools.permissions`` names the
tool or its server — see :mod:`aiq_tui.tools.policy`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from aiq_tui.conversation import ToolSpec
from aiq_tui.tools.approval_view import one_line
from aiq_tui.tools.base import ToolResult
from aiq_tui.tools.mcp.results import convert

if TYPE_CHECKING:
    from aiq_tui.tools.mcp.connection import McpConnection, RemoteTool


def input_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The server's schema as a function's parameters: always an object with properties."""
    shaped = dict(schema) if isinstance(schema, dict) else {}
    shaped["type"] = "object"
    if not isinstance(shaped.get("properties"), dict):
        shaped["properties"] = {}
    return shaped


class McpTool:
    """A server's tool; calls go to its live connection."""

    def __init__(self, name: str, server: str, remote: "RemoteTool", connection: "McpConnection",
                 result_max_bytes: int) -> None:
        self.server = server
        self.remote_name = remote.name
        self._connection = connection
        self._limit = result_max_bytes
        description = remote.description or remote.title or f"Tool {remote.name} of the MCP server {server}."
        self._spec = ToolSpec(name=name, description=description, parameters=input_schema(remote.input_schema))

    @property
    def spec(self) -> ToolSpec:
        return self._spec

    def permission_key(self, arguments: dict[str, Any]) -> str:
        return self._spec.name

    def describe(self, arguments: dict[str, Any]) -> str:
        # Every key, each value cut short: a long first argument cannot push ``path`` out of
        # sight (the approval lists each argument in full besides: tools.approval_view).
        return f"MCP server {self.server} › {self.remote_name} {one_line(arguments)}".rstrip()

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        from aiq_tui.tools.mcp.connection import McpError

        try:
            result = await self._connection.call(self.remote_name, arguments)
        except McpError as exc:
            return ToolResult.failure(f"MCP server {self.server}: {exc}")
        return convert(result, self._limit, self.server)
