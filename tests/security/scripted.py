"""A hostile model scripted through the real tool path: a FakeModelServer on 127.0.0.1 that
``aiq-tui ask`` talks to, plus builders for the replies and for hostile project files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from aiq_tui.cli import main
from tests.llm.fakes import (
    Reply,
    ThreadedModelServer,
    openai_text_stream,
    openai_tool_stream,
    sse_reply,
)

KEY = "sk-test-MUST-NOT-LEAK-0123456789"
SECRET = "hunter2-SECRET"


# The hostile-model tests' name for the one threaded fake server.
ScriptedModel = ThreadedModelServer


def tool(name: str, arguments: dict[str, Any], call_id: str = "call_1") -> Reply:
    return sse_reply(openai_tool_stream([(call_id, name, json.dumps(arguments))]))


def text(answer: str = "done") -> Reply:
    return sse_reply(openai_text_stream([answer]))


def calls(*steps: tuple[str, dict[str, Any]]) -> list[Reply]:
    """One reply per tool call (ids call_1, call_2, …), then a final answer."""
    return [
        tool(name, arguments, f"call_{index}")
        for index, (name, arguments) in enumerate(steps, 1)
    ] + [text()]


def ask(model: ScriptedModel, monkeypatch: pytest.MonkeyPatch, *flags: str) -> int:
    monkeypatch.setenv("OPENAI_BASE_URL", model.server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    return main(["ask", "--provider", "openai", "--json", *flags, "do the thing"])


def run_session(
    steps: list[Reply],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    *flags: str,
) -> tuple[list[dict[str, Any]], str, str]:
    """``ask --json FLAGS`` against a model that replies ``steps``: (events, sent to the model, stderr)."""
    with ScriptedModel(steps) as model:
        ask(model, monkeypatch, *flags)
        sent = model.sent_to_model()
    captured = capsys.readouterr()
    events = [
        json.loads(line) for line in captured.out.splitlines() if line.startswith("{")
    ]
    return events, sent, captured.err


def of_type(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [event for event in events if event.get("type") == kind]


def write_skill(
    folder: Path, name: str, frontmatter: str = "", body: str = "Follow these steps.\n"
) -> Path:
    """``folder/name/SKILL.md`` with a description and extra frontmatter lines."""
    skill = folder / name
    skill.mkdir(parents=True, exist_ok=True)
    path = skill / "SKILL.md"
    path.write_text(
        f"---\nname: {name}\ndescription: Helps with {name} tasks in this project\n{frontmatter}---\n{body}",
        encoding="utf-8",
    )
    return path
