"""Run every benchmark and write ``bench/results/report.json`` (plus a short summary on stdout).

Speed and memory targets are measured here, never by timed tests.
"""

from __future__ import annotations

import importlib
import json
import platform
import sys
import time
from pathlib import Path

# module name → what it measures; each exposes run() -> dict of figures. Start-up (tui) runs
# first, from a small parent: its processes are timed from spawn, and a parent grown by the
# matching benchmark (a model, 20,000 query vectors) made every spawn slower. Opening Replay
# (replay) runs in a pseudo-terminal too; the theme toggle (theme) runs the app in this process. The
# panel (bench/panel: ranking settings judged on MetaTool, ToolLens, StableToolBench and the authored
# requests together; a regression against the baseline settings is flagged in its report) follows match. The
# soak (a live session of AIQ_BENCH_SOAK_TURNS turns, default 300: minutes) runs last, in a child process.
BENCHMARKS = (
    "tui",
    "replay",
    "scan",
    "match",
    "panel",
    "tokens",
    "tools",
    "doctor",
    "telemetry",
    "theme",
    "soak",
)
RESULTS = Path(__file__).resolve().parent / "results"


def main(argv: list[str] | None = None) -> int:
    selected = (argv if argv is not None else sys.argv[1:]) or list(BENCHMARKS)
    report: dict[str, object] = {
        "machine": {
            "python": platform.python_version(),
            "platform": platform.platform(),
        },
        "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    for name in selected:
        try:
            module = importlib.import_module(f"bench.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"bench.{name}":
                raise
            continue
        started = time.perf_counter()
        print(f"bench {name} …", file=sys.stderr, flush=True)
        figures = module.run()
        figures["wall_seconds"] = round(time.perf_counter() - started, 2)
        report[name] = figures
        print(json.dumps({name: figures}, indent=2, default=str))
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / "report.json"
    out.write_text(json.dumps(report, indent=2, default=str) + "\n")
    print(f"report written to {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
