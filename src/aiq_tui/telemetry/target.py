"""Where spans go, decided once from ``telemetry:`` in config.yaml and the standard ``OTEL_*``
environment variables — a pure function, no OpenTelemetry import (the first frame pays nothing).

Precedence, as for model base URLs: a value in config.yaml, else the environment, else the
default. ``OTEL_SDK_DISABLED=true``, ``OTEL_TRACES_EXPORTER=none`` and ``telemetry.enabled:
false`` turn export off whatever else is set. Only OTLP over HTTP with protobuf is spoken; an
``OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL`` asking for anything else turns export off with a note.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Mapping
from urllib.parse import unquote

from aiq_tui.config import TelemetrySettings

DEFAULT_BASE = "http://localhost:4318"
TRACES_PATH = "v1/traces"
DEFAULT_SERVICE = "aiq-tui"
EXTRA_HINT = "pip install 'aiq-tui[telemetry]'"
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


@dataclass(frozen=True)
class ExportTarget:
    """Everything the exporter needs; ``headers`` hold secrets: never print or save them."""

    endpoint: str  # the full traces URL
    service_name: str
    log_content: bool
    content_max_chars: int
    flush_timeout_s: float
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)
    source: str = "config"  # what turned export on: "config" or the environment variable's name


@dataclass(frozen=True)
class Off:
    """Export is off; ``note`` says why when the user asked for it and should hear why not."""

    note: str = ""


def resolve_target(settings: TelemetrySettings, environ: Mapping[str, str]) -> ExportTarget | Off:
    """The :class:`ExportTarget` the settings and environment describe, or :class:`Off`."""
    if settings.enabled is False or _true(environ.get("OTEL_SDK_DISABLED")):
        return Off()
    if environ.get("OTEL_TRACES_EXPORTER", "").strip().lower() == "none":
        return Off()
    endpoint, source = _endpoint(settings, environ)
    if endpoint is None:
        return Off()
    protocol = (environ.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") or environ.get("OTEL_EXPORTER_OTLP_PROTOCOL")
                or "http/protobuf").strip().lower()
    if protocol != "http/protobuf":
        return Off(f"telemetry is off: OTLP protocol {protocol!r} is not supported; aiq-tui exports "
                   "http/protobuf (the collector's port 4318) — unset OTEL_EXPORTER_OTLP_PROTOCOL")
    headers = _headers(settings, environ)
    if isinstance(headers, Off):
        return headers
    service = settings.service_name or environ.get("OTEL_SERVICE_NAME", "").strip() or DEFAULT_SERVICE
    return ExportTarget(endpoint, service, settings.log_content, settings.content_max_chars,
                        settings.flush_timeout_seconds, headers, source)


def _endpoint(settings: TelemetrySettings, environ: Mapping[str, str]) -> tuple[str | None, str]:
    if settings.endpoint:
        return _traces_url(settings.endpoint), "config"
    if environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "").strip():
        return environ["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"].strip(), "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
    if environ.get("OTEL_EXPORTER_OTLP_ENDPOINT", "").strip():
        return _traces_url(environ["OTEL_EXPORTER_OTLP_ENDPOINT"].strip()), "OTEL_EXPORTER_OTLP_ENDPOINT"
    if settings.enabled:
        return _traces_url(DEFAULT_BASE), "config"
    return None, ""


def _traces_url(base: str) -> str:
    """A base URL with the signal path appended, as the OTLP specification says for
    ``OTEL_EXPORTER_OTLP_ENDPOINT``."""
    return f"{base.rstrip('/')}/{TRACES_PATH}"


def _headers(settings: TelemetrySettings, environ: Mapping[str, str]) -> dict[str, str] | Off:
    """``OTEL_EXPORTER_OTLP_HEADERS`` (or the traces one), then config's, ``${VAR}`` expanded."""
    raw = environ.get("OTEL_EXPORTER_OTLP_TRACES_HEADERS") or environ.get("OTEL_EXPORTER_OTLP_HEADERS") or ""
    headers = parse_header_list(raw)
    for name, value in settings.headers.items():
        missing = [var for var in _VARIABLE.findall(value) if var not in environ]
        if missing:
            return Off(f"telemetry is off: telemetry.headers.{name} references ${{{missing[0]}}}, "
                       "which is not set in the environment")
        headers[name.strip().lower()] = _VARIABLE.sub(lambda m: environ[m.group(1)], value)
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


__all__ = ["DEFAULT_SERVICE", "EXTRA_HINT", "ExportTarget", "Off", "parse_header_list", "resolve_target"]
