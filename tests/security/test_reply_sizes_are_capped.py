"""Issue 34, row 7: a misbehaving endpoint cannot make one reply take gigabytes. A tool call's
arguments are capped (``llm.providers.NAME.max_tool_arguments_bytes``) and so is a reply with
every event in it (``max_reply_bytes``) — checked on the bytes as they arrive, for the
OpenAI-compatible and the Anthropic stream readers. The model gets an error result for the call,
and the session stays small enough to continue."""

from __future__ import annotations

import json
import tracemalloc
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from aiq_tui.llm.base import StreamDone, ToolCallReady
from aiq_tui.llm.common import invalid_arguments
from tests.llm.fakes import openai_tool_stream, sse_reply
from tests.llm.helpers import collect
from tests.security.scripted import KEY, ScriptedModel, text

HUGE = 40_000_000  # the review's argument
CHUNK = 65_536


class _HugeArgumentStream(httpx.AsyncByteStream):
    """A reply whose one tool call carries ``size`` bytes of argument, sent as the wire
    does (64 KB at a time) — never held whole by the test itself."""

    def __init__(self, kind: str, size: int, *, one_line: bool) -> None:
        self.kind, self.size, self.one_line = kind, size, one_line
        self.sent = 0

    def _frames(self) -> tuple[bytes, bytes, bytes]:
        """(before the argument's text, how each argument piece starts/ends, after)."""
        if self.kind == "openai":
            head = (
                'data: {"choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,'
                '"id":"call_big","type":"function","function":{"name":"file_operations","arguments":""}}]}}]}\n\n'
            )
            piece = 'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"'
            close = '"}}]}}]}\n\n'
            tail = 'data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}\n\ndata: [DONE]\n\n'
        else:
            head = (
                'event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":5}}}\n\n'
                'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":'
                '{"type":"tool_use","id":"toolu_big","name":"file_operations","input":{}}}\n\n'
            )
            piece = (
                'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,'
                '"delta":{"type":"input_json_delta","partial_json":"'
            )
            close = '"}}\n\n'
            tail = (
                'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n'
                'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"tool_use"},'
                '"usage":{"output_tokens":9}}\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n'
            )
        return head.encode(), piece.encode() + b"\x00" + close.encode(), tail.encode()

    async def __aiter__(self) -> AsyncIterator[bytes]:
        head, piece, tail = self._frames()
        start, _, end = piece.partition(b"\x00")
        yield head
        # The argument's JSON text: {"operation":"write","path":"x","content":"AAAA…"} in pieces.
        body = b'{\\"operation\\":\\"write\\",\\"path\\":\\"x\\",\\"content\\":\\"'
        yield start + body + (b"" if self.one_line else end)
        remaining = self.size
        while remaining > 0:
            size = min(CHUNK, remaining)
            remaining -= size
            self.sent += size
            if self.one_line:
                yield b"A" * size
            else:  # one event per 64 KB, as a model streams its tokens (many at a time)
                yield start + b"A" * size + end
        yield (b'\\"}' + end) if self.one_line else (start + b'\\"}' + end)
        yield tail

    async def aclose(self) -> None:
        pass


def _provider(
    kind: str, stream: _HugeArgumentStream, client_box: list[httpx.AsyncClient]
):
    import random

    from aiq_tui.config import AppConfig, LLMSettings, ProviderSettings
    from aiq_tui.llm.factory import create_provider

    transport = httpx.MockTransport(
        lambda request: httpx.Response(
            200, headers={"content-type": "text/event-stream"}, stream=stream
        )
    )
    config = AppConfig(
        llm=LLMSettings(
            provider="fake",
            providers={
                "fake": ProviderSettings(
                    kind=kind,
                    model="test-model",
                    base_url="http://127.0.0.1:9",
                    max_retries=0,
                )
            },
        )
    )  # type: ignore[arg-type]
    client_box.append(httpx.AsyncClient(transport=transport))
    return create_provider(
        config, "fake", client=client_box[-1], env={}, rng=random.Random(1)
    )


@pytest.mark.parametrize("one_line", [False, True], ids=["in pieces", "one line"])
@pytest.mark.parametrize("kind", ["openai", "anthropic"])
async def test_a_40_mb_argument_is_dropped_with_bounded_memory_and_the_call_fails(
    kind: str, one_line: bool
) -> None:
    stream = _HugeArgumentStream(kind, HUGE, one_line=one_line)
    clients: list[httpx.AsyncClient] = []
    provider = _provider(kind, stream, clients)
    tracemalloc.start()
    try:
        events = await collect(provider)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        await clients[0].aclose()
    assert peak < 64 * 2**20, f"{peak / 2**20:.0f} MB for one reply"
    assert stream.sent < HUGE  # reading stopped at the cap, not at the end
    calls = [event.call for event in events if isinstance(event, ToolCallReady)]
    if calls:  # the call is known: it comes back as an error the model will read
        assert all(invalid_arguments(call.arguments) for call in calls)
        assert len(json.dumps(calls[0].arguments)) < 2000
        assert isinstance(events[-1], StreamDone)


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
async def test_an_argument_under_the_caps_still_arrives_whole(kind: str) -> None:
    stream = _HugeArgumentStream(kind, 500_000, one_line=False)
    clients: list[httpx.AsyncClient] = []
    events = await collect(_provider(kind, stream, clients))
    await clients[0].aclose()
    calls = [event.call for event in events if isinstance(event, ToolCallReady)]
    assert len(calls) == 1 and calls[0].arguments["content"] == "A" * 500_000


def test_a_session_after_an_oversized_call_stays_small_and_can_be_continued(
    isolated_home, tmp_path: Path, monkeypatch, capsys
) -> None:
    monkeypatch.chdir(tmp_path)  # the default caps: 2 MB per call's arguments
    big = json.dumps(
        {"operation": "write", "path": "notes.txt", "content": "A" * 3_000_000}
    )
    replies = [
        sse_reply(
            openai_tool_stream([("call_big", "file_operations", big)], pieces=60)
        ),
        text("could not write it"),
        text("second turn"),
    ]
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    from aiq_tui.cli import main

    with ScriptedModel(replies) as model:
        monkeypatch.setenv("OPENAI_BASE_URL", model.server.base_url)
        main(["ask", "--provider", "openai", "--json", "--deny-all", "write the notes"])
        saved = [
            json.loads(line)
            for line in capsys.readouterr().out.splitlines()
            if line.startswith('{"type": "session_saved"')
        ]
        session = Path(saved[-1]["path"])
        assert (
            session.stat().st_size < 200_000
        )  # not 3 MB of argument kept (76 MB in the review)
        # The model was told, as the call's result, that its arguments were too large.
        tool_results = [
            m for m in model.server.requests[1].body["messages"] if m["role"] == "tool"
        ]
        assert tool_results and "error" in tool_results[0]["content"]
        # … and the session continues.
        assert (
            main(
                [
                    "ask",
                    "--provider",
                    "openai",
                    "--json",
                    "--session",
                    saved[-1]["session_id"],
                    "and now?",
                ]
            )
            == 0
        )
        assert "second turn" in capsys.readouterr().out
    assert not (tmp_path / "notes.txt").exists()
