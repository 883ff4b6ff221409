"""Helpers the conformance tests import (fixtures live in conftest.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def config(home: Path, text: str) -> None:
    """Replace the home's config.yaml (keeps bundled skills off)."""
    (home / "config" / "config.yaml").write_text(
        "skills:\n  bundled: false\n  include_user_agent_dirs: false\n" + text,
        encoding="utf-8",
    )


async def call_tool(
    engine: Any, name: str, arguments: dict[str, Any], approver: Any = None
) -> Any:
    """Run one tool call through the engine's registry (policy, approval and events included)."""
    from aiq_tui.conversation import ToolCall

    return await engine.tools.invoke(
        ToolCall("c1", name, arguments), approver, lambda event: None
    )
