"""Each model request of a turn is bracketed by ModelRequestStarted / ModelRequestFinished (what
a trace's model-request span is built from); the replay and the UI are not changed by them."""

from __future__ import annotations

import asyncio
from pathlib import Path

from aiq_tui.events import (
    ModelRequestFinished,
    ModelRequestStarted,
    TokenStreamed,
    ToolCallRequested,
    TurnFinished,
    to_json,
)
from aiq_tui.replay.record import compact_event
from tests.agent.helpers import demo_engine, openai_engine
from tests.llm.fakes import (
    FakeModelServer,
    json_reply,
    openai_text_stream,
    openai_tool_stream,
    sse_reply,
)


async def test_every_round_is_one_request_with_the_usage_the_provider_reported(
    tmp_path: Path,
) -> None:
    replies = [
        sse_reply(
            openai_tool_stream(
                [("call_1", "use_skill", '{"skill_name": "sql-explorer"}')],
                usage=(300, 20),
            )
        ),
        sse_reply(openai_text_stream(["Done."], usage=(420, 5))),
    ]
    async with FakeModelServer(replies) as server:
        engine, seen = openai_engine(tmp_path / "home", server.base_url)
        await engine.send("use the sql skill")
    types = [
        type(e)
        for e in seen.events
        if isinstance(
            e,
            (
                ModelRequestStarted,
                ModelRequestFinished,
                ToolCallRequested,
                TurnFinished,
            ),
        )
    ]
    assert types == [
        ModelRequestStarted,
        ModelRequestFinished,
        ToolCallRequested,
        ModelRequestStarted,
        ModelRequestFinished,
        TurnFinished,
    ]
    started = seen.of(ModelRequestStarted)[0]
    assert (started.provider, started.kind, started.model) == (
        "fake",
        "openai",
        "gpt-4o-mini",
    )
    assert started.max_tokens > 0
    finished = seen.of(ModelRequestFinished)
    assert [
        (f.input_tokens, f.output_tokens, f.finish_reason, f.error) for f in finished
    ] == [(300, 20, "tool_calls", ""), (420, 5, "stop", "")]
    turn = seen.of(TurnFinished)[0]
    assert (turn.input_tokens, turn.output_tokens) == (720, 25)


async def test_a_failed_request_still_finishes_with_the_error(tmp_path: Path) -> None:
    async with FakeModelServer(
        [json_reply(400, {"error": {"message": "bad request"}})]
    ) as server:
        engine, seen = openai_engine(tmp_path / "home", server.base_url)
        await engine.send("hello")
    finished = seen.of(ModelRequestFinished)
    assert len(seen.of(ModelRequestStarted)) == len(finished) == 1
    assert finished[0].finish_reason == "error" and "400" in finished[0].error


async def test_a_cancelled_request_finishes_as_cancelled(tmp_path: Path) -> None:
    engine, seen = demo_engine(tmp_path / "home", delay=0.02)
    streaming = asyncio.Event()
    engine.subscribe(
        lambda e: streaming.set() if isinstance(e, TokenStreamed) else None
    )
    task = asyncio.create_task(
        engine.send(
            "Explain how skills are chosen. (demo: answer with about 400 tokens)"
        )
    )
    await asyncio.wait_for(streaming.wait(), 5)
    engine.cancel()
    await asyncio.wait_for(task, 5)
    assert [f.finish_reason for f in seen.of(ModelRequestFinished)] == ["cancelled"]


def test_the_new_events_print_as_json_and_only_a_request_marker_enters_the_replay() -> (
    None
):
    started = ModelRequestStarted("openai", "openai", "gpt-4o-mini", 1024)
    finished = ModelRequestFinished("openai", "gpt-4o-mini", 12, 7, "stop", 0.25)
    assert to_json(started)["type"] == "model_request_started"
    assert to_json(finished) == {
        "type": "model_request_finished",
        "provider": "openai",
        "model": "gpt-4o-mini",
        "input_tokens": 12,
        "output_tokens": 7,
        "finish_reason": "stop",
        "duration_s": 0.25,
        "error": "",
        "response_id": "",
    }
    # the request's contents (for telemetry's opt-in capture) never print
    assert "request" not in to_json(started)
    # the replay keeps where each request started (the prompt-size sparkline samples there), no details
    assert (
        compact_event(started) == {"type": "model_request_started"}
        and compact_event(finished) is None
    )
