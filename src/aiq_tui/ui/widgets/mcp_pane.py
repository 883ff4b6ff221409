"""The MCP pane: each server's state, the tools it gives the model, its resources (``@uri``:
attach one to a question as ``@server:uri``) and its prompts (``/prompt``: run as
``/mcp__server__prompt``).

It draws what the engine's :class:`~aiq_tui.events.McpServerChanged` events said last, one per
server (the app hands them over; the widget does no I/O). Enter on a row opens the server's
details — its command or URL, why it failed, a tool's description — in a modal (the app does
that with :meth:`McpPane.details`). A watched resource the server updated is marked ``↻`` until
the next message carries the update (:meth:`McpPane.mark_updated`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from rich.style import Style
from rich.text import Text

from aiq_tui.ui.badges import badge_style, redraw_on_theme_change, table_grounds
from aiq_tui.ui.plain import PlainDataTable, plain
from aiq_tui.ui.widgets.own_virtual_size import OwnVirtualSize

if TYPE_CHECKING:
    from aiq_tui.events import McpServerChanged

STATE_BADGE = {
    "ready": "success",
    "starting": "primary",
    "failed": "error",
    "not approved": "warning",
    "awaiting approval": "warning",
    "rejected": "muted",
    "disabled": "muted",
    "stopped": "muted",
}
"""Each state's colour (:data:`aiq_tui.ui.badges.BADGES`): readable on the table in every theme."""
PREFIX = "mcp__"
UPDATED = "↻ "  # first: a long URI is cut at the column's end


def short_tool(server: str, name: str) -> str:
    """``get_current_time`` for ``mcp__time__get_current_time`` (the server has its own column)."""
    head = f"{PREFIX}{server}__"
    return name[len(head) :] if name.startswith(head) else name


class McpPane(OwnVirtualSize, PlainDataTable):
    """One row per tool of a ready server, one row with the reason for any other server."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self.servers: dict[str, McpServerChanged] = {}
        self.updated: dict[
            tuple[str, str], None
        ] = {}  # (server, uri) of the updates not yet carried
        self._rows: dict[str, tuple[str, str | None]] = {}

    def on_mount(self) -> None:
        # Fixed widths that fit the right-hand column (≈ 44 cells): the full text is one Enter away.
        self.add_column("server", key="server", width=9)
        self.add_column("state", key="state", width=9)
        self.add_column("tool", key="tool", width=20)
        redraw_on_theme_change(
            self, lambda: self.show(self.servers)
        )  # the states' colours

    def _badge(self, name: str) -> Style | str:
        """A badge's style, readable on the plain and the striped rows (the cursor row takes its
        own colours)."""
        if not self.is_attached:
            return ""
        return badge_style(self.app, name, *table_grounds(self))

    def show(self, servers: Mapping[str, McpServerChanged]) -> None:
        """Redraw from the latest event per server (in the order they were first seen)."""
        self.servers = dict(servers)
        self.clear()
        self._rows.clear()
        for name, event in self.servers.items():
            badge = STATE_BADGE.get(event.state)
            state = Text(event.state, style=self._badge(badge) if badge else "")
            if event.state == "ready" and event.tools:
                omitted = set(event.omitted)
                for index, tool in enumerate(event.tools):
                    label = short_tool(name, tool) + (
                        " (not offered)" if tool in omitted else ""
                    )
                    key = f"{name}/{tool}"
                    self._rows[key] = (name, tool)
                    self.add_row(
                        name if index == 0 else "",
                        state if index == 0 else "",
                        Text(
                            label, style=self._badge("muted") if tool in omitted else ""
                        ),
                        key=key,
                    )
                # A watched URI the server does not list (a template's, filled in) shows when updated.
                uris = list(event.resources) + [
                    uri
                    for server, uri in self.updated
                    if server == name and uri not in event.resources
                ]
                extras = [
                    (
                        (UPDATED if (name, uri) in self.updated else "") + f"@{uri}",
                        f"{name}/resource/{uri}",
                    )
                    for uri in uris
                ]
                extras += [
                    (
                        "/" + short_tool(name, command.lstrip("/")),
                        f"{name}/prompt/{command}",
                    )
                    for command in event.prompts
                ]
                for label, key in extras:
                    self._rows[key] = (name, None)
                    self.add_row("", "", plain(label), key=key)
            else:
                first = (event.message.splitlines() or [""])[0]
                self._rows[name] = (name, None)
                self.add_row(
                    name, state, plain(first, style=self._badge("muted")), key=name
                )

    def mark_updated(self, server: str, uri: str, updated: bool) -> None:
        """Mark (or unmark: the update went with a message) a resource the server updated."""
        if updated:
            self.updated[(server, uri)] = None
        else:
            self.updated.pop((server, uri), None)
        self.show(self.servers)

    def details(
        self, row_key: str, describe: Callable[[str], str] = lambda tool: ""
    ) -> tuple[str, str] | None:
        """``(title, markdown)`` for the row (``describe(tool)``: its description), or None."""
        found = self._rows.get(row_key)
        if found is None:
            return None
        server, tool = found
        event = self.servers[server]
        lines = [
            f"## MCP server {server}",
            "",
            f"- state: **{event.state}**",
            f"- from: {'config.yaml' if event.source == 'config' else 'the project (.mcp.json)'}",
            f"- runs: `{event.target}`",
            f"- tools: {len(event.tools)}",
        ]
        if event.omitted:
            lines.append(f"- not offered (mcp.tools_share): {', '.join(event.omitted)}")
        if event.resources:
            lines.append(
                f"- resources ({len(event.resources)}; the model reads them with "
                f"`{PREFIX}{server}__read_resource`, a question attaches one as `@{server}:URI`):"
            )
            lines += [
                f"    - `{uri}`"
                + (
                    " — updated on the server; your next message carries it"
                    if (server, uri) in self.updated
                    else ""
                )
                for uri in event.resources
            ]
        if event.prompts:
            lines.append(
                "- prompts (slash commands): "
                + ", ".join(f"`{command}`" for command in event.prompts)
            )
        if event.message:
            lines += ["", "```", event.message, "```"]
        if tool is not None:
            lines += [
                "",
                f"### {tool}",
                "",
                describe(tool) or "(no description)",
                "",
                f"permission: `tools.permissions.{tool}` or `tools.permissions.{PREFIX}{server}` "
                "(allow / ask / deny; ask by default)",
            ]
        return f"MCP server {server}", "\n".join(lines)
