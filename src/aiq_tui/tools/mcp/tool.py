"""One MCP server tool as the registry sees it: ``mcp__<server>__<tool>``, the server's own
JSON schema, the permission key of its own name (``ask`` unless ``tools.permissions`` names the
tool or its server — see :mod:`aiq_tui.tools.policy`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from aiq_tui.conversation import ToolSpec
from aiq_tui.tools.approval_view import one_line
from aiq_tui.tools.base import CallObserver, ToolResult
from aiq_tui.tools.mcp.events import McpCallFinished, McpCallStarted, McpProgress
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


class ServerTool:
    """What every tool backed by one server's live connection shares: its name is its own
    permission key, and its source decides whether "always" may be remembered."""

    def __init__(
        self,
        spec: ToolSpec,
        server: str,
        connection: McpConnection,
        limit: int,
        *,
        from_project: bool = False,
        project_trusted: bool = False,
    ) -> None:
        self.server = server
        # A project's server (.mcp.json) is a project source: its calls are never pre-approved by
        # a skill's allowed-tools (a user skill's `mcp__github` names the user's own server, not
        # a project's `GitHub`), and in an untrusted project they ask every time.
        self.from_project = from_project
        self._trusted = not from_project or project_trusted
        self._connection = connection
        self._limit = limit
        self._spec = spec

    @property
    def spec(self) -> ToolSpec:
        return self._spec

    def permission_key(self, arguments: dict[str, Any]) -> str:
        return self._spec.name

    def source_trusted(self, arguments: dict[str, Any]) -> bool:
        """The user's own server, or a trusted project's: "always" may be remembered for it."""
        return self._trusted

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        return await self.run_observed(arguments, None)

    async def run_observed(
        self, arguments: dict[str, Any], observer: CallObserver | None
    ) -> ToolResult:
        raise NotImplementedError


class McpTool(ServerTool):
    """A server's tool; calls go to its live connection."""

    def __init__(
        self,
        name: str,
        server: str,
        remote: RemoteTool,
        connection: McpConnection,
        result_max_bytes: int,
        *,
        from_project: bool = False,
        project_trusted: bool = False,
    ) -> None:
        description = (
            remote.description
            or remote.title
            or f"Tool {remote.name} of the MCP server {server}."
        )
        super().__init__(
            ToolSpec(
                name=name,
                description=description,
                parameters=input_schema(remote.input_schema),
            ),
            server,
            connection,
            result_max_bytes,
            from_project=from_project,
            project_trusted=project_trusted,
        )
        self.remote_name = remote.name

    def describe(self, arguments: dict[str, Any]) -> str:
        # Every key, each value cut short: a long first argument cannot push ``path`` out of
        # sight (the approval lists each argument in full besides: tools.approval_view).
        return f"MCP server {self.server} › {self.remote_name} {one_line(arguments)}".rstrip()

    async def run_observed(
        self, arguments: dict[str, Any], observer: CallObserver | None
    ) -> ToolResult:
        """The call, reported as :class:`~aiq_tui.tools.mcp.events.McpCallStarted` / ``McpCallFinished``
        and carrying the trace context in ``params._meta`` (MCP semantic conventions, SEP-414:
        ``traceparent``, unprefixed) when ``observer`` has one; the server's progress
        notifications come back as :class:`~aiq_tui.tools.mcp.events.McpProgress`."""
        from aiq_tui.tools.mcp.connection import McpError

        connection = self._connection
        meta: dict[str, Any] | None = None
        on_progress = None
        if observer is not None:
            emit, call_id, server = observer.emit, observer.call_id, self.server

            def on_progress(
                done: float, total: float | None, message: str | None
            ) -> None:
                emit(
                    McpProgress(
                        call_id, server, float(done), float(total or 0), message or ""
                    )
                )

            address, port = connection.endpoint
            observer.emit(
                McpCallStarted(
                    observer.call_id,
                    self.server,
                    "tools/call",
                    self.remote_name,
                    connection.server.transport,
                    connection.protocol_version,
                    connection.session_id,
                    address,
                    port,
                )
            )
            parent = observer.traceparent()
            meta = {"traceparent": parent.header()} if parent is not None else None
        try:
            result = await connection.call(
                self.remote_name, arguments, meta, on_progress
            )
        except McpError as exc:
            if observer is not None:
                observer.emit(
                    McpCallFinished(observer.call_id, exc.kind or "error", str(exc))
                )
            return ToolResult.failure(f"MCP server {self.server}: {exc}")
        except BaseException:
            if (
                observer is not None
            ):  # cancelled (Esc) or a bug: the request's span still ends
                observer.emit(
                    McpCallFinished(
                        observer.call_id, "cancelled", "the call was cancelled"
                    )
                )
            raise
        converted = convert(result, self._limit, self.server)
        if observer is not None:
            observer.emit(
                McpCallFinished(
                    observer.call_id,
                    "" if converted.ok else "tool_error",
                    "" if converted.ok else converted.summary,
                )
            )
        return converted
