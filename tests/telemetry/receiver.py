"""An OTLP/HTTP trace receiver on 127.0.0.1 for tests: it decodes each protobuf
``ExportTraceServiceRequest`` (with the opentelemetry-proto package, as a collector does) into
plain :class:`ReceivedSpan` values; and two collectors that fail — a closed port and a
"blackhole" that accepts connections and never answers.

Import as ``from tests.telemetry.receiver import ...``.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue


@dataclass(frozen=True)
class ReceivedEvent:
    name: str
    attributes: dict[str, Any]
    time_ns: int


@dataclass(frozen=True)
class ReceivedSpan:
    name: str
    trace_id: str
    span_id: str
    parent_id: str  # "" for a root span
    kind: int  # opentelemetry.proto.trace.v1.Span.SpanKind: 1 internal, 3 client
    start_ns: int
    end_ns: int
    attributes: dict[str, Any]
    events: tuple[ReceivedEvent, ...]
    status_code: int  # 0 unset, 1 ok, 2 error
    status_message: str
    resource: dict[str, Any] = field(default_factory=dict)

    def event_names(self) -> list[str]:
        return [e.name for e in self.events]


@dataclass(frozen=True)
class ReceivedRequest:
    path: str
    headers: dict[str, str]  # lower-case names
    content_type: str


def plain(value: AnyValue) -> Any:
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return [plain(v) for v in value.array_value.values]
    if kind == "kvlist_value":
        return attributes_of(value.kvlist_value.values)
    return getattr(value, kind) if kind else None


def attributes_of(pairs: Any) -> dict[str, Any]:
    return {pair.key: plain(pair.value) for pair in pairs if isinstance(pair, KeyValue)}


class OtlpReceiver:
    """``with OtlpReceiver() as receiver: receiver.endpoint`` — the base URL to set as
    ``OTEL_EXPORTER_OTLP_ENDPOINT``; traces arrive at ``/v1/traces``."""

    def __init__(self) -> None:
        self.spans: list[ReceivedSpan] = []
        self.requests: list[ReceivedRequest] = []
        self._changed = threading.Condition()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", "0")))
                export = ExportTraceServiceRequest()
                export.ParseFromString(body)
                receiver._record(
                    ReceivedRequest(
                        self.path,
                        {k.lower(): v for k, v in self.headers.items()},
                        self.headers.get("content-type", ""),
                    ),
                    export,
                )
                reply = ExportTraceServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header("content-type", "application/x-protobuf")
                self.send_header("content-length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="otlp-receiver", daemon=True
        )

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> OtlpReceiver:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _record(
        self, request: ReceivedRequest, export: ExportTraceServiceRequest
    ) -> None:
        spans = []
        for resource_spans in export.resource_spans:
            resource = attributes_of(resource_spans.resource.attributes)
            for scope_spans in resource_spans.scope_spans:
                for span in scope_spans.spans:
                    spans.append(
                        ReceivedSpan(
                            span.name,
                            span.trace_id.hex(),
                            span.span_id.hex(),
                            span.parent_span_id.hex(),
                            span.kind,
                            span.start_time_unix_nano,
                            span.end_time_unix_nano,
                            attributes_of(span.attributes),
                            tuple(
                                ReceivedEvent(
                                    e.name,
                                    attributes_of(e.attributes),
                                    e.time_unix_nano,
                                )
                                for e in span.events
                            ),
                            span.status.code,
                            span.status.message,
                            resource,
                        )
                    )
        with self._changed:
            self.requests.append(request)
            self.spans.extend(spans)
            self._changed.notify_all()

    def wait_for(
        self, predicate: Callable[[list[ReceivedSpan]], bool], timeout: float = 30.0
    ) -> list[ReceivedSpan]:
        """The spans once ``predicate(spans)`` holds (AssertionError after ``timeout``)."""
        with self._changed:
            if not self._changed.wait_for(lambda: predicate(self.spans), timeout):
                raise AssertionError(
                    f"the receiver did not get the expected spans; got {[s.name for s in self.spans]}"
                )
            return list(self.spans)


class Blackhole:
    """A collector that accepts connections and never answers (nor reads)."""

    def __init__(self) -> None:
        self._socket = socket.socket()
        self._socket.bind(("127.0.0.1", 0))
        self._socket.listen(16)
        self.endpoint = f"http://127.0.0.1:{self._socket.getsockname()[1]}"
        self._held: list[socket.socket] = []
        self.accepted = threading.Event()
        self._thread = threading.Thread(
            target=self._accept, name="otlp-blackhole", daemon=True
        )

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self._socket.accept()
            except OSError:
                return
            self._held.append(connection)
            self.accepted.set()

    def __enter__(self) -> Blackhole:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            self._socket.shutdown(socket.SHUT_RDWR)  # wakes the accept() of the thread
        except OSError:
            pass
        self._socket.close()
        for connection in self._held:
            connection.close()


def closed_port_endpoint() -> str:
    """A 127.0.0.1 URL where nothing listens: connecting is refused at once."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"
