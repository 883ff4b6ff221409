"""Every MCP server of one engine: which may start, starting them, their tools in the registry,
and what the user is told.

Rules a caller may rely on:

* :meth:`McpFleet.start` is idempotent and returns once every server that may start has
  started or failed (each bounded by ``mcp.startup_timeout_seconds``); a failure is a state with
  a message (:meth:`problems`, an :class:`~aiq_tui.tools.mcp.events.McpServerChanged` event), never an
  exception.
* A project's server (``.mcp.json``) starts once the user approved this very definition
  (:mod:`.approvals`, ``aiq-tui mcp approve``). Otherwise it is asked about only in a trusted
  project (:func:`aiq_tui.trust.project_trust`): through :attr:`McpFleet.approver` (the TUI's
  dialog, after its trust question) without holding up :meth:`start`, or — with no approver
  (headless) — started, trusting the project having covered it. In a project not trusted it
  is not started and not asked about; the message names ``aiq-tui trust`` and ``aiq-tui mcp
  approve``.
* A ready server's tools are in the registry as ``mcp__<server>__<tool>``; when the server
  goes away they are removed, when its list changes they follow.
* A tool the client cannot call (``execution.taskSupport: required``) is never registered; the
  server's status names it (:attr:`ServerStatus.message`).
* A server that declares ``resources`` also gets ``mcp__<server>__read_resource``
  (:mod:`.resource_tool`); its resources and prompts are listed once at its start
  (:meth:`resources`, :meth:`prompts`), read and run through :meth:`read_resource` and
  :meth:`get_prompt`.
* The server's questions to the user (``elicitation/create``) go to :attr:`McpFleet.elicitor`
  (the TUI's dialog); with none they are declined (:func:`.elicitation.headless_answer`).
* :meth:`offered` picks the tools whose definitions fit ``mcp.tools_share`` of the window:
  the ones ``tool_search`` found first (:meth:`load`; offered even past the share — the model
  asked for them), then the ones the active skills' ``allowed-tools`` name, then in config
  order; the rest are reported (:meth:`note_offered`) and reachable through ``tool_search``
  (:mod:`.search`), never dropped silently.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiq_tui.problems import Problem, Severity
from aiq_tui.tools.mcp.events import McpServerChanged
from aiq_tui.tools.mcp.servers import ServerDefinition, all_servers, tool_name

if TYPE_CHECKING:
    from aiq_tui.config import AppConfig
    from aiq_tui.conversation import ToolSpec
    from aiq_tui.locations import Home
    from aiq_tui.tools.mcp.approvals import Answer
    from aiq_tui.tools.mcp.catalog import Prompt, Resource
    from aiq_tui.tools.mcp.completion import ValueRequest
    from aiq_tui.tools.mcp.connection import Elicitor, McpConnection, RemoteTool
    from aiq_tui.tools.mcp.elicitation import ElicitationAnswer, ElicitationRequest
    from aiq_tui.tools.mcp.sampling import Sampler
    from aiq_tui.tools.registry import ToolRegistry

ServerApprover = Callable[[ServerDefinition], Awaitable["Answer | None"]]
"""Asks the user about a project's server: "approved" / "rejected" (both remembered) or None
(not now)."""

STARTING, READY, FAILED, STOPPED = "starting", "ready", "failed", "stopped"
DISABLED, AWAITING, NOT_APPROVED, REJECTED = (
    "disabled",
    "awaiting approval",
    "not approved",
    "rejected",
)
_TROUBLE = (FAILED, NOT_APPROVED)


@dataclass(frozen=True)
class ServerStatus:
    """What is known about one server now."""

    definition: ServerDefinition
    state: str
    message: str = ""
    tools: tuple[str, ...] = ()
    """The names the model sees, in the server's order."""
    descriptions: tuple[str, ...] = ()
    omitted: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return self.definition.name


def not_approved_message(server: ServerDefinition) -> str:
    return (
        f"not started: {server.origin.name} belongs to a project you have not trusted. Trust the project "
        f"with `aiq-tui trust`, or approve this server with `aiq-tui mcp approve {server.name}`"
    )


class McpFleet:
    """The MCP servers of one engine; see the module doc."""

    def __init__(
        self,
        home: Home,
        config: AppConfig,
        cwd: Path,
        registry: ToolRegistry,
        emit: Callable[[McpServerChanged], None],
        on_tools_changed: Callable[[], object] | None = None,  # its result is ignored
    ) -> None:
        self.home = home
        self.config = config
        self.cwd = cwd
        self.registry = registry
        self._emit = emit
        self._on_tools_changed = on_tools_changed
        self.approver: ServerApprover | None = None
        self.elicitor: Elicitor | None = None
        self.sampler: Sampler | None = None
        """Answers servers' sampling requests (set before :meth:`start` when ``mcp.sampling``);
        None: sampling is not declared."""
        """Answers a server's questions to the user; None: declined (a headless run)."""
        self._resources: dict[str, tuple[Resource, ...]] = {}
        self._prompts: dict[str, tuple[Prompt, ...]] = {}
        self._unusable: dict[str, tuple[str, ...]] = {}
        self._remote_tools: dict[str, tuple[RemoteTool, ...]] = {}
        self._catalog_tasks: set[asyncio.Task[None]] = set()
        self._definitions: list[ServerDefinition] | None = None
        self._definition_problems: list[Problem] = []
        self._status: dict[str, ServerStatus] = {}
        self._connections: dict[str, McpConnection] = {}
        self._start_task: asyncio.Task[None] | None = None
        self._approvals_task: asyncio.Task[None] | None = None
        self._spec_tokens: dict[tuple[str, bool], int] = {}
        self._found: dict[
            str, None
        ] = {}  # what tool_search found, in order: offered from then on

    # -- what exists ------------------------------------------------------------------------
    def definitions(self) -> list[ServerDefinition]:
        """The user's and the project's servers (read once: config.yaml was read already,
        ``.mcp.json`` is read here)."""
        if self._definitions is None:
            self._definitions, self._definition_problems = all_servers(
                self.config, self.home.config_file, self.cwd
            )
        return self._definitions

    def statuses(self) -> list[ServerStatus]:
        """Every server, in config order, with its state (``not started`` before :meth:`start`)."""
        return [
            self._status.get(d.name) or ServerStatus(d, "not started")
            for d in self.definitions()
        ]

    def problems(self) -> tuple[Problem, ...]:
        """Broken ``.mcp.json`` entries, servers that failed or were not approved, tools left
        out by ``mcp.tools_share``: what F6 and ``ask`` show."""
        found = list(self._definition_problems)
        for status in self.statuses():
            server = status.definition
            field = (
                f"mcp.servers.{server.name}"
                if server.trusted
                else f"mcpServers.{server.name}"
            )
            if status.state in _TROUBLE:
                found.append(
                    Problem(
                        server.origin,
                        f"MCP server {server.name}: {status.message}",
                        field=field,
                        severity=Severity.WARNING,
                    )
                )
            if status.omitted:
                reach = (
                    "the model finds them with tool_search"
                    if self.config.mcp.tool_search
                    else "mcp.tool_search is off, so the model cannot reach them"
                )
                found.append(
                    Problem(
                        server.origin,
                        f"MCP server {server.name}: {len(status.omitted)} of "
                        f"{len(status.tools)} tools not offered to the model up front: their "
                        f"definitions would pass mcp.tools_share of the window; {reach}",
                        field=field,
                        hint="raise mcp.tools_share, or name the tools you need in a skill's "
                        "allowed-tools (those come first)",
                        severity=Severity.WARNING,
                    )
                )
        found.extend(self._permission_problems())
        return tuple(found)

    def _permission_problems(self) -> list[Problem]:
        """``tools.permissions`` rules that name no tool of a running server (a server's name
        that matches nothing is reported at start-up already)."""
        from aiq_tui.tools.permission_rules import permission_problems

        running = {
            status.name: status.tools
            for status in self.statuses()
            if status.state == READY
        }
        if not running:
            return []
        rules, config_file = self.config.tools.permissions, self.home.config_file
        names = [server.name for server in self.definitions()]
        known = {
            problem.field for problem in permission_problems(rules, config_file, names)
        }
        return [
            problem
            for problem in permission_problems(rules, config_file, names, running)
            if problem.field not in known
        ]

    # -- starting ---------------------------------------------------------------------------
    async def start(self) -> None:
        """Start every server that may start (idempotent; see the module doc)."""
        if self._start_task is None:
            self._start_task = asyncio.get_running_loop().create_task(self._start_all())
        await asyncio.shield(self._start_task)

    @property
    def started(self) -> bool:
        return self._start_task is not None and self._start_task.done()

    async def _start_all(self) -> None:
        try:
            await self._start_each()
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self._definition_problems.append(
                Problem(
                    self.home.config_file,
                    f"MCP servers not started: {type(exc).__name__}: {exc}",
                    severity=Severity.WARNING,
                )
            )

    async def _start_each(self) -> None:
        from aiq_tui.tools.mcp.approvals import answer_for
        from aiq_tui.trust import project_trust

        definitions = self.definitions()
        if not definitions:
            return
        trusted_project = (
            any(not d.trusted for d in definitions)
            and project_trust(self.home, self.cwd).trusted
        )
        now: list[ServerDefinition] = []
        ask: list[ServerDefinition] = []
        for server in definitions:
            if not server.enabled:
                self._set(server, DISABLED, "enabled: false in config")
            elif server.trusted:
                now.append(server)
            else:
                answer = answer_for(self.home, self.cwd, server)
                if answer == "approved":
                    now.append(server)
                elif answer == "rejected":
                    self._set(
                        server,
                        REJECTED,
                        "you chose not to start it (`aiq-tui mcp approve "
                        f"{server.name}` starts it from now on)",
                    )
                elif (
                    not trusted_project
                ):  # a program a folder you have not trusted chose: not asked about
                    self._set(server, NOT_APPROVED, not_approved_message(server))
                elif (
                    self.approver is None
                ):  # headless in a trusted project: trusting it covered its servers
                    now.append(server)
                else:  # in a trusted project the workbench still asks once per server (as Claude Code does)
                    self._set(
                        server, AWAITING, f"asking whether to start {server.target}"
                    )
                    ask.append(server)
        if ask:
            self._approvals_task = asyncio.get_running_loop().create_task(
                self._ask_each(ask)
            )
        await asyncio.gather(*(self._start_one(server) for server in now))

    async def _ask_each(self, servers: Sequence[ServerDefinition]) -> None:
        from aiq_tui.tools.mcp.approvals import record

        for server in servers:
            approver = self.approver
            try:
                answer = await approver(server) if approver is not None else None
            except Exception:
                answer = None
            if answer is None:
                self._set(server, NOT_APPROVED, not_approved_message(server))
                continue
            try:
                record(self.home, self.cwd, server, answer)
            except OSError:
                pass  # the answer still holds for this session
            if answer == "approved":
                await self._start_one(server)
            else:
                self._set(server, REJECTED, "you chose not to start it")

    async def _start_one(self, server: ServerDefinition) -> None:
        from aiq_tui.tools.mcp.connection import McpConnection, McpError

        settings = self.config.mcp
        self._set(server, STARTING, f"starting {server.target}")
        connection = McpConnection(
            server,
            cwd=self.cwd,
            log_path=self.log_path(server.name),
            startup_timeout=settings.startup_timeout_seconds,
            call_timeout=settings.call_timeout_seconds,
            on_tools=lambda tools: self._adopt(server, connection, tools),
            on_closed=lambda reason: self._closed(server, reason),
            roots=(self.cwd,),
            elicit=self._elicit,
            on_catalog=lambda: self._catalog_changed(server, connection),
            sample=self.sampler,
        )
        try:
            tools = await connection.start()
            await self._list_catalog(server, connection)
        except McpError as exc:
            self._set(server, FAILED, str(exc))
            return
        except Exception as exc:
            self._set(server, FAILED, f"{type(exc).__name__}: {exc}")
            return
        self._connections[server.name] = connection
        self._adopt(server, connection, tools)

    async def _elicit(self, request: ElicitationRequest) -> ElicitationAnswer:
        from aiq_tui.tools.mcp.elicitation import headless_answer

        elicitor = self.elicitor
        return (
            await elicitor(request)
            if elicitor is not None
            else headless_answer(request, accept_defaults=False)
        )

    async def _list_catalog(
        self, server: ServerDefinition, connection: McpConnection
    ) -> None:
        """The server's resources and prompts, listed once at its start (a failure lists none:
        its tools still work)."""
        from aiq_tui.tools.mcp.catalog import prompts_from, resources_from
        from aiq_tui.tools.mcp.connection import McpError

        listed, prompts = await asyncio.gather(
            connection.list_resources(),
            connection.list_prompts(),
            return_exceptions=True,
        )
        for failed in (listed, prompts):
            if isinstance(failed, BaseException) and not isinstance(failed, McpError):
                raise failed  # cancelled, or a bug: not a server's refusal
        self._resources[server.name] = (
            () if isinstance(listed, McpError) else resources_from(server.name, *listed)
        )
        self._prompts[server.name] = (
            () if isinstance(prompts, McpError) else prompts_from(server.name, prompts)
        )

    def _catalog_changed(
        self, server: ServerDefinition, connection: McpConnection
    ) -> None:
        """The server's resources or prompts changed: list them again, then its read tool's
        description and the announced lists follow."""

        async def relist() -> None:
            await self._list_catalog(server, connection)
            if self._connections.get(server.name) is connection:
                self._adopt(server, connection, self._remote_tools.get(server.name, ()))

        task = asyncio.get_running_loop().create_task(relist())
        self._catalog_tasks.add(
            task
        )  # held until done (the loop keeps only a weak reference)
        task.add_done_callback(self._catalog_tasks.discard)

    def _project_trusted(self) -> bool:
        """Whether the user trusts the project now (asked again each time: a decision may change)."""
        from aiq_tui.trust import project_trust

        return project_trust(self.home, self.cwd).trusted

    def log_path(self, name: str) -> Path:
        """Where a stdio server's stderr goes (overwritten at each start)."""
        return self.home.data_dir / "mcp" / f"{name}.log"

    # -- tools ------------------------------------------------------------------------------
    def _adopt(
        self,
        server: ServerDefinition,
        connection: McpConnection,
        tools: Sequence[RemoteTool],
    ) -> None:
        """Put ``tools`` in the registry in place of the server's previous ones."""
        from aiq_tui.tools.mcp.resource_tool import READ_RESOURCE, McpResourceTool
        from aiq_tui.tools.mcp.tool import McpTool

        self._unregister(server.name)
        self._spec_tokens = {
            key: value
            for key, value in self._spec_tokens.items()
            if not key[0].startswith(tool_name(server.name, ""))
        }  # schemas may have changed
        names: list[str] = []
        descriptions: list[str] = []
        self._remote_tools[server.name] = tuple(tools)
        # Tasks are not supported here: a tool that must run as one would fail every call.
        self._unusable[server.name] = tuple(
            remote.name for remote in tools if remote.needs_task
        )
        for remote in tools:
            if remote.needs_task:
                continue
            name = tool_name(server.name, remote.name)
            if name in self.registry:
                continue  # two of its names that read alike once made safe: the first stays
            tool = McpTool(
                name,
                server.name,
                remote,
                connection,
                self.config.mcp.result_max_bytes,
                from_project=not server.trusted,
                project_trusted=self._project_trusted(),
            )
            self.registry.add(tool)
            names.append(name)
            descriptions.append(tool.spec.description)
        reader = tool_name(server.name, READ_RESOURCE)
        if self._resources.get(server.name) and reader not in self.registry:
            resource_tool = McpResourceTool(
                reader,
                server.name,
                self._resources[server.name],
                connection,
                self.config.mcp.resource_max_bytes,
                from_project=not server.trusted,
                project_trusted=self._project_trusted(),
            )
            self.registry.add(resource_tool)
            names.append(reader)
            descriptions.append(resource_tool.spec.description)
        message = f"{len(names)} tools"
        if self._unusable[server.name]:
            message += (
                f"; not offered, they need task augmentation, which aiq-tui does not support: "
                f"{', '.join(self._unusable[server.name])}"
            )
        self._set(server, READY, message, tuple(names), tuple(descriptions))
        if self._on_tools_changed is not None:
            self._on_tools_changed()

    def _unregister(self, name: str) -> None:
        status = self._status.get(name)
        for tool in status.tools if status else ():
            self.registry.remove(tool)

    def _closed(self, server: ServerDefinition, reason: str) -> None:
        self._connections.pop(server.name, None)
        self._unregister(server.name)
        self._set(server, FAILED, f"stopped: {reason}")
        if self._on_tools_changed is not None:
            self._on_tools_changed()

    def _set(
        self,
        server: ServerDefinition,
        state: str,
        message: str = "",
        tools: tuple[str, ...] | None = None,
        descriptions: tuple[str, ...] | None = None,
    ) -> None:
        old = self._status.get(server.name)
        status = ServerStatus(
            server,
            state,
            message,
            tools
            if tools is not None
            else (old.tools if old and state == READY else ()),
            descriptions
            if descriptions is not None
            else (old.descriptions if old and state == READY else ()),
            old.omitted if old and state == READY and tools is None else (),
        )
        self._status[server.name] = status
        self._announce(status)

    def _announce(self, status: ServerStatus) -> None:
        server = status.definition
        ready = status.state == READY
        self._emit(
            McpServerChanged(
                server.name,
                status.state,
                server.source,
                server.target,
                status.tools,
                status.message,
                status.omitted,
                tuple(r.uri for r in self._resources.get(server.name, ()))
                if ready
                else (),
                tuple(p.command for p in self._prompts.get(server.name, ()))
                if ready
                else (),
                self._unusable.get(server.name, ()) if ready else (),
            )
        )

    # -- resources and prompts ----------------------------------------------------------------
    def resources(self, server: str | None = None) -> list[Resource]:
        """The ready servers' resources (and URI templates), or one server's."""
        return [
            r
            for status in self.statuses()
            if status.state == READY and server in (None, status.name)
            for r in self._resources.get(status.name, ())
        ]

    def prompts(self, server: str | None = None) -> list[Prompt]:
        return [
            p
            for status in self.statuses()
            if status.state == READY and server in (None, status.name)
            for p in self._prompts.get(status.name, ())
        ]

    def find_prompt(self, command: str) -> Prompt | None:
        """The prompt a slash command names (``/mcp__<server>__<prompt>``, case as listed)."""
        wanted = command.lstrip("/")
        return next(
            (p for p in self.prompts() if p.command.lstrip("/") == wanted), None
        )

    def _connection(self, server: str) -> McpConnection:
        from aiq_tui.tools.mcp.connection import McpError

        found = self._connections.get(server) or next(
            (
                c
                for name, c in self._connections.items()
                if name.lower() == server.lower()
            ),
            None,
        )
        if found is None:
            raise McpError(f"no running MCP server named {server!r}", "not_running")
        return found

    def live_connection(self, server: str) -> McpConnection | None:
        """The running connection of ``server`` (its name as configured), or None: a server that
        stopped and started again has a new one (what :mod:`.subscriptions` subscribes on)."""
        return self._connections.get(server)

    async def read_resource(self, server: str, uri: str) -> tuple[str, str]:
        """``(text, summary)`` of one resource, cut to ``mcp.resource_max_bytes``; raises
        :class:`~.connection.McpError` (no such server, the server's refusal)."""
        from aiq_tui.tools.mcp.catalog import resource_text

        result = await self._connection(server).read_resource(uri)
        return resource_text(result, self.config.mcp.resource_max_bytes)

    async def attach_mentions(
        self,
        text: str,
        on_attached: Callable[[tuple[str, str, str]], None] | None = None,
    ) -> str:
        """``text`` with each ``@server:uri`` it names (Claude Code's form) attached below it:
        the resource's text, cut to ``mcp.resource_max_bytes``, or why it could not be read.
        A mention of a server that does not exist is left as it is (``@home:…`` may be prose).
        ``on_attached((server, uri, text))`` hears of each one attached (what the session watches)."""
        from aiq_tui.tools.mcp.catalog import mentions
        from aiq_tui.tools.mcp.connection import McpError

        names = (
            {d.name.lower(): d.name for d in self.definitions()} if "@" in text else {}
        )
        wanted = [
            (names[server.lower()], uri)
            for server, uri in mentions(text)
            if server.lower() in names
        ]
        if not wanted:
            return text
        await self.start()
        blocks: list[str] = []
        for server, uri in wanted:
            try:
                body, summary = await self.read_resource(server, uri)
            except McpError as exc:
                blocks.append(f"[@{server}:{uri} could not be attached: {exc}]")
                continue
            blocks.append(f"[attached @{server}:{uri} ({summary})]\n{body}")
            if on_attached is not None:
                on_attached((server, uri, body))
        return text + "\n\n" + "\n\n".join(blocks)

    async def get_prompt(self, prompt: Prompt, arguments: dict[str, str]) -> str:
        """The prompt's messages as the text the user sends; raises :class:`~.connection.McpError`."""
        from aiq_tui.tools.mcp.catalog import prompt_text

        result = await self._connection(prompt.server).get_prompt(
            prompt.name, arguments
        )
        return prompt_text(result, self.config.mcp.resource_max_bytes)

    def offers_completions(self, server: str) -> bool:
        """Whether the ready server ``server`` declared ``completions`` (``completion/complete``)."""
        connection = self._connections.get(server)
        return connection is not None and connection.offers("completions")

    async def complete(self, request: ValueRequest) -> list[str]:
        """The values ``request``'s server offers (:mod:`.completion`), within
        ``mcp.completion_timeout_seconds``; raises :class:`~.connection.McpError`."""
        return await self._connection(request.server).complete(
            request.kind,
            request.ref,
            request.argument,
            request.value,
            dict(request.context),
            self.config.mcp.completion_timeout_seconds,
        )

    def tool_names(self) -> list[str]:
        """Every ready server's tools, in config order, then the server's order."""
        return [
            name
            for status in self.statuses()
            if status.state == READY
            for name in status.tools
        ]

    def offered(
        self, counter: Any, window: int, preferred: Callable[[str], bool] | None = None
    ) -> list[ToolSpec]:
        """The specs of the tools that fit ``mcp.tools_share`` of ``window`` tokens (see the
        module doc); ``preferred(name)`` marks tools the active skills name."""
        names = self.tool_names()
        if not names:
            return []
        if preferred is not None:
            names = sorted(
                names, key=lambda name: not preferred(name)
            )  # stable: config order within
        names = sorted(
            names, key=lambda name: name not in self._found
        )  # found ones first
        limit = int(window * self.config.mcp.tools_share)
        used = 0
        chosen: set[str] = set()
        for name in names:
            tool = self.registry.get(name)
            if tool is None:
                continue
            key = (name, bool(counter.exact))
            tokens = self._spec_tokens.get(key)
            if tokens is None:
                tokens = self._spec_tokens[key] = counter.count_tool_spec(tool.spec)
            if used + tokens > limit and name not in self._found:
                continue  # a smaller one further on may still fit
            used += tokens
            chosen.add(name)
        return [
            tool.spec
            for name in self.tool_names()
            if name in chosen and (tool := self.registry.get(name)) is not None
        ]

    def ready_specs(self) -> list[ToolSpec]:
        """Every ready server's tool definitions, in config order (what ``tool_search`` searches)."""
        return [
            tool.spec
            for tool in map(self.registry.get, self.tool_names())
            if tool is not None
        ]

    def left_out(self) -> list[str]:
        """The ready tools the last prompt did not offer (:meth:`note_offered`)."""
        return [
            name
            for status in self.statuses()
            if status.state == READY
            for name in status.omitted
        ]

    def load(self, names: Iterable[str]) -> None:
        """Offer ``names`` from the next prompt on, whatever the share (``tool_search`` found them)."""
        for name in names:
            self._found[name] = None

    def note_offered(self, offered: Iterable[str]) -> None:
        """Record (and announce when it changed) which ready tools were left out of a prompt."""
        sent = set(offered)
        for status in list(self._status.values()):
            if status.state != READY:
                continue
            omitted = tuple(name for name in status.tools if name not in sent)
            if omitted != status.omitted:
                updated = replace(status, omitted=omitted)
                self._status[status.name] = updated
                self._announce(updated)

    # -- stopping ---------------------------------------------------------------------------
    async def aclose(self) -> None:
        """Stop every server (and a pending approval question)."""
        for task in (self._approvals_task, self._start_task, *self._catalog_tasks):
            if task is not None and not task.done():
                task.cancel()
                await asyncio.wait({task}, timeout=15)
        connections, self._connections = list(self._connections.values()), {}
        for status in list(self._status.values()):
            if status.state == READY:
                self._unregister(status.name)
                self._status[status.name] = ServerStatus(
                    status.definition, STOPPED, "stopped"
                )
        if connections:
            await asyncio.gather(
                *(connection.close() for connection in connections),
                return_exceptions=True,
            )
