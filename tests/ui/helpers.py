"""Pilot steps shared by pilot and snapshot tests."""

from __future__ import annotations

from textual.pilot import Pilot

from aiq_tui.ui.app import AiqApp


async def settle(pilot: Pilot, timeout: float = 5.0) -> None:
    """Wait until no turn or engine action is running and queued events are handled."""
    app = pilot.app
    assert isinstance(app, AiqApp)
    waited = 0.0
    await pilot.pause()
    while waited < timeout and (
        app.busy or any(w.is_running and w.group in ("turn", "engine") for w in app.workers)
    ):
        await pilot.pause(0.02)
        waited += 0.02
    await pilot.pause()
    await pilot.pause()


async def say(pilot: Pilot, text: str) -> None:
    """Type ``text`` into the prompt and press Enter."""
    prompt = pilot.app.query_one("#prompt")
    prompt.value = text
    prompt.focus()
    await pilot.press("enter")
