"""Small shared helpers for provider tests: build a provider for a fake server, collect events."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from aiq_tui.config import AppConfig, LLMSettings, ProviderSettings
from aiq_tui.conversation import Message, Role, ToolSpec
from aiq_tui.llm.base import Provider, StreamDone, StreamEvent, TextDelta, ToolCallReady
from aiq_tui.llm.factory import create_provider


@dataclass
class SleepRecorder:
    """Injected instead of asyncio.sleep: records delays, never waits."""

    delays: list[float] = field(default_factory=list)

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


@dataclass
class RetryLog:
    calls: list[tuple[int, float, str]] = field(default_factory=list)

    def __call__(self, attempt: int, delay: float, reason: str) -> None:
        self.calls.append((attempt, delay, reason))


def make_provider(
    kind: str,
    base_url: str,
    *,
    env: dict[str, str] | None = None,
    sleep: SleepRecorder | None = None,
    on_retry: Any = None,
    **settings: Any,
) -> Provider:
    model = settings.pop("model", "test-model")
    config = AppConfig(
        llm=LLMSettings(
            provider="fake",
            providers={
                "fake": ProviderSettings(
                    kind=kind, model=model, base_url=base_url, **settings
                )
            },
        )
    )  # type: ignore[arg-type]
    return create_provider(
        config,
        "fake",
        env=env or {},
        sleep=sleep or SleepRecorder(),
        on_retry=on_retry,
        rng=random.Random(1),
    )


async def collect(
    provider: Provider,
    messages: Sequence[Message] | None = None,
    tools: Sequence[ToolSpec] = (),
    system: str = "You are terse.",
    max_tokens: int = 256,
) -> list[StreamEvent]:
    events: list[StreamEvent] = []
    async for event in provider.stream(
        system, messages or [Message(Role.USER, "Hi")], tools, max_tokens
    ):
        events.append(event)
    return events


def text_of(events: Sequence[StreamEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, TextDelta))


def calls_of(events: Sequence[StreamEvent]) -> list[Any]:
    return [e.call for e in events if isinstance(e, ToolCallReady)]


def done_of(events: Sequence[StreamEvent]) -> StreamDone:
    dones = [e for e in events if isinstance(e, StreamDone)]
    assert len(dones) == 1 and events[-1] is dones[0], "exactly one StreamDone, last"
    return dones[0]


SQL_TOOL = ToolSpec(
    "execute_sql",
    "Run SQL on a data source",
    {
        "type": "object",
        "properties": {"query": {"type": "string"}, "source": {"type": "string"}},
        "required": ["query"],
    },
)
