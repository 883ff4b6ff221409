"""Anthropic Messages provider against a fake server speaking the real SSE events."""

from __future__ import annotations

import asyncio
import json

import pytest

from aiq_tui.conversation import Message, Role, ToolCall
from aiq_tui.llm.base import ProviderError, TextDelta, Usage
from aiq_tui.llm.common import invalid_arguments
from tests.llm.fakes import (
    FakeModelServer,
    anthropic_error_event,
    anthropic_text_stream,
    anthropic_tool_stream,
    json_reply,
    rechunk,
    sse_reply,
)
from tests.llm.helpers import (
    SQL_TOOL,
    SleepRecorder,
    calls_of,
    collect,
    done_of,
    make_provider,
    text_of,
)

KEY = "sk-ant-api03-SECRET-abcdef"
ENV = {"ANTHROPIC_API_KEY": KEY}


async def test_text_streams_with_usage_and_the_request_has_the_api_shape() -> None:
    async with FakeModelServer(
        [sse_reply(anthropic_text_stream(["Hello", " there"], usage=(30, 6)))]
    ) as server:
        provider = make_provider("anthropic", server.base_url, env=ENV)
        events = await collect(provider, system="Be brief.", max_tokens=99)
        await provider.aclose()
    assert text_of(events) == "Hello there"
    done = done_of(events)
    assert done.finish_reason == "stop" and done.usage == Usage(30, 6)
    request = server.requests[0]
    assert request.path == "/v1/messages"
    assert request.headers["x-api-key"] == KEY
    assert request.headers["anthropic-version"] == "2023-06-01"
    assert "authorization" not in request.headers
    assert request.body["system"] == "Be brief."
    assert request.body["max_tokens"] == 99 and request.body["stream"] is True
    assert request.body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "Hi"}]}
    ]


async def test_byte_split_events_decode_the_same() -> None:
    reply = rechunk(sse_reply(anthropic_text_stream(["naïve ", "café ☕"])), 5)
    async with FakeModelServer([reply]) as server:
        provider = make_provider("anthropic", server.base_url, env=ENV)
        events = await collect(provider)
    assert text_of(events) == "naïve café ☕"


async def test_tool_use_with_input_json_deltas_becomes_complete_calls() -> None:
    args = json.dumps(
        {
            "query": "SELECT title FROM books ORDER BY sales DESC LIMIT 5",
            "source": "sample",
        }
    )
    frames = anthropic_tool_stream(
        [
            ("toolu_01", "execute_sql", args),
            ("toolu_02", "use_skill", '{"name": "sql"}'),
        ],
        text="Checking.",
        pieces=11,
    )
    async with FakeModelServer([sse_reply(frames)]) as server:
        provider = make_provider("anthropic", server.base_url, env=ENV)
        events = await collect(provider, tools=[SQL_TOOL])
    assert text_of(events) == "Checking."
    assert calls_of(events) == [
        ToolCall("toolu_01", "execute_sql", json.loads(args)),
        ToolCall("toolu_02", "use_skill", {"name": "sql"}),
    ]
    assert done_of(events).finish_reason == "tool_calls"
    assert server.requests[0].body["tools"] == [
        {
            "name": "execute_sql",
            "description": "Run SQL on a data source",
            "input_schema": SQL_TOOL.parameters,
        }
    ]


async def test_history_maps_tool_results_to_user_blocks_and_merges_same_roles() -> None:
    history = [
        Message(Role.USER, "Tables?"),
        Message(Role.USER, "Also count them."),
        Message(
            Role.ASSISTANT,
            "Looking.",
            tool_calls=(
                ToolCall("toolu_1", "execute_sql", {"query": "SELECT 1"}),
                ToolCall(
                    "toolu_2",
                    "execute_sql",
                    {"__invalid_arguments__": "{bad", "__arguments_error__": "x"},
                ),
            ),
        ),
        Message(Role.TOOL, "rows: 1", tool_call_id="toolu_1", name="execute_sql"),
        Message(
            Role.TOOL,
            "error: invalid arguments",
            tool_call_id="toolu_2",
            name="execute_sql",
        ),
        Message(
            Role.SYSTEM, "[Earlier conversation: 4 messages summarised]", summary=True
        ),
    ]
    async with FakeModelServer([sse_reply(anthropic_text_stream(["Two."]))]) as server:
        provider = make_provider("anthropic", server.base_url, env=ENV)
        await collect(provider, history)
    assert server.requests[0].body["messages"] == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Tables?"},
                {"type": "text", "text": "Also count them."},
            ],
        },
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Looking."},
                {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": "execute_sql",
                    "input": {"query": "SELECT 1"},
                },
                {
                    "type": "tool_use",
                    "id": "toolu_2",
                    "name": "execute_sql",
                    "input": {},
                },
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "rows: 1"},
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_2",
                    "content": "error: invalid arguments",
                },
                {
                    "type": "text",
                    "text": "[Earlier conversation: 4 messages summarised]",
                },
            ],
        },
    ]


async def test_malformed_input_json_is_marked_invalid() -> None:
    frames = anthropic_tool_stream([("toolu_9", "execute_sql", '{"query": SELECT')])
    async with FakeModelServer([sse_reply(frames)]) as server:
        provider = make_provider("anthropic", server.base_url, env=ENV)
        events = await collect(provider)
    (call,) = calls_of(events)
    assert invalid_arguments(call.arguments) is not None
    assert call.arguments["__invalid_arguments__"] == '{"query": SELECT'


async def test_overloaded_error_event_before_output_is_retried() -> None:
    start = anthropic_text_stream(["x"])[:2]  # message_start + ping
    replies = [
        sse_reply(start + [anthropic_error_event()]),
        sse_reply(anthropic_text_stream(["recovered"])),
    ]
    sleep = SleepRecorder()
    async with FakeModelServer(replies) as server:
        provider = make_provider("anthropic", server.base_url, env=ENV, sleep=sleep)
        events = await collect(provider)
    assert text_of(events) == "recovered" and len(sleep.delays) == 1


async def test_invalid_request_error_event_is_final() -> None:
    replies = [
        sse_reply(
            [anthropic_error_event("invalid_request_error", "prompt is too long")]
        )
    ]
    async with FakeModelServer(replies) as server:
        provider = make_provider("anthropic", server.base_url, env=ENV)
        with pytest.raises(ProviderError, match="prompt is too long") as caught:
            await collect(provider)
    assert not caught.value.retryable and len(server.requests) == 1


async def test_529_overloaded_and_429_retry_after_are_retried() -> None:
    replies = [
        json_reply(
            529,
            {
                "type": "error",
                "error": {"type": "overloaded_error", "message": "Overloaded"},
            },
        ),
        json_reply(
            429,
            {
                "type": "error",
                "error": {"type": "rate_limit_error", "message": "slow down"},
            },
            {"retry-after": "2"},
        ),
        sse_reply(anthropic_text_stream(["done"])),
    ]
    sleep = SleepRecorder()
    async with FakeModelServer(replies) as server:
        provider = make_provider("anthropic", server.base_url, env=ENV, sleep=sleep)
        events = await collect(provider)
    assert text_of(events) == "done"
    assert sleep.delays[1] == 2.0


async def test_stream_cut_before_message_stop_after_text_is_a_retryable_error() -> None:
    frames = anthropic_text_stream(["partial"], complete=False)
    async with FakeModelServer([sse_reply(frames, end="drop")]) as server:
        provider = make_provider("anthropic", server.base_url, env=ENV)
        with pytest.raises(
            ProviderError, match="cut off after partial output"
        ) as caught:
            await collect(provider)
    assert caught.value.retryable and len(server.requests) == 1


async def test_cancel_mid_stream_closes_the_connection() -> None:
    frames = anthropic_text_stream(["streaming"], complete=False)[:4]
    async with FakeModelServer([sse_reply(frames, end="stall")]) as server:
        provider = make_provider("anthropic", server.base_url, env=ENV)
        first = asyncio.Event()

        async def consume() -> None:
            async for event in provider.stream("", [Message(Role.USER, "q")], (), 10):
                if isinstance(event, TextDelta):
                    first.set()

        task = asyncio.create_task(consume())
        await asyncio.wait_for(first.wait(), 5)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await asyncio.wait_for(server.disconnected.wait(), 5)
        await provider.aclose()


async def test_missing_key_for_the_real_api_names_the_variable() -> None:
    provider = make_provider("anthropic", "https://api.anthropic.com", env={})
    with pytest.raises(
        ProviderError, match="set the ANTHROPIC_API_KEY environment variable"
    ):
        await collect(provider)
    await provider.aclose()


async def test_key_never_appears_in_errors() -> None:
    body = {
        "type": "error",
        "error": {
            "type": "authentication_error",
            "message": f"invalid x-api-key {KEY}",
        },
    }
    async with FakeModelServer([json_reply(401, body)]) as server:
        provider = make_provider("anthropic", server.base_url, env=ENV)
        with pytest.raises(ProviderError) as caught:
            await collect(provider)
    assert KEY not in str(caught.value) and "ANTHROPIC_API_KEY" in str(caught.value)


async def test_input_json_nested_past_the_limit_is_marked_invalid_not_a_crash() -> None:
    deep = '{"query": ' + "[" * 5_000 + "]" * 5_000 + "}"
    frames = anthropic_tool_stream([("toolu_deep", "execute_sql", deep)])
    async with FakeModelServer([sse_reply(frames)]) as server:
        provider = make_provider("anthropic", server.base_url, env=ENV)
        events = await collect(provider)
    (call,) = calls_of(events)
    error = invalid_arguments(call.arguments)
    assert error is not None and "nested deeper than 64 levels" in error
    assert "llm.providers.fake.max_tool_arguments_depth" in error
