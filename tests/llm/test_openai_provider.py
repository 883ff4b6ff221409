"""OpenAI-compatible provider against a fake Chat Completions server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest

from aiq_tui.conversation import Message, Role, ToolCall
from aiq_tui.llm.base import ProviderError, TextDelta, Usage
from aiq_tui.llm.common import invalid_arguments
from tests.llm.fakes import (
    FakeModelServer,
    Reply,
    json_reply,
    openai_text_stream,
    openai_tool_stream,
    rechunk,
    sse_reply,
)
from tests.llm.helpers import (
    SQL_TOOL,
    RetryLog,
    SleepRecorder,
    calls_of,
    collect,
    done_of,
    make_provider,
    text_of,
)

KEY = "sk-test-SECRET-0123456789"


async def test_plain_text_streams_in_order_with_usage() -> None:
    async with FakeModelServer(
        [sse_reply(openai_text_stream(["Hel", "lo", ", wor", "ld"], usage=(11, 4)))]
    ) as server:
        provider = make_provider("openai", server.base_url, env={"OPENAI_API_KEY": KEY})
        events = await collect(provider)
        await provider.aclose()
    assert [e.text for e in events if isinstance(e, TextDelta)] == [
        "Hel",
        "lo",
        ", wor",
        "ld",
    ]
    done = done_of(events)
    assert done.finish_reason == "stop" and done.usage == Usage(11, 4)
    request = server.requests[0]
    assert request.path == "/chat/completions"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.body["stream"] is True
    assert request.body["stream_options"] == {"include_usage": True}
    assert request.body["messages"][0] == {
        "role": "system",
        "content": "You are terse.",
    }
    assert request.body["max_tokens"] == 256


async def test_stream_split_at_arbitrary_byte_boundaries_decodes_the_same() -> None:
    reply = rechunk(sse_reply(openai_text_stream(["Grüße ", "aus ", "Köln ✓"])), 7)
    async with FakeModelServer([reply]) as server:
        provider = make_provider("openai", server.base_url)
        events = await collect(provider)
    assert text_of(events) == "Grüße aus Köln ✓"


async def test_tool_call_deltas_split_across_many_chunks_are_assembled_by_index() -> (
    None
):
    args_a = json.dumps(
        {
            "query": "SELECT name FROM sqlite_master WHERE type='table'",
            "source": "sample",
        }
    )
    args_b = json.dumps({"query": "SELECT 1"})
    frames = openai_tool_stream(
        [("call_a", "execute_sql", args_a), ("call_b", "execute_sql", args_b)],
        pieces=9,
        text="Let me look.",
    )
    async with FakeModelServer([sse_reply(frames)]) as server:
        provider = make_provider("openai", server.base_url)
        events = await collect(provider, tools=[SQL_TOOL])
    assert text_of(events) == "Let me look."
    calls = calls_of(events)
    assert calls == [
        ToolCall("call_a", "execute_sql", json.loads(args_a)),
        ToolCall("call_b", "execute_sql", json.loads(args_b)),
    ]
    assert done_of(events).finish_reason == "tool_calls"
    tool = server.requests[0].body["tools"][0]
    assert tool == {
        "type": "function",
        "function": {
            "name": "execute_sql",
            "description": "Run SQL on a data source",
            "parameters": SQL_TOOL.parameters,
        },
    }


async def test_history_with_tool_calls_and_results_is_sent_in_chat_completions_form() -> (
    None
):
    history = [
        Message(Role.USER, "How many tables?"),
        Message(
            Role.ASSISTANT,
            "",
            tool_calls=(ToolCall("call_1", "execute_sql", {"query": "SELECT 1"}),),
        ),
        Message(
            Role.TOOL, '{"rows": [[1]]}', tool_call_id="call_1", name="execute_sql"
        ),
    ]
    async with FakeModelServer([sse_reply(openai_text_stream(["One."]))]) as server:
        provider = make_provider("openai", server.base_url)
        await collect(provider, history)
    sent = server.requests[0].body["messages"]
    assert sent[1] == {"role": "user", "content": "How many tables?"}
    assert sent[2] == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {
                    "name": "execute_sql",
                    "arguments": '{"query": "SELECT 1"}',
                },
            }
        ],
    }
    assert sent[3] == {
        "role": "tool",
        "tool_call_id": "call_1",
        "content": '{"rows": [[1]]}',
    }


async def test_malformed_tool_json_is_delivered_with_an_invalid_arguments_marker() -> (
    None
):
    frames = openai_tool_stream([("call_x", "execute_sql", '{"query": "SELECT 1", ')])
    async with FakeModelServer([sse_reply(frames)]) as server:
        provider = make_provider("openai", server.base_url)
        events = await collect(provider, tools=[SQL_TOOL])
    (call,) = calls_of(events)
    assert call.id == "call_x" and call.name == "execute_sql"
    error = invalid_arguments(call.arguments)
    assert error is not None and "not valid JSON" in error
    assert done_of(events).finish_reason == "tool_calls"


def _nested(levels: int) -> str:
    """Tool arguments nesting ``levels`` levels in all: ``{"query": [[...]]}``."""
    inner = levels - 1
    return '{"query": ' + "[" * inner + "]" * inner + "}"


async def test_tool_arguments_at_the_depth_limit_are_delivered() -> None:
    frames = openai_tool_stream([("call_ok", "execute_sql", _nested(64))], pieces=2)
    async with FakeModelServer([sse_reply(frames)]) as server:
        provider = make_provider("openai", server.base_url)
        events = await collect(provider, tools=[SQL_TOOL])
    (call,) = calls_of(events)
    assert invalid_arguments(call.arguments) is None


@pytest.mark.parametrize("levels", [65, 5_000])
async def test_tool_arguments_nested_past_the_limit_are_an_invalid_call_not_a_crash(
    levels: int,
) -> None:
    frames = openai_tool_stream(
        [("call_deep", "execute_sql", _nested(levels))], pieces=2
    )
    async with FakeModelServer([sse_reply(frames)]) as server:
        provider = make_provider("openai", server.base_url)
        events = await collect(provider, tools=[SQL_TOOL])
    (call,) = calls_of(events)
    error = invalid_arguments(call.arguments)
    assert error is not None and "nested deeper than 64 levels" in error
    assert "llm.providers.fake.max_tool_arguments_depth" in error
    assert done_of(events).finish_reason == "tool_calls"


async def test_an_event_nested_too_deep_for_json_is_a_provider_error_not_a_recursion_error() -> (
    None
):
    frame = "data: " + "[" * 100_000 + "]" * 100_000 + "\n\n"
    async with FakeModelServer([sse_reply([frame])]) as server:
        provider = make_provider("openai", server.base_url, max_retries=0)
        with pytest.raises(ProviderError, match="malformed event"):
            await collect(provider)


async def test_an_error_body_nested_too_deep_is_quoted_not_a_recursion_error() -> None:
    deep = ("[" * 100_000 + "]" * 100_000).encode()
    async with FakeModelServer(
        [Reply(400, {"content-type": "application/json"}, [deep])]
    ) as server:
        provider = make_provider("openai", server.base_url)
        with pytest.raises(ProviderError, match="HTTP 400"):
            await collect(provider)


async def test_429_with_retry_after_is_retried_after_the_delay_the_server_asked_for() -> (
    None
):
    replies = [
        json_reply(
            429,
            {"error": {"message": "Rate limit reached", "type": "requests"}},
            {"retry-after": "7"},
        ),
        sse_reply(openai_text_stream(["ok"])),
    ]
    sleep, log = SleepRecorder(), RetryLog()
    async with FakeModelServer(replies) as server:
        provider = make_provider("openai", server.base_url, sleep=sleep, on_retry=log)
        events = await collect(provider)
    assert text_of(events) == "ok"
    assert sleep.delays == [7.0]
    assert log.calls[0][:2] == (1, 7.0)
    assert (
        "HTTP 429" in log.calls[0][2]
        and "fake" in log.calls[0][2]
        and "Rate limit reached" in log.calls[0][2]
    )
    assert len(server.requests) == 2


async def test_500_then_success_backs_off_exponentially_with_jitter() -> None:
    replies = [
        json_reply(500, {"error": {"message": "boom"}}),
        json_reply(503, {"error": {"message": "busy"}}),
        sse_reply(openai_text_stream(["fine"])),
    ]
    sleep = SleepRecorder()
    async with FakeModelServer(replies) as server:
        provider = make_provider("openai", server.base_url, sleep=sleep, max_retries=3)
        events = await collect(provider)
    assert text_of(events) == "fine"
    first, second = sleep.delays
    assert 0.5 <= first <= 0.5 * 1.25 and 1.0 <= second <= 1.0 * 1.25


async def test_retries_are_bounded_and_the_error_names_status_and_provider() -> None:
    replies = [json_reply(503, {"error": {"message": "overloaded"}})] * 3
    sleep = SleepRecorder()
    async with FakeModelServer(replies) as server:
        provider = make_provider("openai", server.base_url, sleep=sleep, max_retries=2)
        with pytest.raises(ProviderError) as caught:
            await collect(provider)
    assert len(server.requests) == 3 and len(sleep.delays) == 2
    message = str(caught.value)
    assert (
        message.startswith("fake (test-model): HTTP 503")
        and "gave up after 3 attempts" in message
    )
    assert caught.value.status == 503 and caught.value.retryable


async def test_client_errors_are_not_retried_and_401_names_the_key_variable() -> None:
    async with FakeModelServer(
        [json_reply(401, {"error": {"message": "Incorrect API key provided"}})]
    ) as server:
        provider = make_provider("openai", server.base_url, env={"OPENAI_API_KEY": KEY})
        with pytest.raises(ProviderError, match="OPENAI_API_KEY") as caught:
            await collect(provider)
    assert len(server.requests) == 1 and not caught.value.retryable


async def test_connection_dropped_before_any_output_is_retried() -> None:
    frames = openai_text_stream(["never"])[
        :1
    ]  # role chunk only, then the connection dies
    replies = [
        sse_reply(frames, end="drop"),
        sse_reply(openai_text_stream(["second try"])),
    ]
    async with FakeModelServer(replies) as server:
        provider = make_provider("openai", server.base_url)
        events = await collect(provider)
    assert text_of(events) == "second try" and len(server.requests) == 2


async def test_connection_dropped_after_partial_text_raises_retryable_without_duplicating() -> (
    None
):
    frames = openai_text_stream(["The answer ", "is "])[:3]
    async with FakeModelServer(
        [sse_reply(frames, end="drop"), sse_reply(openai_text_stream(["x"]))]
    ) as server:
        provider = make_provider("openai", server.base_url)
        seen: list[str] = []
        with pytest.raises(ProviderError) as caught:
            async for event in provider.stream("", [Message(Role.USER, "q")], (), 50):
                if isinstance(event, TextDelta):
                    seen.append(event.text)
    assert seen == ["The answer ", "is "]
    assert caught.value.retryable and "cut off after partial output" in str(
        caught.value
    )
    assert len(server.requests) == 1


async def test_stream_without_done_or_finish_reason_counts_as_dropped() -> None:
    frames = openai_text_stream(["a"])[:2]
    async with FakeModelServer(
        [sse_reply(frames)]
    ) as server:  # clean end, but incomplete
        provider = make_provider("openai", server.base_url, max_retries=0)
        with pytest.raises(ProviderError, match="ended before the reply was complete"):
            await collect(provider)


async def test_read_timeout_is_retried_then_reported() -> None:
    replies = [sse_reply([], end="stall"), sse_reply([], end="stall")]
    async with FakeModelServer(replies) as server:
        provider = make_provider(
            "openai", server.base_url, timeout_seconds=0.2, max_retries=1
        )
        with pytest.raises(ProviderError, match="timed out") as caught:
            await collect(provider)
    assert caught.value.retryable and len(server.requests) == 2


async def test_cancelling_mid_stream_closes_the_connection() -> None:
    frames = openai_text_stream(["first "])[:2]
    async with FakeModelServer([sse_reply(frames, end="stall")]) as server:
        provider = make_provider("openai", server.base_url)
        got_first = asyncio.Event()

        async def consume() -> None:
            async for event in provider.stream("", [Message(Role.USER, "q")], (), 50):
                if isinstance(event, TextDelta):
                    got_first.set()

        task = asyncio.create_task(consume())
        await asyncio.wait_for(got_first.wait(), 5)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await asyncio.wait_for(server.disconnected.wait(), 5)
        await provider.aclose()


async def test_local_base_url_needs_no_key_and_sends_no_authorization() -> None:
    async with FakeModelServer([sse_reply(openai_text_stream(["local"]))]) as server:
        provider = make_provider("openai", server.base_url + "/v1", env={})
        events = await collect(provider)
    assert text_of(events) == "local"
    assert "authorization" not in server.requests[0].headers
    assert server.requests[0].path == "/v1/chat/completions"


async def test_missing_key_for_the_real_openai_host_is_a_clear_error() -> None:
    provider = make_provider("openai", "https://api.openai.com/v1", env={})
    with pytest.raises(
        ProviderError, match="set the OPENAI_API_KEY environment variable"
    ):
        await collect(provider)
    await provider.aclose()


async def test_api_key_is_redacted_from_error_messages() -> None:
    # A misbehaving proxy echoes the Authorization header back in its error body.
    body = {"error": {"message": f"bad header Authorization: Bearer {KEY}"}}
    async with FakeModelServer([json_reply(400, body)]) as server:
        provider = make_provider("openai", server.base_url, env={"OPENAI_API_KEY": KEY})
        with pytest.raises(ProviderError) as caught:
            await collect(provider)
    assert KEY not in str(caught.value) and "***" in str(caught.value)
    assert KEY not in repr(provider)


async def test_non_event_stream_answer_is_a_clear_error() -> None:
    reply = json_reply(200, {"choices": []})
    async with FakeModelServer([reply]) as server:
        provider = make_provider("openai", server.base_url)
        with pytest.raises(ProviderError, match="did not answer with an event stream"):
            await collect(provider)


async def test_summarise_returns_the_models_text() -> None:
    async with FakeModelServer(
        [sse_reply(openai_text_stream(["User asked ", "about books."]))]
    ) as server:
        provider = make_provider("openai", server.base_url)
        summary = await provider.summarise(
            [
                Message(Role.USER, "Which books sell best?"),
                Message(Role.ASSISTANT, "Dune."),
            ],
            100,
        )
    assert summary == "User asked about books."
    prompt = server.requests[0].body["messages"][-1]["content"]
    assert "user: Which books sell best?" in prompt and "assistant: Dune." in prompt


async def test_injected_client_is_used_and_not_closed() -> None:
    async with (
        FakeModelServer([sse_reply(openai_text_stream(["via client"]))]) as server,
        httpx.AsyncClient() as client,
    ):
        from aiq_tui.config import AppConfig, LLMSettings, ProviderSettings
        from aiq_tui.llm.factory import create_provider

        config = AppConfig(
            llm=LLMSettings(
                providers={
                    "local": ProviderSettings(
                        kind="openai", model="m", base_url=server.base_url
                    )
                }
            )
        )
        provider = create_provider(config, "local", client=client, env={})
        events = await collect(provider)
        await provider.aclose()
        assert not client.is_closed
    assert text_of(events) == "via client"
