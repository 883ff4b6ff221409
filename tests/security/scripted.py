"""A hostile model scripted through the real tool path: a FakeModelServer on 127.0.0.1 that
``aiq-tui ask`` talks to, plus builders for the replies and for hostile project files."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

import pytest

from aiq_tui.cli import main
from tests.llm.fakes import (
    FakeModelServer,
    Reply,
    openai_text_stream,
    openai_tool_stream,
    sse_reply,
)

KEY = "sk-test-MUST-NOT-LEAK-0123456789"
SECRET = "hunter2-SECRET"


class ScriptedModel:
    """A FakeModelServer on its own thread and loop, so ``main()`` can run ``asyncio.run``."""

    def __init__(self, replies: list[Reply]) -> None:
        self.server = FakeModelServer(replies)
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        async def serve() -> None:
            self._stop = asyncio.Event()
            async with self.server:
                self._ready.set()
                await self._stop.wait()

        self._loop.run_until_complete(serve())

    def __enter__(self) -> ScriptedModel:
        self._thread.start()
        assert self._ready.wait(30)
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._stop is not None
        self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(30)

    def sent_to_model(self) -> str:
        return json.dumps(
            [request.body for request in self.server.requests], ensure_ascii=False
        )


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
