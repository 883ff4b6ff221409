"""Which MCP servers exist and how they are named: config.yaml, .mcp.json, templates, names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aiq_tui.config import ConfigError, validate_config
from aiq_tui.tools.mcp.servers import (
    all_servers,
    expand,
    fingerprint,
    project_servers,
    server_key,
    server_name,
    tool_name,
    variables,
)


def _config(servers: dict, **mcp: object):
    return validate_config({"mcp": {"servers": servers, **mcp}})


def test_a_command_is_a_stdio_server_and_a_url_an_http_one() -> None:
    config = _config(
        {"time": {"command": "mcp-server-time"}, "docs": {"url": "https://x/mcp"}}
    )
    assert config.mcp.servers["time"].transport == "stdio"
    assert config.mcp.servers["docs"].transport == "http"


@pytest.mark.parametrize(
    "entry, field, words",
    [
        ({"command": "x", "url": "http://a"}, "mcp.servers.s", "either `command`"),
        ({}, "mcp.servers.s", "either `command`"),
        ({"command": "x", "argz": []}, "mcp.servers.s.argz", "did you mean `args`"),
        ({"command": "x", "env": {"A": 1}}, "mcp.servers.s.env.A", "text"),
        ({"url": "http://a", "transport": "stdio"}, "mcp.servers.s", "does not fit"),
    ],
)
def test_a_wrong_server_entry_names_its_field(
    entry: dict, field: str, words: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        _config({"s": entry})
    assert caught.value.field == field
    assert words in caught.value.message


@pytest.mark.parametrize("name", ["bad name", "a__b", "_lead", "x" * 41, "dots.too"])
def test_a_server_name_that_cannot_be_part_of_a_tool_name_is_refused(name: str) -> None:
    with pytest.raises(ConfigError) as caught:
        _config({name: {"command": "x"}})
    assert caught.value.field == "mcp.servers"
    assert repr(name)[1:-1] in caught.value.message


def test_project_servers_are_read_in_claude_codes_format(tmp_path: Path) -> None:
    (tmp_path / ".mcp.json").write_text(
        json.dumps(
            {
                "mcpServers": {
                    "files": {
                        "command": "npx",
                        "args": ["-y", "server-files", "."],
                        "env": {"LEVEL": "debug"},
                    },
                    "remote": {
                        "type": "http",
                        "url": "https://example.test/mcp",
                        "headers": {"X-Key": "${KEY}"},
                    },
                    "old": {"type": "sse", "url": "https://example.test/sse"},
                    "streamable": {
                        "type": "streamable-http",
                        "url": "https://example.test/s",
                    },
                    "my server.v2": {"command": "srv", "timeout": 30},
                }
            }
        )
    )
    servers, problems = project_servers(tmp_path)
    # a name tool names cannot hold is used changed, and the user is told (issue 33 item 8)
    assert [
        (p.field, "'my server.v2' is used as 'my-server-v2'" in p.message)
        for p in problems
    ] == [("mcpServers.my server.v2", True)]
    by_name = {server.name: server for server in servers}
    assert set(by_name) == {"files", "remote", "old", "streamable", "my-server-v2"}
    assert by_name["files"].args == ("-y", "server-files", ".") and dict(
        by_name["files"].env
    ) == {"LEVEL": "debug"}
    assert (
        by_name["remote"].transport,
        by_name["old"].transport,
        by_name["streamable"].transport,
    ) == ("http", "sse", "http")
    assert all(not server.trusted and server.source == "project" for server in servers)


def test_a_broken_project_file_or_entry_is_a_warning_not_a_crash(
    tmp_path: Path,
) -> None:
    (tmp_path / ".mcp.json").write_text("{not json")
    servers, problems = project_servers(tmp_path)
    assert servers == [] and "not valid JSON" in problems[0].message
    (tmp_path / ".mcp.json").write_text(
        json.dumps(
            {"mcpServers": {"a": {"args": []}, "b": "x", "c": {"command": "ok"}}}
        )
    )
    servers, problems = project_servers(tmp_path)
    assert [server.name for server in servers] == ["c"]
    assert [problem.field for problem in problems] == ["mcpServers.a", "mcpServers.b"]


def test_without_a_project_file_there_are_no_project_servers(tmp_path: Path) -> None:
    assert project_servers(tmp_path) == ([], [])


def test_the_users_server_wins_over_a_project_server_of_the_same_name(
    tmp_path: Path,
) -> None:
    (tmp_path / ".mcp.json").write_text(
        json.dumps(
            {"mcpServers": {"time": {"command": "evil"}, "extra": {"command": "e"}}}
        )
    )
    config = _config({"time": {"command": "mcp-server-time"}})
    servers, problems = all_servers(config, tmp_path / "config.yaml", tmp_path)
    assert [(s.name, s.source, s.command) for s in servers] == [
        ("time", "config", "mcp-server-time"),
        ("extra", "project", "e"),
    ]
    assert "also in your config.yaml" in problems[0].message


def test_project_servers_can_be_switched_off(tmp_path: Path) -> None:
    (tmp_path / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"extra": {"command": "e"}}})
    )
    servers, _ = all_servers(
        _config({}, project_servers=False), tmp_path / "config.yaml", tmp_path
    )
    assert servers == []


def test_templates_take_the_users_variables_and_say_which_are_missing(
    tmp_path: Path,
) -> None:
    config = _config(
        {
            "s": {
                "command": "${TOOLS:-/opt}/srv",
                "args": ["--token", "${TOKEN}"],
                "env": {"LEVEL": "${LEVEL:-info}"},
            }
        }
    )
    server = all_servers(config, tmp_path / "c.yaml", tmp_path)[0][0]
    filled = expand(server, {"TOKEN": "t0k"})
    assert (filled.command, filled.args, filled.env, filled.missing) == (
        "/opt/srv",
        ("--token", "t0k"),
        {"LEVEL": "info"},
        (),
    )
    assert expand(server, {}).missing == ("TOKEN",)
    assert variables(server) == ("TOOLS", "TOKEN", "LEVEL")


def test_any_change_to_what_runs_changes_the_fingerprint(tmp_path: Path) -> None:
    base = {"command": "srv", "args": ["a"], "env": {"K": "v"}}
    prints = set()
    for change in (
        {},
        {"command": "srv2"},
        {"args": ["b"]},
        {"env": {"K": "w"}},
        {"cwd": "sub"},
    ):
        server = all_servers(
            _config({"s": {**base, **change}}), tmp_path / "c", tmp_path
        )[0][0]
        prints.add(fingerprint(server))
    assert len(prints) == 5


def test_tool_names_fit_function_name_rules_and_stay_unique() -> None:
    assert tool_name("time", "get_current_time") == "mcp__time__get_current_time"
    assert tool_name("web", "fetch page.v2") == "mcp__web__fetch_page_v2"
    long_a, long_b = tool_name("server", "a" * 80), tool_name("server", "a" * 81)
    assert len(long_a) == len(long_b) == 64 and long_a != long_b


def test_the_server_of_a_tool_name_is_found_without_guessing() -> None:
    assert server_key("mcp__time__get_current_time") == "mcp__time"
    assert server_key("mcp__git__git__status") == "mcp__git"
    assert server_key("execute_command") is None and server_key("mcp__time") is None


def test_project_server_names_are_made_safe() -> None:
    assert server_name("my server.v2") == "my-server-v2"
    assert server_name("a__b") == "a_b"
    assert server_name("___") == ""


@pytest.mark.parametrize("change", ["add", "remove"])
def test_editing_a_project_file_nested_too_deep_is_a_clear_error_not_a_recursion_error(
    tmp_path: Path, change: str
) -> None:
    from aiq_tui.tools.mcp.servers import add_project_server, remove_project_server

    (tmp_path / ".mcp.json").write_text(
        '{"mcpServers": {"x": ' + "[" * 5_000 + "]" * 5_000 + "}}"
    )
    with pytest.raises(ValueError, match=r"cannot read .*\.mcp\.json: nested too deep"):
        if change == "add":
            add_project_server(tmp_path, "fs", {"command": "npx", "args": []})
        else:
            remove_project_server(tmp_path, "x")
