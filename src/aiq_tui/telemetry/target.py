"""Where spans go, decided once from ``telemetry:`` in config.yaml and the standard ``OTEL_*``
environment variables — a pure function, no OpenTelemetry import (the first frame pays nothing).

Precedence, as for model base URLs: a value in config.yaml, else the environment, else the
default. ``OTEL_SDK_DISABLED=true``, ``OTEL_TRACES_EXPORTER=none`` and ``telemetry.enabled:
false`` turn export off whatever else is set; ``OTEL_TRACES_EXPORTER=console`` prints the spans
instead of posting them (``otlp,console`` does both). Only OTLP over HTTP with protobuf is
spoken; an ``OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL`` asking for anything else turns export off
with a note naming the variable that asked. ``service.name`` comes from ``telemetry.service_name``,
else ``OTEL_SERVICE_NAME``, else ``OTEL_RESOURCE_ATTRIBUTES``, else ``aiq-tui``; contents are
exported when ``telemetry.log_content`` says so, else when
``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import unquote

from aiq_tui.config import TelemetrySettings
from aiq_tui.env_vars import fill

DEFAULT_BASE = "http://localhost:4318"
TRACES_PATH = "v1/traces"
DEFAULT_SERVICE = "aiq-tui"
EXTRA_HINT = "pip install 'aiq-tui[telemetry]'"
EXPORTERS = (
    "otlp",
    "console",
)  # what OTEL_TRACES_EXPORTER may name here (besides none)
CONTENT_VARIABLE = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"


@dataclass(frozen=True)
class ExportTarget:
    """Everything the exporter needs; ``headers`` hold secrets: never print or save them."""

    endpoint: str  # the full traces URL
    service_name: str
    log_content: bool
    content_max_chars: int
    flush_timeout_s: float
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)
    source: str = (
        "config"  # what turned export on: "config" or the environment variable's name
    )
    exporters: tuple[str, ...] = (
        "otlp",
    )  # otlp (to ``endpoint``) and/or console (printed)
    notes: tuple[
        str, ...
    ] = ()  # said once at start: a part of the settings that was not used


@dataclass(frozen=True)
class Off:
    """Export is off; ``note`` says why when the user asked for it and should hear why not."""

    note: str = ""


def resolve_target(
    settings: TelemetrySettings, environ: Mapping[str, str]
) -> ExportTarget | Off:
    """The :class:`ExportTarget` the settings and environment describe, or :class:`Off`."""
    if settings.enabled is False or _true(environ.get("OTEL_SDK_DISABLED")):
        return Off()
    exporters, notes = _exporters(environ)
    if not exporters:
        return Off(notes[0] if notes else "")
    endpoint, source = (
        _endpoint(settings, environ) if "otlp" in exporters else (None, "")
    )
    if endpoint is None:
        exporters = tuple(
            name for name in exporters if name != "otlp"
        )  # console alone needs no endpoint
        if not exporters:
            return Off()
        endpoint, source = "", "OTEL_TRACES_EXPORTER"
    headers: dict[str, str] = {}
    if "otlp" in exporters:
        protocol_variable = next(
            (
                name
                for name in (
                    "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
                    "OTEL_EXPORTER_OTLP_PROTOCOL",
                )
                if environ.get(name, "").strip()
            ),
            "",
        )
        protocol = (
            environ.get(protocol_variable, "http/protobuf").strip().lower()
            if protocol_variable
            else "http/protobuf"
        )
        if protocol != "http/protobuf":
            return Off(
                f"telemetry is off: OTLP protocol {protocol!r} ({protocol_variable}) is not supported; "
                f"aiq-tui exports http/protobuf (the collector's port 4318) — unset {protocol_variable} "
                "or set it to http/protobuf"
            )
        found = _headers(settings, environ)
        if isinstance(found, Off):
            return found
        headers = found
    log_content = (
        settings.log_content
        if settings.log_content is not None
        else _true(environ.get(CONTENT_VARIABLE))
    )
    return ExportTarget(
        endpoint,
        service_name(settings, environ),
        log_content,
        settings.content_max_chars,
        settings.flush_timeout_seconds,
        headers,
        source,
        exporters,
        notes,
    )


def service_name(settings: TelemetrySettings, environ: Mapping[str, str]) -> str:
    """``telemetry.service_name``, else ``OTEL_SERVICE_NAME``, else ``service.name`` in
    ``OTEL_RESOURCE_ATTRIBUTES`` (the SDK's own order for the two variables), else ``aiq-tui``."""
    return (
        settings.service_name
        or environ.get("OTEL_SERVICE_NAME", "").strip()
        or parse_header_list(environ.get("OTEL_RESOURCE_ATTRIBUTES", ""))
        .get("service.name", "")
        .strip()
        or DEFAULT_SERVICE
    )


def _exporters(environ: Mapping[str, str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The exporters ``OTEL_TRACES_EXPORTER`` asks for (default ``otlp``) and notes on names not
    spoken here. ``none`` anywhere in the list turns export off."""
    raw = [
        name.strip().lower()
        for name in environ.get("OTEL_TRACES_EXPORTER", "").split(",")
        if name.strip()
    ]
    if not raw:
        return ("otlp",), ()
    if "none" in raw:
        return (), ()
    known = tuple(dict.fromkeys(name for name in raw if name in EXPORTERS))
    unknown = [name for name in raw if name not in EXPORTERS]
    notes: tuple[str, ...] = ()
    if unknown:
        notes = (
            f"telemetry: OTEL_TRACES_EXPORTER names {', '.join(unknown)}, which aiq-tui does not export to "
            f"(it speaks {', '.join(EXPORTERS)} and none)"
            + ("" if known else "; telemetry is off"),
        )
    return known, notes


def _endpoint(
    settings: TelemetrySettings, environ: Mapping[str, str]
) -> tuple[str | None, str]:
    if settings.endpoint:
        return _traces_url(settings.endpoint), "config"
    if environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "").strip():
        return environ[
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
        ].strip(), "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
    if environ.get("OTEL_EXPORTER_OTLP_ENDPOINT", "").strip():
        return _traces_url(
            environ["OTEL_EXPORTER_OTLP_ENDPOINT"].strip()
        ), "OTEL_EXPORTER_OTLP_ENDPOINT"
    if settings.enabled:
        return _traces_url(DEFAULT_BASE), "config"
    return None, ""


def _traces_url(base: str) -> str:
    """A base URL with the signal path appended, as the OTLP specification says for
    ``OTEL_EXPORTER_OTLP_ENDPOINT``."""
    return f"{base.rstrip('/')}/{TRACES_PATH}"


def _headers(
    settings: TelemetrySettings, environ: Mapping[str, str]
) -> dict[str, str] | Off:
    """``OTEL_EXPORTER_OTLP_HEADERS`` (or the traces one), then config's, with ``${VAR}`` and
    ``${VAR:-default}`` filled in from the environment (:mod:`aiq_tui.env_vars`)."""
    raw = (
        environ.get("OTEL_EXPORTER_OTLP_TRACES_HEADERS")
        or environ.get("OTEL_EXPORTER_OTLP_HEADERS")
        or ""
    )
    headers = parse_header_list(raw)
    for name, value in settings.headers.items():
        missing: list[str] = []
        filled = fill(value, environ, missing)
        if missing:
            return Off(
                f"telemetry is off: telemetry.headers.{name} references ${{{missing[0]}}}, "
                "which is not set in the environment (give it a default with ${NAME:-value})"
            )
        headers[name.strip().lower()] = filled
    return headers


def parse_header_list(raw: str) -> dict[str, str]:
    """``key1=value1,key2=value2`` (W3C baggage style, values URL-encoded) as the OTLP exporter
    specification reads ``OTEL_EXPORTER_OTLP_HEADERS``; malformed members are skipped."""
    headers: dict[str, str] = {}
    for member in raw.split(","):
        name, sep, value = member.partition("=")
        if sep and name.strip():
            headers[unquote(name.strip()).lower()] = unquote(value.strip())
    return headers


def _true(value: str | None) -> bool:
    return (value or "").strip().lower() == "true"


__all__ = [
    "DEFAULT_SERVICE",
    "EXTRA_HINT",
    "ExportTarget",
    "Off",
    "parse_header_list",
    "resolve_target",
    "service_name",
]
