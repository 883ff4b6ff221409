"""``make screenshots``: SVGs of the main screens, written to ``screenshots/``.

Runs the real engine on the offline demo provider in a temporary config home, so the
pictures show exactly what a new user sees: skills loading, a tool running, the gauge.
"""

from __future__ import annotations

import asyncio
import tempfile
from datetime import datetime
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "screenshots"
SIZE = (120, 36)


async def capture(home: Path) -> list[Path]:
    from aiq_tui.agent.engine import Engine
    from aiq_tui.ui.app import AiqApp
    from aiq_tui.ui.screens.approval import ApprovalScreen
    from aiq_tui.workspace import Workspace

    engine = Engine.create(Workspace.open(home_flag=home))
    engine.config.ui.demo_turn_pause = (
        0  # pictures, not a show: no pause between demo turns
    )
    engine.config.ui.demo_step_seconds = (
        0  # … nor between the step-through demo's steps
    )
    app = AiqApp(
        engine,
        clock=lambda: datetime(2025, 1, 2, 12, 0, 0),
        watch=False,
        flash_seconds=3600,
    )
    app.animation_level = "none"
    written: list[Path] = []

    async def shot(pilot, name: str) -> None:
        await pilot.pause(0.2)
        written.append(Path(app.save_screenshot(f"{name}.svg", path=str(OUT))))

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


def main() -> int:
    OUT.mkdir(exist_ok=True)
    for old in OUT.glob(
        "*.svg"
    ):  # names change when screens are added; keep only current ones
        old.unlink()
    with tempfile.TemporaryDirectory(prefix="aiq-shots-") as home:
        written = asyncio.run(capture(Path(home)))
    for path in written:
        print(path.relative_to(OUT.parent))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
