"""A tool call the user cancels (Ctrl+C while its approval is open, or while it runs) says
*cancelled* — in the Tools tab, in the conversation, in the saved session and so in replay and
its captions — instead of staying ``asking`` / ``running`` for good."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from conftest import fixed_clock
from helpers import notices, say, settle, wait_for_approval, wait_until

from aiq_tui.agent.engine import Engine
from aiq_tui.events import ToolCallCancelled
from aiq_tui.replay.captions import turn_captions
from aiq_tui.ui.app import AiqApp
from aiq_tui.ui.screens.approval import ApprovalScreen
from aiq_tui.ui.widgets.tool_log import ToolLog
from aiq_tui.workspace import Workspace


async def test_ctrl_c_while_an_approval_is_open_cancels_the_call(
    tmp_path: Path,
) -> None:
    engine = Engine.create(Workspace.open(home_flag=tmp_path / "home"))
    seen: list[object] = []
    engine.subscribe(seen.append)
    app = AiqApp(engine, clock=fixed_clock, watch=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await say(pilot, "run ls and tell me what is in this folder")
        await wait_for_approval(pilot)
        call_id = app.screen.request.call_id
        await pilot.press("ctrl+c")
        await wait_until(lambda: not app.busy, "the turn cancelled")
        await settle(pilot)
        assert not isinstance(app.screen, ApprovalScreen)
        record = app.query_one(ToolLog).records[call_id]
        assert record.status == "cancelled", record.status
        assert [e.call_id for e in seen if isinstance(e, ToolCallCancelled)] == [
            call_id
        ]
        assert any("cancelled by you" in text for text in notices(app))
    captions = "\n".join(
        c for turn in turn_captions(engine.session.replay) for c in turn if c
    )
    assert "execute_command: cancelled by you" in captions
