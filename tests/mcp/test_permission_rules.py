"""Claude Code's permission rules for MCP tools (issue 33 item 4), with the real time server
from PyPI: `mcp__time__*` allows without asking, a typo is warned about wherever warnings show,
and a refusal names the key the user wrote."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aiq_tui.cli import main
from aiq_tui.locations import Home
from aiq_tui.tools.policy import PermissionPolicy
from aiq_tui.workspace import Workspace
from tests.mcp.conftest import installed, write_config
from tests.mcp.test_ask_with_mcp import _answer, _ask, _events, _tool, _tool_messages
from tests.security.test_ask_hostile_model import ScriptedModel

TIME = "mcp__time__get_current_time"


def _time_server(home: Home, permissions: dict[str, str]) -> None:
    write_config(
        home,
        {"time": {"command": installed("mcp-server-time")}},
        tools={"permissions": permissions},
    )


@pytest.mark.slow
def test_a_server_wildcard_allow_runs_the_time_tool_unasked(
    project: Path,
    isolated_home: Home,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _time_server(isolated_home, {"mcp__time__*": "allow"})
    replies = [_tool(TIME, {"timezone": "Etc/UTC"}), _answer("noon")]
    with ScriptedModel(replies) as model:
        code = _ask(
            model, monkeypatch, "--json"
        )  # --json: nobody to ask; an "ask" would be refused
    out = capsys.readouterr().out
    assert code == 0
    assert _events(out, "tool_call_denied") == []
    assert [(e["name"], e["ok"]) for e in _events(out, "tool_call_finished")] == [
        (TIME, True)
    ]
    assert json.loads(_tool_messages(model, 1)[0])["timezone"] == "Etc/UTC"


@pytest.mark.slow
def test_a_refusal_names_the_server_rule_the_user_wrote(
    project: Path,
    isolated_home: Home,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _time_server(isolated_home, {"mcp__time": "deny"})
    replies = [_tool(TIME, {"timezone": "Etc/UTC"}), _answer("I may not look.")]
    with ScriptedModel(replies) as model:
        code = _ask(model, monkeypatch, "--json", "--yes")
    out = capsys.readouterr().out
    assert code == 0
    reason = _events(out, "tool_call_denied")[0]["reason"]
    assert "tools.permissions.mcp__time:" in reason
    assert (
        f"tools.permissions.{TIME}" not in reason
    )  # a key that does not exist in the file
    assert _events(out, "tool_call_finished") == []


def test_a_typo_key_is_warned_about_at_start_up_in_doctor_and_in_sources_list(
    project: Path, isolated_home: Home, capsys: pytest.CaptureFixture[str]
) -> None:
    write_config(
        isolated_home,
        {"time": {"command": "mcp-server-time"}},
        tools={
            "permissions": {
                "mcp__tiem": "allow",
                "file_wirte": "deny",
                "mcp__time__*": "allow",
            }
        },
    )
    workspace = Workspace.open(home_flag=isolated_home.root)
    warnings = [
        str(p)
        for p in workspace.problems
        if p.field and p.field.startswith("tools.permissions")
    ]
    assert len(warnings) == 2
    assert any(
        "tools.permissions.mcp__tiem" in w and "did you mean mcp__time" in w
        for w in warnings
    )
    assert any(
        "tools.permissions.file_wirte" in w and "did you mean file_write" in w
        for w in warnings
    )

    from tests.agent.helpers import openai_engine

    engine, _ = openai_engine(
        isolated_home.root, "http://127.0.0.1:9"
    )  # the app's warnings (F6)
    assert any("tools.permissions.mcp__tiem" in str(p) for p in engine.problems)

    main(["skills", "doctor"])
    doctor = capsys.readouterr().out
    assert (
        "tools.permissions.mcp__tiem" in doctor
        and "tools.permissions.file_wirte" in doctor
    )
    assert "mcp__time__*" not in doctor  # a rule that names a server is fine
    assert main(["sources", "list"]) == 0
    listed = capsys.readouterr().out
    assert "warning:" in listed and "tools.permissions.mcp__tiem" in listed


def test_claude_code_tool_names_in_permissions_are_warned_about_with_our_key() -> None:
    from aiq_tui.tools.policy import unmatched_rules

    found = dict(
        unmatched_rules(
            ["Bash", "Read", "file_read", "http_get:example.org", "mcp__*"], ["time"]
        )
    )
    assert set(found) == {"Bash", "Read", "mcp__*"}
    assert "execute_command" in found["Bash"] and "file_read" in found["Read"]


@pytest.mark.slow
async def test_a_tool_rule_that_names_no_tool_of_a_running_server_is_warned_about(
    project: Path, isolated_home: Home
) -> None:
    from tests.agent.helpers import openai_engine

    _time_server(isolated_home, {"mcp__time__get_curent_time": "allow"})
    engine, _ = openai_engine(isolated_home.root, "http://127.0.0.1:9")
    try:
        await engine.start_mcp()
        problems = [str(p) for p in engine.problems]
    finally:
        await engine.aclose()
    assert any(
        "tools.permissions.mcp__time__get_curent_time" in p
        and "no tool of MCP server time" in p
        and "did you mean mcp__time__get_current_time" in p
        for p in problems
    )


@pytest.mark.parametrize(
    ("rules", "expected"),
    [
        ({"mcp__time__*": "allow"}, ("allow", "mcp__time__*")),
        ({"mcp__time": "allow", TIME: "ask"}, ("ask", TIME)),  # the narrowest decides
        (
            {"mcp__time__*": "ask", "mcp__time__get_*": "allow"},
            ("allow", "mcp__time__get_*"),
        ),
        (
            {"mcp__time": "allow", "mcp__Time__*": "deny"},
            ("deny", "mcp__Time__*"),
        ),  # deny anywhere denies
        (
            {"mcp__time": "allow", "mcp__TIME": "ask"},
            ("ask", "mcp__TIME"),
        ),  # spellings: the strictest
        (
            {"mcp__timer": "allow", "mcp__time__get": "allow"},
            ("ask", None),
        ),  # neither names the tool
    ],
)
def test_each_claude_code_form_names_the_tool_and_the_ruling_names_the_key(
    rules: dict[str, str], expected: tuple[str, str | None]
) -> None:
    ruling = PermissionPolicy(rules).ruling(TIME)  # type: ignore[arg-type]
    assert (ruling.permission, ruling.rule) == expected


def test_a_scoped_denial_names_its_base_key() -> None:
    ruling = PermissionPolicy({"http_get": "deny"}).ruling("http_get:example.org")
    assert (ruling.permission, ruling.where) == ("deny", "tools.permissions.http_get")
