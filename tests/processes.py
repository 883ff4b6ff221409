"""Processes seen through /proc, for tests that check what a launch leaves behind.

A test that wants "nothing outlived the call" waits for that condition with a deadline, and a
survivor fails it: no sleep of a guessed length that a slow machine turns into a false pass.
"""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path


def _alive(pid: str) -> bool:
    """False for a zombie (dead, not yet reaped) or a process gone meanwhile."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read()
    except OSError:
        return False
    return stat[stat.rfind(b")") + 2 :][:1] not in (b"Z", b"X")


def processes_in(folder: Path) -> list[int]:
    """Live processes (of anyone we can see) whose working directory is ``folder``."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.readlink(f"/proc/{entry}/cwd") == str(folder) and _alive(entry):
                    found.append(int(entry))
            except OSError:
                continue
    return found


async def until_none_in(folder: Path, what: str, timeout: float = 15.0) -> None:
    """Wait until no live process works in ``folder``; past ``timeout`` kill the survivors (so a
    failing test leaves nothing running) and fail naming ``what`` outlived its call."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while survivors := processes_in(folder):
        if loop.time() > deadline:
            for pid in survivors:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            raise AssertionError(
                f"{what} outlived the call: pids {survivors} still run in {folder}"
            )
        await asyncio.sleep(0.02)
