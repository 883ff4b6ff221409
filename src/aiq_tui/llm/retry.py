"""Bounded retries with exponential backoff and jitter around one streamed model call.

A call is retried only while it has produced nothing: once a text delta or tool call has
been yielded, repeating the call would duplicate output, so the failure is raised as a
retryable :class:`ProviderError` instead and the engine lets the user retry the turn.
"""

from __future__ import annotations

import asyncio
import inspect
import random
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

from aiq_tui.llm.base import (
    OnRetry,
    ProviderError,
    StreamEvent,
    TextDelta,
    ToolCallReady,
)

Sleep = Callable[[float], Awaitable[None]]


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to wait. ``max_retries`` comes from ``ProviderSettings``."""

    max_retries: int = 3
    base_delay: float = 0.5
    """First backoff in seconds; doubled on each further attempt."""
    max_delay: float = 20.0
    """Backoff never grows past this."""
    jitter: float = 0.25
    """Up to this fraction is added at random so many clients do not retry in lockstep."""
    max_retry_after: float = 120.0
    """A server asking to wait longer than this is not waited for: the error is raised."""

    def delay(
        self, attempt: int, retry_after: float | None, rng: random.Random
    ) -> float | None:
        """Seconds to wait before ``attempt`` (1-based); None when the wait is too long."""
        if retry_after is not None:
            # The server said exactly how long; honour it (no jitter, it is already spread).
            return retry_after if retry_after <= self.max_retry_after else None
        backoff = min(self.max_delay, self.base_delay * (2 ** (attempt - 1)))
        return backoff * (1 + rng.uniform(0, self.jitter))


def parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """``Retry-After`` as seconds: either delta-seconds or an HTTP date (RFC 9110)."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    current = now or datetime.now(UTC)
    return max(0.0, (when - current).total_seconds())


async def _notify(
    on_retry: OnRetry | None, attempt: int, delay: float, reason: str
) -> None:
    if on_retry is None:
        return
    result = on_retry(attempt, delay, reason)
    if inspect.isawaitable(result):
        await result


async def with_retries(
    open_attempt: Callable[[], AsyncIterator[StreamEvent]],
    policy: RetryPolicy,
    *,
    on_retry: OnRetry | None = None,
    sleep: Sleep = asyncio.sleep,
    rng: random.Random | None = None,
) -> AsyncIterator[StreamEvent]:
    """Yield the events of ``open_attempt()``, starting it again on retryable errors."""
    rng = rng or random.Random()
    attempt = 0
    while True:
        produced = False
        stream = open_attempt()
        try:
            async for event in stream:
                if isinstance(event, (TextDelta, ToolCallReady)):
                    produced = True
                yield event
            return
        except ProviderError as exc:
            if produced:
                raise ProviderError(
                    f"{exc} — the reply was cut off after partial output; retry the turn",
                    retryable=True,
                    status=exc.status,
                    retry_after=exc.retry_after,
                ) from exc
            if not exc.retryable:
                raise
            if attempt >= policy.max_retries:
                tries = "1 attempt" if attempt == 0 else f"{attempt + 1} attempts"
                raise ProviderError(
                    f"{exc} (gave up after {tries})",
                    retryable=True,
                    status=exc.status,
                    retry_after=exc.retry_after,
                ) from exc
            attempt += 1
            delay = policy.delay(attempt, exc.retry_after, rng)
            if delay is None:
                raise ProviderError(
                    f"{exc} (the server asks to wait {exc.retry_after:.0f} s; try again later)",
                    retryable=True,
                    status=exc.status,
                    retry_after=exc.retry_after,
                ) from exc
            await _notify(on_retry, attempt, delay, str(exc))
            await sleep(delay)
        finally:
            await stream.aclose()  # type: ignore[attr-defined]
