"""The standard OpenTelemetry switches, end to end: ``service.name`` from
``OTEL_RESOURCE_ATTRIBUTES``, ``OTEL_TRACES_EXPORTER=console``, content capture by
``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`` (input messages, system instructions and
tool definitions besides the output), and ``aiq-tui demo`` exporting like ``ask``."""

from __future__ import annotations

import json

import pytest

from aiq_tui.cli import main
from tests.telemetry.receiver import OtlpReceiver, ReceivedSpan

QUESTION = "how many customers are there?"


@pytest.fixture
def receiver(monkeypatch: pytest.MonkeyPatch) -> OtlpReceiver:
    with OtlpReceiver() as running:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", running.endpoint)
        yield running


def turns(spans: list[ReceivedSpan]) -> list[ReceivedSpan]:
    return [span for span in spans if span.name == "invoke_agent aiq-tui"]


def test_service_name_follows_otel_resource_attributes(
    receiver: OtlpReceiver,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(
        "OTEL_RESOURCE_ATTRIBUTES", "service.name=night-shift,deployment.environment=ci"
    )
    assert main(["ask", QUESTION]) == 0
    spans = receiver.wait_for(lambda got: bool(turns(got)))
    assert {span.resource["service.name"] for span in spans} == {"night-shift"}
    assert spans[0].resource["deployment.environment"] == "ci"


def test_console_exporter_prints_spans_on_stderr_and_posts_nothing(
    receiver: OtlpReceiver,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "console")
    assert main(["ask", QUESTION]) == 0
    out, err = capsys.readouterr()
    assert "| 200 |" in out and '"name": "invoke_agent aiq-tui"' not in out, (
        "the answer's stream stays clean"
    )
    assert '"name": "invoke_agent aiq-tui"' in err and '"name": "chat aiq-demo"' in err
    assert receiver.requests == [], "ask has flushed: nothing was, or will be, posted"


def test_content_capture_variable_exports_the_requests_input(
    receiver: OtlpReceiver,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "true")
    assert main(["ask", QUESTION]) == 0
    spans = receiver.wait_for(lambda got: bool(turns(got)))
    chats = [
        span for span in spans if span.attributes.get("gen_ai.operation.name") == "chat"
    ]
    first, last = chats[0].attributes, chats[-1].attributes
    system = json.loads(first["gen_ai.system_instructions"])
    assert system[0]["type"] == "text" and "sql-explorer" in system[0]["content"]
    messages = json.loads(first["gen_ai.input.messages"])
    assert messages[-1] == {
        "role": "user",
        "parts": [{"type": "text", "content": QUESTION}],
    }
    tools = {
        tool["name"]: tool for tool in json.loads(first["gen_ai.tool.definitions"])
    }
    assert (
        tools["execute_sql"]["type"] == "function"
        and tools["execute_sql"]["description"]
    )
    assert "properties" in tools["execute_sql"]["parameters"]
    # A later request carries the tool call and its result as parts of the conversation.
    later = json.loads(last["gen_ai.input.messages"])
    kinds = [part["type"] for message in later for part in message["parts"]]
    assert "tool_call" in kinds and "tool_call_response" in kinds
    assert "gen_ai.output.messages" in last


def test_content_is_not_captured_without_the_variable(
    receiver: OtlpReceiver, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["ask", QUESTION]) == 0
    spans = receiver.wait_for(lambda got: bool(turns(got)))
    assert not any(
        key in span.attributes
        for span in spans
        for key in (
            "gen_ai.input.messages",
            "gen_ai.system_instructions",
            "gen_ai.tool.definitions",
        )
    )


def test_demo_exports_its_turns(
    receiver: OtlpReceiver, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["demo", "--deny-all"]) in (0, 1)
    spans = receiver.wait_for(lambda got: len(turns(got)) >= 2)
    assert len({span.trace_id for span in turns(spans)}) == len(turns(spans)), (
        "one trace per turn"
    )
    assert "telemetry" not in capsys.readouterr().err


def test_the_tui_does_not_print_console_spans_and_says_why() -> None:
    from aiq_tui.config import AppConfig
    from aiq_tui.telemetry import start_telemetry

    said: list[str] = []
    assert (
        start_telemetry(
            AppConfig(), say=said.append, environ={"OTEL_TRACES_EXPORTER": "console"}
        )
        is None
    )
    assert len(said) == 1 and "tear the screen" in said[0]
