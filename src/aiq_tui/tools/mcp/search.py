"""``tool_search``: the model finds the MCP tools that did not fit ``mcp.tools_share``.

As Claude Code's tool search does: a server with many tools (server-filesystem, GitHub) does
not put every definition into every request. The tools that fit are offered; the others are
named in this tool's description, and a call returns the best matches for a query — name,
description and input schema — after which they are offered from the next request on
(:meth:`~aiq_tui.tools.mcp.fleet.McpFleet.load`). Calling a found tool goes through the same
registry and permission policy as any MCP tool: finding a tool approves nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from aiq_tui.conversation import ToolSpec
from aiq_tui.tools.base import ToolResult

if TYPE_CHECKING:
    from aiq_tui.tools.mcp.fleet import McpFleet

TOOL_SEARCH = "tool_search"
PERMISSION_KEY = "tool_search"
NAMES_IN_DESCRIPTION = 60
"""At most this many left-out names are listed in the description (the rest are counted)."""

_WORD = re.compile(r"[a-z0-9]+")
_PARAMETERS = {
    "type": "object",
    "properties": {
        "query": {
            "type": "string",
            "description": 'words for what the tool should do ("read file", '
            '"create issue"), or select:NAME[,NAME] for tools by name',
        },
    },
    "required": ["query"],
    "additionalProperties": False,
}


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def rank_tools(query: str, specs: Sequence[ToolSpec], limit: int) -> list[ToolSpec]:
    """The specs that best match ``query``, best first, at most ``limit``: ``select:a,b`` picks by
    name (the whole ``mcp__server__tool`` or its last part); otherwise each query word scores
    3 in the name and 1 in the description (a word's start matches: "read" finds "reading")."""
    text = query.strip()
    if text.lower().startswith("select:"):
        wanted = [
            name.strip().lower()
            for name in text[len("select:") :].split(",")
            if name.strip()
        ]
        return [
            spec
            for spec in specs
            if spec.name.lower() in wanted
            or spec.name.lower().split("__", 2)[-1] in wanted
        ][:limit]
    terms = _words(text)
    scored: list[tuple[int, int, ToolSpec]] = []
    for order, spec in enumerate(specs):
        name, description = _words(spec.name), _words(spec.description)
        score = 100 if spec.name.lower() in text.lower() else 0
        for term in terms:
            if any(word.startswith(term) for word in name):
                score += 3
            elif any(word.startswith(term) for word in description):
                score += 1
        if score:
            scored.append((-score, order, spec))
    return [spec for _, _, spec in sorted(scored, key=lambda item: item[:2])][:limit]


class ToolSearchTool:
    """Searches every ready server's tools; what it finds is offered from the next request."""

    def __init__(self, fleet: McpFleet) -> None:
        self._fleet = fleet

    @property
    def spec(self) -> ToolSpec:
        return self.spec_for(())

    def spec_for(self, left_out: Sequence[str]) -> ToolSpec:
        """The definition the model sees, naming the tools that were left out."""
        shown = ", ".join(left_out[:NAMES_IN_DESCRIPTION])
        more = len(left_out) - NAMES_IN_DESCRIPTION
        listing = (
            f" Not offered yet ({len(left_out)}): {shown}"
            + (f" and {more} more" if more > 0 else "")
            + "."
            if left_out
            else ""
        )
        return ToolSpec(
            name=TOOL_SEARCH,
            description=(
                "Find MCP server tools that are not offered yet (their definitions did not fit). "
                "Returns the matching tools' names, descriptions and input schemas; they can be "
                "called from your next step on, under the same permissions as every tool."
                + listing
            ),
            parameters=_PARAMETERS,
        )

    def permission_key(self, arguments: dict[str, Any]) -> str:
        return PERMISSION_KEY

    def describe(self, arguments: dict[str, Any]) -> str:
        return f"search MCP tools for {str(arguments.get('query', ''))!r}"

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        query = str(arguments.get("query", "")).strip()
        if not query:
            return ToolResult.failure(
                "query must name what the tool should do, or select:NAME"
            )
        fleet = self._fleet
        found = rank_tools(
            query, fleet.ready_specs(), fleet.config.mcp.tool_search_results
        )
        if not found:
            left_out = fleet.left_out()
            return ToolResult(
                ok=True,
                content=f"no MCP tool matches {query!r}. Not offered yet: "
                f"{', '.join(left_out) or 'none'}",
                summary="found no tool",
            )
        fleet.load(spec.name for spec in found)
        policy = fleet.registry.policy
        tools = [
            {
                "name": spec.name,
                "description": spec.description,
                "input_schema": spec.parameters,
                "permission": policy.configured(spec.name),
            }
            for spec in found
        ]
        names = ", ".join(spec.name for spec in found)
        return ToolResult(
            ok=True,
            content={
                "tools": tools,
                "note": "these tools are offered from now on; call them by name",
            },
            summary=f"found {len(found)}: {names} (offered from the next request)",
        )
