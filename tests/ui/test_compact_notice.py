"""/compact in the TUI on the real engine (issue 24 §1.9): with nothing to fold it says what
takes the room and what would free it; after a turn with tool results it compacts them."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from conftest import fixed_clock
from helpers import notices, say, settle, wait_until

from aiq_tui.agent.engine import Engine
from aiq_tui.tools.registry import approve_all
from aiq_tui.ui.app import AiqApp
from aiq_tui.ui.widgets.timeline import Timeline
from aiq_tui.workspace import Workspace

pytestmark = pytest.mark.slow


def _app(home: Path, window: int) -> AiqApp:
    (home / "config").mkdir(parents=True, exist_ok=True)
    (home / "config" / "config.yaml").write_text(
        f"context:\n  window: {window}\n", encoding="utf-8"
    )
    return AiqApp(
        Engine.create(Workspace.open(home_flag=home)), clock=fixed_clock, watch=False
    )


async def test_compact_with_nothing_to_fold_says_what_would_make_room(
    tmp_path: Path,
) -> None:
    app = _app(tmp_path / "home", 2800)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await say(pilot, "hello")
        await settle(pilot, timeout=20)
        await say(pilot, "/compact")
        await wait_until(
            lambda: any(t.startswith("nothing to compact") for t in notices(app)),
            "the /compact notice",
        )
        notice = next(t for t in notices(app) if t.startswith("nothing to compact"))
        assert "reserved for the answer" in notice and "To make room" in notice


async def test_compact_clears_the_finished_turns_tool_results(tmp_path: Path) -> None:
    app = _app(tmp_path / "home", 6000)
    app.engine.approver = approve_all
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await say(pilot, "show the tables in the sample database")
        await settle(pilot, timeout=20)
        await say(pilot, "/compact")
        await wait_until(
            lambda: any(
                kind == "compress" and "cleared 2 older tool results" in text
                for kind, text in app.query_one(Timeline).entries
            ),
            "the compaction",
        )
        assert not any(t.startswith("nothing to compact") for t in notices(app))
