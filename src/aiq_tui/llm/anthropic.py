"""Anthropic Messages API with SSE streaming and tool use.

``POST {base}/v1/messages`` with ``anthropic-version: 2023-06-01`` and ``x-api-key``. The
system prompt is a top-level field; tool results travel as ``tool_result`` blocks in user
messages; consecutive messages of the same role are merged because the API requires the
roles to alternate.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Any

from aiq_tui.conversation import Message, Role, ToolCall, ToolSpec
from aiq_tui.llm.base import StreamDone, StreamEvent, TextDelta, ToolCallReady, Usage
from aiq_tui.llm.common import (
    ArgumentText,
    HTTPProvider,
    sendable_arguments,
)
from aiq_tui.llm.sse import (
    Endpoint,
    decode_data,
    is_local_url,
)

DEFAULT_BASE_URL = "https://api.anthropic.com"
DEFAULT_KEY_ENV = "ANTHROPIC_API_KEY"
BASE_URL_ENV = "ANTHROPIC_BASE_URL"
API_VERSION = "2023-06-01"

_STOP = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "pause_turn": "stop",
    "refusal": "stop",
}
# Error event types worth another attempt; others (invalid_request_error, …) are final.
_RETRYABLE_ERRORS = {
    "overloaded_error",
    "api_error",
    "rate_limit_error",
    "timeout_error",
}


def tool_json(spec: ToolSpec) -> dict[str, Any]:
    return {
        "name": spec.name,
        "description": spec.description,
        "input_schema": spec.parameters,
    }


def _blocks(message: Message) -> tuple[str, list[dict[str, Any]]]:
    if message.role is Role.TOOL:
        return "user", [
            {
                "type": "tool_result",
                "tool_use_id": message.tool_call_id or "",
                "content": message.content,
            }
        ]
    if message.role is Role.ASSISTANT:
        blocks: list[dict[str, Any]] = []
        if message.content.strip():
            blocks.append({"type": "text", "text": message.content})
        for call in message.tool_calls:
            blocks.append(
                {
                    "type": "tool_use",
                    "id": call.id,
                    "name": call.name,
                    "input": sendable_arguments(call.arguments),
                }
            )
        return "assistant", blocks
    # USER, and SYSTEM messages inside the history (compression summaries): the Messages API
    # has no system role in the list, so they travel as user text.
    return "user", (
        [{"type": "text", "text": message.content}] if message.content.strip() else []
    )


def api_messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """Our messages as alternating user/assistant turns of content blocks."""
    merged: list[dict[str, Any]] = []
    for message in messages:
        role, blocks = _blocks(message)
        if not blocks:
            continue  # the API rejects empty text blocks and empty messages
        if merged and merged[-1]["role"] == role:
            merged[-1]["content"].extend(blocks)
        else:
            merged.append({"role": role, "content": list(blocks)})
    for turn in merged:
        # tool_result blocks must come first in a user turn.
        turn["content"].sort(
            key=lambda block: 0 if block["type"] == "tool_result" else 1
        )
    return merged


class AnthropicProvider(HTTPProvider):
    kind = "anthropic"

    @property
    def url(self) -> str:
        base = self.base_url
        return f"{base}/messages" if base.endswith("/v1") else f"{base}/v1/messages"

    def _endpoint(self) -> Endpoint:
        return Endpoint(self.name, self.model, self.url, self._key_env, self._api_key)

    def check_ready(self) -> None:
        if not self._api_key and not is_local_url(self.base_url):
            raise self._endpoint().error(
                f"no API key: set the {self._key_env or DEFAULT_KEY_ENV} environment variable"
            )

    def payload(
        self,
        system: str,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        max_tokens: int,
    ) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "max_tokens": max_tokens,
            "messages": api_messages(messages),
            "stream": True,
        }
        if system:
            body["system"] = system
        if tools:
            body["tools"] = [tool_json(t) for t in tools]
        return body

    def headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "anthropic-version": API_VERSION}
        if self._api_key:
            headers["x-api-key"] = self._api_key
        return headers

    async def _attempt(
        self,
        system: str,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        max_tokens: int,
    ) -> AsyncIterator[StreamEvent]:
        endpoint = self._endpoint()
        tool_blocks: dict[
            int, tuple[str, str, ArgumentText]
        ] = {}  # index → (id, name, json text)
        input_tokens = output_tokens = 0
        response_id = ""
        stop_reason: str | None = None
        finished = False
        delivered = 0
        async with self._reply_stream(
            endpoint, system, messages, tools, max_tokens
        ) as (events, limits):
            async for event in events:
                if not event.data.strip():
                    continue
                data = decode_data(endpoint, event)
                kind = data.get("type") or event.event
                if kind == "message_start":
                    response_id = str((data.get("message") or {}).get("id") or "")
                    usage = (data.get("message") or {}).get("usage") or {}
                    input_tokens = int(usage.get("input_tokens") or 0)
                    output_tokens = int(usage.get("output_tokens") or 0)
                elif kind == "content_block_start":
                    block = data.get("content_block") or {}
                    if block.get("type") == "tool_use":
                        tool_blocks[int(data.get("index", 0))] = (
                            str(block.get("id", "")),
                            str(block.get("name", "")),
                            ArgumentText(),
                        )
                    elif block.get("type") == "text" and block.get("text"):
                        limits.text(block["text"])
                        yield TextDelta(block["text"])
                elif kind == "content_block_delta":
                    delta = data.get("delta") or {}
                    if delta.get("type") == "text_delta" and delta.get("text"):
                        limits.text(delta["text"])
                        yield TextDelta(delta["text"])
                    elif delta.get("type") == "input_json_delta":
                        entry = tool_blocks.get(int(data.get("index", 0)))
                        if entry is not None:
                            limits.argument(entry[2], delta.get("partial_json") or "")
                elif kind == "content_block_stop":
                    entry = tool_blocks.pop(int(data.get("index", 0)), None)
                    if entry is not None:
                        call_id, name, parts = entry
                        delivered += 1
                        yield ToolCallReady(
                            ToolCall(call_id, name, limits.arguments_of(parts))
                        )
                elif kind == "message_delta":
                    stop_reason = (data.get("delta") or {}).get(
                        "stop_reason"
                    ) or stop_reason
                    usage = data.get("usage") or {}
                    output_tokens = int(usage.get("output_tokens") or output_tokens)
                    input_tokens = int(usage.get("input_tokens") or input_tokens)
                elif kind == "message_stop":
                    finished = True
                    break
                elif kind == "error":
                    error = data.get("error") or {}
                    error_type = str(error.get("type", "error"))
                    raise endpoint.error(
                        f"error event from {endpoint.url}: {error.get('message', 'unknown error')} [{error_type}]",
                        retryable=error_type in _RETRYABLE_ERRORS,
                    )
                # ping and unknown future event types are ignored, as the API docs ask.
                if limits.cut:
                    break
        if limits.cut:
            # The blocks still open are answered with the reason; the model can try again smaller.
            for call_id, name, parts in tool_blocks.values():
                delivered += 1
                yield ToolCallReady(ToolCall(call_id, name, limits.arguments_of(parts)))
            if not delivered:
                raise endpoint.error(
                    limits.cut_reason().partition(";")[0] + f" (from {endpoint.url})",
                    retryable=False,
                )
            yield StreamDone(
                "tool_calls", Usage(input_tokens, output_tokens), response_id
            )
            return
        if not finished:
            raise endpoint.error(
                f"connection to {endpoint.url} ended before message_stop",
                retryable=True,
            )
        yield StreamDone(
            _STOP.get(stop_reason or "end_turn", "stop"),
            Usage(input_tokens, output_tokens),
            response_id,
        )
