"""The real engine on the demo model reaches the approval modal with the default settings,
and the app survives it (engine events queued before the modal still find the main screen)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from conftest import fixed_clock
from helpers import say, settle, wait_until

from aiq_tui.agent.engine import Engine
from aiq_tui.ui.app import AiqApp
from aiq_tui.ui.screens.approval import ApprovalScreen
from aiq_tui.ui.widgets.conversation import Conversation
from aiq_tui.ui.widgets.tool_log import ToolLog
from aiq_tui.workspace import Workspace

pytestmark = pytest.mark.slow


async def _wait_for_modal(pilot, app: AiqApp) -> ApprovalScreen:
    # … and taking keys: for ui.typing_grace after it opens, a key is typing, not an answer
    await wait_until(
        lambda: isinstance(app.screen, ApprovalScreen) and app.screen.armed,
        "the approval modal",
        timeout=60,
    )
    return app.screen


@pytest.mark.parametrize(
    ("question", "detail", "key", "expect"),
    [
        ("How much disk space is free?", "df -h", "y", "`df -h` exited with 0"),
        (
            "Save a note: water the plants",
            "write notes/",
            "n",
            "`file_operations` was not run — denied: the user declined",
        ),
    ],
)
async def test_a_command_or_a_write_asks_first_and_the_answer_reports_the_outcome(
    tmp_path: Path, question: str, detail: str, key: str, expect: str
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    engine = Engine.create(Workspace.open(home_flag=tmp_path / "home", cwd=project))
    app = AiqApp(engine, clock=fixed_clock, watch=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await say(pilot, question)
        modal = await _wait_for_modal(pilot, app)
        assert detail in modal.request.detail
        await pilot.press(key)
        await settle(pilot, timeout=20)
        assert expect in app.query_one(Conversation).last_answer
        assert app.query_one(ToolLog).records
    assert not (project / "notes").exists()


async def test_quitting_while_the_approval_dialog_is_open_exits_cleanly(
    tmp_path: Path,
) -> None:
    # Found in a real terminal: Ctrl+Q with the dialog open cancelled the turn, and the
    # cancellation's events then reached the conversation while it unmounted (MountError).
    project = tmp_path / "project"
    project.mkdir()
    engine = Engine.create(Workspace.open(home_flag=tmp_path / "home", cwd=project))
    app = AiqApp(engine, clock=fixed_clock, watch=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await say(pilot, "run ls -la and count the files")
        await _wait_for_modal(pilot, app)
        await pilot.press("ctrl+q")
    assert app.crash is None
    assert app.return_code == 0
