"""A writer process SIGKILLed mid-save, again and again: no session is ever corrupt or lost."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

# The child saves three sessions round-robin, each a few hundred KB so a write takes long
# enough for kills to land mid-save; after each completed save it prints "<id> <counter>".
_WRITER = r"""
import sys
from pathlib import Path
from aiq_tui.agent.sessions import Session, SessionStore
from aiq_tui.conversation import Message, Role

store = SessionStore(Path(sys.argv[1]))
ids = ["alpha", "beta", "gamma"]
sessions = {}
for sid in ids:
    try:
        sessions[sid] = store.load(sid)
    except Exception:
        sessions[sid] = Session(id=sid, title="0")
print("ready", flush=True)
filler = "x" * 4000
while True:
    for sid in ids:
        session = sessions[sid]
        counter = int(session.title) + 1
        session.title = str(counter)
        session.messages = [Message(Role.USER, f"{counter}:{i}:{filler}") for i in range(60)]
        store.save(session)
        sys.stdout.write(f"{sid} {counter}\n")
        sys.stdout.flush()
"""

KILLS = 30


def _check_all(directory: Path, acknowledged: dict[str, int]) -> None:
    for path in directory.glob("session_*.json"):
        data = json.loads(path.read_text(encoding="utf-8"))  # raises on a torn file
        counter = int(data["title"])
        assert all(m["content"].startswith(f"{counter}:") for m in data["messages"]), (
            path
        )
    for sid, counter in acknowledged.items():
        data = json.loads(
            (directory / f"session_{sid}.json").read_text(encoding="utf-8")
        )
        # The last completed save is present (a later, unacknowledged one may be too).
        assert int(data["title"]) >= counter, (sid, data["title"], counter)


@pytest.mark.slow
def test_sigkill_during_saves_never_corrupts_or_loses_sessions(tmp_path: Path) -> None:
    directory = tmp_path / "sessions"
    rng = random.Random(7)
    acknowledged: dict[str, int] = {}
    mid_save = 0
    seen_temps: set[Path] = set()
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    started = time.monotonic()
    for _ in range(KILLS):
        child = subprocess.Popen(
            [sys.executable, "-c", _WRITER, str(directory)],
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "ready"
        lines: list[str] = []
        reader = threading.Thread(
            target=lambda: lines.extend(child.stdout), daemon=True
        )  # type: ignore[arg-type]
        reader.start()
        time.sleep(rng.uniform(0.005, 0.08))
        child.send_signal(signal.SIGKILL)
        child.wait()
        reader.join(timeout=5)
        for line in lines:
            if not line.endswith("\n"):
                continue  # killed while reporting: the save itself may or may not be complete
            sid, counter = line.split()
            acknowledged[sid] = max(acknowledged.get(sid, 0), int(counter))
        _check_all(directory, acknowledged)
        temps = set(directory.glob(".session_*.tmp"))
        mid_save += bool(temps - seen_temps)
        seen_temps |= temps
    assert (
        sum(acknowledged.values()) > KILLS
    )  # the writer really was saving between kills
    assert time.monotonic() - started < 20
    assert (
        mid_save >= 1
    )  # some kills really landed between temp-file creation and rename
    print(f"kills that left a half-written temp file: {mid_save}/{KILLS}")
