"""OpenAI-compatible Chat Completions with SSE streaming and tool calls.

Works with OpenAI, Ollama, vLLM, LM Studio and OpenRouter: only the base URL differs.
``POST {base_url}/chat/completions`` with ``stream: true`` and
``stream_options.include_usage``; streamed ``tool_calls`` deltas are assembled by ``index``
and delivered as complete calls when the choice finishes.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from aiq_tui.conversation import Message, Role, ToolCall, ToolSpec
from aiq_tui.llm.base import StreamDone, StreamEvent, TextDelta, ToolCallReady, Usage
from aiq_tui.llm.common import (
    ArgumentText,
    HTTPProvider,
    sendable_arguments,
)
from aiq_tui.llm.sse import Endpoint, decode_data

DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_KEY_ENV = "OPENAI_API_KEY"
BASE_URL_ENV = "OPENAI_BASE_URL"

_FINISH = {
    "stop": "stop",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "length": "length",
    "content_filter": "stop",
}


def tool_json(spec: ToolSpec) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": spec.name,
            "description": spec.description,
            "parameters": spec.parameters,
        },
    }


def message_json(message: Message) -> dict[str, Any]:
    """One of our messages in Chat Completions form."""
    if message.role is Role.TOOL:
        return {
            "role": "tool",
            "tool_call_id": message.tool_call_id or "",
            "content": message.content,
        }
    if message.role is Role.ASSISTANT and message.tool_calls:
        return {
            "role": "assistant",
            "content": message.content or None,
            "tool_calls": [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {
                        "name": call.name,
                        "arguments": json.dumps(
                            sendable_arguments(call.arguments), ensure_ascii=False
                        ),
                    },
                }
                for call in message.tool_calls
            ],
        }
    return {"role": message.role.value, "content": message.content}


def chat_messages(system: str, messages: Sequence[Message]) -> list[dict[str, Any]]:
    head = [{"role": "system", "content": system}] if system else []
    return head + [message_json(m) for m in messages]


@dataclass
class _PartialCall:
    id: str = ""
    name: str = ""
    arguments: ArgumentText = field(default_factory=ArgumentText)


class OpenAIProvider(HTTPProvider):
    kind = "openai"

    @property
    def url(self) -> str:
        return f"{self.base_url}/chat/completions"

    def _is_openai_host(self) -> bool:
        return (urlsplit(self.base_url).hostname or "").lower() == "api.openai.com"

    def check_ready(self) -> None:
        if not self._api_key and self._is_openai_host():
            raise self._endpoint().error(
                f"no API key: set the {self._key_env or DEFAULT_KEY_ENV} environment variable "
                f"(or point llm.providers.{self.name}.base_url at a local server such as Ollama)"
            )

    def _endpoint(self) -> Endpoint:
        return Endpoint(self.name, self.model, self.url, self._key_env, self._api_key)

    def payload(
        self,
        system: str,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        max_tokens: int,
    ) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": chat_messages(system, messages),
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        # OpenAI's own newer models only accept max_completion_tokens; compatible servers
        # (Ollama, vLLM, LM Studio) know max_tokens.
        body["max_completion_tokens" if self._is_openai_host() else "max_tokens"] = (
            max_tokens
        )
        if tools:
            body["tools"] = [tool_json(t) for t in tools]
        return body

    def headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        if self._api_key:  # local servers get no Authorization header at all
            headers["Authorization"] = f"Bearer {self._api_key}"
        return headers

    async def _attempt(
        self,
        system: str,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        max_tokens: int,
    ) -> AsyncIterator[StreamEvent]:
        endpoint = self._endpoint()
        calls: dict[int, _PartialCall] = {}
        finish: str | None = None
        usage = Usage()
        response_id = ""
        done = False
        async with self._reply_stream(
            endpoint, system, messages, tools, max_tokens
        ) as (events, limits):
            async for event in events:
                if event.data.strip() == "[DONE]":
                    done = True
                    break
                if not event.data.strip():
                    continue
                chunk = decode_data(endpoint, event)
                if not response_id and isinstance(chunk.get("id"), str):
                    response_id = chunk["id"]
                if (
                    "error" in chunk
                ):  # OpenRouter and some proxies report errors in-stream
                    error = chunk["error"]
                    detail = (
                        error.get("message", error)
                        if isinstance(error, dict)
                        else error
                    )
                    raise endpoint.error(
                        f"error in stream from {endpoint.url}: {detail}",
                        retryable=True,
                    )
                if chunk.get("usage"):
                    raw = chunk["usage"]
                    usage = Usage(
                        int(raw.get("prompt_tokens") or 0),
                        int(raw.get("completion_tokens") or 0),
                    )
                for choice in chunk.get("choices") or ():
                    if choice.get("index", 0) != 0:
                        continue
                    delta = choice.get("delta") or {}
                    if delta.get("content"):
                        limits.text(delta["content"])
                        yield TextDelta(delta["content"])
                    for piece in delta.get("tool_calls") or ():
                        partial = calls.setdefault(
                            int(piece.get("index", len(calls))), _PartialCall()
                        )
                        partial.id = piece.get("id") or partial.id
                        function = piece.get("function") or {}
                        partial.name = function.get("name") or partial.name
                        if function.get("arguments"):
                            limits.argument(partial.arguments, function["arguments"])
                    if choice.get("finish_reason"):
                        finish = choice["finish_reason"]
                if limits.cut:
                    break
        if limits.cut and not calls:
            raise endpoint.error(
                limits.cut_reason().partition(";")[0] + f" (from {endpoint.url})",
                retryable=False,
            )
        if not done and finish is None and not limits.cut:
            raise endpoint.error(
                f"connection to {endpoint.url} ended before the reply was complete",
                retryable=True,
            )
        for index in sorted(calls):
            partial = calls[index]
            call_id = partial.id or f"call_{index}"
            yield ToolCallReady(
                ToolCall(call_id, partial.name, limits.arguments_of(partial.arguments))
            )
        reason = "tool_calls" if calls else _FINISH.get(finish or "stop", "stop")
        yield StreamDone(reason, usage, response_id)
