"""`aiq-tui mcp add` speaks `claude mcp add` (issue 33 item 8): -e, --transport, --scope,
--header, options before NAME; and one naming rule for .mcp.json and `mcp add`, said aloud."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from aiq_tui.cli import main
from aiq_tui.locations import Home
from tests.mcp.conftest import installed


def _servers(home: Home) -> dict[str, dict[str, object]]:
    return yaml.safe_load(home.config_file.read_text())["mcp"]["servers"]


def test_claude_code_syntax_adds_http_and_stdio_servers_to_config(
    project: Path, isolated_home: Home, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        main(
            [
                "mcp",
                "add",
                "--transport",
                "http",
                "docs",
                "https://example.test/mcp",
                "-H",
                "Authorization: Bearer ${DOCS_TOKEN}",
                "--header",
                "X-Team: tools",
            ]
        )
        == 0
    )
    assert (
        main(
            [
                "mcp",
                "add",
                "-e",
                "A=1",
                "--env",
                "B=two",
                "local",
                "--",
                "srv",
                "--flag",
            ]
        )
        == 0
    )
    assert main(["mcp", "add", "-t", "sse", "old", "https://example.test/sse"]) == 0
    servers = _servers(isolated_home)
    assert servers["docs"] == {
        "url": "https://example.test/mcp",
        "transport": "http",
        "headers": {"Authorization": "Bearer ${DOCS_TOKEN}", "X-Team": "tools"},
    }
    assert servers["local"] == {
        "command": "srv",
        "args": ["--flag"],
        "env": {"A": "1", "B": "two"},
    }
    assert servers["old"] == {"url": "https://example.test/sse", "transport": "sse"}
    capsys.readouterr()
    assert main(["mcp", "add", "-t", "stdio", "bad", "https://example.test/mcp"]) == 2
    assert "--transport stdio runs a command" in capsys.readouterr().err


@pytest.mark.slow
def test_scope_project_writes_claude_codes_mcp_json_and_the_server_starts(
    project: Path, isolated_home: Home, capsys: pytest.CaptureFixture[str]
) -> None:
    program = installed("mcp-server-time")
    (project / ".mcp.json").write_text(
        json.dumps(
            {"mcpServers": {"theirs": {"command": "their-server"}}, "note": "kept"}
        )
    )
    assert (
        main(
            ["mcp", "add", "--scope", "project", "-e", "TZ=UTC", "time", "--", program]
        )
        == 0
    )
    data = json.loads((project / ".mcp.json").read_text())
    assert data["note"] == "kept" and data["mcpServers"]["theirs"] == {
        "command": "their-server"
    }
    assert data["mcpServers"]["time"] == {
        "type": "stdio",
        "command": program,
        "args": [],
        "env": {"TZ": "UTC"},
    }
    assert (
        not isolated_home.config_file.exists()
        or "time" not in isolated_home.config_file.read_text()
    )
    capsys.readouterr()
    main(
        ["mcp", "list", "--json"]
    )  # the user typed it: approved for them, so it starts
    rows = {row["name"]: row for row in json.loads(capsys.readouterr().out)["servers"]}
    assert rows["time"]["source"] == "project" and rows["time"]["state"] == "ready"
    assert "mcp__time__get_current_time" in [
        tool["name"] for tool in rows["time"]["tools"]
    ]
    assert (
        main(["mcp", "add", "-s", "project", "TIME", "--", program]) == 2
    )  # taken, ignoring case
    assert "already in" in capsys.readouterr().err
    assert json.loads((project / ".mcp.json").read_text()) == data


def test_one_naming_rule_for_mcp_json_and_mcp_add_and_each_says_what_it_did(
    project: Path, isolated_home: Home, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"my.server": {"command": "srv"}}})
    )
    assert main(["mcp", "list", "--no-start", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [row["name"] for row in listed["servers"]] == ["my-server"]
    assert any(
        "'my.server' is used as 'my-server'" in p["message"] for p in listed["problems"]
    )

    assert (
        main(["mcp", "add", "my.srv", "--", "srv"]) == 0
    )  # the same rule, not a refusal
    err = capsys.readouterr().err
    assert (
        "warning: server name 'my.srv' is used as 'my-srv'" in err
        and "mcp__my-srv" in err
    )
    assert "my-srv" in _servers(isolated_home)
    assert (
        main(["mcp", "add", "...", "--", "srv"]) == 2
    )  # nothing usable left: refused, saying why
    assert "letters, digits" in capsys.readouterr().err


def test_rm_scope_project_removes_only_that_server_from_mcp_json(
    project: Path, isolated_home: Home, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / ".mcp.json").write_text(
        json.dumps(
            {
                "mcpServers": {"my.server": {"command": "a"}, "keep": {"command": "b"}},
                "note": "kept",
            }
        )
    )
    assert (
        main(["mcp", "rm", "my-server"]) == 2
    )  # not in config.yaml: the message says where it is
    assert "--scope project" in capsys.readouterr().err
    assert main(["mcp", "rm", "--scope", "project", "my-server"]) == 0
    assert json.loads((project / ".mcp.json").read_text()) == {
        "mcpServers": {"keep": {"command": "b"}},
        "note": "kept",
    }
    assert main(["mcp", "rm", "-s", "project", "my-server"]) == 2
