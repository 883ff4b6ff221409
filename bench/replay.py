"""Opening Replay, as a person sees it: the real ``aiq-tui`` in a 120×36 pty, F4 (the sessions
list), then ``r`` on the recorded fixture session (``tests/replay/fixtures/session_demo.json``),
timed from the key to the first read that shows the replayed state (the bar's ``turn 3/3 ·
event 9/9``, drawn in the same frame as the panes). The baseline is F1 — the Help screen, a
dialog of about the same size — timed the same way in the same process, so a busy machine
moves both alike; ratios are taken of medians.

Each round starts a fresh process (the first open of a screen also imports its modules, as
a user's first open does), waits until it is idle, then alternates Help and Replay
:data:`OPENS` times; the first open of each is reported apart from the later ones. A second
session, the fixture's turns repeated to :data:`BIG_EVENTS` events, times a long session:
to the first frame of the Replay screen (its loading bar, or the state) and to its state.
Stepping through that session is timed in this process, headless (:func:`stepping`): from a
step key's action to its position drawn.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from bench.pty_run import Terminal
from bench.tui import _aiq_tui, compile_package

ROUNDS = int(os.environ.get("AIQ_BENCH_ROUNDS", "7"))
OPENS = 3
SIZE = (120, 36)
FIXTURE = (
    Path(__file__).resolve().parents[1]
    / "tests"
    / "replay"
    / "fixtures"
    / "session_demo.json"
)
BIG_EVENTS = 5_000

F1, F4, ESC = b"\x1bOP", b"\x1bOS", b"\x1b"
HELP_SHOWN = r"keys and commands"
REPLAY_SCREEN = r"⏵ Replay"  # the bar: loading, or placed
GOALS = {"open_s_fixture": 0.5}  # issue 22 item 5


def big_session(fixture: dict, events: int) -> dict:
    """The fixture's turns repeated until the session holds ``events`` events (new ids)."""
    turns, count, copy = [], 0, 0
    while count < events:
        copy += 1
        for turn in fixture["replay"]["turns"]:
            text = json.dumps(turn).replace(
                '"message_id": "', f'"message_id": "c{copy}-'
            )
            turns.append(json.loads(text))
            count += len(turn["events"])
    return {
        **fixture,
        "id": "20250102130000-big001",
        "title": "big session",
        "replay": {**fixture["replay"], "turns": turns},
    }


def _placed(turns: list[dict]) -> str:
    """The bar once the last turn's end is drawn."""
    return rf"turn {len(turns)}/{len(turns)} · event {len(turns[-1]['events'])}/{len(turns[-1]['events'])}"


def _open_replay(term: Terminal, session_id: str, placed: str) -> tuple[float, float]:
    """F4, the session selected, then ``r``: (seconds to the screen's first frame, to the state)."""
    term.send(F4)
    term.expect(
        session_id[-6:]
    )  # the sessions list (the home's only saved session, selected)
    term.idle()
    started = time.perf_counter()
    term.send(b"r")
    term.expect(REPLAY_SCREEN)
    first = time.perf_counter() - started
    term.expect(placed)
    return first, time.perf_counter() - started


def _close(term: Terminal) -> None:
    term.idle()
    term.send(ESC)
    term.idle()


def stepping(turns: list[dict], repeats: int = 15) -> dict[str, float]:
    """Median milliseconds from a step key's action to its position drawn (headless, in this
    process) on ``turns``: one event back, one turn back, one turn forward. Key repeat is
    ~33 ms; a slower draw is not queued (held keys skip positions) but shows fewer of them."""
    import asyncio

    from aiq_tui.ui.screens.replay import ReplayApp

    async def measure() -> dict[str, float]:
        app = ReplayApp(turns, "bench")
        figures: dict[str, float] = {}
        async with app.run_test(size=SIZE):
            screen = app.replay
            while not (screen.loaded and screen._drawn):
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.5)
            steps = (
                ("event_back", lambda: screen.action_step(-1)),
                ("turn_back", lambda: screen.action_turn(-1)),
                ("turn_forward", lambda: screen.action_turn(1)),
            )
            for name, step in steps:
                times = []
                for _ in range(repeats):
                    started = time.perf_counter()
                    step()
                    while screen._drawing or screen._drawn != (
                        screen.turn,
                        screen.event,
                    ):
                        await asyncio.sleep(0.0005)
                    times.append(time.perf_counter() - started)
                    await asyncio.sleep(
                        0.05
                    )  # the frame of the step before the next key
                figures[f"step_ms_{name}"] = round(statistics.median(times) * 1000, 1)
        return figures

    return asyncio.run(measure())


def run() -> dict[str, object]:
    compile_package()
    fixture = json.loads(FIXTURE.read_text(encoding="utf-8"))
    big = big_session(fixture, BIG_EVENTS)
    samples: dict[str, list[float]] = {
        k: []
        for k in (
            "help_first",
            "help",
            "replay_first",
            "replay",
            "big_frame",
            "big_state",
        )
    }
    with tempfile.TemporaryDirectory(prefix="aiq-bench-replay-") as base:
        home, big_home, cwd = (
            Path(base) / "home",
            Path(base) / "big",
            Path(base) / "cwd",
        )
        cwd.mkdir()
        for where, session in ((home, fixture), (big_home, big)):
            subprocess.run(
                [
                    *_aiq_tui(),
                    "--home",
                    str(where),
                    "--create",
                    "skills",
                    "list",
                    "--json",
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                check=True,
                timeout=600,
            )
            (where / "sessions" / f"session_{session['id']}.json").write_text(
                json.dumps(session), encoding="utf-8"
            )
        placed, big_placed = (
            _placed(fixture["replay"]["turns"]),
            _placed(big["replay"]["turns"]),
        )
        for _ in range(ROUNDS):
            with Terminal(
                [*_aiq_tui(), "--home", str(home)], size=SIZE, cwd=str(cwd)
            ) as term:
                term.expect(r"Inactive \([1-9]")
                term.idle()
                for index in range(OPENS):
                    suffix = "_first" if index == 0 else ""
                    samples["help" + suffix].append(term.timed(F1, HELP_SHOWN))
                    _close(term)
                    samples["replay" + suffix].append(
                        _open_replay(term, fixture["id"], placed)[1]
                    )
                    _close(term)
            with Terminal(
                [*_aiq_tui(), "--home", str(big_home)], size=SIZE, cwd=str(cwd)
            ) as term:
                term.expect(r"Inactive \([1-9]")
                term.idle()
                frame, state = _open_replay(term, big["id"], big_placed)
                samples["big_frame"].append(frame)
                samples["big_state"].append(state)
                _close(term)

    def median(kind: str) -> float:
        return statistics.median(samples[kind])

    report: dict[str, object] = {
        "method": "F4 then r (Replay) and F1 (Help, the baseline) in a 120x36 pty, key to the first read "
        "showing the screen's marker; medians, first open per process apart from later ones",
        "rounds": ROUNDS,
        "fixture_events": sum(len(t["events"]) for t in fixture["replay"]["turns"]),
        "big_events": sum(len(t["events"]) for t in big["replay"]["turns"]),
        "help_first_s": round(median("help_first"), 3),
        "help_s": round(median("help"), 3),
        "open_s_fixture_first": round(median("replay_first"), 3),
        "open_s_fixture": round(median("replay"), 3),
        "open_ratio_fixture_first": round(
            median("replay_first") / median("help_first"), 2
        ),
        "open_ratio_fixture": round(median("replay") / median("help"), 2),
        "big_first_frame_s": round(median("big_frame"), 3),
        "big_state_s": round(median("big_state"), 3),
        "big_first_frame_ratio": round(median("big_frame") / median("help_first"), 2),
        "big_state_ratio": round(median("big_state") / median("help_first"), 2),
        **stepping(big["replay"]["turns"]),
        "samples_s": {k: [round(s, 3) for s in v] for k, v in samples.items()},
        "goals": GOALS,
    }
    report["goals_met"] = {key: report[key] <= goal for key, goal in GOALS.items()}  # type: ignore[operator]
    return report


if __name__ == "__main__":
    print(json.dumps(run(), indent=2))
