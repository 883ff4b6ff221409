"""Watching the MCP resources a conversation uses, so that the model never works from stale text
without knowing (``resources/subscribe``, ``notifications/resources/updated``; on a 2026-07-28
connection a ``subscriptions/listen`` stream's ``resourceSubscriptions``).

Rules a caller (the engine) may rely on:

* Only a resource the conversation *uses* is watched: one the user attached with
  ``@server:uri`` (:meth:`ResourceWatch.for_message`) or the model read with
  ``mcp__<server>__read_resource`` (:meth:`ResourceWatch.model_read`), and only on a server
  that declared ``resources.subscribe``: any other server is never asked to subscribe. Nothing
  is watched with ``mcp.subscribe_resources: false``; at most ``mcp.max_subscriptions`` at once
  (the least recently used one stops being watched to make room).
* An update the server sends for a watched URI (exactly that URI: anything else a server says
  is ignored) becomes one :class:`~aiq_tui.tools.mcp.events.McpResourceUpdated`, and later ones for the
  same resource are folded into it until the user's next message: a chatty server adds at most
  one event per watched resource between two messages to the session's journal.
* That next message carries each update (:meth:`ResourceWatch.for_message`): an attached
  resource is read again (cut to ``mcp.resource_max_bytes`` like an attach) and its text goes
  with the message, labelled as updated since it was attached (unless it is the same text as
  before); the model is told about one it read itself, and can read it again. Each is reported
  as an :class:`~aiq_tui.tools.mcp.events.McpResourceRefreshed`.
* :meth:`ResourceWatch.reset` (a new or resumed conversation) unsubscribes everything; a
  server that stops takes its subscriptions with it, and when it runs again (a new connection)
  what the conversation still uses is subscribed again (:meth:`ResourceWatch.server_changed`).

What a server sends here is input, never authority: an update only says "read me again", and
what is read again is bounded like any read.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from aiq_tui.tools.mcp.events import (
    McpResourceRefreshed,
    McpResourceUpdated,
    McpServerChanged,
)

if TYPE_CHECKING:
    from aiq_tui.config import AppConfig
    from aiq_tui.tools.mcp.connection import McpConnection
    from aiq_tui.tools.mcp.fleet import McpFleet

ATTACHED, READ = "attached", "read"
REASON_CHARS = 300  # of a server's refusal to be read again: its words, kept short in the message and the journal
Key = tuple[str, str]  # (server, uri)


@dataclass
class Watched:
    """One resource the conversation uses."""

    use: str  # attached | read (attached, once it was: its text is what the model works from)
    digest: str = ""  # of the text last sent with a message (attached only)


@dataclass
class _Link:
    """What one running connection of a server is subscribed to."""

    connection: McpConnection
    subscribed: frozenset[str] = frozenset()
    listener: asyncio.Task[None] | None = (
        None  # a 2026-07-28 connection's listen stream
    )
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class ResourceWatch:
    """The resources one conversation watches; see the module doc."""

    def __init__(
        self, fleet: McpFleet, config: AppConfig, emit: Callable[[Any], None]
    ) -> None:
        self._fleet = fleet
        self._config = config
        self._emit = emit
        self._watched: OrderedDict[Key, Watched] = (
            OrderedDict()
        )  # least recently used first
        self._pending: dict[
            Key, str
        ] = {}  # announced updates not yet carried by a message → use
        self._links: dict[str, _Link] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    # -- what the conversation uses ----------------------------------------------------------------
    def watched(self) -> dict[Key, str]:
        """Each watched resource and how the conversation uses it (least recently used first)."""
        return {key: item.use for key, item in self._watched.items()}

    def pending(self) -> dict[Key, str]:
        """The updates announced and not yet carried by a message."""
        return dict(self._pending)

    def subscribed(self, server: str) -> frozenset[str]:
        """The URIs ``server``'s running connection is subscribed to now."""
        link = self._links.get(server)
        return link.subscribed if link is not None else frozenset()

    async def for_message(self, attached: Iterable[tuple[str, str, str]]) -> str:
        """What the user's next message carries besides its own attachments (``attached``:
        ``(server, uri, text)`` of each one): every pending update (see the module doc), as
        blocks to append ("" when none). The attachments are watched from now on."""
        fresh = {(server, uri): text for server, uri, text in attached}
        blocks: list[str] = []
        pending, self._pending = self._pending, {}
        for (server, uri), use in pending.items():
            blocks += await self._carry(server, uri, use, (server, uri) in fresh)
        for (server, uri), text in fresh.items():
            self._use(server, uri, ATTACHED, digest(text))
        await (
            self.settled()
        )  # subscribed before the model reads them: no update in between is missed
        return "".join(f"\n\n{block}" for block in blocks)

    def model_read(self, tool: Any, arguments: Mapping[str, Any]) -> None:
        """The model read a resource through ``tool`` (any tool: only a server's read tool counts)."""
        from aiq_tui.tools.mcp.resource_tool import McpResourceTool

        uri = arguments.get("uri")
        if isinstance(tool, McpResourceTool) and isinstance(uri, str) and uri.strip():
            self._use(tool.server, uri.strip(), READ)

    async def _carry(
        self, server: str, uri: str, use: str, attached_now: bool
    ) -> list[str]:
        from aiq_tui.tools.mcp.connection import McpError

        item = self._watched.get((server, uri))
        if (
            attached_now
        ):  # the message attaches it again: its current text is there already
            self._emit(McpResourceRefreshed(server, uri, "attached", "attached again"))
            return []
        if use != ATTACHED:
            self._emit(McpResourceRefreshed(server, uri, "told"))
            return [
                f"[update from MCP server {server}: @{server}:{uri}, which you read earlier, has changed "
                f"since; read it again if you need its current text]"
            ]
        try:
            body, summary = await self._fleet.read_resource(server, uri)
        except McpError as exc:
            reason = (
                str(exc)
                if len(str(exc)) <= REASON_CHARS
                else str(exc)[:REASON_CHARS] + "…"
            )
            self._emit(McpResourceRefreshed(server, uri, "failed", reason))
            return [
                f"[@{server}:{uri}, which the user attached earlier, was updated since but could not be "
                f"read again: {reason}]"
            ]
        if item is not None and item.digest == digest(body):
            self._emit(McpResourceRefreshed(server, uri, "unchanged", summary))
            return []
        if item is not None:
            item.digest = digest(body)
        self._emit(McpResourceRefreshed(server, uri, "attached", summary))
        return [
            f"[@{server}:{uri} was updated since the user attached it; its current text ({summary})]\n{body}"
        ]

    def _use(self, server: str, uri: str, use: str, text_digest: str = "") -> None:
        settings = self._config.mcp
        if not settings.subscribe_resources or settings.max_subscriptions == 0:
            return
        connection = self._fleet.live_connection(server)
        if connection is None or not connection.subscribable:
            return  # never asked of a server that did not declare resources.subscribe
        key = (server, uri)
        item = self._watched.pop(key, None) or Watched(use)
        if use == ATTACHED:
            item.use = ATTACHED
            item.digest = text_digest or item.digest
        self._watched[key] = item  # the most recently used now
        touched = {server}
        while len(self._watched) > settings.max_subscriptions:
            (old_server, _old_uri), _ = self._watched.popitem(last=False)
            touched.add(old_server)
        for name in touched:
            self._schedule(name)

    # -- updates from the servers ------------------------------------------------------------------
    def _updated(self, link: _Link, server: str, uri: str) -> None:
        """A server's ``notifications/resources/updated`` (see the module doc)."""
        key = (server, uri)
        item = self._watched.get(key)
        if (
            self._links.get(server) is not link
            or item is None
            or uri not in link.subscribed
        ):
            return  # not what this conversation subscribed to (or from a connection left behind)
        if key in self._pending:
            return  # one pending update per resource until the next message carries it
        self._pending[key] = item.use
        self._emit(McpResourceUpdated(server, uri, item.use))

    # -- the servers' lifecycles -------------------------------------------------------------------
    def server_changed(self, event: McpServerChanged) -> None:
        """A server's state changed: subscribe again on a new connection, forget a gone one."""
        if event.state != "ready":
            self._drop(event.name)
            return
        link = self._links.get(event.name)
        if link is not None and link.connection is self._fleet.live_connection(
            event.name
        ):
            return  # the same connection announced again (its tools, what the prompt offers)
        if any(server == event.name for server, _uri in self._watched):
            self._schedule(event.name)

    def reset(self) -> None:
        """A new or resumed conversation: nothing is watched, every subscription is ended, and
        each update still pending is reported ``dropped`` (no message will carry it)."""
        self._watched.clear()
        pending, self._pending = self._pending, {}
        for server, uri in pending:
            self._emit(
                McpResourceRefreshed(server, uri, "dropped", "a new conversation")
            )
        for server in list(self._links):
            self._schedule(server)

    def _drop(self, server: str) -> None:
        link = self._links.pop(server, None)
        if link is not None:
            link.connection.on_resource_updated = None
            if link.listener is not None:
                link.listener.cancel()

    def _link(self, server: str) -> _Link | None:
        """The link of ``server``'s running connection (a new one after a restart), or None."""
        connection = self._fleet.live_connection(server)
        link = self._links.get(server)
        if link is not None and link.connection is connection:
            return link
        self._drop(server)
        if connection is None:
            return None
        link = self._links[server] = _Link(connection)
        connection.on_resource_updated = lambda uri: self._updated(link, server, uri)
        return link

    def _schedule(self, server: str) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop runs: no connection can be used now either
            self._drop(server)
            return
        task = loop.create_task(self._sync(server))
        self._tasks.add(task)  # held until done (the loop keeps only a weak reference)
        task.add_done_callback(self._tasks.discard)

    async def _sync(self, server: str) -> None:
        """Bring ``server``'s subscriptions to what the conversation watches now."""
        link = self._link(server)
        if link is None:
            return
        async with link.lock:  # one change at a time, in the order they were asked for
            wanted = frozenset(uri for name, uri in self._watched if name == server)
            if wanted == link.subscribed or self._links.get(server) is not link:
                return
            if link.connection.listens:
                await self._listen(link, wanted)
            else:
                await self._requests(link, wanted)

    async def _requests(self, link: _Link, wanted: frozenset[str]) -> None:
        """A 2025-era server: ``resources/unsubscribe`` what is no longer used, ``resources/subscribe``
        what is new. A refusal leaves that one unwatched (the conversation goes on)."""
        from aiq_tui.tools.mcp.connection import McpError

        for uri in sorted(link.subscribed - wanted):
            link.subscribed -= {
                uri
            }  # updates for it are ignored from now on, whatever the answer
            try:
                await link.connection.unsubscribe_resource(uri)
            except McpError:
                pass
        for uri in sorted(wanted - link.subscribed):
            link.subscribed |= {
                uri
            }  # before the answer: an update may be handled before it is
            try:
                await link.connection.subscribe_resource(uri)
            except McpError:
                link.subscribed -= {uri}

    async def _listen(self, link: _Link, wanted: frozenset[str]) -> None:
        """A 2026-07-28 server: one ``subscriptions/listen`` stream whose filter is ``wanted``.
        A filter cannot change, so a new stream replaces the old one — opened first, so that no
        update falls between the two (one heard on both is folded into one, see :meth:`_updated`)."""
        old, link.listener = link.listener, None
        if wanted:
            loop = asyncio.get_running_loop()
            acked: asyncio.Future[None] = loop.create_future()
            link.listener = loop.create_task(self._stream(link, wanted, acked))
            try:
                await asyncio.wait_for(
                    asyncio.shield(acked), self._config.mcp.call_timeout_seconds
                )
                link.subscribed = wanted
            except (TimeoutError, Exception):
                link.listener.cancel()
                link.listener, link.subscribed = None, frozenset()
        else:
            link.subscribed = frozenset()
        if old is not None:
            old.cancel()
            await asyncio.wait({old}, timeout=self._config.mcp.call_timeout_seconds)

    async def _stream(
        self, link: _Link, wanted: frozenset[str], acked: asyncio.Future[None]
    ) -> None:
        try:
            async with link.connection.listen_resources(sorted(wanted)) as stream:
                acked.set_result(None)
                async for _event in stream:
                    pass  # drained: the SDK passes each event to the connection's message handler too
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if not acked.done():
                acked.set_exception(exc)
        if (
            link.listener is asyncio.current_task()
        ):  # the server ended the stream in use
            link.listener, link.subscribed = None, frozenset()

    # -- waiting and stopping ----------------------------------------------------------------------
    async def settled(self) -> None:
        """Return once every subscription change asked for so far was sent (and answered)."""
        while self._tasks:
            await asyncio.wait(set(self._tasks))

    async def aclose(self) -> None:
        """Stop watching (the servers themselves are stopped by the fleet)."""
        for task in list(self._tasks):
            task.cancel()
        for server in list(self._links):
            self._drop(server)
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=5)
