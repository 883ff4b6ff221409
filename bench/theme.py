"""Ctrl+T (the theme toggle) with a conversation on screen, as ratios to baselines in the same run.

Textual re-applies the stylesheet to every widget when the theme changes, so the toggle costs
what the screen holds. Timed from the key press to the app idle again (the new theme applied
and drawn; Textual's pilot, headless, 120x36), alternating dark → light → dark, for:

- ``bare``: a bare Textual app (header, a scrolling column of :data:`BLOCKS` plain ``Static``
  widgets — one per conversation block below —, an input, a footer): the floor;
- ``empty``: aiq-tui (the real engine on the offline demo model) with an empty conversation;
- ``conversation``: aiq-tui with :data:`MESSAGES` messages (questions and markdown answers with
  a five-row table and a SQL block, as the demo model writes them) and a tool notice per turn.

Each subject runs :data:`ROUNDS` times, interleaved so load on the shared machine falls on
all alike, :data:`TOGGLES` toggles a run; medians are reported, with CPU seconds of this
process beside wall seconds (a neighbour's load moves them less).
"""

from __future__ import annotations

import asyncio
import os
import statistics
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

MESSAGES = 40
TURNS = MESSAGES // 2
BLOCKS = TURNS * 3  # a question, a tool notice, an answer
ROUNDS = int(os.environ.get("AIQ_BENCH_ROUNDS", "5"))
TOGGLES = 4
SIZE = (120, 36)
GOALS = {
    "toggle_ratio_conversation_to_bare": 2.0,
    "toggle_ratio_conversation_to_empty": 1.5,
}


def answer(turn: int) -> str:
    rows = "\n".join(
        f"| Book {turn}-{row} | {10 + row} | {row * 3.5:.2f} |" for row in range(5)
    )
    return (
        f"The sample database answers question {turn}:\n\n| title | sold | revenue |\n|---|---|---|\n{rows}\n\n"
        f"SQL:\n\n```sql\nSELECT title, sold FROM books ORDER BY sold DESC LIMIT {turn + 5}\n```\n\n"
        "From the skill **sql-analyst**: the figures come from the sample database."
    )


def entries() -> list[Any]:
    from aiq_tui.replay.state import Entry

    shown: list[Any] = []
    for turn in range(TURNS):
        shown += [
            Entry(
                "user",
                f"Question {turn}: which books sell best?",
                message_id=f"m{turn}",
            ),
            Entry(
                "notice",
                f"⚙ sql_query(source=sample, sql=SELECT title … LIMIT {turn + 5})",
                style="tool",
            ),
            Entry("answer", answer(turn)),
        ]
    return shown


def bare_app() -> Any:
    from textual.app import App, ComposeResult
    from textual.containers import VerticalScroll
    from textual.widgets import Footer, Header, Input, Static

    class Bare(App[None]):
        BINDINGS = [("ctrl+t", "toggle", "Theme")]

        def compose(self) -> ComposeResult:
            yield Header()
            with VerticalScroll():
                for block in range(BLOCKS):
                    yield Static(f"block {block}: " + "a plain line of text " * 3)
            yield Input()
            yield Footer()

        def action_toggle(self) -> None:
            self.theme = (
                "textual-light" if self.theme == "textual-dark" else "textual-dark"
            )

    return Bare()


def aiq_app(home: Path) -> Any:
    from aiq_tui.agent.engine import Engine
    from aiq_tui.ui.app import AiqApp
    from aiq_tui.workspace import Workspace

    engine = Engine.create(Workspace.open(home_flag=home))
    app = AiqApp(engine, clock=lambda: datetime(2025, 1, 2, 12, 0, 0), watch=False)
    app.animation_level = "none"
    return app


async def toggles(app: Any, fill: bool) -> dict[str, Any]:
    """Wall and CPU seconds of each of :data:`TOGGLES` Ctrl+T presses, and the widget count."""
    wall: list[float] = []
    cpu: list[float] = []
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        if fill:
            await app.query_one("#conversation").show(entries())
        await pilot.pause()
        start_theme = app.theme
        for _ in range(TOGGLES):
            before = app.theme
            started, started_cpu = time.perf_counter(), time.process_time()
            await pilot.press("ctrl+t")
            await pilot.pause()
            wall.append(time.perf_counter() - started)
            cpu.append(time.process_time() - started_cpu)
            assert app.theme != before, "Ctrl+T did not change the theme"
        widgets = len(list(app.screen.walk_children()))
        assert app.theme == start_theme
    return {"wall": wall, "cpu": cpu, "widgets": widgets}


def run() -> dict[str, object]:
    samples: dict[str, dict[str, list[float]]] = {
        k: {"wall": [], "cpu": []} for k in ("bare", "empty", "conversation")
    }
    widgets: dict[str, int] = {}
    with tempfile.TemporaryDirectory(prefix="aiq-bench-theme-") as base:
        home = Path(base) / "home"
        home.mkdir()

        async def one_round() -> None:
            for kind in samples:
                app = bare_app() if kind == "bare" else aiq_app(home)
                figures = await toggles(app, fill=kind == "conversation")
                samples[kind]["wall"] += figures["wall"]
                samples[kind]["cpu"] += figures["cpu"]
                widgets[kind] = figures["widgets"]

        asyncio.run(
            one_round()
        )  # warm-up: imports, the config home, caches; not counted
        samples = {k: {"wall": [], "cpu": []} for k in samples}
        for _ in range(ROUNDS):
            asyncio.run(one_round())

    def median(kind: str, key: str = "wall") -> float:
        return statistics.median(samples[kind][key])

    report: dict[str, object] = {
        "method": f"headless pilot {SIZE[0]}x{SIZE[1]}: Ctrl+T pressed to the app idle again",
        "rounds": ROUNDS,
        "toggles_per_round": TOGGLES,
        "messages": MESSAGES,
        "widgets": widgets,
    }
    for kind in samples:
        report[f"toggle_s_{kind}"] = round(median(kind), 3)
        report[f"toggle_cpu_s_{kind}"] = round(median(kind, "cpu"), 3)
    report["toggle_ratio_conversation_to_bare"] = round(
        median("conversation") / median("bare"), 2
    )
    report["toggle_ratio_conversation_to_empty"] = round(
        median("conversation") / median("empty"), 2
    )
    report["toggle_cpu_ratio_conversation_to_bare"] = round(
        median("conversation", "cpu") / median("bare", "cpu"), 2
    )
    report["samples_toggle_s"] = {
        k: [round(v, 3) for v in s["wall"]] for k, s in samples.items()
    }
    report["goals"] = GOALS
    report["goals_met"] = {key: report[key] <= goal for key, goal in GOALS.items()}  # type: ignore[operator]
    return report


if __name__ == "__main__":
    import json

    print(json.dumps(run(), indent=2))
