"""A server's request to use the session's model (MCP ``sampling/createMessage``).

Off unless ``mcp.sampling`` is true: then the client declares ``sampling`` and each request is
asked like a tool call — the approval shows the server, its system prompt and messages — and,
once approved, is answered by the session's model without tools, within the smaller of the
server's ``maxTokens`` and ``mcp.sampling_max_tokens``. A refusal (the user's, ``--deny-all``,
a headless run without ``--yes``) is an error the server receives. Nothing here is remembered:
every request asks (a server's text is the model's input, as a tool result is).

No SDK here: the request is read by attribute, the answer is plain values that
:mod:`.connection` turns into the SDK's result. The model's side (asking, then the provider)
is :func:`aiq_tui.agent.mcp_sampling.make_sampler`: only the agent layer holds a provider.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from aiq_tui.tools.mcp.results import part_text


@dataclass(frozen=True)
class SamplingRequest:
    server: str
    system: str
    messages: tuple[tuple[str, str], ...]  # (role, text)
    max_tokens: int


@dataclass(frozen=True)
class SamplingAnswer:
    text: str = ""
    model: str = ""
    refused: str = ""
    """Why there is no answer ("" when there is one)."""


Sampler = Callable[[SamplingRequest], Awaitable[SamplingAnswer]]


def request_from(server: str, params: Any) -> SamplingRequest:
    messages: list[tuple[str, str]] = []
    for message in getattr(params, "messages", None) or ():
        content = getattr(message, "content", None)
        blocks = content if isinstance(content, list) else [content]
        text = "\n\n".join(part_text(block)[1] for block in blocks if block is not None)
        messages.append((str(getattr(message, "role", "user")), text))
    return SamplingRequest(
        server,
        str(getattr(params, "system_prompt", None) or ""),
        tuple(messages),
        int(getattr(params, "max_tokens", 0) or 0),
    )
