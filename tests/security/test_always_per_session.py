""" "Allow always" holds for the rest of the *session* (docs/security.md), not for the rest
of the process: after a new conversation or a resumed one, a command asks again. Otherwise an
"always" given in one conversation ran the commands a second one asked for — one resumed from a
session file whose earlier tool results the model now reads as instructions."""

from __future__ import annotations

import asyncio
from pathlib import Path

from aiq_tui.conversation import ToolCall
from aiq_tui.tools.base import ApprovalRequest, Decision
from tests.agent.helpers import demo_engine


def _ask(engine, answer: Decision) -> list[str]:
    asked: list[str] = []

    async def approver(request: ApprovalRequest) -> Decision:
        asked.append(request.permission)
        return answer

    call = ToolCall("c1", "execute_command", {"command": ["echo", "hi"]})
    asyncio.run(engine.tools.invoke(call, approver, lambda event: None))
    return asked


def test_always_is_forgotten_when_a_new_conversation_starts(
    tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)
    engine, _ = demo_engine(tmp_path / "home")
    assert _ask(engine, Decision.ALLOW_ALWAYS) == ["execute_command"]
    assert _ask(engine, Decision.ALLOW_ONCE) == []  # remembered within the session
    engine.clear()
    assert _ask(engine, Decision.ALLOW_ONCE) == ["execute_command"]


def test_always_is_forgotten_when_another_session_is_resumed(
    tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)
    engine, _ = demo_engine(tmp_path / "home")
    saved = engine.session.id
    engine._save()
    engine.clear()
    assert _ask(engine, Decision.ALLOW_ALWAYS) == ["execute_command"]
    asyncio.run(engine.resume(saved))
    assert _ask(engine, Decision.ALLOW_ONCE) == ["execute_command"]
