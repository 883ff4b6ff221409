"""Telemetry's cost to a headless turn: ``aiq-tui ask`` (offline demo, one SQL tool call) timed
from spawn to exit with export off, to a collector on 127.0.0.1, to a closed port and to a
collector that accepts connections and never answers — as ratios to "off" in the same run.

What the figures say: exporting costs the SDK's import (in a background thread) whatever the
collector does; a collector that refuses costs nothing more; one that never answers costs the
flush bound at exit (``telemetry.flush_timeout_seconds``), never more. The turn itself never
waits on the network.
"""

from __future__ import annotations

import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

QUESTION = "how many customers are there?"
RUNS = 9
RUNS_BLACKHOLE = 3  # each waits the flush bound


class _Collector(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", "0")))
        self.send_response(200)
        self.send_header("content-length", "0")
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


@contextmanager
def _collector() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Collector)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def _blackhole() -> Iterator[str]:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                held.append(listener.accept()[0])
            except OSError:
                return

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        try:
            listener.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        listener.close()
        for connection in held:
            connection.close()


def _closed_port() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{probe.getsockname()[1]}"


def _ask_seconds(env: dict[str, str], runs: int) -> list[float]:
    command = [sys.executable, "-m", "aiq_tui", "ask", QUESTION]
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        done = subprocess.run(
            command, env=env, capture_output=True, text=True, timeout=120
        )
        samples.append(time.perf_counter() - started)
        if done.returncode != 0:
            raise RuntimeError(done.stderr[-2000:])
    return samples


def run() -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        base = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
        base.update(HOME=tmp, AIQ_HOME=str(Path(tmp) / ".aiqconfig"), NO_COLOR="1")
        _ask_seconds(
            base, 2
        )  # the home is created, the sample database built, caches written
        samples: dict[str, list[float]] = {"off": _ask_seconds(base, RUNS)}
        with _collector() as endpoint:
            samples["collector"] = _ask_seconds(
                {**base, "OTEL_EXPORTER_OTLP_ENDPOINT": endpoint}, RUNS
            )
        samples["closed_port"] = _ask_seconds(
            {**base, "OTEL_EXPORTER_OTLP_ENDPOINT": _closed_port()}, RUNS
        )
        with _blackhole() as endpoint:
            samples["never_answers"] = _ask_seconds(
                {**base, "OTEL_EXPORTER_OTLP_ENDPOINT": endpoint}, RUNS_BLACKHOLE
            )
    medians = {kind: statistics.median(values) for kind, values in samples.items()}
    figures: dict[str, object] = {
        f"ask_s_{kind}": round(value, 3) for kind, value in medians.items()
    }
    figures.update(
        {
            f"ratio_{kind}": round(value / medians["off"], 2)
            for kind, value in medians.items()
            if kind != "off"
        }
    )
    from aiq_tui.config import TelemetrySettings

    figures["flush_timeout_seconds"] = TelemetrySettings().flush_timeout_seconds
    return figures
