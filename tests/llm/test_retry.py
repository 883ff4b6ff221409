"""Retry policy: Retry-After parsing, backoff bounds, no retry after partial output."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest

from aiq_tui.llm.base import ProviderError, StreamDone, StreamEvent, TextDelta
from aiq_tui.llm.retry import RetryPolicy, parse_retry_after, with_retries
from tests.llm.helpers import RetryLog, SleepRecorder


def test_retry_after_in_seconds_and_as_http_date() -> None:
    now = datetime(2025, 1, 1, 12, 0, 0, tzinfo=UTC)
    assert parse_retry_after("3") == 3.0
    assert parse_retry_after("1.5") == 1.5
    assert (
        parse_retry_after(
            format_datetime(now + timedelta(seconds=30), usegmt=True), now=now
        )
        == 30.0
    )
    assert (
        parse_retry_after(
            format_datetime(now - timedelta(seconds=30), usegmt=True), now=now
        )
        == 0.0
    )
    assert parse_retry_after("soon") is None and parse_retry_after(None) is None


def test_backoff_doubles_is_capped_and_jitter_stays_in_bounds() -> None:
    policy = RetryPolicy(max_retries=10, base_delay=0.5, max_delay=4.0, jitter=0.25)
    rng = random.Random(0)
    delays = [policy.delay(n, None, rng) for n in range(1, 7)]
    for n, delay in enumerate(delays, start=1):
        base = min(4.0, 0.5 * 2 ** (n - 1))
        assert delay is not None and base <= delay <= base * 1.25
    assert policy.delay(1, 9.0, rng) == 9.0
    assert policy.delay(1, 10_000.0, rng) is None


async def test_a_huge_retry_after_is_not_waited_for() -> None:
    async def attempt() -> AsyncIterator[StreamEvent]:
        raise ProviderError("p: HTTP 429", retryable=True, status=429, retry_after=3600)
        yield  # pragma: no cover

    sleep = SleepRecorder()
    with pytest.raises(ProviderError, match="asks to wait 3600 s"):
        async for _ in with_retries(attempt, RetryPolicy(max_retries=3), sleep=sleep):
            pass
    assert sleep.delays == []


async def test_async_retry_callback_is_awaited_and_attempts_are_numbered() -> None:
    failures = [
        ProviderError("e1", retryable=True),
        ProviderError("e2", retryable=True),
    ]
    seen: list[tuple[int, str]] = []

    async def on_retry(attempt: int, delay: float, reason: str) -> None:
        seen.append((attempt, reason))

    async def attempt() -> AsyncIterator[StreamEvent]:
        if failures:
            raise failures.pop(0)
        yield TextDelta("ok")
        yield StreamDone("stop")

    events = [
        e
        async for e in with_retries(
            attempt,
            RetryPolicy(max_retries=3),
            on_retry=on_retry,
            sleep=SleepRecorder(),
        )
    ]
    assert events == [TextDelta("ok"), StreamDone("stop")]
    assert seen == [(1, "e1"), (2, "e2")]


async def test_non_retryable_errors_pass_through_untouched() -> None:
    error = ProviderError("bad request", retryable=False, status=400)

    async def attempt() -> AsyncIterator[StreamEvent]:
        raise error
        yield  # pragma: no cover

    log = RetryLog()
    with pytest.raises(ProviderError) as caught:
        async for _ in with_retries(
            attempt, RetryPolicy(), on_retry=log, sleep=SleepRecorder()
        ):
            pass
    assert caught.value is error and log.calls == []
