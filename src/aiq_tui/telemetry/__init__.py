"""OpenTelemetry export of every turn (issue 26): off by default, on when an OTLP endpoint is set.

Front ends call :func:`attach_telemetry` once the engine exists and :meth:`Telemetry.close` when
they end; everything else happens off the turn's path:

- deciding whether export is on reads config and the environment only (:mod:`.target`);
- the SDK (≈ 0.1 s of imports) loads in a background thread; events emitted meanwhile are kept
  with their times and turned into spans once it is there (:mod:`.spans`), so a turn never
  waits for it;
- spans are posted by the SDK's batch processor in its own thread (:mod:`.export`);
- the ids of a turn's span and of each MCP request's span are chosen when their events arrive
  (:mod:`aiq_tui.trace_context`), so :meth:`Telemetry.trace_context` can hand an MCP request
  its ``traceparent`` at once, even before the SDK has loaded; the spans get those very ids.

Without the ``telemetry`` extra, or with an unusable setting, export is off and the user is
told once. Nothing here raises into the engine: a failure turns export off and is said once.
"""

from __future__ import annotations

import dataclasses
import os
import threading
import time
from collections.abc import Callable, Mapping
from importlib.util import find_spec
from typing import TYPE_CHECKING, Any, TextIO

from aiq_tui.events import McpCallFinished, McpCallStarted, TurnFinished, TurnStarted
from aiq_tui.telemetry.target import EXTRA_HINT, ExportTarget, Off, resolve_target
from aiq_tui.trace_context import TraceParent, new_span_id, new_trace_id

if TYPE_CHECKING:
    from aiq_tui.config import AppConfig
    from aiq_tui.telemetry.export import Pipeline
    from aiq_tui.telemetry.spans import TraceBuilder

Say = Callable[[str], None]
# The extra's packages: checked without importing them (a namespace lookup, not the SDK).
REQUIRED = ("opentelemetry.sdk", "opentelemetry.exporter.otlp.proto.http")
MAX_WAITING_EVENTS = 10_000  # events kept while the SDK loads; past it they are dropped
MAX_OPEN_REQUESTS = (
    1_000  # MCP requests whose span ids are kept for their trace context
)


class Telemetry:
    """An :data:`~aiq_tui.events.EventSink` that exports what it is given as traces.

    ``say`` tells the user something went wrong (at most once per kind of problem); with
    ``live_problems`` a failed delivery is said when it happens (the TUI), otherwise it is
    returned by :meth:`close` (headless commands print it after their output)."""

    def __init__(
        self,
        target: ExportTarget,
        *,
        say: Say,
        conversation_id: Callable[[], str] = lambda: "",
        live_problems: bool = False,
        console: TextIO | None = None,
    ) -> None:
        self.target = target
        self._say = say
        self._conversation_id = conversation_id
        self._live = live_problems
        self._console = console
        self._lock = threading.Lock()
        self._waiting: list[tuple[object, int, str, tuple[int, int] | None]] = []
        self._turn_ids: tuple[int, int] | None = (
            None  # the open turn's (trace id, span id)
        )
        self._requests: dict[str, int] = {}  # call id → span id of its MCP request
        self._conversation = ""  # the session an event belonged to, as it was emitted
        self._builder: TraceBuilder | None = None
        self._pipeline: Pipeline | None = None
        self._stopped = False  # closed, or broken: later events are dropped
        self._told: set[str] = set()
        self._loaded = threading.Event()
        threading.Thread(target=self._load, name="aiq-otel-load", daemon=True).start()

    # -- the event sink -------------------------------------------------------------------------
    def __call__(self, event: object) -> None:
        at = time.time_ns()
        with self._lock:
            if self._stopped:
                return
            try:
                conversation = self._conversation_id()
            except Exception:
                conversation = ""
            ids = self._choose_ids(event)
            if self._builder is None:
                if len(self._waiting) < MAX_WAITING_EVENTS:
                    self._waiting.append((event, at, conversation, ids))
                return
            self._apply(event, at, conversation, ids)

    def _choose_ids(self, event: object) -> tuple[int, int] | None:
        """Under the lock: the ids of the span ``event`` starts, when another process may need
        them before the span exists (the turn's, and an MCP request's)."""
        if isinstance(event, TurnStarted):
            self._turn_ids = (new_trace_id(), new_span_id())
            self._requests.clear()
            return self._turn_ids
        if isinstance(event, McpCallStarted) and self._turn_ids is not None:
            if len(self._requests) >= MAX_OPEN_REQUESTS:
                self._requests.pop(next(iter(self._requests)))
            self._requests[event.call_id] = new_span_id()
            return self._turn_ids[0], self._requests[event.call_id]
        if isinstance(event, McpCallFinished):
            self._requests.pop(event.call_id, None)
        elif isinstance(event, TurnFinished):
            self._turn_ids = None
            self._requests.clear()
        return None

    def trace_context(self, call_id: str) -> TraceParent | None:
        """The context the MCP request of tool call ``call_id`` carries (its own span's), or
        None when nothing is traced for it (export stopped, no turn open)."""
        with self._lock:
            span_id = self._requests.get(call_id)
            if self._stopped or span_id is None or self._turn_ids is None:
                return None
            return TraceParent(self._turn_ids[0], span_id)

    def _apply(
        self,
        event: object,
        at: int,
        conversation: str,
        ids: tuple[int, int] | None = None,
    ) -> None:
        """Under the lock. An error here stops export; it never reaches the engine."""
        assert self._builder is not None
        self._conversation = conversation
        try:
            self._builder.apply(event, at, ids)
        except Exception as exc:
            self._stopped = True
            self._tell(f"telemetry stopped: {type(exc).__name__}: {exc}")

    # -- loading ----------------------------------------------------------------------------------
    def _load(self) -> None:
        try:
            self._start_pipeline()
        finally:
            self._loaded.set()

    def _start_pipeline(self) -> None:
        try:
            from aiq_tui.telemetry.export import Pipeline
            from aiq_tui.telemetry.spans import TraceBuilder

            pipeline = Pipeline(
                self.target,
                self._delivery_failed if self._live else None,
                self._console,
            )
            builder = TraceBuilder(
                pipeline.tracer,
                log_content=self.target.log_content,
                content_max_chars=self.target.content_max_chars,
                conversation_id=lambda: self._conversation,
                ids=pipeline.ids,
            )
        except Exception as exc:
            with self._lock:
                self._stopped, self._waiting = True, []
            self._tell(
                f"telemetry is off: the OpenTelemetry SDK could not start ({type(exc).__name__}: {exc})"
            )
            return
        with self._lock:
            self._pipeline, self._builder = pipeline, builder
            waiting, self._waiting = self._waiting, []
            for event, at, conversation, ids in waiting:
                if self._stopped:
                    break
                self._apply(event, at, conversation, ids)

    def wait_loaded(self, timeout: float) -> bool:
        """True once the SDK is loaded (or failed to load)."""
        return self._loaded.wait(timeout)

    # -- the end ------------------------------------------------------------------------------------
    def close(self) -> str | None:
        """End open spans, deliver what is queued — waiting at most ``flush_timeout_seconds``
        in all — and stop. Returns what the user has not been told yet (None: all is well)."""
        timeout = self.target.flush_timeout_s
        deadline = time.monotonic() + timeout
        self._loaded.wait(timeout)
        with self._lock:
            if self._builder is not None and not self._stopped:
                try:
                    self._builder.end_all(time.time_ns())
                except Exception:
                    pass
            self._stopped = True
            pipeline = self._pipeline
        if pipeline is None:
            if self._loaded.is_set():  # it failed to start: already said
                return None
            return self._untold(
                f"telemetry: the OpenTelemetry SDK did not load within {timeout:g} s; "
                "nothing was exported"
            )
        note = pipeline.close(max(0.0, deadline - time.monotonic()), timeout)
        return None if note is None else self._untold(note)

    def _untold(self, note: str) -> str | None:
        if note in self._told:
            return None
        self._told.add(note)
        return note

    def _delivery_failed(self, why: str) -> None:
        self._tell(
            f"telemetry: spans were not delivered to {self.target.endpoint} ({why})"
        )

    def _tell(self, note: str) -> None:
        if note in self._told:
            return
        self._told.add(note)
        try:
            self._say(note)
        except Exception:
            pass


def start_telemetry(
    config: AppConfig,
    *,
    say: Say,
    conversation_id: Callable[[], str] = lambda: "",
    live_problems: bool = False,
    environ: Mapping[str, str] | None = None,
    console: TextIO | None = None,
) -> Telemetry | None:
    """A :class:`Telemetry` when config or the environment turn export on, else None (after
    saying why, when the user asked for export and cannot have it). ``console``: where
    ``OTEL_TRACES_EXPORTER=console`` prints spans (None: nowhere to print — the TUI's screen —
    so that exporter is left out, said once)."""
    target = resolve_target(
        config.telemetry, os.environ if environ is None else environ
    )
    if isinstance(target, Off):
        if target.note:
            say(target.note)
        return None
    for note in target.notes:
        say(note)
    if "console" in target.exporters and console is None:
        say(
            "telemetry: OTEL_TRACES_EXPORTER=console prints spans from headless commands (aiq-tui ask, demo) "
            "only: here they would tear the screen"
        )
        target = dataclasses.replace(
            target, exporters=tuple(e for e in target.exporters if e != "console")
        )
        if not target.exporters:
            return None
    missing = [name for name in REQUIRED if not _installed(name)]
    if missing:
        where = "telemetry.endpoint" if target.source == "config" else target.source
        say(
            f"telemetry is off: {where} is set, but exporting needs the OpenTelemetry packages "
            f"({', '.join(missing)} not installed): {EXTRA_HINT}"
        )
        return None
    return Telemetry(
        target,
        say=say,
        conversation_id=conversation_id,
        live_problems=live_problems,
        console=console,
    )


def attach_telemetry(
    engine: Any, *, say: Say, live_problems: bool = False, console: TextIO | None = None
) -> Telemetry | None:
    """Export ``engine``'s turns when telemetry is on: the one call every front end makes.
    Its MCP requests then carry their trace context (``params._meta.traceparent``)."""
    telemetry = start_telemetry(
        engine.config,
        say=say,
        live_problems=live_problems,
        conversation_id=lambda: engine.session.id,
        console=console,
    )
    if telemetry is not None:
        from aiq_tui.events import catalog_loaded
        from aiq_tui.skills.catalog import (
            SkillCatalog,  # loaded with the workspace already
        )

        catalog = engine.workspace.catalog
        if isinstance(catalog, SkillCatalog):
            # discovery ran before the engine: traced now, at its times
            telemetry(catalog_loaded(catalog))
        engine.subscribe(telemetry)
        engine.tools.trace_context = telemetry.trace_context
    return telemetry


def _installed(module: str) -> bool:
    try:
        return find_spec(module) is not None
    except (ImportError, ValueError):  # a parent package missing (or broken)
        return False


__all__ = ["Telemetry", "attach_telemetry", "start_telemetry"]
