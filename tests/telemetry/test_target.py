"""Where spans go: config.yaml first, then the standard OTEL_* variables, then the default;
the switches that turn export off; headers from both, secrets by reference."""

from __future__ import annotations

import pytest

from aiq_tui.config import TelemetrySettings
from aiq_tui.telemetry.target import (
    ExportTarget,
    Off,
    parse_header_list,
    resolve_target,
)


def target(
    settings: TelemetrySettings | None = None, **environ: str
) -> ExportTarget | Off:
    return resolve_target(settings or TelemetrySettings(), environ)


def test_off_by_default_and_quietly() -> None:
    assert target() == Off("")


def test_the_base_endpoint_variable_gets_the_traces_path_and_the_traces_one_is_used_as_is() -> (
    None
):
    base = target(OTEL_EXPORTER_OTLP_ENDPOINT="http://collector:4318/")
    assert isinstance(base, ExportTarget)
    assert (base.endpoint, base.source) == (
        "http://collector:4318/v1/traces",
        "OTEL_EXPORTER_OTLP_ENDPOINT",
    )
    full = target(
        OTEL_EXPORTER_OTLP_ENDPOINT="http://collector:4318",
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT="https://traces.example/api/otlp",
    )
    assert (
        isinstance(full, ExportTarget)
        and full.endpoint == "https://traces.example/api/otlp"
    )


def test_config_names_the_endpoint_before_the_environment() -> None:
    chosen = target(
        TelemetrySettings(endpoint="http://mine:4318"),
        OTEL_EXPORTER_OTLP_ENDPOINT="http://theirs:4318",
    )
    assert (
        isinstance(chosen, ExportTarget)
        and chosen.endpoint == "http://mine:4318/v1/traces"
    )


def test_enabled_without_an_endpoint_uses_the_local_collector() -> None:
    chosen = target(TelemetrySettings(enabled=True))
    assert (
        isinstance(chosen, ExportTarget)
        and chosen.endpoint == "http://localhost:4318/v1/traces"
    )


@pytest.mark.parametrize(
    "switch",
    [
        {"OTEL_SDK_DISABLED": "true"},
        {"OTEL_SDK_DISABLED": "TRUE"},
        {"OTEL_TRACES_EXPORTER": "none"},
    ],
)
def test_the_standard_switches_turn_it_off(switch: dict[str, str]) -> None:
    assert target(TelemetrySettings(endpoint="http://c:4318"), **switch) == Off("")


def test_enabled_false_wins_over_the_environment() -> None:
    assert target(
        TelemetrySettings(enabled=False), OTEL_EXPORTER_OTLP_ENDPOINT="http://c:4318"
    ) == Off("")


def test_a_protocol_other_than_http_protobuf_is_off_with_a_note() -> None:
    off = target(
        OTEL_EXPORTER_OTLP_ENDPOINT="http://c:4317", OTEL_EXPORTER_OTLP_PROTOCOL="grpc"
    )
    assert isinstance(off, Off) and "grpc" in off.note
    on = target(
        OTEL_EXPORTER_OTLP_ENDPOINT="http://c:4318",
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL="http/protobuf",
        OTEL_EXPORTER_OTLP_PROTOCOL="grpc",
    )
    assert isinstance(on, ExportTarget), "the traces-specific variable wins"


def test_service_name_from_config_then_the_variable_then_aiq_tui() -> None:
    assert target(TelemetrySettings(enabled=True)).service_name == "aiq-tui"  # type: ignore[union-attr]
    assert (
        target(
            TelemetrySettings(enabled=True), OTEL_SERVICE_NAME="ci-agent"
        ).service_name
        == "ci-agent"
    )  # type: ignore[union-attr]
    chosen = target(
        TelemetrySettings(enabled=True, service_name="mine"),
        OTEL_SERVICE_NAME="ci-agent",
    )
    assert chosen.service_name == "mine"  # type: ignore[union-attr]


def test_headers_merge_the_variable_and_config_with_variables_expanded() -> None:
    settings = TelemetrySettings(
        enabled=True, headers={"Authorization": "Bearer ${TOKEN}", "X-Team": "blue"}
    )
    chosen = target(
        settings,
        OTEL_EXPORTER_OTLP_HEADERS="authorization=old,x-region=eu%2Dwest",
        TOKEN="t0k",
    )
    assert isinstance(chosen, ExportTarget)
    assert dict(chosen.headers) == {
        "authorization": "Bearer t0k",
        "x-team": "blue",
        "x-region": "eu-west",
    }
    assert "t0k" not in repr(chosen), (
        "header values never show in a repr (logs, crash reports)"
    )


def test_a_header_naming_an_unset_variable_turns_export_off_and_names_it() -> None:
    off = target(
        TelemetrySettings(enabled=True, headers={"Authorization": "Bearer ${NOT_SET}"})
    )
    assert (
        isinstance(off, Off)
        and "NOT_SET" in off.note
        and "telemetry.headers.Authorization" in off.note
    )


def test_the_header_list_format_skips_malformed_members() -> None:
    assert parse_header_list("a=1, b = two%20words ,broken,=x,c=") == {
        "a": "1",
        "b": "two words",
        "c": "",
    }


# -- the standard switches (issue 33) ----------------------------------------------------------------
def test_service_name_follows_otel_resource_attributes_after_otel_service_name() -> (
    None
):
    on = TelemetrySettings(enabled=True)
    chosen = target(
        on,
        OTEL_RESOURCE_ATTRIBUTES="deployment.environment=ci,service.name=from-resource",
    )
    assert chosen.service_name == "from-resource"  # type: ignore[union-attr]
    both = target(
        on,
        OTEL_RESOURCE_ATTRIBUTES="service.name=from-resource",
        OTEL_SERVICE_NAME="from-variable",
    )
    assert both.service_name == "from-variable", (
        "the SDK's order: OTEL_SERVICE_NAME wins"
    )  # type: ignore[union-attr]


def test_a_header_variable_may_carry_a_default() -> None:
    settings = TelemetrySettings(
        enabled=True,
        headers={
            "Authorization": "Bearer ${TOKEN:-anonymous}",
            "X-Team": "${TEAM:-blue}",
        },
    )
    chosen = target(settings, TOKEN="t0k")
    assert isinstance(chosen, ExportTarget)
    assert dict(chosen.headers) == {"authorization": "Bearer t0k", "x-team": "blue"}


def test_console_exporter_needs_no_endpoint_and_posts_nothing() -> None:
    chosen = target(OTEL_TRACES_EXPORTER="console")
    assert isinstance(chosen, ExportTarget) and chosen.exporters == ("console",)
    with_endpoint = target(
        OTEL_TRACES_EXPORTER="console", OTEL_EXPORTER_OTLP_ENDPOINT="http://c:4318"
    )
    assert with_endpoint.exporters == ("console",)  # type: ignore[union-attr]
    both = target(
        OTEL_TRACES_EXPORTER="otlp,console", OTEL_EXPORTER_OTLP_ENDPOINT="http://c:4318"
    )
    assert both.exporters == ("otlp", "console")  # type: ignore[union-attr]


def test_an_exporter_not_spoken_here_is_named_in_a_note() -> None:
    off = target(
        OTEL_TRACES_EXPORTER="zipkin", OTEL_EXPORTER_OTLP_ENDPOINT="http://c:4318"
    )
    assert isinstance(off, Off) and "zipkin" in off.note
    partly = target(
        OTEL_TRACES_EXPORTER="zipkin,otlp", OTEL_EXPORTER_OTLP_ENDPOINT="http://c:4318"
    )
    assert (
        isinstance(partly, ExportTarget)
        and partly.exporters == ("otlp",)
        and "zipkin" in partly.notes[0]
    )


@pytest.mark.parametrize(
    "variable", ["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"]
)
def test_the_protocol_note_names_the_variable_that_was_set(variable: str) -> None:
    off = target(OTEL_EXPORTER_OTLP_ENDPOINT="http://c:4317", **{variable: "grpc"})
    assert isinstance(off, Off) and variable in off.note
    other = (
        {"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"}
        - {variable}
    ).pop()
    assert other not in off.note


def test_content_capture_follows_the_genai_variable_unless_config_says() -> None:
    on = TelemetrySettings(enabled=True)
    assert target(on).log_content is False  # type: ignore[union-attr]
    assert (
        target(
            on, OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT="true"
        ).log_content
        is True
    )  # type: ignore[union-attr]
    assert (
        target(
            on, OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT="false"
        ).log_content
        is False
    )  # type: ignore[union-attr]
    told = TelemetrySettings(enabled=True, log_content=False)
    assert (
        target(
            told, OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT="true"
        ).log_content
        is False
    )  # type: ignore[union-attr]
