"""The engine's events as spans, read back from the SDK's in-memory exporter: evictions and
compressions with their reasons and figures, cancelled and failed requests, denied tools,
events between turns; and a telemetry failure never reaches the turn."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from aiq_tui.agent.engine import Engine
from aiq_tui.config import AppConfig
from aiq_tui.events import TokenStreamed, ToolCallDenied, ToolCallRequested
from aiq_tui.telemetry import Telemetry
from aiq_tui.telemetry.spans import TraceBuilder
from aiq_tui.telemetry.target import ExportTarget
from tests.agent.helpers import demo_engine, openai_engine, write_config
from tests.llm.fakes import (
    FakeModelServer,
    json_reply,
    openai_text_stream,
    openai_tool_stream,
    sse_reply,
)


class Traced:
    """A builder on an in-memory exporter, subscribed to ``engine``."""

    def __init__(self, engine: Any, *, log_content: bool = False) -> None:
        self.exporter = InMemorySpanExporter()
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.builder = TraceBuilder(
            provider.get_tracer("test"),
            log_content=log_content,
            conversation_id=lambda: engine.session.id,
        )
        engine.subscribe(lambda event: self.builder.apply(event, time.time_ns()))

    @property
    def spans(self) -> list[ReadableSpan]:
        return list(self.exporter.get_finished_spans())

    def turns(self) -> list[ReadableSpan]:
        return [s for s in self.spans if s.name == "invoke_agent aiq-tui"]

    def operation(self, name: str) -> list[ReadableSpan]:
        return [
            s
            for s in self.spans
            if (s.attributes or {}).get("gen_ai.operation.name") == name
        ]


def events(span: ReadableSpan, name: str) -> list[dict[str, Any]]:
    return [dict(e.attributes or {}) for e in span.events if e.name == name]


async def test_evictions_and_compressions_are_events_with_their_reasons_and_token_figures(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    write_config(home, "context:\n  window: 4800\n  reserve_output: 256\n")
    engine, _ = demo_engine(home)
    traced = Traced(engine)
    await engine.activate(
        "sql-explorer"
    )  # between turns: recorded on the next turn's span
    await engine.send("make a markdown report from the query results")
    filler = "word " * int(engine.window * 0.9 - engine.breakdown.total)
    await engine.send("Summarise: " + filler)

    first, second = traced.turns()
    explicit = events(first, "aiq.skill.loaded")[0]
    assert (
        explicit["aiq.skill.name"] == "sql-explorer"
        and "explicitly activated" in explicit["aiq.skill.reason"]
    )
    assert first.events[0].timestamp < first.start_time, (
        "it happened before the turn, and says so"
    )
    compressed = events(second, "aiq.context.compressed")
    assert compressed
    for figures in compressed:
        assert figures["aiq.compression.stage"] in (80, 90, 95)
        assert (
            figures["aiq.compression.tokens_after"]
            < figures["aiq.compression.tokens_before"]
        )
        assert figures["aiq.compression.step"]
    evicted = events(second, "aiq.skill.evicted")
    assert evicted and all("evicted at 9" in e["aiq.skill.reason"] for e in evicted)
    assert all(
        e["aiq.skill.name"] != "sql-explorer" and e["aiq.skill.state"] == "evicted"
        for e in evicted
    )
    assert any(name for e in compressed for name in e["aiq.compression.evicted"])


async def test_a_cancelled_turn_ends_its_spans_and_says_it_was_cancelled(
    tmp_path: Path,
) -> None:
    engine, _ = demo_engine(tmp_path / "home", delay=0.02)
    traced = Traced(engine)
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
    (turn,) = traced.turns()
    assert turn.attributes["aiq.turn.cancelled"] is True
    (model,) = traced.operation("chat")
    assert (
        model.status.status_code is StatusCode.ERROR
        and model.attributes["error.type"] == "cancelled"
    )
    assert model.attributes["gen_ai.response.finish_reasons"] == ("cancelled",)


async def test_a_failed_model_request_marks_the_request_and_the_turn_as_errors(
    tmp_path: Path,
) -> None:
    async with FakeModelServer(
        [json_reply(400, {"error": {"message": "bad request"}})]
    ) as server:
        engine, _ = openai_engine(tmp_path / "home", server.base_url)
        traced = Traced(engine)
        await engine.send("hello")
    (model,) = traced.operation("chat")
    assert (
        model.status.status_code is StatusCode.ERROR
        and model.attributes["error.type"] == "provider_error"
    )
    assert (
        model.attributes["gen_ai.provider.name"] == "openai"
        and model.attributes["aiq.provider"] == "fake"
    )
    (turn,) = traced.turns()
    assert turn.status.status_code is StatusCode.ERROR and "400" in (
        turn.status.description or ""
    )
    assert turn.attributes["error.type"] == "turn_error"
    assert events(turn, "aiq.error")[0]["aiq.error.retryable"] is False


@pytest.mark.parametrize("log_content", [False, True])
async def test_a_denied_tool_call_is_an_error_span_whose_reason_is_content(
    tmp_path: Path, log_content: bool
) -> None:
    replies = [
        sse_reply(
            openai_tool_stream(
                [
                    (
                        "call_1",
                        "file_operations",
                        '{"operation": "write", "path": "notes.txt", "content": "x"}',
                    )
                ]
            )
        ),
        sse_reply(openai_text_stream(["I could not write it."])),
    ]
    async with FakeModelServer(replies) as server:
        engine, seen = openai_engine(tmp_path / "home", server.base_url)
        # file writes ask, and nobody is there to answer: refused
        traced = Traced(engine, log_content=log_content)
        await engine.send("write a note")
    assert seen.of(ToolCallDenied), [type(e).__name__ for e in seen.events]
    (tool,) = traced.operation("execute_tool")
    assert tool.name == "execute_tool file_operations"
    assert (
        tool.status.status_code is StatusCode.ERROR
        and tool.attributes["aiq.tool.outcome"] == "denied"
    )
    assert ("aiq.tool.denied_reason" in tool.attributes) is log_content
    assert ("gen_ai.tool.call.arguments" in tool.attributes) is log_content


async def test_a_failing_exporter_never_reaches_the_turn_and_is_said_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine, _seen = demo_engine(tmp_path / "home")
    said: list[str] = []
    target = ExportTarget("http://127.0.0.1:9/v1/traces", "aiq-tui", False, 4096, 0.5)

    def broken(self: TraceBuilder, event: object, at: int, ids: object = None) -> None:
        if isinstance(event, ToolCallRequested):
            raise RuntimeError("builder bug")

    monkeypatch.setattr(TraceBuilder, "apply", broken)
    telemetry = Telemetry(target, say=said.append)
    engine.subscribe(telemetry)
    assert telemetry.wait_loaded(30)
    answer = await engine.send("how many customers are there?")
    await engine.send("and how many books?")
    telemetry.close()
    assert "| 200 |" in answer
    assert len(said) == 1 and "builder bug" in said[0]


def test_spans_of_events_emitted_while_the_sdk_loads_keep_their_own_times(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    applied: list[tuple[object, int]] = []
    monkeypatch.setattr(
        TraceBuilder,
        "apply",
        lambda self, event, at, ids=None: applied.append((event, at)),
    )
    target = ExportTarget("http://127.0.0.1:9/v1/traces", "aiq-tui", False, 4096, 0.5)
    before = time.time_ns()
    telemetry = Telemetry(target, say=lambda note: None)
    telemetry(TokenStreamed("early"))  # almost surely before the SDK has loaded
    emitted = time.time_ns()
    assert telemetry.wait_loaded(30)
    telemetry(TokenStreamed("late"))
    telemetry.close()
    assert [e.text for e, _ in applied] == ["early", "late"]  # type: ignore[attr-defined]
    assert before <= applied[0][1] <= emitted


def test_export_is_off_without_an_endpoint_and_nothing_is_imported(
    tmp_path: Path,
) -> None:
    from aiq_tui.telemetry import start_telemetry

    said: list[str] = []
    assert start_telemetry(AppConfig(), say=said.append, environ={}) is None
    assert said == []


def test_an_engine_without_telemetry_has_no_extra_subscriber(tmp_path: Path) -> None:
    from aiq_tui.telemetry import attach_telemetry
    from aiq_tui.workspace import Workspace

    engine = Engine.create(Workspace.open(home_flag=tmp_path / "home"))
    before = list(engine._sinks)
    assert attach_telemetry(engine, say=lambda note: None) is None
    assert engine._sinks == before


@pytest.mark.parametrize(
    ("error_type", "status_code"),
    [("-32601", "-32601"), ("tool_error", None), ("timeout", None)],
)
def test_a_failed_mcp_request_is_an_error_span_naming_the_kind_of_failure(
    error_type: str, status_code: str | None
) -> None:
    from aiq_tui.events import (
        McpCallFinished,
        McpCallStarted,
        TurnFinished,
        TurnStarted,
    )

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    builder = TraceBuilder(provider.get_tracer("test"))
    at = time.time_ns()
    builder.apply(TurnStarted("t1", "q"), at)
    builder.apply(
        ToolCallRequested("c1", "mcp__fx__echo", {}, "allow", "Say the text back."),
        at + 1,
    )
    builder.apply(
        McpCallStarted(
            "c1",
            "fx",
            "tools/call",
            "echo",
            "http",
            "2025-11-25",
            "s-123",
            "127.0.0.1",
            8123,
        ),
        at + 2,
    )
    builder.apply(McpCallFinished("c1", error_type, "it broke"), at + 3)
    builder.apply(TurnFinished("t1", "a"), at + 4)
    request = next(
        s for s in exporter.get_finished_spans() if s.name == "tools/call echo"
    )
    attributes = dict(request.attributes or {})
    assert (
        attributes["error.type"] == error_type
        and request.status.status_code is StatusCode.ERROR
    )
    assert attributes.get("rpc.response.status_code") == status_code
    assert (
        attributes["mcp.session.id"] == "s-123"
        and attributes["network.transport"] == "tcp"
    )
    assert (attributes["server.address"], attributes["server.port"]) == (
        "127.0.0.1",
        8123,
    )
    assert (
        attributes["network.protocol.name"] == "http"
        and attributes["mcp.protocol.version"] == "2025-11-25"
    )


def test_discovery_at_start_up_is_a_span_at_its_own_times(tmp_path: Path) -> None:
    engine, _ = demo_engine(tmp_path / "home")
    traced = Traced(engine)
    from aiq_tui.events import catalog_loaded

    loaded = catalog_loaded(engine.workspace.catalog)
    traced.builder.apply(loaded, time.time_ns())
    [span] = [s for s in traced.spans if s.name == "aiq.skills.discover"]
    assert span.start_time == loaded.started_ns
    assert span.end_time >= span.start_time
    assert span.attributes["aiq.catalog.skills"] == len(engine.workspace.catalog)
    assert span.attributes["aiq.catalog.directories"] == len(
        engine.workspace.skill_dirs
    )
