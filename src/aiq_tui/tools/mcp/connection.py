"""One running MCP server, through the official ``mcp`` SDK.

The SDK (≈ 0.5 s of imports: pydantic, starlette, …) is imported here only, by
:meth:`McpConnection.start`, in a worker thread: nothing on the first frame's path waits for it.

A connection lives in one supervisor task (the SDK's transports are anyio task groups that must
be entered and left by the same task): it starts the server, lists its tools, then waits until
:meth:`close` is called or the server goes away. Tool calls are made from the caller's task and
can be cancelled there (Esc): the SDK tells the server with ``notifications/cancelled``.

What a caller may rely on:

* :meth:`start` returns the server's tools or raises :class:`McpError` with a sentence naming
  the cause (program not found, exited, not ready within ``startup_timeout``, …) and the last
  lines the server wrote on stderr; it never hangs past the timeout.
* :meth:`call` returns the SDK's ``CallToolResult`` or raises :class:`McpError` (timeout,
  connection lost); ``CancelledError`` passes through.
* ``on_closed(reason)`` is called once when a ready server goes away on its own (it crashed, its
  HTTP session ended); ``on_tools(tools)`` when its tool list changed
  (``notifications/tools/list_changed``, or a ``subscriptions/listen`` event on 2026-07-28 servers);
  ``on_catalog()`` when its resources or prompts changed (the same two ways).
* The client declares what it can answer: ``roots`` (the project folder), ``elicitation``
  (answered by ``elicit``: the TUI's dialog, or a headless refusal) and, only when given a
  ``sample`` (``mcp.sampling``), ``sampling``; otherwise the SDK refuses sampling requests. A tool whose ``execution.taskSupport`` is ``required`` is listed with
  :attr:`RemoteTool.needs_task` set: this client does not augment calls with tasks, so the
  fleet never offers it.
* :meth:`call` sends a progress token when given ``on_progress``; the server's
  ``notifications/progress`` arrive there as ``(progress, total, message)``.
* Resource subscriptions: :attr:`subscribable` says whether the server declared
  ``resources.subscribe``; :meth:`subscribe_resource` / :meth:`unsubscribe_resource` on a
  2025-era connection, :meth:`listen_resources` (a ``subscriptions/listen`` stream) on a
  2026-07-28 one; each ``notifications/resources/updated`` reaches :attr:`on_resource_updated`.
* A stdio server gets the launcher's environment allowlist (PATH, HOME, LANG, LC_*, TERM, TZ —
  :func:`aiq_tui.tools.launcher.child_environment`; the SDK adds LOGNAME, SHELL and USER) plus
  the definition's ``env``, never this process's whole environment. Its stderr goes to
  ``log_path``, never to the terminal (it would tear the TUI's screen).
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import (
    TYPE_CHECKING,
    Any,
    TextIO,
)

from aiq_tui.tools.mcp.servers import ServerDefinition, expand
from aiq_tui.trace_context import endpoint_of

if TYPE_CHECKING:
    from aiq_tui.tools.mcp.elicitation import ElicitationAnswer, ElicitationRequest
    from aiq_tui.tools.mcp.sampling import Sampler

Elicitor = Callable[["ElicitationRequest"], Awaitable["ElicitationAnswer"]]
ProgressSink = Callable[[float, "float | None", "str | None"], None]

_STDERR_TAIL_BYTES = 2000
_CLOSE_WAIT_SECONDS = 10.0


class McpError(Exception):
    """A server could not be started or a call could not be made; ``str()`` says why.
    ``kind`` names the failure for a trace's ``error.type``: the JSON-RPC error code
    (``"-32601"``), ``timeout``, or the exception's type."""

    def __init__(self, message: str, kind: str = "") -> None:
        super().__init__(message)
        self.kind = kind


@dataclass(frozen=True)
class RemoteTool:
    """A tool as the server lists it."""

    name: str
    description: str
    input_schema: dict[str, Any]
    title: str = ""
    needs_task: bool = False
    """``execution.taskSupport: required``: callable only as a task, which this client does not do."""


def import_sdk() -> Any:
    """The SDK's top-level package (slow the first time: call it off the event loop). Its loggers
    are kept off the terminal; what a server does wrong reaches the user as :class:`McpError`."""
    import mcp

    logger = logging.getLogger("mcp")
    if not any(isinstance(handler, logging.NullHandler) for handler in logger.handlers):
        logger.addHandler(logging.NullHandler())
        logger.propagate = False
    return mcp


def stdio_environment(extra: dict[str, str], environ: Any = None) -> dict[str, str]:
    """The launcher's allowlist from ``environ`` (default: this process's) plus ``extra``."""
    from aiq_tui.tools.launcher import child_environment

    env = child_environment(os.environ if environ is None else environ)
    env.update(extra)
    return env


def resolve_program(command: str, path: str) -> str | None:
    """``command`` found on ``path``, else beside this interpreter (a tool installed into the
    same virtualenv, ``pip install mcp-server-time``, works without activating it)."""
    if os.sep in command:
        return command if os.access(command, os.X_OK) else None
    found = shutil.which(command, path=path)
    if found:
        return found
    beside = Path(sys.executable).parent / command
    return str(beside) if beside.is_file() and os.access(beside, os.X_OK) else None


def open_private_log(path: Path) -> TextIO:
    """``path`` emptied for a server's stderr, readable by this user only (0600 in a 0700
    folder): servers log tokens and request bodies. A log from before is tightened too; a
    link planted in its place is refused rather than followed."""
    from aiq_tui.locations import private_dir

    private_dir(path.parent)
    fd = os.open(
        path,
        os.O_WRONLY
        | os.O_CREAT
        | os.O_TRUNC
        | os.O_CLOEXEC
        | getattr(os, "O_NOFOLLOW", 0),
        0o600,
    )
    try:
        os.fchmod(fd, 0o600)
        return os.fdopen(fd, "w", encoding="utf-8", errors="replace")
    except BaseException:
        os.close(fd)
        raise


def stderr_tail(path: Path, lines: int = 6) -> str:
    """The last lines the server wrote on stderr (empty when none)."""
    try:
        with path.open("rb") as handle:
            handle.seek(0, os.SEEK_END)
            size = handle.tell()
            handle.seek(max(0, size - _STDERR_TAIL_BYTES))
            data = handle.read().decode("utf-8", "replace")
    except OSError:
        return ""
    kept = [line.rstrip() for line in data.splitlines() if line.strip()]
    return "\n".join(kept[-lines:])


def _describe(exc: BaseException) -> str:
    """An exception (possibly an anyio ExceptionGroup) in one sentence."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    text = str(exc).strip()
    name = type(exc).__name__
    if isinstance(exc, OSError) and exc.strerror:
        return f"{exc.strerror}" + (f": {exc.filename}" if exc.filename else "")
    return f"{name}: {text}" if text else name


class McpConnection:
    """One server's connection; see the module doc."""

    def __init__(
        self,
        server: ServerDefinition,
        *,
        cwd: Path,
        log_path: Path,
        startup_timeout: float,
        call_timeout: float,
        on_tools: Callable[[list[RemoteTool]], None] | None = None,
        on_closed: Callable[[str], None] | None = None,
        roots: Sequence[Path] = (),
        elicit: Elicitor | None = None,
        on_catalog: Callable[[], None] | None = None,
        sample: Sampler | None = None,
    ) -> None:
        self.server = server
        self.sample = sample
        self.on_catalog = on_catalog
        self.roots = tuple(roots)
        self.elicit = elicit
        self.cwd = cwd
        self.log_path = log_path
        self.startup_timeout = startup_timeout
        self.call_timeout = call_timeout
        self.on_tools = on_tools
        self.on_closed = on_closed
        self.protocol_version = ""
        self.session_id = (
            ""  # a streamable HTTP server's Mcp-Session-Id, once it gave one
        )
        self.endpoint = (
            endpoint_of(server.url or "") if server.transport != "stdio" else ("", 0)
        )
        self._client: Any = None
        self._task: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()
        self._closing = False
        self._sdk: Any = None
        self._refreshes: set[asyncio.Task[None]] = set()
        self.capabilities: Any = None  # the server's, once it answered

    # -- start ----------------------------------------------------------------------------
    async def start(self) -> list[RemoteTool]:
        """Start the server and list its tools (see the module doc)."""
        expanded = expand(self.server)
        if expanded.missing:
            raise McpError(
                f"environment variable {', '.join(expanded.missing)} is not set "
                f"(named as ${{{expanded.missing[0]}}} in {self.server.origin.name})"
            )
        if self._sdk is None:
            try:
                self._sdk = await asyncio.to_thread(import_sdk)
            except ImportError as exc:
                raise McpError(
                    f"the MCP SDK is not installed ({exc}); pip install mcp"
                ) from exc
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[list[RemoteTool]] = loop.create_future()
        self._task = asyncio.create_task(
            self._supervise(expanded, ready), name=f"mcp-{self.server.name}"
        )
        try:
            return await asyncio.wait_for(asyncio.shield(ready), self.startup_timeout)
        except TimeoutError:
            await self._abandon()
            raise McpError(
                self._with_stderr(
                    f"not ready within {self.startup_timeout:g} s "
                    "(mcp.startup_timeout_seconds)"
                )
            ) from None
        except asyncio.CancelledError:
            await self._abandon()
            raise
        except McpError as exc:
            raise McpError(self._with_stderr(str(exc))) from None

    def _with_stderr(self, message: str) -> str:
        tail = stderr_tail(self.log_path)
        return f"{message}\nits stderr ended with:\n{tail}" if tail else message

    async def _abandon(self) -> None:
        task = self._task
        if task is not None and not task.done():
            self._closing = True
            task.cancel()
            await asyncio.wait({task}, timeout=_CLOSE_WAIT_SECONDS)

    @asynccontextmanager
    async def _transport(
        self, expanded: Any, stack: AsyncExitStack, closed: asyncio.Event
    ) -> AsyncIterator[Any]:
        """The SDK transport for the definition, wrapped so that its end is noticed."""
        import anyio

        sdk = self._sdk
        if self.server.transport == "stdio":
            from mcp.client.stdio import stdio_client

            env = stdio_environment(expanded.env)
            program = resolve_program(expanded.command, env.get("PATH", ""))
            if program is None:
                raise McpError(
                    f"program not found: {expanded.command} (not on PATH, nor beside "
                    f"{sys.executable}); install it or give its full path"
                )
            cwd = (
                Path(os.path.expanduser(self.server.cwd))
                if self.server.cwd
                else self.cwd
            )
            if not cwd.is_absolute():
                cwd = self.cwd / cwd
            errlog = stack.enter_context(open_private_log(self.log_path))
            params = sdk.StdioServerParameters(
                command=program, args=list(expanded.args), env=env, cwd=str(cwd)
            )
            inner = stdio_client(params, errlog=errlog)
        elif self.server.transport == "sse":
            from mcp.client.sse import sse_client

            inner = sse_client(expanded.url, headers=expanded.headers or None)
        else:
            from mcp.client.streamable_http import streamable_http_client
            from mcp.shared._httpx_utils import create_mcp_http_client

            http = await stack.enter_async_context(
                create_mcp_http_client(headers=expanded.headers or None)
            )
            http.event_hooks.setdefault("response", []).append(self._note_session)
            inner = streamable_http_client(expanded.url, http_client=http)
        async with inner as (read_stream, write_stream):
            send, receive = anyio.create_memory_object_stream[Any](0)

            async def pump() -> None:
                try:
                    async with send:
                        async for message in read_stream:
                            await send.send(message)
                except (
                    anyio.ClosedResourceError,
                    anyio.BrokenResourceError,
                    anyio.EndOfStream,
                ):
                    pass
                finally:
                    closed.set()

            async with anyio.create_task_group() as group:
                group.start_soon(pump)
                try:
                    yield receive, write_stream
                finally:
                    group.cancel_scope.cancel()

    async def _supervise(
        self, expanded: Any, ready: asyncio.Future[list[RemoteTool]]
    ) -> None:
        from aiq_tui import __version__

        sdk = self._sdk
        closed = asyncio.Event()
        started = False
        reason = "the server closed the connection"
        try:
            async with AsyncExitStack() as stack:
                transport = self._transport(expanded, stack, closed)
                # A callback given is a capability declared (the SDK builds clientCapabilities
                # from them): roots and elicitation; sampling only when mcp.sampling is on.
                client = sdk.Client(
                    transport,
                    cache=None,
                    message_handler=self._on_message,
                    client_info=sdk.types.Implementation(
                        name="aiq-tui", version=__version__
                    ),
                    list_roots_callback=self._list_roots if self.roots else None,
                    elicitation_callback=self._on_elicit
                    if self.elicit is not None
                    else None,
                    sampling_callback=self._on_sample
                    if self.sample is not None
                    else None,
                )
                self._client = await stack.enter_async_context(client)
                self.protocol_version = client.protocol_version
                self.capabilities = getattr(client, "server_capabilities", None)
                tools = await self._list_tools()
                listener = self._listen_for_changes()
                if listener is not None:
                    stack.push_async_callback(_cancel, asyncio.create_task(listener))
                ready.set_result(tools)
                started = True
                stop = asyncio.create_task(self._stop.wait())
                ended = asyncio.create_task(closed.wait())
                try:
                    await asyncio.wait(
                        {stop, ended}, return_when=asyncio.FIRST_COMPLETED
                    )
                finally:
                    stop.cancel()
                    ended.cancel()
        except asyncio.CancelledError:
            ready.cancel()  # the start gave up waiting (timeout, or it was cancelled itself)
            raise
        except BaseException as exc:
            reason = str(exc) if isinstance(exc, McpError) else _describe(exc)
            if not started and not isinstance(exc, McpError):
                if self.server.transport != "stdio":
                    reason = f"cannot talk to {expanded.url}: {reason}"
                elif closed.is_set():
                    reason = (
                        "the server exited (or closed its output) before it was ready"
                    )
            if not started:
                if not ready.done():
                    ready.set_exception(McpError(reason))
                return
        finally:
            self._client = None
        if (
            started
            and not self._closing
            and not self._stop.is_set()
            and self.on_closed is not None
        ):
            tail = (
                stderr_tail(self.log_path, 3)
                if self.server.transport == "stdio"
                else ""
            )
            self.on_closed(
                reason + (f"; its stderr ended with:\n{tail}" if tail else "")
            )

    # -- tools ----------------------------------------------------------------------------
    async def _list_tools(self) -> list[RemoteTool]:
        client = self._client
        tools: list[RemoteTool] = []
        cursor: str | None = None
        for _page in range(100):  # a paginator that never ends cannot hang the start
            page = await client.list_tools(cursor=cursor)
            for tool in page.tools:
                schema = dict(
                    getattr(tool, "input_schema", None)
                    or {"type": "object", "properties": {}}
                )
                execution = getattr(tool, "execution", None)
                needs_task = getattr(execution, "task_support", None) == "required"
                tools.append(
                    RemoteTool(
                        tool.name,
                        (tool.description or "").strip(),
                        schema,
                        getattr(tool, "title", None) or "",
                        needs_task,
                    )
                )
            cursor = page.next_cursor
            if not cursor:
                break
        return tools

    def _listen_for_changes(self) -> Any:
        """A 2026-07-28 server announces list changes (tools, resources, prompts) on a
        ``subscriptions/listen`` stream (earlier ones send notifications, see :meth:`_on_message`)."""
        client = self._client
        capabilities = getattr(client, "server_capabilities", None)
        changes = {
            kind: bool(
                getattr(getattr(capabilities, kind, None), "list_changed", False)
            )
            for kind in ("tools", "resources", "prompts")
        }
        if not any(changes.values()):
            return None
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS

        if client.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            return None

        async def listen() -> None:
            try:
                async with client.listen(
                    tools_list_changed=changes["tools"],
                    resources_list_changed=changes["resources"],
                    prompts_list_changed=changes["prompts"],
                ) as subscription:
                    async for event in subscription:
                        if type(event).__name__ == "ToolsListChanged":
                            await self._refresh()
                        else:
                            self._catalog_changed()
            except asyncio.CancelledError:
                raise
            except Exception:
                return

        return listen()

    async def _on_message(self, message: Any) -> None:
        method = getattr(message, "method", None)
        if method == "notifications/tools/list_changed":
            task = asyncio.get_running_loop().create_task(self._refresh())
            self._refreshes.add(
                task
            )  # held until done (the loop keeps only a weak reference)
            task.add_done_callback(self._refreshes.discard)
        elif method in (
            "notifications/resources/list_changed",
            "notifications/prompts/list_changed",
        ):
            self._catalog_changed()
        elif method == "notifications/resources/updated":
            self._resource_updated(message)

    def _catalog_changed(self) -> None:
        if self.on_catalog is not None:
            self.on_catalog()

    async def _refresh(self) -> None:
        if self._client is None:
            return
        try:
            tools = await self._list_tools()
        except Exception:
            return
        if self.on_tools is not None:
            self.on_tools(tools)

    async def _note_session(self, response: Any) -> None:
        """The session id a streamable HTTP server names in its answers (for traces)."""
        session = response.headers.get("mcp-session-id")
        if session:
            self.session_id = session

    # -- what the client answers ------------------------------------------------------------
    async def _list_roots(self, _context: Any) -> Any:
        types = self._sdk.types
        return types.ListRootsResult(
            roots=[
                types.Root(uri=root.as_uri(), name=root.name or str(root))
                for root in self.roots
            ]
        )

    async def _on_elicit(self, _context: Any, params: Any) -> Any:
        """A server asks the user something (``elicitation/create``): the elicitor answers;
        whatever goes wrong there is a decline, never a hung server."""
        from aiq_tui.tools.mcp.elicitation import request_from

        types = self._sdk.types
        try:
            answer = await self.elicit(request_from(self.server.name, params))  # type: ignore[misc]
        except asyncio.CancelledError:
            raise
        except Exception:
            return types.ElicitResult(action="decline")
        return types.ElicitResult(
            action=answer.action,
            content=dict(answer.content) if answer.content else None,
        )

    async def _on_sample(self, _context: Any, params: Any) -> Any:
        """A server asks for the model (``sampling/createMessage``): the sampler answers or
        refuses; a refusal or a failure is an error the server receives."""
        from aiq_tui.tools.mcp.sampling import request_from

        types = self._sdk.types
        try:
            answer = await self.sample(request_from(self.server.name, params))  # type: ignore[misc]
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            return types.ErrorData(
                code=types.INTERNAL_ERROR, message=f"sampling failed: {_describe(exc)}"
            )
        if answer.refused:
            return types.ErrorData(code=types.INVALID_REQUEST, message=answer.refused)
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text=answer.text),
            model=answer.model or "unknown",
            stop_reason="endTurn",
        )

    # -- resources and prompts ------------------------------------------------------------
    def offers(self, feature: str) -> bool:
        """Whether the server declared ``resources`` / ``prompts``."""
        return getattr(self.capabilities, feature, None) is not None

    async def _paged(
        self, fetch: Callable[[str | None], Awaitable[Any]], field: str
    ) -> list[Any]:
        items: list[Any] = []
        cursor: str | None = None
        for _page in range(100):  # a paginator that never ends cannot hang us
            page = await fetch(cursor)
            items.extend(getattr(page, field, None) or ())
            cursor = page.next_cursor
            if not cursor:
                break
        return items

    async def _request(self, what: Awaitable[Any]) -> Any:
        if self._client is None:
            raise McpError(f"server {self.server.name!r} is not running", "not_running")
        try:
            return await asyncio.wait_for(what, self.call_timeout)
        except asyncio.CancelledError:
            raise
        except TimeoutError:
            raise McpError(
                f"no answer within {self.call_timeout:g} s (mcp.call_timeout_seconds)",
                "timeout",
            ) from None
        except McpError:
            raise
        except Exception as exc:
            raise McpError(_describe(exc), _error_kind(exc)) from None

    async def list_resources(self) -> tuple[list[Any], list[Any]]:
        """The server's resources and resource templates (SDK objects); none when it offers none."""
        client = self._client
        if client is None or not self.offers("resources"):
            return [], []
        listed: tuple[
            Any, Any
        ] = await asyncio.gather(  # two round trips at once: the start waits
            # for them
            self._request(
                self._paged(lambda c: client.list_resources(cursor=c), "resources")
            ),
            self._request(
                self._paged(
                    lambda c: client.list_resource_templates(cursor=c),
                    "resource_templates",
                )
            ),
            return_exceptions=True,
        )
        resources, templates = listed
        if isinstance(resources, BaseException):
            raise resources
        # Templates are optional even where resources are offered.
        return resources, templates if not isinstance(templates, BaseException) else []

    async def list_prompts(self) -> list[Any]:
        client = self._client
        if client is None or not self.offers("prompts"):
            return []
        return await self._request(
            self._paged(lambda c: client.list_prompts(cursor=c), "prompts")
        )

    async def read_resource(self, uri: str) -> Any:
        """The SDK's ``ReadResourceResult`` for ``uri``, or :class:`McpError`."""
        client = self._client
        return await self._request(
            client.read_resource(uri) if client is not None else _not_running(self)
        )

    async def get_prompt(self, name: str, arguments: dict[str, str]) -> Any:
        """The SDK's ``GetPromptResult``, or :class:`McpError`."""
        client = self._client
        return await self._request(
            client.get_prompt(name, arguments or None)
            if client is not None
            else _not_running(self)
        )

    # -- resource subscriptions (what to subscribe to: .subscriptions) -----------------------
    on_resource_updated: Callable[[str], None] | None = None
    """Called with the URI of each ``notifications/resources/updated`` the server sends (on a
    2026-07-28 connection they arrive on a ``subscriptions/listen`` stream and are passed on here
    too); set by :class:`~.subscriptions.ResourceWatch`."""

    @property
    def subscribable(self) -> bool:
        """Whether the server declared ``resources.subscribe``: only then is it asked to subscribe."""
        return bool(
            getattr(getattr(self.capabilities, "resources", None), "subscribe", False)
        )

    @property
    def listens(self) -> bool:
        """A 2026-07-28 connection: subscriptions are a ``subscriptions/listen`` stream's filter
        (:meth:`listen_resources`), not ``resources/subscribe`` requests."""
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS

        return self.protocol_version in MODERN_PROTOCOL_VERSIONS

    def _resource_updated(self, message: Any) -> None:
        uri = getattr(getattr(message, "params", None), "uri", None)
        if uri is not None and self.on_resource_updated is not None:
            self.on_resource_updated(str(uri))

    async def subscribe_resource(self, uri: str) -> None:
        """``resources/subscribe`` (a 2025-era server); raises :class:`McpError`."""
        await self._resource_request("SubscribeRequest", "SubscribeRequestParams", uri)

    async def unsubscribe_resource(self, uri: str) -> None:
        """``resources/unsubscribe`` (a 2025-era server); raises :class:`McpError`."""
        await self._resource_request(
            "UnsubscribeRequest", "UnsubscribeRequestParams", uri
        )

    async def _resource_request(self, request: str, params: str, uri: str) -> None:
        client = self._client
        if client is None:
            raise McpError(f"server {self.server.name!r} is not running", "not_running")
        types = self._sdk.types
        # Sent as the request it is: the SDK's helpers for it warn (the method is gone in 2026-07-28).
        message = getattr(types, request)(params=getattr(types, params)(uri=uri))
        await self._request(client.session.send_request(message, types.EmptyResult))

    def listen_resources(self, uris: Sequence[str]) -> Any:
        """An async context manager: a ``subscriptions/listen`` stream for ``uris`` (2026-07-28),
        iterated until the server ends it; raises :class:`McpError` when not running."""
        client = self._client
        if client is None:
            raise McpError(f"server {self.server.name!r} is not running", "not_running")
        return client.listen(resource_subscriptions=list(uris))

    async def complete(
        self,
        kind: str,
        ref: str,
        argument: str,
        value: str,
        context: dict[str, str],
        timeout: float,
    ) -> list[str]:
        """The server's ``completion/complete`` values for ``argument`` (of the template or prompt
        ``ref``, ``kind`` ``ref/resource`` / ``ref/prompt``), or :class:`McpError` (not offered,
        no answer within ``timeout``, the server's error)."""
        client = self._client
        if client is None or not self.offers("completions"):
            raise McpError(
                f"server {self.server.name!r} offers no completions", "not_offered"
            )
        types = self._sdk.types
        reference = (
            types.ResourceTemplateReference(type="ref/resource", uri=ref)
            if kind == "ref/resource"
            else types.PromptReference(type="ref/prompt", name=ref)
        )
        try:
            result = await asyncio.wait_for(
                client.complete(
                    reference, {"name": argument, "value": value}, context or None
                ),
                timeout,
            )
        except asyncio.CancelledError:
            raise
        except TimeoutError:
            raise McpError(
                f"no completions within {timeout:g} s (mcp.completion_timeout_seconds)",
                "timeout",
            ) from None
        except Exception as exc:
            raise McpError(_describe(exc), _error_kind(exc)) from None
        return list(getattr(getattr(result, "completion", None), "values", None) or ())

    # -- calls ----------------------------------------------------------------------------
    async def call(
        self,
        tool: str,
        arguments: dict[str, Any],
        meta: dict[str, Any] | None = None,
        on_progress: ProgressSink | None = None,
    ) -> Any:
        """Call ``tool`` (the server's own name); see the module doc. ``meta`` goes into the
        request's ``params._meta`` (the trace context: ``traceparent``); ``on_progress`` gets the
        server's progress notifications (a progress token is sent with the request)."""
        client = self._client
        if client is None:
            raise McpError(f"server {self.server.name!r} is not running", "not_running")
        progress = None
        if on_progress is not None:

            async def progress(
                done: float, total: float | None, message: str | None
            ) -> None:
                on_progress(done, total, message)

        try:
            return await asyncio.wait_for(
                client.call_tool(
                    tool,
                    arguments,
                    read_timeout_seconds=self.call_timeout,
                    meta=meta or None,
                    progress_callback=progress,
                ),
                self.call_timeout
                + 5,  # the SDK's own timeout first; this one if it does not fire
            )
        except asyncio.CancelledError:
            raise
        except TimeoutError:
            raise McpError(
                f"no answer within {self.call_timeout:g} s (mcp.call_timeout_seconds)",
                "timeout",
            ) from None
        except Exception as exc:
            timed_out = (
                "timed out" in str(exc).lower()
                or "timeout" in type(exc).__name__.lower()
            )
            if timed_out:
                raise McpError(
                    f"no answer within {self.call_timeout:g} s (mcp.call_timeout_seconds)",
                    "timeout",
                ) from None
            raise McpError(_describe(exc), _error_kind(exc)) from None

    @property
    def running(self) -> bool:
        return self._client is not None

    async def close(self) -> None:
        """Stop the server (stdin closed, then terminated, then killed — the SDK's sequence)."""
        self._closing = True
        self._stop.set()
        task = self._task
        if task is not None and not task.done():
            done, _ = await asyncio.wait({task}, timeout=_CLOSE_WAIT_SECONDS)
            if not done:
                task.cancel()
                await asyncio.wait({task}, timeout=_CLOSE_WAIT_SECONDS)


def _error_kind(exc: BaseException) -> str:
    """The JSON-RPC error code of an error the server answered with, else the exception's type."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    code = getattr(getattr(exc, "error", None), "code", None)
    if code is None:
        code = getattr(exc, "code", None)
    return (
        str(code)
        if isinstance(code, int) and not isinstance(code, bool)
        else type(exc).__qualname__
    )


async def _not_running(connection: McpConnection) -> Any:
    raise McpError(f"server {connection.server.name!r} is not running", "not_running")


async def _cancel(task: asyncio.Task[Any]) -> None:
    task.cancel()
    await asyncio.wait({task}, timeout=_CLOSE_WAIT_SECONDS)
