"""What reaches the terminal (issue 23, findings 6, 9 and 11): escape sequences written by a
model, a tool or a session file are shown escaped, never obeyed; the approval prompt shows
every character that would run; replay never crashes on odd text.

The model is a scripted OpenAI-compatible server on 127.0.0.1, driven through ``aiq-tui ask``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest

from aiq_tui.cli import main
from aiq_tui.locations import Home
from tests.llm.fakes import openai_text_stream, openai_tool_stream, sse_reply
from tests.security.test_ask_hostile_model import KEY, ScriptedModel

# OSC 52 sets the clipboard, OSC 0 the window title, CSI 2J clears the screen, OSC 8 makes a
# link whose target is not its text, U+009B is the one-byte CSI, ESC M moves up a line.
CLIPBOARD = "\x1b]52;c;cm0gLXJmIH4vKgo=\x07"
TITLE = "\x1b]0;pwned\x07"
CLEAR = "\x1b[2J"
LINK = "\x1b]8;;https://evil.example/\x1b\\https://docs.python.org\x1b]8;;\x1b\\"
C1_CSI = "\x9b31m"
HOSTILE = f"Sure.{CLIPBOARD} {TITLE}{CLEAR} see {LINK} {C1_CSI}done"
RAW = ("\x1b", "\x07", "\x9b")


def _no_raw(text: str) -> None:
    for char in RAW:
        at = text.find(char)
        assert at < 0, (
            f"raw {char!r} reached the terminal: {text[max(0, at - 60) : at + 60]!r}"
        )


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    monkeypatch.chdir(root)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    return root


def _ask(replies: list, monkeypatch: pytest.MonkeyPatch, *flags: str) -> int:
    with ScriptedModel(replies) as model:
        monkeypatch.setenv("OPENAI_BASE_URL", model.server.base_url)
        return main(["ask", "--provider", "openai", *flags, "do the thing"])


def test_a_streamed_answer_shows_escape_sequences_instead_of_obeying_them(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Finding 6: OSC 52, OSC 0, CSI 2J and OSC 8 in the answer reached stdout raw. A sequence
    split over two chunks is escaped too."""
    pieces = [HOSTILE[:9], HOSTILE[9:30], HOSTILE[30:]]
    assert _ask([sse_reply(openai_text_stream(pieces))], monkeypatch, "--deny-all") == 0
    captured = capsys.readouterr()
    _no_raw(captured.out + captured.err)
    assert "\\x1b]52;c;cm0gLXJmIH4vKgo=\\x07" in captured.out
    assert (
        "\\x1b]0;pwned\\x07" in captured.out
        and "\\x1b[2J" in captured.out
        and "\\x9b31m" in captured.out
    )


def test_tool_calls_and_their_refusals_on_stderr_are_escaped(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The events of a turn (tool names, arguments, refusals, errors) are printed escaped."""
    call = (
        "call_1",
        "execute_command",
        json.dumps({"command": ["ls", f"x{TITLE}{CLEAR}"]}),
    )
    replies = [
        sse_reply(openai_tool_stream([call])),
        sse_reply(openai_tool_stream([("call_2", f"no_such_tool{CLEAR}", "{}")])),
        sse_reply(openai_text_stream(["ok"])),
    ]
    _ask(replies, monkeypatch, "--deny-all")
    captured = capsys.readouterr()
    _no_raw(captured.out + captured.err)
    assert "execute_command" in captured.err


def test_json_output_stays_json_and_carries_no_raw_control_character(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--json`` escapes are safe: the text round-trips, and the one-byte CSI (U+009B), which
    ``json.dumps(ensure_ascii=False)`` leaves raw, is escaped too."""
    assert (
        _ask(
            [sse_reply(openai_text_stream([HOSTILE]))],
            monkeypatch,
            "--json",
            "--deny-all",
        )
        == 0
    )
    out = capsys.readouterr().out
    _no_raw(out)
    events = [json.loads(line) for line in out.splitlines()]
    streamed = "".join(e["text"] for e in events if e["type"] == "token_streamed")
    assert streamed == HOSTILE  # the JSON value is the model's text, exactly


def _hostile_session(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], answer: str
) -> str:
    _ask([sse_reply(openai_text_stream([answer]))], monkeypatch, "--json", "--deny-all")
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    return next(e["session_id"] for e in events if e["type"] == "session_saved")


def test_replay_and_sessions_show_escape_what_the_session_file_holds(
    project: Path,
    isolated_home: Home,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Finding 6: ``replay`` and session titles passed escape sequences through."""
    session_id = _hostile_session(monkeypatch, capsys, HOSTILE)
    assert main(["sessions", "rename", session_id, f"evil {TITLE}{CLEAR}"]) == 0
    for argv in (
        ["replay", session_id],
        ["sessions", "list"],
        ["sessions", "show", session_id],
        ["sessions", "export", session_id],
    ):
        assert main(argv) == 0, argv
        captured = capsys.readouterr()
        _no_raw(captured.out + captured.err)
        assert "\\x1b" in captured.out, argv  # shown, not dropped


def test_replay_never_crashes_on_lone_surrogates(
    project: Path,
    isolated_home: Home,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Finding 11: a session whose answer holds lone surrogates crashed ``replay`` with a
    traceback. Run as the real program, with a UTF-8 stdout that refuses surrogates."""
    session_id = _hostile_session(
        monkeypatch, capsys, f"half an emoji \ud83d, a low one \udc00 {TITLE}"
    )
    env = {**os.environ, "PYTHONIOENCODING": "utf-8:strict", "PYTHONUTF8": "1"}
    for argv in (
        ["replay", session_id],
        ["sessions", "show", session_id],
        ["replay", session_id, "--json"],
    ):
        done = subprocess.run(
            [sys.executable, "-m", "aiq_tui", *argv],
            capture_output=True,
            env=env,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
        assert b"Traceback" not in done.stderr
        assert b"\x1b" not in done.stdout + done.stderr
        assert b"\\ud83d" in done.stdout


# -- approvals (finding 9) ------------------------------------------------------------------
# ESC M (reverse index) moves the cursor up a line: the next line overwrites the one before,
# so a prompt showed "echo hello" while "rm -rf ~/work" was what ran.
SPOOF = "rm -rf ~/work\n\x1bM\x1b[2Kecho hello"


def _request(detail: str):
    from aiq_tui.tools.base import ApprovalRequest

    return ApprovalRequest(
        call_id="c1",
        tool="execute_command",
        permission="execute_command",
        title="Run command",
        detail=detail,
        arguments={},
    )


async def test_the_terminal_approval_prompt_shows_every_character_that_would_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import argparse

    from aiq_tui.commands import ask_cmd
    from aiq_tui.commands.common import make_console

    screen = StringIO()
    monkeypatch.setattr(sys, "stderr", screen)
    monkeypatch.setattr("builtins.input", lambda prompt="": "n")
    ask = ask_cmd._terminal_approver(make_console(argparse.Namespace(), stderr=True))
    await ask(_request(SPOOF))
    shown = screen.getvalue()
    _no_raw(shown)
    assert "rm -rf ~/work" in shown and "\\x1bM\\x1b[2Kecho hello" in shown
    assert (
        "2 control or invisible characters" in shown
    )  # a typed "\x1b" cannot pass for a real one


async def test_the_tui_approval_dialog_shows_every_character_that_would_run(
    tmp_path: Path,
) -> None:
    sys.path.insert(0, str(Path(__file__).parents[1] / "ui"))
    from fake_engine import FakeEngine

    from aiq_tui.ui.app import AiqApp
    from aiq_tui.ui.screens.approval import ApprovalScreen

    app = AiqApp(FakeEngine(tmp_path), watch=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        app.push_screen(ApprovalScreen(_request(SPOOF)))
        await pilot.pause()
        screenshot = app.export_screenshot()
    _no_raw(screenshot)
    assert "rm&#160;-rf&#160;~/work" in screenshot or "rm -rf ~/work" in screenshot
    assert "x1bM" in screenshot


async def test_the_tui_shows_hostile_engine_text_escaped(tmp_path: Path) -> None:
    """Finding 6 in the workbench: the answer, tool log, notices and errors are shown escaped."""
    sys.path.insert(0, str(Path(__file__).parents[1] / "ui"))
    from fake_engine import FakeEngine

    from aiq_tui.events import (
        ErrorRaised,
        TokenStreamed,
        ToolCallFinished,
        ToolCallRequested,
        TurnFinished,
        TurnStarted,
    )
    from aiq_tui.ui.app import AiqApp

    engine = FakeEngine(tmp_path)
    app = AiqApp(engine, watch=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        for event in (
            TurnStarted("t1", f"question {TITLE}"),
            ToolCallRequested(
                "c1", "execute_command", {"command": ["ls", CLEAR]}, "allow"
            ),
            ToolCallFinished(
                "c1",
                "execute_command",
                True,
                f"listed {CLEAR}",
                0.1,
                {"stdout": CLIPBOARD},
            ),
            TokenStreamed(HOSTILE[:20]),
            TokenStreamed(HOSTILE[20:]),
            ErrorRaised(f"boom {TITLE}", False),
            TurnFinished("t1", HOSTILE, 10, 10),
        ):
            engine.emit(event)
        await pilot.pause()
        await pilot.pause()
        screenshot = app.export_screenshot()
    _no_raw(screenshot)
    assert "x1b]52" in screenshot
