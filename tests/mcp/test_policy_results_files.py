"""MCP tools under the permission policy; results as the model gets them; the files written
(approvals, config.yaml edits)."""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

from aiq_tui.config import ConfigError
from aiq_tui.config_edit import edit_section
from aiq_tui.locations import Home
from aiq_tui.tools.mcp.approvals import answer_for, approvals_file, record
from aiq_tui.tools.mcp.results import convert
from aiq_tui.tools.mcp.servers import project_servers
from aiq_tui.tools.policy import PermissionPolicy, allowed_by_skill

# -- permissions ----------------------------------------------------------------------------


def test_an_mcp_tool_asks_unless_its_own_or_its_servers_key_says_otherwise() -> None:
    policy = PermissionPolicy(
        {
            "mcp__time": "allow",
            "mcp__git__git_commit": "deny",
            "mcp__web__fetch": "allow",
        }
    )
    assert policy.decide("mcp__time__get_current_time") == "allow"
    assert policy.decide("mcp__git__git_status") == "ask"
    assert policy.decide("mcp__git__git_commit") == "deny"
    assert policy.decide("mcp__web__fetch") == "allow"
    assert policy.decide("mcp__other__x") == "ask"


def test_deny_on_the_server_wins_over_allow_on_a_tool() -> None:
    policy = PermissionPolicy({"mcp__git": "deny", "mcp__git__git_status": "allow"})
    assert policy.decide("mcp__git__git_status") == "deny"
    assert policy.remember("mcp__git__git_status") is False


def test_allow_always_is_remembered_per_tool() -> None:
    policy = PermissionPolicy({})
    assert policy.remember("mcp__time__get_current_time")
    assert policy.decide("mcp__time__get_current_time") == "allow"
    assert policy.decide("mcp__time__convert_time") == "ask"


@pytest.mark.parametrize(
    "entry, allowed",
    [
        ("mcp__github__create_issue", True),
        ("mcp__github", True),
        ("mcp__github__*", True),
        ("mcp__git", False),
        ("mcp__github__list_issues", False),
        ("Bash", False),
    ],
)
def test_allowed_tools_name_mcp_tools_as_claude_code_does(
    entry: str, allowed: bool
) -> None:
    tool = "mcp__github__create_issue"
    assert allowed_by_skill((entry,), tool, tool) is allowed


# -- results --------------------------------------------------------------------------------


def _result(
    *parts: object, error: bool = False, structured: object = None
) -> SimpleNamespace:
    return SimpleNamespace(
        content=list(parts), is_error=error, structured_content=structured
    )


def _text(text: str) -> SimpleNamespace:
    return SimpleNamespace(type="text", text=text)


def test_text_parts_reach_the_model_as_they_are() -> None:
    result = convert(_result(_text("one"), _text("two")), 1000, "s")
    assert result.ok and result.to_model_text() == "one\n\ntwo"
    assert result.summary == "text, 8 bytes"


def test_an_image_is_described_not_pasted_as_base64() -> None:
    data = base64.b64encode(b"\0" * 3000).decode()
    result = convert(
        _result(SimpleNamespace(type="image", data=data, mime_type="image/png")),
        1000,
        "s",
    )
    assert data not in result.to_model_text()
    assert "image/png" in result.to_model_text() and "2.9 KB" in result.to_model_text()


def test_resources_pass_their_text_with_their_uri_and_describe_binaries() -> None:
    text = SimpleNamespace(
        type="resource",
        resource=SimpleNamespace(
            uri="file:///a.md", mime_type="text/markdown", text="# A"
        ),
    )
    blob = SimpleNamespace(
        type="resource",
        resource=SimpleNamespace(
            uri="file:///b.bin",
            mime_type=None,
            text=None,
            blob=base64.b64encode(b"12345678").decode(),
        ),
    )
    link = SimpleNamespace(
        type="resource_link",
        uri="file:///c",
        name="c",
        mime_type="text/plain",
        description=None,
    )
    shown = convert(_result(text, blob, link), 1000, "s").to_model_text()
    assert "[resource file:///a.md (text/markdown)]\n# A" in shown
    assert "file:///b.bin" in shown and "8 bytes binary" in shown
    assert "resource link: file:///c" in shown


def test_structured_content_is_passed_when_the_server_sent_no_text() -> None:
    result = convert(_result(structured={"temperature": 21}), 1000, "s")
    assert json.loads(result.to_model_text()) == {"temperature": 21}


def test_a_large_result_is_cut_to_the_cap_at_a_character_boundary_and_says_so() -> None:
    result = convert(_result(_text("é" * 10_000)), 1001, "s")
    text = result.to_model_text()
    kept = text.split("\n…[cut")[0]
    assert len(kept.encode()) <= 1001 and set(kept) == {"é"}
    assert "mcp.result_max_bytes" in text and "20,000 bytes" in text
    assert result.summary.endswith("(cut)")


def test_is_error_goes_back_to_the_model_as_an_error() -> None:
    result = convert(_result(_text("no such repo"), error=True), 1000, "git")
    assert not result.ok
    assert json.loads(result.to_model_text()) == {"error": "git: no such repo"}


# -- approvals ------------------------------------------------------------------------------


def _project_server(root: Path, command: str = "srv") -> object:
    (root / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"tools": {"command": command}}})
    )
    return project_servers(root)[0][0]


def test_an_approval_holds_for_this_definition_in_this_project_only(
    isolated_home: Home, tmp_path: Path
) -> None:
    here, there = tmp_path / "here", tmp_path / "there"
    here.mkdir(), there.mkdir()
    server = _project_server(here)
    assert answer_for(isolated_home, here, server) is None
    record(isolated_home, here, server, "approved")
    assert answer_for(isolated_home, here, server) == "approved"
    assert answer_for(isolated_home, there, _project_server(there)) is None
    assert (
        answer_for(isolated_home, here, _project_server(here, "srv --other")) is None
    )  # changed: ask again
    assert oct(approvals_file(isolated_home).stat().st_mode & 0o777) == "0o600"


def test_rejections_are_remembered_and_can_be_forgotten(
    isolated_home: Home, tmp_path: Path
) -> None:
    server = _project_server(tmp_path)
    record(isolated_home, tmp_path, server, "rejected")
    assert answer_for(isolated_home, tmp_path, server) == "rejected"
    record(isolated_home, tmp_path, server, None)
    assert answer_for(isolated_home, tmp_path, server) is None


def test_a_broken_approvals_file_approves_nothing(
    isolated_home: Home, tmp_path: Path
) -> None:
    server = _project_server(tmp_path)
    record(isolated_home, tmp_path, server, "approved")
    approvals_file(isolated_home).write_text("{broken")
    assert answer_for(isolated_home, tmp_path, server) is None


# -- config.yaml edits ----------------------------------------------------------------------

USER_FILE = """\
# my settings
ui:
  theme: textual-light   # light please

# the mcp block
mcp:
  startup_timeout_seconds: 20   # slow machine
  servers:
    time:
      command: mcp-server-time

# tools, last
tools:
  permissions:
    mcp__time: allow
"""


def _add(name: str, entry: dict) -> object:
    def change(data: dict) -> None:
        data.setdefault("mcp", {}).setdefault("servers", {})[name] = entry

    return change


def test_adding_a_server_keeps_the_rest_of_the_file_byte_for_byte(
    tmp_path: Path,
) -> None:
    path = tmp_path / "config.yaml"
    path.write_text(USER_FILE)
    config = edit_section(
        path, "mcp", _add("git", {"command": "mcp-server-git", "args": ["-r", "."]})
    )
    text = path.read_text()
    assert list(config.mcp.servers) == ["time", "git"]
    assert text.startswith(
        USER_FILE.split("mcp:")[0]
    )  # everything before the section, comments too
    assert text.endswith(
        "# tools, last\ntools:\n  permissions:\n    mcp__time: allow\n"
    )
    assert yaml.safe_load(text)["mcp"]["startup_timeout_seconds"] == 20


def test_a_file_without_the_section_gets_it_appended(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("# mine\nui:\n  theme: textual-light\n")
    edit_section(path, "mcp", _add("time", {"command": "mcp-server-time"}))
    assert path.read_text().startswith("# mine\nui:\n  theme: textual-light\n\nmcp:\n")


def test_an_invalid_change_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text(USER_FILE)
    with pytest.raises(ConfigError) as caught:
        edit_section(path, "mcp", _add("bad name", {"command": "x"}))
    assert caught.value.field == "mcp.servers"
    assert path.read_text() == USER_FILE


def test_a_layout_the_line_edit_cannot_follow_is_written_whole_and_correct(
    tmp_path: Path,
) -> None:
    path = tmp_path / "config.yaml"
    path.write_text(
        "mcp: {servers: {time: {command: t}}}\nui: {theme: textual-light}\n"
    )
    edit_section(path, "mcp", _add("git", {"command": "g"}))
    data = yaml.safe_load(path.read_text())
    assert data == {
        "mcp": {"servers": {"time": {"command": "t"}, "git": {"command": "g"}}},
        "ui": {"theme": "textual-light"},
    }


def test_the_files_mode_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("ui: {}\n")
    os.chmod(path, 0o640)
    edit_section(path, "mcp", _add("t", {"command": "t"}))
    assert oct(path.stat().st_mode & 0o777) == "0o640"
