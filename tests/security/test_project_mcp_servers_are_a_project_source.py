"""A project's MCP servers are a project source (issue 34, row 2).

Approving (or trusting) a project's ``.mcp.json`` made its tools count as the user's: a user
skill with ``allowed-tools: mcp__github`` pre-approved calls to the project's server ``GitHub``
(matching ignores case, the name-collision check did not, so both loaded), and "always" was
remembered for them although the dialog says "Its tools still ask before each call".
Every test runs ``aiq-tui ask`` with a scripted model and the in-test MCP server, and looks at
which calls reached the server.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import yaml

from aiq_tui.cli import main
from aiq_tui.locations import Home
from aiq_tui.trust import TrustLevel, record
from tests.mcp.conftest import FIXTURE_SERVER, fixture_server
from tests.security.scripted import (
    KEY,
    ScriptedModel,
    calls,
    of_type,
    run_session,
    write_skill,
)

pytestmark = pytest.mark.slow


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "cloned-repo"
    root.mkdir()
    monkeypatch.chdir(root)
    return root


def _mcp_json(project: Path, servers: dict) -> None:
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))


def _config(home: Home, **sections: object) -> None:
    home.ensure()
    home.config_file.write_text(yaml.safe_dump(sections, sort_keys=False))


def _echoed(sent: str, text: str) -> bool:
    """Whether the server answered an echo of ``text`` (the call reached it and ran)."""
    return f"echo: {text}" in sent


class _Terminal:
    def isatty(self) -> bool:
        return True

    def read(self) -> str:
        return ""


def test_a_user_skill_never_pre_approves_a_project_servers_tool(
    project: Path, isolated_home: Home, monkeypatch, capsys
) -> None:
    _mcp_json(project, {"GitHub": fixture_server()})
    record(
        isolated_home, project, TrustLevel.TRUSTED
    )  # even trusted: the project's server is not the user's
    write_skill(isolated_home.skills_dir, "mine", "allowed-tools: mcp__github\n")
    steps = calls(
        ("use_skill", {"skill_name": "mine"}),
        ("mcp__GitHub__echo", {"text": "unasked"}),
    )
    events, sent, _ = run_session(steps, monkeypatch, capsys)  # --json: nobody to ask
    assert not _echoed(sent, "unasked")
    assert [event["name"] for event in of_type(events, "tool_call_denied")] == [
        "mcp__GitHub__echo"
    ]


def test_a_project_server_named_like_the_users_ignoring_case_is_not_started(
    project: Path, isolated_home: Home, tmp_path: Path, monkeypatch, capsys
) -> None:
    marker = tmp_path / "project-server-started"
    starter = (
        f"open({str(marker)!r}, 'w'); import runpy, sys; sys.argv = [{str(FIXTURE_SERVER)!r}]; "
        f"runpy.run_path({str(FIXTURE_SERVER)!r}, run_name='__main__')"
    )
    _mcp_json(project, {"GitHub": {"command": sys.executable, "args": ["-c", starter]}})
    record(isolated_home, project, TrustLevel.TRUSTED)
    _config(isolated_home, mcp={"servers": {"github": fixture_server()}})
    events, _, _ = run_session(calls(), monkeypatch, capsys, "--deny-all")
    assert not marker.exists()
    assert {event["name"] for event in of_type(events, "mcp_server_changed")} == {
        "github"
    }


def test_a_deny_for_a_server_holds_whatever_the_case_of_its_name(
    project: Path, isolated_home: Home, monkeypatch, capsys
) -> None:
    _mcp_json(project, {"GitHub": fixture_server()})
    record(isolated_home, project, TrustLevel.TRUSTED)
    _config(isolated_home, tools={"permissions": {"mcp__github": "deny"}})
    _, sent, _ = run_session(
        calls(("mcp__GitHub__echo", {"text": "denied"})), monkeypatch, capsys, "--yes"
    )
    assert not _echoed(sent, "denied")


def test_always_is_not_remembered_for_an_approved_server_of_an_untrusted_project(
    project: Path, monkeypatch, capsys
) -> None:
    """The server dialog says "Its tools still ask before each call": every call asks."""
    _mcp_json(project, {"fx": fixture_server()})
    assert (
        main(["mcp", "approve", "fx"]) == 0
    )  # the server may start; the project stays untrusted
    answers = iter(["a", "n", "n"])
    prompts: list[str] = []
    monkeypatch.setattr(sys, "stdin", _Terminal())
    monkeypatch.setattr(
        "builtins.input", lambda prompt="": prompts.append(prompt) or next(answers)
    )
    steps = calls(
        ("mcp__fx__echo", {"text": "first"}), ("mcp__fx__echo", {"text": "second"})
    )
    with ScriptedModel(steps) as model:
        monkeypatch.setenv("OPENAI_BASE_URL", model.server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        main(["ask", "--provider", "openai", "do the thing"])
        sent = model.sent_to_model()
    capsys.readouterr()
    assert not _echoed(
        sent, "second"
    )  # the second call ran only if someone said yes to it
    assert len(prompts) == 2


def test_the_users_own_server_still_remembers_always(
    project: Path, isolated_home: Home, monkeypatch, capsys
) -> None:
    _config(isolated_home, mcp={"servers": {"fx": fixture_server()}})
    answers = iter(["a"])
    monkeypatch.setattr(sys, "stdin", _Terminal())
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    steps = calls(
        ("mcp__fx__echo", {"text": "first"}), ("mcp__fx__echo", {"text": "second"})
    )
    with ScriptedModel(steps) as model:
        monkeypatch.setenv("OPENAI_BASE_URL", model.server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        main(["ask", "--provider", "openai", "do the thing"])
        sent = model.sent_to_model()
    capsys.readouterr()
    assert _echoed(sent, "first") and _echoed(sent, "second")
