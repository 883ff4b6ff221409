"""The issue's "done when", headless: `aiq-tui mcp add`, then `aiq-tui ask` with a scripted
model (an OpenAI-compatible server on 127.0.0.1) that calls real third-party MCP servers
installed from PyPI (mcp-server-time, mcp-server-git) — asking first, refusing with --deny-all —
and the trust rules for a project's .mcp.json."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from aiq_tui.cli import main
from aiq_tui.locations import Home
from tests.llm.fakes import Reply, openai_text_stream, openai_tool_stream, sse_reply
from tests.mcp.conftest import fixture_server, installed, write_config
from tests.security.test_ask_hostile_model import ScriptedModel

pytestmark = pytest.mark.slow


def _tool(name: str, arguments: dict[str, Any], call_id: str = "call_1") -> Reply:
    return sse_reply(openai_tool_stream([(call_id, name, json.dumps(arguments))]))


def _answer(text: str) -> Reply:
    return sse_reply(openai_text_stream([text]))


def _ask(
    model: ScriptedModel,
    monkeypatch: pytest.MonkeyPatch,
    *flags: str,
    question: str = "what time is it?",
) -> int:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    monkeypatch.setenv("OPENAI_BASE_URL", model.server.base_url)
    return main(["ask", "--provider", "openai", *flags, question])


def _offered(model: ScriptedModel, request: int = 0) -> dict[str, Any]:
    return {
        tool["function"]["name"]: tool["function"]
        for tool in model.server.requests[request].body["tools"]
    }


def _tool_messages(model: ScriptedModel, request: int) -> list[str]:
    return [
        m["content"]
        for m in model.server.requests[request].body["messages"]
        if m["role"] == "tool"
    ]


def _events(out: str, kind: str) -> list[dict[str, Any]]:
    return [
        event for event in map(json.loads, out.splitlines()) if event["type"] == kind
    ]


class _Terminal:
    """stdin as a terminal: ask's approver prompts on it (input() is patched to answer)."""

    def isatty(self) -> bool:
        return True

    def read(self) -> str:
        return ""


def test_after_mcp_add_ask_calls_the_time_server_asking_first(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    installed("mcp-server-time")
    assert main(["mcp", "add", "time", "--", "mcp-server-time"]) == 0
    prompts: list[str] = []
    monkeypatch.setattr(sys, "stdin", _Terminal())
    monkeypatch.setattr(
        "builtins.input", lambda prompt="": prompts.append(prompt) or "y"
    )
    replies = [
        _tool("mcp__time__get_current_time", {"timezone": "Europe/Paris"}),
        _answer("It is morning in Paris."),
    ]
    with ScriptedModel(replies) as model:
        code = _ask(model, monkeypatch, question="what time is it in Paris?")
    out, err = capsys.readouterr()
    assert code == 0, err
    offered = _offered(model)
    assert (
        offered["mcp__time__get_current_time"]["parameters"]["properties"]["timezone"][
            "type"
        ]
        == "string"
    )
    assert "mcp__time__convert_time" in offered
    assert (
        "Call MCP server tool: MCP server time › get_current_time" in err
    )  # asked first…
    assert len(prompts) == 1
    answer = json.loads(
        _tool_messages(model, 1)[0]
    )  # …then the server's own answer reached the model
    assert answer["timezone"] == "Europe/Paris" and answer["datetime"][:4].isdigit()
    assert "mcp time: ready, 2 tools" in err
    assert "It is morning in Paris." in out


def test_deny_all_refuses_an_mcp_tool(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    installed("mcp-server-time")
    assert main(["mcp", "add", "time", "--", "mcp-server-time"]) == 0
    capsys.readouterr()
    replies = [
        _tool("mcp__time__get_current_time", {"timezone": "Etc/UTC"}),
        _answer("I may not look."),
    ]
    with ScriptedModel(replies) as model:
        code = _ask(model, monkeypatch, "--json", "--deny-all")
    out = capsys.readouterr().out
    assert code == 0
    denied = _events(out, "tool_call_denied")
    assert [event["name"] for event in denied] == ["mcp__time__get_current_time"]
    assert "--deny-all" in denied[0]["reason"]
    assert _events(out, "tool_call_finished") == []
    assert "denied" in _tool_messages(model, 1)[0]


def test_a_permission_in_config_allows_or_denies_without_asking(
    project: Path,
    isolated_home: Home,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    write_config(
        isolated_home,
        {"fx": fixture_server()},
        tools={"permissions": {"mcp__fx": "allow", "mcp__fx__fail": "deny"}},
    )
    replies = [
        _tool("mcp__fx__echo", {"text": "hello"}),
        _tool("mcp__fx__fail", {}, "call_2"),
        _answer("done"),
    ]
    with ScriptedModel(replies) as model:
        code = _ask(
            model, monkeypatch, "--json"
        )  # --json: nobody to ask, so an "ask" would be refused
    out = capsys.readouterr().out
    assert code == 0
    finished = _events(out, "tool_call_finished")
    assert [(e["name"], e["ok"]) for e in finished] == [("mcp__fx__echo", True)]
    assert _events(out, "tool_call_denied")[0]["name"] == "mcp__fx__fail"
    assert _tool_messages(model, 1) == ["echo: hello"]


def test_the_git_server_answers_about_a_repository(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    installed("mcp-server-git")
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = project / "repo"
    repo.mkdir()
    git = [
        "git",
        "-C",
        str(repo),
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@example.test",
    ]
    subprocess.run([*git, "init", "-q", "-b", "trunk"], check=True)
    (repo / "notes.txt").write_text("hello\n")
    subprocess.run([*git, "add", "notes.txt"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "first notes"], check=True)
    (repo / "untracked.md").write_text("new\n")
    assert (
        main(["mcp", "add", "git", "--", "mcp-server-git", "--repository", str(repo)])
        == 0
    )
    capsys.readouterr()
    replies = [
        _tool("mcp__git__git_status", {"repo_path": str(repo)}),
        _tool("mcp__git__git_log", {"repo_path": str(repo), "max_count": 1}, "call_2"),
        _answer("Clean-ish."),
    ]
    with ScriptedModel(replies) as model:
        code = _ask(
            model,
            monkeypatch,
            "--json",
            "--yes",
            question="what is the state of my repo?",
        )
    out = capsys.readouterr().out
    assert code == 0
    approved = _events(out, "tool_call_approved")
    assert [(e["name"], e["by"]) for e in approved] == [
        ("mcp__git__git_status", "flag"),
        ("mcp__git__git_log", "flag"),
    ]
    status, log = _tool_messages(model, 2)
    assert "trunk" in status and "untracked.md" in status
    assert "first notes" in log


def test_a_server_that_fails_is_a_warning_and_the_turn_still_answers(
    project: Path,
    isolated_home: Home,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    write_config(
        isolated_home,
        {"broken": fixture_server("--crash-on-start"), "fx": fixture_server()},
    )
    with ScriptedModel([_answer("Fine without it.")]) as model:
        code = _ask(model, monkeypatch)
    out, err = capsys.readouterr()
    assert code == 0 and "Fine without it." in out
    assert "mcp broken: failed" in err and "refusing to start" in err
    offered = _offered(model)
    assert "mcp__fx__echo" in offered and not any(
        name.startswith("mcp__broken") for name in offered
    )


# -- a project's .mcp.json ----------------------------------------------------------------------


def _project_file(project: Path, *flags: str) -> None:
    (project / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"fx": fixture_server(*flags)}})
    )


def _ask_json(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> tuple[dict[str, Any], set[str]]:
    with ScriptedModel([_answer("ok")]) as model:
        assert _ask(model, monkeypatch, "--json") == 0
    out = capsys.readouterr().out
    return _events(out, "mcp_server_changed")[-1], set(_offered(model))


def test_an_untrusted_projects_server_does_not_start_headless_and_says_how_to_allow_it(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _project_file(project)
    last, offered = _ask_json(monkeypatch, capsys)
    assert last["state"] == "not approved" and last["source"] == "project"
    assert (
        "aiq-tui trust" in last["message"]
        and "aiq-tui mcp approve fx" in last["message"]
    )
    assert not any(name.startswith("mcp__") for name in offered)


def test_a_trusted_project_starts_its_servers(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _project_file(project)
    assert main(["trust", str(project)]) == 0
    capsys.readouterr()
    last, offered = _ask_json(monkeypatch, capsys)
    assert last["state"] == "ready" and "mcp__fx__echo" in offered


def test_an_approved_server_starts_until_its_definition_changes(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _project_file(project)
    assert main(["mcp", "approve", "fx"]) == 0
    assert "approved fx" in capsys.readouterr().out
    last, offered = _ask_json(monkeypatch, capsys)
    assert last["state"] == "ready" and "mcp__fx__echo" in offered
    _project_file(project, "--tools", "1")  # the project changed what runs: asked again
    last, offered = _ask_json(monkeypatch, capsys)
    assert last["state"] == "not approved" and "mcp__fx__echo" not in offered


def test_mcp_list_shows_each_server_its_state_and_tools(
    project: Path, isolated_home: Home, capsys: pytest.CaptureFixture[str]
) -> None:
    write_config(
        isolated_home,
        {
            "fx": fixture_server(),
            "broken": fixture_server("--crash-on-start"),
            "off": {**fixture_server(), "enabled": False},
        },
    )
    _project_file(project)
    code = main(["mcp", "list", "--json"])
    rows = {row["name"]: row for row in json.loads(capsys.readouterr().out)["servers"]}
    assert code == 1  # one failed to start
    assert rows["fx"]["state"] == "ready" and rows["fx"]["source"] == "config"
    assert {"name": "mcp__fx__echo", "description": "Say the text back."} in rows["fx"][
        "tools"
    ]
    assert (
        rows["broken"]["state"] == "failed"
        and "refusing to start" in rows["broken"]["message"]
    )
    assert rows["off"]["state"] == "disabled"
    assert list(rows) == [
        "fx",
        "broken",
        "off",
    ]  # the project's fx is shadowed by the user's
    assert main(["mcp", "list", "--no-start"]) == 0
    assert "fx  [not started]" in capsys.readouterr().out


def test_mcp_add_and_rm_edit_config_yaml(
    project: Path, isolated_home: Home, capsys: pytest.CaptureFixture[str]
) -> None:
    isolated_home.ensure()
    isolated_home.config_file.write_text(
        "# keep me\nui:\n  theme: textual-light  # and me\n"
    )
    assert (
        main(
            [
                "mcp",
                "add",
                "web",
                "--url",
                "https://example.test/mcp",
                "--header",
                "Authorization: Bearer ${T}",
            ]
        )
        == 0
    )
    assert (
        main(["mcp", "add", "local", "--env", "LEVEL=debug", "--", "srv", "--flag"])
        == 0
    )
    text = isolated_home.config_file.read_text()
    assert text.startswith("# keep me\nui:\n  theme: textual-light  # and me\n")
    assert main(["mcp", "add", "local", "--", "other"]) == 2  # the name is taken
    assert (
        main(["mcp", "add", "two", "--url", "https://x", "--", "srv"]) == 2
    )  # one or the other
    assert main(["mcp", "rm", "web"]) == 0
    assert main(["mcp", "rm", "web"]) == 2
    import yaml

    data = yaml.safe_load(isolated_home.config_file.read_text())
    assert data["mcp"]["servers"] == {
        "local": {"command": "srv", "args": ["--flag"], "env": {"LEVEL": "debug"}}
    }
    capsys.readouterr()
