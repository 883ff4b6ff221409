"""``aiq-tui ask`` with an OTLP endpoint set: one turn arrives at a collector on 127.0.0.1 as
GenAI spans with the skill events; contents only with ``log_content``; a collector that is
down or never answers does not change the answer or the exit code."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from aiq_tui.cli import main
from aiq_tui.locations import Home
from tests.agent.helpers import write_config
from tests.telemetry.receiver import (
    Blackhole,
    OtlpReceiver,
    ReceivedSpan,
    closed_port_endpoint,
)

QUESTION = "how many customers are there?"


def ask(capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str, str]:
    code = main(["ask", *extra, QUESTION])
    out, err = capsys.readouterr()
    return code, out, err


def one_turn(spans: list[ReceivedSpan]) -> bool:
    return any(span.name == "invoke_agent aiq-tui" for span in spans)


def session_id(err: str) -> str:
    found = re.search(r"continue with --session (\S+)\)", err)
    assert found, err
    return found.group(1)


def every_value(spans: list[ReceivedSpan]) -> str:
    """All attribute values of spans and their events, as one text (to look for contents)."""
    values = [span.attributes for span in spans] + [
        e.attributes for span in spans for e in span.events
    ]
    return json.dumps(values)


@pytest.fixture
def receiver(monkeypatch: pytest.MonkeyPatch) -> OtlpReceiver:
    with OtlpReceiver() as running:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", running.endpoint)
        yield running


def test_one_ask_turn_arrives_as_a_turn_span_with_model_and_tool_children(
    receiver: OtlpReceiver, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = ask(capsys)
    assert code == 0 and "| 200 |" in out
    assert "telemetry" not in err, "nothing to say when export works"
    spans = receiver.wait_for(one_turn)

    (turn,) = [s for s in spans if s.name == "invoke_agent aiq-tui"]
    assert turn.parent_id == "" and turn.kind == 1
    # discovery at start-up, before the turn: its own span, exported with the turn's
    (discover,) = [s for s in spans if s.name == "aiq.skills.discover"]
    assert discover.attributes["aiq.catalog.skills"] >= 1
    assert turn.attributes["gen_ai.operation.name"] == "invoke_agent"
    assert turn.attributes["gen_ai.agent.name"] == "aiq-tui"
    assert turn.attributes["gen_ai.conversation.id"] == session_id(err)
    assert turn.resource["service.name"] == "aiq-tui"
    assert turn.status_code == 0

    models = [s for s in spans if s.attributes.get("gen_ai.operation.name") == "chat"]
    assert len(models) >= 2, "the demo asks the model, runs SQL, asks again"
    for model in models:
        assert model.name == "chat aiq-demo" and model.kind == 3  # CLIENT
        assert (model.trace_id, model.parent_id) == (turn.trace_id, turn.span_id)
        assert model.attributes["gen_ai.request.model"] == "aiq-demo"
        assert model.attributes["gen_ai.provider.name"] == "aiq.demo"
        assert model.attributes["gen_ai.usage.input_tokens"] > 0
        assert model.attributes["gen_ai.usage.output_tokens"] > 0
        assert turn.start_ns <= model.start_ns <= model.end_ns <= turn.end_ns
    assert models[-1].attributes["gen_ai.response.finish_reasons"] == ["stop"]
    assert (
        sum(m.attributes["gen_ai.usage.input_tokens"] for m in models)
        == turn.attributes["gen_ai.usage.input_tokens"]
    )
    assert (
        sum(m.attributes["gen_ai.usage.output_tokens"] for m in models)
        == turn.attributes["gen_ai.usage.output_tokens"]
    )

    tools = [
        s for s in spans if s.attributes.get("gen_ai.operation.name") == "execute_tool"
    ]
    assert tools and all(t.parent_id == turn.span_id for t in tools)
    sql = next(t for t in tools if t.attributes["gen_ai.tool.name"] == "execute_sql")
    assert (
        sql.name == "execute_tool execute_sql" and sql.attributes["gen_ai.tool.call.id"]
    )
    assert sql.attributes["aiq.tool.outcome"] == "ok" and sql.status_code == 0
    # Tool calls run between model requests: each span sits in its own stretch of the turn.
    chat_before = [m for m in models if m.end_ns <= sql.start_ns]
    assert chat_before and any(m.start_ns >= sql.end_ns for m in models)

    assert {r.path for r in receiver.requests} == {"/v1/traces"}
    assert {r.content_type for r in receiver.requests} == {"application/x-protobuf"}


def test_the_turn_carries_the_match_and_the_skill_loads_as_span_events(
    receiver: OtlpReceiver, capsys: pytest.CaptureFixture[str]
) -> None:
    assert ask(capsys)[0] == 0
    spans = receiver.wait_for(one_turn)
    events = [e for s in spans for e in s.events]
    matched = next(e for e in events if e.name == "aiq.skills.matched")
    assert "sql-explorer" in matched.attributes["aiq.match.skills"]
    assert matched.attributes["aiq.match.considered"] >= len(
        matched.attributes["aiq.match.skills"]
    )
    loads = [
        e
        for e in events
        if e.name == "aiq.skill.loaded"
        and e.attributes["aiq.skill.name"] == "sql-explorer"
    ]
    assert loads, [e.name for e in events]
    load = loads[0].attributes
    assert load["aiq.skill.state"] in ("active", "relevant")
    assert load["aiq.skill.previous_state"] in ("none", "inactive")
    assert load["aiq.skill.phase"] in ("brief", "full")
    assert load["aiq.skill.reason"] and load["aiq.skill.tokens"] > 0
    (turn,) = [s for s in spans if s.name == "invoke_agent aiq-tui"]
    assert (
        turn.attributes["aiq.budget.total_tokens"]
        <= turn.attributes["aiq.budget.window_tokens"]
    )
    assert "sql-explorer" in turn.attributes["aiq.budget.skills"]


def test_contents_are_not_exported_by_default(
    receiver: OtlpReceiver, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = ask(capsys)
    assert code == 0
    spans = receiver.wait_for(one_turn)
    exported = every_value(spans)
    for content in (
        QUESTION,
        "SELECT",
        "200 customers" if "200 customers" in out else "| 200 |",
    ):
        assert content not in exported
    names = {name for s in spans for name in s.attributes}
    assert not names & {
        "gen_ai.input.messages",
        "gen_ai.output.messages",
        "gen_ai.tool.call.arguments",
        "gen_ai.tool.call.result",
        "aiq.tool.summary",
        "aiq.match.query",
    }


def test_log_content_exports_the_question_the_answer_and_the_tool_io(
    receiver: OtlpReceiver, capsys: pytest.CaptureFixture[str], isolated_home: Home
) -> None:
    write_config(isolated_home.root, "telemetry:\n  log_content: true\n")
    assert ask(capsys)[0] == 0
    spans = receiver.wait_for(one_turn)
    (turn,) = [s for s in spans if s.name == "invoke_agent aiq-tui"]
    asked = json.loads(turn.attributes["gen_ai.input.messages"])
    assert asked == [{"role": "user", "parts": [{"type": "text", "content": QUESTION}]}]
    answered = json.loads(turn.attributes["gen_ai.output.messages"])
    assert (
        answered[0]["role"] == "assistant"
        and "200" in answered[0]["parts"][0]["content"]
    )
    sql = [s for s in spans if s.attributes.get("gen_ai.tool.name") == "execute_sql"][
        -1
    ]  # the count
    assert (
        "SELECT"
        in json.loads(sql.attributes["gen_ai.tool.call.arguments"])["sql"].upper()
    )
    assert "200" in sql.attributes["gen_ai.tool.call.result"]
    last_chat = [
        s for s in spans if s.attributes.get("gen_ai.operation.name") == "chat"
    ][-1]
    assert (
        "200"
        in json.loads(last_chat.attributes["gen_ai.output.messages"])[0]["parts"][0][
            "content"
        ]
    )


def test_headers_service_name_and_resource_attributes_follow_the_standard_variables(
    receiver: OtlpReceiver,
    capsys: pytest.CaptureFixture[str],
    isolated_home: Home,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(
        "OTEL_EXPORTER_OTLP_HEADERS", "x-team=blue%20team,authorization=from-env"
    )
    monkeypatch.setenv("OTEL_SERVICE_NAME", "nightly-agent")
    monkeypatch.setenv("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment=ci")
    monkeypatch.setenv("COLLECTOR_TOKEN", "s3cret-token")
    write_config(
        isolated_home.root,
        'telemetry:\n  headers:\n    Authorization: "Bearer ${COLLECTOR_TOKEN}"\n',
    )
    code, _, err = ask(capsys)
    assert code == 0
    spans = receiver.wait_for(one_turn)
    headers = receiver.requests[0].headers
    assert headers["x-team"] == "blue team"
    assert headers["authorization"] == "Bearer s3cret-token", (
        "config.yaml's header wins over the variable's"
    )
    assert spans[0].resource["service.name"] == "nightly-agent"
    assert spans[0].resource["deployment.environment"] == "ci"
    written = [
        p.read_text(encoding="utf-8")
        for p in isolated_home.root.rglob("*")
        if p.is_file() and p.suffix in (".json", ".yaml", ".txt")
    ]
    assert (
        not any("s3cret-token" in text for text in written)
        and "s3cret-token" not in err
    )


def test_config_endpoint_and_service_name_win_over_the_environment(
    receiver: OtlpReceiver,
    capsys: pytest.CaptureFixture[str],
    isolated_home: Home,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", closed_port_endpoint())
    monkeypatch.setenv("OTEL_SERVICE_NAME", "from-env")
    write_config(
        isolated_home.root,
        f"telemetry:\n  endpoint: {receiver.endpoint}\n  service_name: from-config\n",
    )
    assert ask(capsys)[0] == 0
    assert receiver.wait_for(one_turn)[0].resource["service.name"] == "from-config"


@pytest.mark.parametrize(
    "switch",
    ["OTEL_SDK_DISABLED=true", "OTEL_TRACES_EXPORTER=none", "config: enabled false"],
)
def test_export_can_be_switched_off(
    switch: str,
    receiver: OtlpReceiver,
    capsys: pytest.CaptureFixture[str],
    isolated_home: Home,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if switch.startswith("config"):
        write_config(isolated_home.root, "telemetry:\n  enabled: false\n")
    else:
        name, value = switch.split("=")
        monkeypatch.setenv(name, value)
    code, _, err = ask(capsys)
    assert code == 0 and "telemetry" not in err
    assert receiver.requests == [], (
        "ask returns after its flush: nothing was, or will be, sent"
    )


def test_a_grpc_protocol_is_refused_with_one_note(
    receiver: OtlpReceiver,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
    code, out, err = ask(capsys)
    assert code == 0 and "| 200 |" in out
    assert err.count("telemetry is off") == 1 and "grpc" in err
    assert receiver.requests == []


def test_a_bad_endpoint_in_config_is_a_usage_error_naming_the_setting(
    capsys: pytest.CaptureFixture[str], isolated_home: Home
) -> None:
    write_config(isolated_home.root, "telemetry:\n  endpoint: localhost:4318\n")
    code, _, err = ask(capsys)
    assert code == 2 and "telemetry" in err and "endpoint" in err and "http://" in err


# -- a collector that is down, or never answers ------------------------------------------------


@pytest.fixture
def close_seconds(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """How long each ``Telemetry.close`` took — the wait for undelivered spans at the end of a
    command, measured where it happens (the rest of ``ask`` varies with the machine's load)."""
    from aiq_tui.telemetry import Telemetry

    taken: list[float] = []
    close = Telemetry.close

    def timed(self: Telemetry) -> str | None:
        started = time.perf_counter()
        try:
            return close(self)
        finally:
            taken.append(time.perf_counter() - started)

    monkeypatch.setattr(Telemetry, "close", timed)
    return taken


def test_a_closed_port_neither_fails_nor_holds_up_the_command(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    isolated_home: Home,
    close_seconds: list[float],
) -> None:
    write_config(isolated_home.root, "telemetry:\n  flush_timeout_seconds: 30\n")
    endpoint = closed_port_endpoint()
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint)
    started = time.perf_counter()
    code, out, err = ask(capsys)
    elapsed = time.perf_counter() - started
    assert code == 0 and "| 200 |" in out
    notes = [line for line in err.splitlines() if "telemetry" in line]
    assert len(notes) == 1 and endpoint in notes[0], err
    # A refused connection ends the wait at once (about 10 ms here): neither the 30 s allowed for a
    # slow collector nor the exporter's retries and back-off (about 6 s) are waited for.
    assert len(close_seconds) == 1 and close_seconds[0] < 3.0, (
        f"closing took {close_seconds[0]:.2f} s"
    )
    assert elapsed < 30, f"ask took {elapsed:.1f} s with a closed collector port"


def test_a_collector_that_never_answers_is_given_up_on_after_the_flush_timeout(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    isolated_home: Home,
    close_seconds: list[float],
) -> None:
    write_config(isolated_home.root, "telemetry:\n  flush_timeout_seconds: 0.5\n")
    with Blackhole() as blackhole:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", blackhole.endpoint)
        code, out, err = ask(capsys)
        assert blackhole.accepted.is_set(), "the exporter did try"
    assert code == 0 and "| 200 |" in out
    notes = [line for line in err.splitlines() if "telemetry" in line]
    assert len(notes) == 1 and blackhole.endpoint in notes[0], err
    # It waited the flush timeout for an answer, and not the exporter's own 10 s request timeout;
    # the margin is for a loaded machine.
    assert len(close_seconds) == 1, close_seconds
    assert 0.45 <= close_seconds[0] < 0.5 + 3.0, (
        f"closing took {close_seconds[0]:.2f} s"
    )


# -- without the extra -------------------------------------------------------------------------

BLOCK_OPENTELEMETRY = """
import sys
from importlib.abc import MetaPathFinder

class NotInstalled(MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "opentelemetry" or name.startswith("opentelemetry."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, NotInstalled())
from aiq_tui.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_without_the_extra_ask_answers_and_says_once_what_to_install(
    tmp_path: Path, isolated_home: Home
) -> None:
    done = subprocess.run(
        [sys.executable, "-c", BLOCK_OPENTELEMETRY, "ask", QUESTION],
        capture_output=True,
        text=True,
        timeout=120,
        env={**_environment(), "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9"},
    )
    assert done.returncode == 0, done.stderr
    assert "| 200 |" in done.stdout
    assert done.stderr.count("aiq-tui[telemetry]") == 1, done.stderr
    assert "OTEL_EXPORTER_OTLP_ENDPOINT" in done.stderr


def _environment() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
