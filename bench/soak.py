"""A day-long session, compressed: does the workbench's Nth turn cost what its first did?

The real app (``AiqApp`` on the real engine and the offline demo model, Textual's pilot,
headless, 120x36) in a temporary config home and HOME, from an empty working folder, keeps one
live session for :data:`TURNS` turns (``AIQ_BENCH_SOAK_TURNS``, default 300): the six SQL
questions of :data:`QUESTIONS` in rotation, every approval the model asks for denied (nothing
is written or run). Recorded:

- every turn's wall and CPU seconds, from Enter to the turn's end drawn (the head no longer
  running, every engine event handled, the screen repainted);
- every :data:`WINDOW` turns (and at the last): the process's resident memory (``VmRSS``,
  after a garbage collection) and a paused ← step: Space pauses the cursor at the head, then
  each ← is timed from the key to the stepped state drawn and the screen repainted (conditions,
  never sleeps; the median of :data:`STEPS` steps); End returns to live;
- after the last turn, a Replay of :data:`REPLAY_EVENTS` events (``AIQ_BENCH_SOAK_REPLAY_EVENTS``;
  the recorded fixture's turns repeated, written to the config home as a saved session) opened
  twice from the soaked app (``/replay ID``'s action, timed to its state drawn and painted) and
  stepped with ← in the same way;
- at the start, the frame floor: one small widget's repaint, what any redraw costs at least
  (Textual paints on a 60-per-second tick, so up to 17 ms of every step is waiting for it).

Reported: the mean seconds of turns 11–20 and of the last 10 and their ratio (CPU beside),
RSS growth in MB per turn from turn 20 to the last, the ← step at the last turn, Replay's open
and step times, and ``goals``: issue 32's targets, each with its measured value and met or
missed (``goals_met`` as the other benchmarks give it). With fewer than 30 turns the windows
shrink to a third of the run, so a short test run still reports every figure; ``windows`` says
which turns each mean covers.

Wall seconds move with the machine's load (the CPU is shared); the ratios, taken in one run,
and the CPU seconds move less. ``make bench`` runs the soak last, in a process of its own
(300 turns take minutes); ``python -m bench.soak [--turns N] [--replay-events N]`` runs it
alone (``--help``).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

TURNS = int(os.environ.get("AIQ_BENCH_SOAK_TURNS", "300"))
REPLAY_EVENTS = int(os.environ.get("AIQ_BENCH_SOAK_REPLAY_EVENTS", "5000"))
WINDOW = 10
"""Turns per mean (11–20 and the last 10) and between samples of memory and the ← step."""
STEPS = 9
"""← steps timed at each sample; their median is the sample's figure. A step lands on one of
Textual's 60-a-second paints, so single steps spread over two or three frames (20–60 ms): nine
give a median that says what a step costs, where three moved by a frame from sample to sample."""
TURN_POLL = 0.002
"""Seconds between looks at a running turn (finer polling would take the loop from the app)."""
MIN_TURNS = 3
"""Fewest turns that give an early and a last window apart."""
SIZE = (120, 36)
TIMEOUT = 300.0
"""Seconds any one wait may take before the harness gives up (a hung app, not a slow one)."""
QUESTIONS = (
    "show the tables in the sample database",
    "which books sell best?",
    "how many customers are there in each country?",
    "what are the ten largest orders?",
    "which authors have the most books?",
    "what is the total revenue of all orders?",
)
# Issue 32, "Done when": each figure at most this.
GOALS = {"turn_ratio_last_to_early": 1.3, "rss_mb_per_turn": 0.1, "step_ms_last": 50.0}
FIXTURE = (
    Path(__file__).resolve().parents[1]
    / "tests"
    / "replay"
    / "fixtures"
    / "session_demo.json"
)


def windows(turns: int) -> tuple[int, tuple[int, int], tuple[int, int]]:
    """(sample interval, early window, last window) as 1-based inclusive turn ranges: turns
    11–20 and the last 10 when there are 30 turns or more, a third of the run below that."""
    size = max(1, min(WINDOW, turns // 3))
    return size, (size + 1, 2 * size), (turns - size + 1, turns)


def sample_turns(turns: int) -> list[int]:
    every, _, _ = windows(turns)
    return sorted({*range(every, turns + 1, every), turns})


def rss_mb() -> float:
    """This process's resident memory now, after a collection (so garbage waiting for the
    collector is not counted as growth)."""
    gc.collect()
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


async def until(
    condition: Callable[[], bool],
    what: str,
    timeout: float = TIMEOUT,
    poll: float = 0.0005,
) -> None:
    """Poll ``condition`` every ``poll`` seconds with plain asyncio sleeps (no pilot.pause: it
    waits for every widget to go idle, which is not what is timed here). Half a millisecond by
    default: a step's goal is 50 ms."""
    deadline = time.perf_counter() + timeout
    while not condition():
        if time.perf_counter() > deadline:
            raise TimeoutError(f"soak: no {what} within {timeout:.0f} s")
        await asyncio.sleep(poll)


class Stopwatch:
    """Wall and CPU seconds since it was made (CPU: this process, every thread: the engine's
    workers too). A neighbour's load on the shared machine moves the wall figure, barely the CPU one."""

    def __init__(self) -> None:
        self.wall, self.cpu = time.perf_counter(), time.process_time()

    def read(self) -> tuple[float, float]:
        return time.perf_counter() - self.wall, time.process_time() - self.cpu


def _key(app: Any, key: str, character: str | None = None) -> None:
    """A key as the terminal delivers it: to the app, which routes it to the focused widget."""
    from textual import events

    app.post_message(events.Key(key, character))


async def _repainted(screen: Any) -> None:
    """Until ``screen`` has handled what is queued and repainted (Textual's wait_for_refresh)."""
    await screen.wait_for_refresh()


async def frame_floor(app: Any, samples: int = 8) -> float:
    """Median milliseconds from one small widget asking to be repainted to the screen painted:
    what any redraw costs at least (Textual paints on a 60-per-second tick), so a step's figure
    can be read against it."""
    screen = app.screen_stack[0]
    widget = screen.query_one("#prompt")
    seconds = []
    for _ in range(samples):
        started = time.perf_counter()
        widget.refresh()
        await _repainted(screen)
        seconds.append(time.perf_counter() - started)
    return round(statistics.median(seconds) * 1000, 1)


def _cursor_drawn(app: Any) -> bool:
    """The live screen shows the cursor's state. The one place the harness reads the app's
    drawing: rename here if the app's view or cursor changes its names. Identity first (the
    fold's states are immutable and drawn by reference); equality should a cursor rebuild the
    state it shows."""
    drawn, shown = app.view.drawn, app.cursor.shown
    return drawn is shown or drawn == shown


async def turn(app: Any, question: str) -> tuple[tuple[float, float], int]:
    """One question from Enter to its end drawn: ((wall, CPU seconds), approvals denied on the way)."""
    from aiq_tui.ui.screens.approval import ApprovalScreen

    number = app.cursor.head.turn + 1
    prompt = app.query_one("#prompt")
    prompt.value = question
    prompt.focus()
    denied: list[Any] = []
    clock = Stopwatch()
    _key(app, "enter", "\r")
    deadline = clock.wall + TIMEOUT
    while not (app.cursor.head.turn >= number and not app.cursor.head.running):
        screen = app.screen
        if isinstance(screen, ApprovalScreen) and screen not in denied:
            denied.append(screen)
            _key(app, "n", "n")
        if time.perf_counter() > deadline:
            raise TimeoutError(
                f"soak: turn {number} ({question!r}) did not finish within {TIMEOUT:.0f} s"
            )
        await asyncio.sleep(TURN_POLL)
    await app.drained()
    await until(
        lambda: _cursor_drawn(app) and app.screen is app.screen_stack[0], "turn drawn"
    )
    await _repainted(app.screen)
    return clock.read(), len(denied)


async def paused_steps(app: Any, steps: int = STEPS) -> list[tuple[float, float]]:
    """Space (pause at the head), ``steps`` × ← each timed (wall, CPU) to its state drawn and
    painted, End."""
    screen = app.screen_stack[0]
    app.query_one("#prompt").focus()
    _key(app, "space", " ")
    await until(lambda: app.cursor.paused and _cursor_drawn(app), "pause")
    await _repainted(screen)
    seconds = []
    for _ in range(steps):
        target = app.cursor.index - 1
        clock = Stopwatch()
        _key(app, "left")
        await until(
            lambda: app.cursor.index == target and _cursor_drawn(app), "← step drawn"
        )
        await _repainted(screen)
        seconds.append(clock.read())
    _key(app, "end")
    await until(lambda: not app.cursor.paused and _cursor_drawn(app), "live again")
    await _repainted(screen)
    return seconds


def replay_session(events: int) -> dict[str, Any]:
    """A saved session of at least ``events`` events: the recorded fixture's turns repeated."""
    from bench.replay import big_session

    fixture = json.loads(FIXTURE.read_text(encoding="utf-8"))
    return big_session(fixture, events)


async def replay(
    app: Any, session: dict[str, Any], steps: int = STEPS
) -> dict[str, float]:
    """Open ``session`` in Replay from the live app twice (the first open also imports and
    builds what later ones reuse), each timed to its state drawn and painted; step ← back in
    the second; Esc back to live."""
    from aiq_tui.ui.screens.replay import ReplayScreen

    def placed() -> bool:
        screen = app.screen
        return (
            isinstance(screen, ReplayScreen)
            and screen.loaded
            and not screen._drawing
            and screen._drawn == (screen.turn, screen.event)
        )

    def live() -> bool:
        return len(app.screen_stack) == 1 and not app.cursor.paused

    opens = []
    for _ in range(2):
        started = time.perf_counter()
        app.action_replay(session["id"])
        await until(placed, "Replay drawn")
        await _repainted(app.screen)
        opens.append(time.perf_counter() - started)
        if len(opens) == 1:
            _key(app, "escape")
            await until(live, "back to live")
            await _repainted(app.screen)
    screen = app.screen
    seconds = []
    for _ in range(steps):
        before = (screen.turn, screen.event)
        started = time.perf_counter()
        _key(app, "left")
        await until(
            lambda: (screen.turn, screen.event) != before and placed(),
            "Replay ← step drawn",
        )
        await _repainted(screen)
        seconds.append(time.perf_counter() - started)
    _key(app, "escape")
    await until(live, "back to live")
    return {
        "replay_open_s_first": round(opens[0], 3),
        "replay_open_s": round(opens[1], 3),
        "replay_step_ms": round(statistics.median(seconds) * 1000, 1),
    }


@contextmanager
def isolated_home() -> Iterator[tuple[Path, Path]]:
    """(config home, working folder) in a temporary folder, with HOME pointed there too (skill
    discovery reads ~/.agents/skills): the real ~ is never read or written."""
    saved = {key: os.environ.get(key) for key in ("HOME", "AIQ_HOME")}
    with tempfile.TemporaryDirectory(prefix="aiq-bench-soak-") as base:
        root = Path(base)
        home, cwd = root / "aiq-home", root / "cwd"
        cwd.mkdir()
        os.environ["HOME"], os.environ["AIQ_HOME"] = str(root), str(home)
        try:
            yield home, cwd
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value


async def soak(home: Path, cwd: Path, turns: int, replay_events: int) -> dict[str, Any]:
    from aiq_tui.agent.engine import Engine
    from aiq_tui.ui.app import AiqApp
    from aiq_tui.workspace import Workspace

    engine = Engine.create(Workspace.open(home_flag=home, cwd=cwd))
    app = AiqApp(engine, watch=False)
    app.animation_level = "none"
    session = replay_session(replay_events)
    samples = set(sample_turns(turns))
    seconds: list[float] = []
    cpu: list[float] = []
    rss: dict[int, float] = {}
    steps: dict[int, float] = {}
    step_cpu: dict[int, float] = {}
    denied = 0
    async with app.run_test(size=SIZE):
        await until(lambda: app.engine is not None and not app.busy, "the app ready")
        await _repainted(app.screen)
        floor = await frame_floor(app)
        rss[0] = round(rss_mb(), 1)
        for number in range(1, turns + 1):
            (took, used), refused = await turn(
                app, QUESTIONS[(number - 1) % len(QUESTIONS)]
            )
            seconds.append(took)
            cpu.append(used)
            denied += refused
            if number in samples:
                stepped = await paused_steps(app)
                steps[number] = round(
                    statistics.median(wall for wall, _ in stepped) * 1000, 1
                )
                step_cpu[number] = round(
                    statistics.median(used for _, used in stepped) * 1000, 1
                )
                rss[number] = round(rss_mb(), 1)
                recent = seconds[-windows(turns)[0] :]
                print(
                    f"soak: turn {number}/{turns} · {statistics.mean(recent):.2f} s a turn lately · "
                    f"← {steps[number]:.0f} ms · RSS {rss[number]:.0f} MB",
                    file=sys.stderr,
                    flush=True,
                )
        events, entries = len(app.cursor.records), len(app.cursor.head.conversation)
        sessions = app.engine.workspace.home.sessions_dir
        (sessions / f"session_{session['id']}.json").write_text(
            json.dumps(session), encoding="utf-8"
        )
        replayed = await replay(app, session)
    return {
        "seconds": seconds,
        "cpu": cpu,
        "rss": rss,
        "steps": steps,
        "step_cpu": step_cpu,
        "frame_floor_ms": floor,
        "denied": denied,
        "events": events,
        "entries": entries,
        "replay_events": sum(len(t["events"]) for t in session["replay"]["turns"]),
        **replayed,
    }


def report(turns: int, raw: dict[str, Any]) -> dict[str, Any]:
    """The bench JSON's figures from one soak's raw samples."""
    _, early, last = windows(turns)
    seconds, cpu, rss, steps = raw["seconds"], raw["cpu"], raw["rss"], raw["steps"]

    def mean(figures: list[float], turns: tuple[int, int]) -> float:
        return statistics.mean(figures[turns[0] - 1 : turns[1]])

    mean_early, mean_last = mean(seconds, early), mean(seconds, last)
    cpu_early, cpu_last = mean(cpu, early), mean(cpu, last)
    base = early[1]  # turn 20: the growth is measured from there to the last turn
    figures: dict[str, Any] = {
        "method": f"headless pilot {SIZE[0]}x{SIZE[1]}, real engine on the offline demo model, one live session; "
        "a turn is timed from Enter to its end drawn and painted, a ← step from the key to its state drawn "
        "and painted",
        "turns": turns,
        "questions": len(QUESTIONS),
        "approvals_denied": raw["denied"],
        "windows": {
            "early": f"{early[0]}-{early[1]}",
            "last": f"{last[0]}-{last[1]}",
            "rss_from": base,
        },
        "turn_s_early": round(mean_early, 3),
        "turn_s_last": round(mean_last, 3),
        "turn_ratio_last_to_early": round(mean_last / mean_early, 2),
        "turn_cpu_s_early": round(cpu_early, 3),
        "turn_cpu_s_last": round(cpu_last, 3),
        "turn_cpu_ratio_last_to_early": round(cpu_last / cpu_early, 2),
        "rss_mb_start": rss[0],
        "rss_mb_last": rss[turns],
        "rss_mb_per_turn": round((rss[turns] - rss[base]) / max(1, turns - base), 3),
        "step_ms_last": steps[turns],
        "step_cpu_ms_last": raw["step_cpu"][turns],
        "frame_floor_ms": raw["frame_floor_ms"],
        "replay_events": raw["replay_events"],
        "replay_open_s_first": raw["replay_open_s_first"],
        "replay_open_s": raw["replay_open_s"],
        "replay_step_ms": raw["replay_step_ms"],
        "events_at_end": raw["events"],
        "conversation_entries_at_end": raw["entries"],
        "turn_s": [round(s, 3) for s in seconds],
        "rss_mb": {str(number): mb for number, mb in rss.items()},
        "step_ms": {str(number): ms for number, ms in steps.items()},
        "turn_cpu_s": [round(s, 3) for s in cpu],
    }
    figures["goals"] = {
        key: {"at_most": goal, "measured": figures[key], "met": figures[key] <= goal}
        for key, goal in GOALS.items()
    }
    figures["goals_met"] = {
        key: entry["met"] for key, entry in figures["goals"].items()
    }
    return figures


def measure(turns: int, replay_events: int) -> dict[str, Any]:
    """The soak in this process (see :func:`run`)."""
    if turns < MIN_TURNS:
        raise ValueError(
            f"the soak needs at least {MIN_TURNS} turns (got {turns}): the means need two windows"
        )
    with isolated_home() as (home, cwd):
        raw = asyncio.run(soak(home, cwd, turns, replay_events))
    return report(turns, raw)


def run(turns: int | None = None, replay_events: int | None = None) -> dict[str, Any]:
    """Soak the app for ``turns`` turns (default :data:`TURNS`) with a Replay of
    ``replay_events`` events (default :data:`REPLAY_EVENTS`) and report the figures.

    The soak runs in a fresh Python process: its memory figures are then the app's own, not
    those of a parent that other benchmarks grew (a model, query vectors, earlier apps)."""
    turns = TURNS if turns is None else turns
    events = REPLAY_EVENTS if replay_events is None else replay_events
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "bench.soak",
            "--in-process",
            "--turns",
            str(turns),
            "--replay-events",
            str(events),
        ],
        cwd=root,
        stdout=subprocess.PIPE,
        text=True,
    )  # its progress and errors on stderr
    if done.returncode != 0:
        raise RuntimeError(
            f"the soak failed (exit {done.returncode}; its traceback is above)"
        )
    return json.loads(done.stdout)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.soak",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--turns",
        type=int,
        default=TURNS,
        help=f"turns of the live session (default: AIQ_BENCH_SOAK_TURNS or 300; at least {MIN_TURNS})",
    )
    parser.add_argument(
        "--replay-events",
        type=int,
        default=REPLAY_EVENTS,
        help="events of the Replayed session (default: AIQ_BENCH_SOAK_REPLAY_EVENTS or 5000)",
    )
    parser.add_argument(
        "--in-process",
        action="store_true",
        help="soak in this process (run() starts one with this flag)",
    )
    args = parser.parse_args(argv)
    if args.turns < MIN_TURNS:
        parser.error(
            f"--turns must be at least {MIN_TURNS} (got {args.turns}): the means need two windows"
        )
    figures = (
        measure(args.turns, args.replay_events)
        if args.in_process
        else run(args.turns, args.replay_events)
    )
    print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
