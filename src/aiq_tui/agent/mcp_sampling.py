"""The session's model answering an MCP server's sampling request (see
:mod:`aiq_tui.tools.mcp.sampling`): asked first like a tool call, then one request to the
provider without tools."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from aiq_tui.tools.mcp.sampling import Sampler, SamplingAnswer, SamplingRequest

if TYPE_CHECKING:
    from aiq_tui.tools.base import Approver

_ids = itertools.count(1)


def make_sampler(
    provider: Callable[[], Any],
    approver: Callable[[], Approver | None],
    max_tokens: int,
) -> Sampler:
    """Answers with ``provider()`` (the session's, read at each request: ``/model`` may change
    it) once ``approver()`` (the TUI's dialog, ``ask``'s terminal, ``--yes``) says yes."""
    from aiq_tui.conversation import Message, Role
    from aiq_tui.llm.base import TextDelta
    from aiq_tui.tools.base import ApprovalRequest, Decision

    async def sample(request: SamplingRequest) -> SamplingAnswer:
        ask = approver()
        if ask is None:
            return SamplingAnswer(
                refused="nobody to ask: a server's sampling request needs your approval"
            )
        shown = "\n\n".join(f"[{role}] {text}" for role, text in request.messages)
        detail = (f"system: {request.system}\n\n" if request.system else "") + shown
        decision = await ask(
            ApprovalRequest(
                f"sampling-{next(_ids)}",
                f"mcp__{request.server}",
                f"mcp__{request.server}__sampling",
                f"Let MCP server {request.server} use the model",
                detail,
                {
                    "system": request.system,
                    "messages": [text for _, text in request.messages],
                },
                rememberable=False,
            )
        )
        if decision is Decision.DENY:
            return SamplingAnswer(refused="the user refused the sampling request")
        messages = [
            Message(
                Role.ASSISTANT if role == "assistant" else Role.USER,
                text,
                id=f"s{index}",
            )
            for index, (role, text) in enumerate(request.messages)
        ]
        limit = max(1, min(request.max_tokens or max_tokens, max_tokens))
        parts: list[str] = []
        model = provider()
        async for item in model.stream(request.system, messages, [], limit):
            if isinstance(item, TextDelta):
                parts.append(item.text)
        return SamplingAnswer("".join(parts), str(getattr(model, "model", "") or ""))

    return sample
