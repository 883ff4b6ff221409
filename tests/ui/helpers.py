"""Pilot steps shared by pilot and snapshot tests."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from textual.pilot import Pilot

from aiq_tui.ui.app import AiqApp

if TYPE_CHECKING:
    from aiq_tui.ui.screens.sessions import SessionsScreen


async def settle(pilot: Pilot, timeout: float = 60.0) -> None:
    """Wait until no turn or engine action is running and queued events are handled; fail,
    naming what still runs, when that takes longer than ``timeout`` seconds (measured by the
    clock: each pause may itself take a while on a loaded machine)."""
    app = pilot.app
    assert isinstance(app, AiqApp)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout

    def running() -> list[str]:
        return [
            f"{w.group}:{w.name}"
            for w in app.workers
            if w.is_running and w.group in ("turn", "engine")
        ]

    await pilot.pause()
    while app.busy or running():
        assert loop.time() < deadline, (
            f"settle: still busy after {timeout:g} s "
            f"(busy={app.busy}, workers {running()}, screen {type(app.screen).__name__})"
        )
        await pilot.pause(0.02)
    await pilot.pause()
    await pilot.pause()


async def say(pilot: Pilot, text: str) -> None:
    """Type ``text`` into the prompt and press Enter."""
    prompt = pilot.app.query_one("#prompt")
    prompt.value = text
    prompt.focus()
    await pilot.press("enter")


async def wait_for_approval(pilot: Pilot, timeout: float = 60.0) -> None:
    """Wait until the approval modal is on screen (the fake engine asks mid-turn)."""
    from aiq_tui.ui.screens.approval import ApprovalScreen

    await wait_until(
        lambda: isinstance(pilot.app.screen, ApprovalScreen) and pilot.app.screen.armed,
        "the approval modal, taking keys",
        timeout,
    )


async def answer_approval(pilot: Pilot, key: str, timeout: float = 60.0) -> None:
    """Press ``key`` on the open approval dialog once it takes keys (``ui.typing_grace`` after
    it opened, and after the last key typed)."""
    await wait_for_approval(pilot, timeout)
    await pilot.press(key)


def notices(app: AiqApp) -> list[str]:
    """The text of every notice in the conversation, oldest first."""
    return [str(notice.render()) for notice in app.query(".notice")]


async def wait_until(
    condition: Callable[[], bool], what: str, timeout: float = 120
) -> None:
    """Poll the app's state with plain asyncio sleeps. No pilot.pause(): it first waits for
    every widget to go idle within 30 s, which is what timed out on a loaded machine."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        assert loop.time() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.02)


async def deny_approvals_until(
    pilot: Pilot, condition: Callable[[], bool], what: str, timeout: float = 300
) -> int:
    """Like :func:`wait_until`, answering every approval dialog with "n" on the way (nothing
    is written or run); returns how many dialogs were answered."""
    from aiq_tui.ui.screens.approval import ApprovalScreen

    app = pilot.app
    answered: list[ApprovalScreen] = []
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        assert loop.time() < deadline, f"timed out waiting for {what}"
        screen = app.screen
        if (
            isinstance(screen, ApprovalScreen)
            and screen.armed
            and screen not in answered
        ):
            answered.append(screen)
            await pilot.press("n")
        await asyncio.sleep(0.02)
    return len(answered)


async def open_sessions_list(pilot: Pilot, timeout: float = 60.0) -> SessionsScreen:
    """Press F4 and wait until the sessions dialog is up and its rows have arrived (the
    sessions are read in a worker while the dialog is already open)."""
    from aiq_tui.ui.screens.sessions import SessionsScreen

    await pilot.press("f4")
    await wait_until(
        lambda: isinstance(pilot.app.screen, SessionsScreen),
        "the sessions list",
        timeout,
    )
    screen = pilot.app.screen
    assert isinstance(screen, SessionsScreen)
    await wait_until(lambda: not screen.reading, "the sessions read", timeout)
    await pilot.pause()
    return screen


def screen_text(app: AiqApp) -> list[str]:
    """Every row of the screen as the terminal shows it (what a person reads)."""
    return [
        "".join(seg.text for seg in strip)
        for strip in app.screen._compositor.render_strips()
    ]
