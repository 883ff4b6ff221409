"""The OpenTelemetry SDK pipeline: a tracer provider of its own, a batch span processor and the
OTLP/HTTP (protobuf) exporter — imported only when telemetry is on (the ``telemetry`` extra).

A turn never waits on the network: ended spans go into the batch processor's queue and a
background thread posts them. At exit :meth:`Pipeline.close` waits at most the flush timeout,
and less when the collector has already refused (a closed port costs milliseconds, a collector
that never answers costs the timeout, never more). The SDK's own log lines are kept off the
terminal (they would tear the TUI's screen); what went wrong is said once, in our words.

Nothing here is global: the provider is not installed as OpenTelemetry's global one, so a host
program's own tracing is left alone.

With ``console`` among the target's exporters (``OTEL_TRACES_EXPORTER=console``) each span is
also printed, as the SDK's console exporter writes it, on the stream the caller names.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from typing import Any, TextIO

import requests
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import (
    BatchSpanProcessor,
    ConsoleSpanExporter,
    SimpleSpanProcessor,
)
from opentelemetry.sdk.trace.id_generator import IdGenerator, RandomIdGenerator

from aiq_tui import __version__
from aiq_tui.telemetry.target import ExportTarget

# Spans are posted this long after they end unless OTEL_BSP_SCHEDULE_DELAY says otherwise (the
# SDK's default, 5 s, would leave a short `ask` with everything still queued at exit).
SCHEDULE_DELAY_MS = 500
TRACER_NAME = "aiq_tui"
RETRY_STOP_WAIT_S = (
    0.1  # after a refusal, how long the exporter's thread is given to end
)


class DeliveryWatch:
    """What happened to the exporter's requests (thread-safe): successes, failures and why."""

    def __init__(self, on_first_failure: Callable[[str], None] | None = None) -> None:
        self._changed = threading.Condition()
        self.delivered = 0
        self.failures = 0
        self.last_failure = ""
        self.failing = False  # the last request failed (a later success clears it)
        self._on_first_failure = on_first_failure

    def success(self) -> None:
        with self._changed:
            self.delivered += 1
            self.failing = False
            self._changed.notify_all()

    def failure(self, why: str) -> None:
        with self._changed:
            self.failures += 1
            self.last_failure = why
            self.failing = True
            first = self.failures == 1
            self._changed.notify_all()
        if first and self._on_first_failure is not None:
            self._on_first_failure(why)

    def wait_for(self, predicate: Callable[[], bool], timeout: float) -> bool:
        with self._changed:
            return self._changed.wait_for(predicate, timeout)

    def notify(self) -> None:
        with self._changed:
            self._changed.notify_all()


class WatchedSession(requests.Session):
    """The exporter's HTTP session (a public parameter of the OTLP exporter), telling the
    :class:`DeliveryWatch` how each request ended — so closing need not wait out the retries."""

    def __init__(self, watch: DeliveryWatch) -> None:
        super().__init__()
        self.watch = watch

    def request(
        self, method: Any, url: Any, *args: Any, **kwargs: Any
    ) -> requests.Response:
        try:
            response = super().request(method, url, *args, **kwargs)
        except requests.Timeout:
            self.watch.failure("the collector did not answer in time")
            raise
        except requests.ConnectionError:
            self.watch.failure("cannot connect to the collector")
            raise
        except Exception as exc:
            self.watch.failure(type(exc).__name__)
            raise
        if response.status_code >= 400:
            self.watch.failure(
                f"the collector answered HTTP {response.status_code} {response.reason or ''}".rstrip()
            )
        else:
            self.watch.success()
        return response


class PresetIds(IdGenerator):
    """Ids chosen before the span is built (:mod:`aiq_tui.trace_context`: when the event
    happened, so that a request already sent carried them); random ones otherwise. Used under
    the telemetry's lock only: :meth:`preset`, start the span, :meth:`clear`."""

    def __init__(self) -> None:
        self._random = RandomIdGenerator()
        self._trace_id: int | None = None
        self._span_id: int | None = None

    def preset(self, trace_id: int | None, span_id: int | None) -> None:
        self._trace_id, self._span_id = trace_id, span_id

    def clear(self) -> None:
        self._trace_id = self._span_id = None

    def generate_span_id(self) -> int:
        chosen, self._span_id = self._span_id, None
        return chosen or self._random.generate_span_id()

    def generate_trace_id(self) -> int:
        chosen, self._trace_id = self._trace_id, None
        return chosen or self._random.generate_trace_id()


class _QuietSdkLog(logging.Handler):
    """Keeps the SDK's warnings off stderr (the TUI's screen, ``ask``'s output)."""

    def emit(self, record: logging.LogRecord) -> None:
        pass


def quiet_sdk_logging() -> None:
    logger = logging.getLogger("opentelemetry")
    if not any(isinstance(h, _QuietSdkLog) for h in logger.handlers):
        logger.addHandler(_QuietSdkLog())
    logger.propagate = False


class Pipeline:
    """A tracer whose spans are exported to ``target`` in the background."""

    def __init__(
        self,
        target: ExportTarget,
        on_first_failure: Callable[[str], None] | None = None,
        console: TextIO | None = None,
    ) -> None:
        quiet_sdk_logging()
        self.target = target
        self.watch = DeliveryWatch(on_first_failure)
        # Resource.create reads OTEL_RESOURCE_ATTRIBUTES (and OTEL_SERVICE_NAME); the target has
        # already weighed their service.name against config.yaml, and ours are merged over them.
        resource = Resource.create(
            {"service.name": target.service_name, "service.version": __version__}
        )
        self.ids = PresetIds()
        # shutdown_on_exit=False: the SDK's own atexit hook would wait up to 30 s for a
        # collector that does not answer; close() bounds the wait instead.
        self.provider = TracerProvider(
            resource=resource, shutdown_on_exit=False, id_generator=self.ids
        )
        self.exporter: OTLPSpanExporter | None = None
        if "otlp" in target.exporters:
            self.exporter = OTLPSpanExporter(
                endpoint=target.endpoint,
                headers=dict(target.headers),
                session=WatchedSession(self.watch),
            )
            delay = (
                None if os.environ.get("OTEL_BSP_SCHEDULE_DELAY") else SCHEDULE_DELAY_MS
            )
            self.provider.add_span_processor(
                BatchSpanProcessor(self.exporter, schedule_delay_millis=delay)
            )
        if "console" in target.exporters and console is not None:
            self.provider.add_span_processor(
                SimpleSpanProcessor(ConsoleSpanExporter(out=console))
            )
        self.tracer = self.provider.get_tracer(TRACER_NAME, __version__)

    def close(self, timeout_s: float, configured_s: float | None = None) -> str | None:
        """Deliver what is queued, waiting at most ``timeout_s``; then a note on what was lost
        (None when everything arrived). Returns early when the collector refuses.
        ``configured_s``: the setting to name in the note (``timeout_s`` is what is left of it)."""
        if self.exporter is None:  # printed only: nothing waits on a collector
            self.provider.shutdown()
            return None
        done = threading.Event()
        failures_before = self.watch.failures

        def shut_down() -> None:
            try:
                self.provider.shutdown()  # the batch processor posts what is queued, then stops
            finally:
                done.set()
                self.watch.notify()

        # A daemon thread: a request to a collector that never answers must not keep the
        # process alive past the timeout.
        threading.Thread(target=shut_down, name="aiq-otel-close", daemon=True).start()
        self.watch.wait_for(
            lambda: done.is_set() or self.watch.failures > failures_before, timeout_s
        )
        if not done.is_set() and self.watch.failing:
            # Refused: stop the exporter's retries (it backs off for seconds) so its thread ends
            # now and the process can exit at once.
            self.exporter.shutdown()
            done.wait(RETRY_STOP_WAIT_S)
        if self.watch.failing:
            return f"telemetry: spans were not delivered to {self.target.endpoint} ({self.watch.last_failure})"
        if not done.is_set():
            return (
                f"telemetry: the collector at {self.target.endpoint} did not answer within "
                f"{configured_s or timeout_s:g} s (telemetry.flush_timeout_seconds); "
                "spans not yet delivered were dropped"
            )
        return None


__all__ = ["DeliveryWatch", "Pipeline", "PresetIds", "WatchedSession"]
