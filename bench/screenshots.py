"""``make screenshots``: SVGs of the main screens, written to ``screenshots/``.

Runs the real engine on the offline demo provider in a fresh config home, so the pictures
show exactly what a new user sees: skills loading, a tool running, the gauge.

The same bytes every run (tests/bench/test_screenshots_are_reproducible.py): every figure a
picture shows that would come from the machine is fixed here — the config home's path (skill
paths are in the prompt, so its token counts follow the path's length), the clock (session
ids, saved and replayed times), the measured durations of tool calls, of SQL queries (their
result carries it, so the prompt's size did) and of the doctor — and
each shot waits for the footer's keys.
"""

from __future__ import annotations

import asyncio
import itertools
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType
from typing import Any

OUT = Path(__file__).resolve().parents[1] / "screenshots"
SIZE = (120, 36)
HOME = Path("/tmp/aiq-tui-screenshots/home")
"""The config home the pictures are taken in: one path on every machine (it is shown)."""
PROJECT = HOME.parent / "project"
"""The project folder (the working directory the workspace opens in): one empty path on every
machine, not the checkout — its path reaches the prompt (and so the token counts) and the
sessions list, and the demo writes its report there."""
NOW = datetime(2025, 1, 2, 12, 0, 0, tzinfo=UTC)
STEP_SECONDS = 0.012
"""What every timed piece of work takes in the pictures (a tool call, the doctor)."""


class SteadyTime(ModuleType):
    """The ``time`` module, with a ``perf_counter`` that advances :data:`STEP_SECONDS` a call."""

    def __init__(self) -> None:
        super().__init__("time")
        self._ticks = itertools.count()

    def perf_counter(self) -> float:
        return next(self._ticks) * STEP_SECONDS / 2  # a duration is two readings

    def __getattr__(self, name: str) -> Any:
        return getattr(time, name)


@contextmanager
def fixed_clocks() -> Iterator[None]:
    """The clocks whose readings reach the screen, fixed while the pictures are taken."""
    import aiq_tui.agent.engine as engine_module
    import aiq_tui.agent.sessions as sessions
    import aiq_tui.doctor.run as doctor_run
    import aiq_tui.replay.record as record
    import aiq_tui.tools.registry as registry
    import aiq_tui.tools.sql as sql

    numbers = itertools.count(1)

    def session_id() -> str:
        return NOW.strftime("%Y%m%d%H%M%S") + f"-{next(numbers):06x}"

    patches = [
        (sessions, "_now", lambda: NOW.isoformat(timespec="microseconds")),
        (sessions, "new_session_id", session_id),
        (engine_module, "new_session_id", session_id),
        (engine_module, "_now", lambda: NOW.isoformat(timespec="seconds")),
        (record, "_now", lambda: NOW.isoformat(timespec="milliseconds")),
        (registry, "time", SteadyTime()),
        (
            sql,
            "time",
            SteadyTime(),
        ),  # a query's duration is in its result: the model reads it
        (doctor_run, "time", SteadyTime()),
    ]
    saved = [(module, name, getattr(module, name)) for module, name, _ in patches]
    for module, name, value in patches:
        setattr(module, name, value)
    try:
        yield
    finally:
        for module, name, value in saved:
            setattr(module, name, value)


async def capture(home: Path, out: Path = OUT, project: Path = PROJECT) -> list[Path]:
    from aiq_tui.agent.engine import Engine
    from aiq_tui.ui.app import AiqApp
    from aiq_tui.ui.screens.approval import ApprovalScreen
    from aiq_tui.workspace import Workspace

    engine = Engine.create(Workspace.open(home_flag=home, cwd=project))
    engine.session.id = f"{NOW:%Y%m%d%H%M%S}-000000"
    engine.config.ui.demo_turn_pause = (
        0  # pictures, not a show: no pause between demo turns
    )
    engine.config.ui.demo_step_seconds = (
        0  # … nor between the step-through demo's steps
    )
    engine.config.ui.typing_grace = 0  # the keys are scripted: each one is deliberate
    app = AiqApp(
        engine,
        clock=lambda: NOW.replace(tzinfo=None),
        watch=False,
        flash_seconds=3600,
    )
    app.animation_level = "none"
    written: list[Path] = []

    async def shot(pilot, name: str) -> None:
        from textual.widgets import Footer

        await pilot.pause(0.2)
        for _ in range(100):  # the footer's keys are recomposed after a refresh
            footers = list(app.screen.query(Footer))
            if all(
                f.children and not getattr(f, "_recompose_due", False) for f in footers
            ):
                break
            await pilot.pause(0.05)
        await pilot.pause()
        written.append(Path(app.save_screenshot(f"{name}.svg", path=str(out))))

    async def settle(pilot, timeout: float = 15.0) -> None:
        """Wait until no turn runs — the long demo counts as one, between its turns too — and
        every event it emitted is on screen, answering the approvals /demo asks for (deny: the
        repository's working directory stays untouched). Plain sleeps: pilot.pause() would
        first wait for the whole screen to go idle, which can time out on a busy machine."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        await asyncio.sleep(0.1)
        answered: list[object] = []
        while app._turn_running() and loop.time() < deadline:
            await asyncio.sleep(0.05)
            if isinstance(app.screen, ApprovalScreen) and app.screen not in answered:
                answered.append(app.screen)
                await pilot.press("n")
        await app.drained()

    async with app.run_test(size=SIZE) as pilot:
        await shot(pilot, "01-start")
        app.query_one("#prompt").value = "show the tables in the sample database"
        await pilot.press("enter")
        await settle(pilot)
        await shot(pilot, "02-conversation")
        await pilot.press("ctrl+o")
        await shot(pilot, "03-timeline")
        await pilot.press("ctrl+o")
        app.query_one(
            "#prompt"
        ).value = "/demo play"  # the step-through demo, played to its end
        await pilot.press("enter")
        await settle(pilot, timeout=120)  # the scripted story: about 10 turns
        await pilot.press("ctrl+o")
        await shot(pilot, "04-compression")
        await pilot.press("ctrl+o")
        app.action_inspector("make a markdown report from the query results")
        await shot(pilot, "05-match-inspector")
        await pilot.press("escape")
        names = sorted(engine.workspace.catalog.names())
        if names:
            app.action_open_skill(
                "sql-explorer" if "sql-explorer" in names else names[0]
            )
            await shot(pilot, "06-skill-viewer")
            await pilot.press("escape")
        await pilot.press("f4")
        await shot(pilot, "07-sessions")
        await pilot.press("escape")
        await pilot.press("f1")
        await shot(pilot, "08-help")
        await pilot.press("escape")
        app.query_one("#prompt").value = "run ls -la and count the files"
        await pilot.press("enter")
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 15
        while (
            not isinstance(app.screen, ApprovalScreen)
            and app._turn_running()
            and loop.time() < deadline
        ):
            await asyncio.sleep(0.05)
        if isinstance(
            app.screen, ApprovalScreen
        ):  # the demo model asks before running a command
            await shot(pilot, "09-approval")
            await pilot.press("n")
        await settle(pilot)
        await pilot.press(
            "f4"
        )  # r on the current session: Replay mode at its last turn
        await pilot.pause(0.2)
        await pilot.press("r")
        for _ in range(200):  # the session is read and folded by the screen's worker
            if getattr(app.screen, "view", None) is not None:
                break
            await pilot.pause(0.05)
        await shot(pilot, "10-replay")
        await pilot.press("escape")
        app.action_doctor()
        for _ in range(200):  # the doctor runs in a worker thread
            if getattr(app.screen, "report", None) is not None:
                break
            await pilot.pause(0.05)
        await shot(pilot, "11-doctor")
    return written


def main(out: Path = OUT) -> int:
    out.mkdir(exist_ok=True)
    for old in out.glob(
        "*.svg"
    ):  # names change when screens are added; keep only current ones
        old.unlink()
    shutil.rmtree(HOME.parent, ignore_errors=True)
    HOME.mkdir(parents=True)
    PROJECT.mkdir()
    try:
        with fixed_clocks():
            written = asyncio.run(capture(HOME, out))
    finally:
        shutil.rmtree(HOME.parent, ignore_errors=True)
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    import sys

    raise SystemExit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT))
