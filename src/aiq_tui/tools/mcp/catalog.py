"""A server's resources and prompts as plain values, and what reading one gives the model.

* :class:`Resource` / :class:`Prompt` — what ``resources/list``, ``resources/templates/list``
  and ``prompts/list`` said (the CLI's ``mcp resources`` / ``mcp prompts``, the MCP tab, the
  ``/mcp__server__prompt`` commands);
* :func:`resource_text` — a ``ReadResourceResult`` as text within ``mcp.resource_max_bytes``
  (binary parts described, never passed as base64), for the read tool and ``@server:uri``;
* :func:`prompt_text` — a ``GetPromptResult``'s messages as the text the user sends.

Works on the SDK's objects by attribute so this module imports no SDK.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from aiq_tui.tools.mcp.results import cut_utf8, part_text

MENTION = re.compile(
    r"(?<![\w@])@(?P<server>[A-Za-z0-9_-]+):(?P<uri>[A-Za-z][A-Za-z0-9+.-]*:[^\s]+)"
)
"""``@server:uri`` in a question (Claude Code's form): the URI keeps its scheme (``demo://…``,
``file:///…``)."""


@dataclass(frozen=True)
class Resource:
    server: str
    uri: str
    name: str
    description: str = ""
    mime_type: str = ""
    template: bool = False
    """A URI template (``demo://text/{id}``): read with its parameters filled in."""


@dataclass(frozen=True)
class PromptArgument:
    name: str
    description: str = ""
    required: bool = False


@dataclass(frozen=True)
class Prompt:
    server: str
    name: str
    description: str = ""
    arguments: tuple[PromptArgument, ...] = ()

    @property
    def command(self) -> str:
        """The slash command that runs it: ``/mcp__<server>__<prompt>``."""
        from aiq_tui.tools.mcp.servers import tool_name

        return "/" + tool_name(self.server, self.name)


def resources_from(
    server: str, resources: Sequence[Any], templates: Sequence[Any]
) -> tuple[Resource, ...]:
    found = [
        Resource(
            server,
            str(r.uri),
            str(getattr(r, "name", "") or ""),
            (getattr(r, "description", None) or "").strip(),
            str(getattr(r, "mime_type", None) or ""),
        )
        for r in resources
    ]
    found += [
        Resource(
            server,
            str(t.uri_template),
            str(getattr(t, "name", "") or ""),
            (getattr(t, "description", None) or "").strip(),
            str(getattr(t, "mime_type", None) or ""),
            template=True,
        )
        for t in templates
    ]
    return tuple(found)


def prompts_from(server: str, prompts: Sequence[Any]) -> tuple[Prompt, ...]:
    return tuple(
        Prompt(
            server,
            str(p.name),
            (getattr(p, "description", None) or "").strip(),
            tuple(
                PromptArgument(
                    str(a.name),
                    (getattr(a, "description", None) or "").strip(),
                    bool(getattr(a, "required", False)),
                )
                for a in getattr(p, "arguments", None) or ()
            ),
        )
        for p in prompts
    )


def resource_text(result: Any, limit: int) -> tuple[str, str]:
    """``(text, summary)`` of a ``ReadResourceResult``: text contents as they are, binary ones
    described, the whole cut to ``limit`` UTF-8 bytes (and saying so)."""
    pieces: list[str] = []
    for content in getattr(result, "contents", None) or ():
        text = getattr(content, "text", None)
        if text is not None:
            pieces.append(str(text))
        else:
            _, described = part_text(_Embedded(content))
            pieces.append(described)
    whole = "\n\n".join(pieces)
    size = len(whole.encode("utf-8", "surrogatepass"))
    text, cut = cut_utf8(whole, limit)
    if cut:
        text += f"\n…[cut: {len(text.encode('utf-8', 'surrogatepass')):,} of {size:,} bytes shown (mcp.resource_max_bytes)]"
    return text, f"{size:,} bytes" + (" (cut)" if cut else "")


class _Embedded:
    """A resource's contents dressed as an embedded-resource part, for :func:`part_text`."""

    type = "resource"

    def __init__(self, resource: Any) -> None:
        self.resource = resource


def prompt_text(result: Any, limit: int) -> str:
    """The prompt's messages as one text (a resource it embeds comes with its URI), cut to
    ``limit`` bytes. Roles other than the user's are marked: the text is sent as the user's."""
    pieces: list[str] = []
    for message in getattr(result, "messages", None) or ():
        _, text = part_text(getattr(message, "content", None))
        role = str(getattr(message, "role", "user"))
        pieces.append(text if role == "user" else f"[{role}]\n{text}")
    text, cut = cut_utf8("\n\n".join(pieces), limit)
    return text + ("\n…[cut (mcp.resource_max_bytes)]" if cut else "")


def mentions(text: str) -> list[tuple[str, str]]:
    """Every ``@server:uri`` in ``text``, in order, once each."""
    found = [
        (m.group("server"), m.group("uri").rstrip(".,;:!?)"))
        for m in MENTION.finditer(text)
    ]
    return list(dict.fromkeys(found))
