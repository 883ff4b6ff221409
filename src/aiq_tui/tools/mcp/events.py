"""What the MCP client reports: a server's state, each call's request, progress and answer,
and the resources the conversation uses changing. Part of the engine's event stream
(:data:`aiq_tui.events.Event` gathers them); defined here, beside what emits them, so the
tools layer reports without importing the layers above it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class McpServerChanged:
    """An MCP server's state: ``starting`` | ``ready`` | ``failed`` | ``stopped`` | ``disabled`` |
    ``awaiting approval`` | ``not approved`` | ``rejected``. ``tools`` are the names the model
    sees (``mcp__<server>__<tool>``); ``omitted`` those left out by ``mcp.tools_share``;
    ``message`` says why (a failure, a refusal, what to do)."""

    name: str
    state: str
    source: str  # "config" (config.yaml) | "project" (.mcp.json)
    target: str  # the command line or the URL
    tools: tuple[str, ...] = ()
    message: str = ""
    omitted: tuple[str, ...] = ()
    resources: tuple[str, ...] = ()  # the URIs (and URI templates) it lists
    prompts: tuple[
        str, ...
    ] = ()  # its prompts as slash commands: /mcp__<server>__<prompt>
    unusable: tuple[
        str, ...
    ] = ()  # its tools this client cannot call (they need task augmentation)


@dataclass(frozen=True)
class McpCallStarted:
    """A tool call's request is being sent to its MCP server (what a trace's MCP client span
    starts from; the screens draw nothing for it)."""

    call_id: str
    server: str
    method: str  # the MCP method: tools/call
    target: str  # the server's own name of the tool
    transport: str  # stdio | http | sse
    protocol_version: str = ""
    session_id: str = ""  # the server's session (streamable HTTP), "" when none
    address: str = ""  # host and port of an http / sse server
    port: int = 0


@dataclass(frozen=True)
class McpProgress:
    """A server's ``notifications/progress`` for a running call: ``progress`` of ``total`` (0
    when the server gave none), with its message. The tool log and the status line show it."""

    call_id: str
    server: str
    progress: float
    total: float = 0.0
    message: str = ""

    def label(self) -> str:
        """``3/4`` (or ``3`` with no total): what fits the tool log's status column."""
        done = f"{self.progress:g}"
        return f"{done}/{self.total:g}" if self.total else done


@dataclass(frozen=True)
class McpCallFinished:
    """The request :class:`McpCallStarted` sent has its answer. ``error_type``: "" when the
    server answered; the JSON-RPC error code ("-32601"); ``tool_error`` (the result's
    ``isError``); ``timeout``; ``cancelled``; or the failure's kind."""

    call_id: str
    error_type: str = ""
    error: str = ""


@dataclass(frozen=True)
class McpResourceUpdated:
    """A server said a resource the conversation uses changed (``notifications/resources/updated``
    for a URI the client subscribed to). ``use``: ``attached`` (the user attached it with
    ``@server:uri``: the next message carries its fresh text) or ``read`` (the model read it: the
    next message tells the model). Coalesced: at most one per resource until that next message."""

    server: str
    uri: str
    use: str  # attached | read


@dataclass(frozen=True)
class McpResourceRefreshed:
    """The user's message carries an update :class:`McpResourceUpdated` announced. ``outcome``:
    ``attached`` (its fresh text, re-read now), ``unchanged`` (re-read: the same text as attached
    before, not sent again), ``failed`` (it could not be re-read: the model is told so),
    ``told`` (a resource the model read: the model is told it changed) or ``dropped`` (a new
    conversation began first: no message carries it). ``summary``: the size, or why."""

    server: str
    uri: str
    outcome: str
    summary: str = ""
