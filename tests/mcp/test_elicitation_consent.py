"""A server's question is answered by a person, or by its defaults only when the user said so —
never by ``--yes``, and a destructive default never silently.

The fourth review: ``ask --yes`` answered "Confirm deleting every repository?" (a ``confirm:
true`` default) with yes. ``--yes`` approves tool calls; ``--accept-elicitation-defaults``
answers with a server's defaults, but not a destructive question: headless it is declined with
a message, at a terminal a person types every value. Against the MCP SDK's own server
(tests/mcp/protocol_server.py)."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
from rich.console import Console

from aiq_tui.cli import main
from aiq_tui.commands.elicitation_cli import elicitor
from aiq_tui.locations import Home
from aiq_tui.tools.mcp.elicitation import (
    ElicitationField,
    ElicitationRequest,
    destructive_reason,
)
from tests.llm.fakes import Reply, openai_text_stream, openai_tool_stream, sse_reply
from tests.mcp.conftest import write_config
from tests.mcp.test_protocol_features import _call, _fleet, protocol_server
from tests.security.test_ask_hostile_model import ScriptedModel

pytestmark = pytest.mark.slow


def _console() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, width=200, no_color=True), out


async def _tool_result(home: Home, cwd: Path, tool: str, answer_with: object) -> str:
    fleet, _ = _fleet(home, cwd, {"p": protocol_server()})
    fleet.elicitor = answer_with
    try:
        await fleet.start()
        return (await _call(fleet, f"mcp__p__{tool}", {})).content
    finally:
        await fleet.aclose()


async def test_headless_without_the_switch_every_question_is_declined(
    tmp_path: Path, isolated_home: Home
) -> None:
    console, out = _console()
    answer = elicitor(console, accept_defaults=False, interactive=False, quiet=False)
    assert (
        await _tool_result(isolated_home, tmp_path, "ask_colour", answer)
        == "no colour: decline"
    )
    assert "--accept-elicitation-defaults" in out.getvalue()


async def test_the_switch_takes_a_harmless_default_but_never_a_destructive_one(
    tmp_path: Path, isolated_home: Home
) -> None:
    console, out = _console()
    answer = elicitor(console, accept_defaults=True, interactive=False, quiet=False)
    assert (
        await _tool_result(isolated_home, tmp_path, "ask_colour", answer)
        == "colour blue"
    )
    assert (
        await _tool_result(isolated_home, tmp_path, "delete_everything", answer)
        == "kept them: decline"
    )
    said = out.getvalue()
    assert "Confirm deleting every repository?" in said and "destructive" in said


async def test_at_a_terminal_a_destructive_question_is_typed_by_the_person(
    tmp_path: Path, isolated_home: Home
) -> None:
    """Enter would have kept ``confirm: true`` for them: it is not taken; they type ``n``."""
    console, out = _console()
    typed = iter(["", "n", "y"])  # Enter (refused), then "no", then "send"
    prompts: list[str] = []

    def ask(prompt: str) -> str:
        prompts.append(prompt)
        return next(typed)

    answer = elicitor(
        console, accept_defaults=True, interactive=True, quiet=False, ask=ask
    )
    result = await _tool_result(isolated_home, tmp_path, "delete_everything", answer)
    assert result == "kept them: accept"  # answered, with confirm: false
    assert "[True]" not in "".join(prompts)  # no default offered
    assert "nothing is pre-answered" in out.getvalue()


async def test_at_a_terminal_enter_keeps_a_harmless_default(
    tmp_path: Path, isolated_home: Home
) -> None:
    console, _ = _console()
    typed = iter(["", "y"])
    answer = elicitor(
        console,
        accept_defaults=False,
        interactive=True,
        quiet=False,
        ask=lambda prompt: next(typed),
    )
    assert (
        await _tool_result(isolated_home, tmp_path, "ask_colour", answer)
        == "colour blue"
    )


def test_destructive_questions_are_told_from_harmless_ones() -> None:
    def asked(message: str, *fields: ElicitationField) -> str | None:
        return destructive_reason(ElicitationRequest("p", message, fields=fields))

    assert asked("Confirm deleting every repository?")
    assert asked("Drop the table users?")
    assert asked("This cannot be undone. Continue?")
    assert asked("Ready?", ElicitationField("proceed", "boolean", default=True))
    assert asked("Ready?", ElicitationField("confirm", "boolean", default=True))
    assert (
        asked("Which colour?", ElicitationField("colour", "string", default="blue"))
        is None
    )
    assert (
        asked(
            "Which output format?", ElicitationField("format", "choice", default="csv")
        )
        is None
    )
    assert (
        asked(
            "Include archived?", ElicitationField("archived", "boolean", default=True)
        )
        is None
    )
    assert (
        asked("Ready?", ElicitationField("confirm", "boolean", default=False)) is None
    )


# -- through aiq-tui ask ---------------------------------------------------------------------


def _tool(name: str) -> Reply:
    return sse_reply(openai_tool_stream([("call_1", name, "{}")]))


def _ask(
    home: Home,
    monkeypatch: pytest.MonkeyPatch,
    tool: str,
    *flags: str,
) -> tuple[ScriptedModel, int]:
    write_config(home, {"p": protocol_server()})
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))  # no terminal
    replies = [_tool(f"mcp__p__{tool}"), sse_reply(openai_text_stream(["done"]))]
    with ScriptedModel(replies) as model:
        monkeypatch.setenv("OPENAI_BASE_URL", model.server.base_url)
        code = main(["ask", "--provider", "openai", *flags, "tidy up"])
    return model, code


def _tool_message(model: ScriptedModel) -> str:
    messages = model.server.requests[1].body["messages"]
    return next(m["content"] for m in messages if m["role"] == "tool")


def test_ask_yes_no_longer_answers_the_servers_question(
    project: Path,
    isolated_home: Home,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    model, code = _ask(isolated_home, monkeypatch, "delete_everything", "--yes")
    assert code == 0
    assert "kept them: decline" in _tool_message(model)
    err = capsys.readouterr().err
    assert "Confirm deleting every repository?" in err and "declined" in err


def test_ask_with_the_switch_still_declines_a_destructive_default(
    project: Path,
    isolated_home: Home,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    model, _ = _ask(
        isolated_home,
        monkeypatch,
        "delete_everything",
        "--yes",
        "--accept-elicitation-defaults",
    )
    assert "kept them: decline" in _tool_message(model)
    assert "destructive" in capsys.readouterr().err


def test_ask_with_the_switch_answers_a_harmless_question_with_its_default(
    project: Path,
    isolated_home: Home,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    model, _ = _ask(
        isolated_home,
        monkeypatch,
        "ask_colour",
        "--yes",
        "--accept-elicitation-defaults",
    )
    content = _tool_message(model)
    assert "colour blue" in (
        json.loads(content) if content.startswith('"') else content
    )
