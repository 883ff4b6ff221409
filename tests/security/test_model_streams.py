"""Model streams (finding 11): an endless stream ends, an idle one fails, error bodies are capped."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator

import httpx
import pytest

from aiq_tui.llm.base import ProviderError
from aiq_tui.llm.sse import ERROR_BODY_CAP, Endpoint, stream_events
from tests.llm.fakes import FakeModelServer, openai_text_stream, sse_reply
from tests.llm.helpers import collect, make_provider


def _endless() -> list[str]:
    frames = openai_text_stream(["x"] * 5000, done=False)
    return frames[:-1]  # no finish, no usage: it just keeps going


async def test_an_endless_stream_is_stopped_at_max_response_seconds() -> None:
    async with FakeModelServer([sse_reply(_endless(), delay=0.005)]) as server:
        provider = make_provider(
            "openai", server.base_url, max_response_seconds=1, max_retries=0
        )
        started = time.monotonic()
        with pytest.raises(ProviderError, match="ran past 1 s"):
            await collect(provider)
        await provider.aclose()
    assert time.monotonic() - started < 15


async def test_a_stalled_stream_fails_after_the_idle_timeout() -> None:
    frames = openai_text_stream(["partial"])[:2]
    async with FakeModelServer([sse_reply(frames, end="stall")]) as server:
        provider = make_provider(
            "openai", server.base_url, idle_timeout_seconds=0.5, max_retries=0
        )
        with pytest.raises(ProviderError, match="no event .* for 0.5 s"):
            await collect(provider)
        await provider.aclose()


class _Endless(httpx.AsyncByteStream):
    def __init__(self) -> None:
        self.sent = 0

    async def __aiter__(self) -> AsyncIterator[bytes]:
        while True:  # a 200 MB (or endless) error body
            self.sent += 65536
            yield b"e" * 65536

    async def aclose(self) -> None:
        pass


async def test_an_error_body_is_read_with_a_cap() -> None:
    body = _Endless()
    transport = httpx.MockTransport(lambda request: httpx.Response(500, stream=body))
    endpoint = Endpoint(
        provider="fake", model="m", url="http://fake.test/v1/chat/completions"
    )
    async with httpx.AsyncClient(transport=transport) as client:
        with pytest.raises(ProviderError) as raised:
            async for _ in stream_events(
                client, endpoint, headers={}, payload={}, timeout=httpx.Timeout(5)
            ):
                pass
    assert "HTTP 500" in str(raised.value) and body.sent <= ERROR_BODY_CAP + 2 * 65536
