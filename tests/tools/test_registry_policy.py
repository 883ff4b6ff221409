"""Permission policy and tool registry: allow / ask / deny, approvals, events, allowed-tools."""

from __future__ import annotations

from typing import Any

import pytest

from aiq_tui.config import AppConfig, ToolSettings, load_sources, validate_config
from aiq_tui.conversation import ToolCall, ToolSpec
from aiq_tui.events import (
    ToolCallApproved,
    ToolCallDenied,
    ToolCallFinished,
    ToolCallRequested,
)
from aiq_tui.skill_tools.default_tools import build_default_tools
from aiq_tui.tools.base import ApprovalRequest, Decision, ToolResult
from aiq_tui.tools.policy import PermissionPolicy, allowed_by_skill
from aiq_tui.tools.registry import ToolRegistry, approve_all, deny_all


class EchoTool:
    """A minimal tool: permission key from the ``key`` argument, echoes ``text``."""

    def __init__(self, name: str = "echo", explode: bool = False) -> None:
        self.calls: list[dict[str, Any]] = []
        self._explode = explode
        self._spec = ToolSpec(
            name=name,
            description="echo",
            parameters={
                "type": "object",
                "properties": {"text": {"type": "string"}, "key": {"type": "string"}},
                "required": ["text"],
                "additionalProperties": False,
            },
        )

    @property
    def spec(self) -> ToolSpec:
        return self._spec

    def permission_key(self, arguments: dict[str, Any]) -> str:
        return arguments.get("key", "file_read")

    def describe(self, arguments: dict[str, Any]) -> str:
        return f"echo {arguments.get('text')}"

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        if self._explode:
            raise RuntimeError("boom")
        self.calls.append(arguments)
        return ToolResult(ok=True, content=arguments["text"], summary="echoed")


def registry(tool: EchoTool, **permissions: str) -> ToolRegistry:
    return ToolRegistry(
        [tool], PermissionPolicy({**ToolSettings().permissions, **permissions})
    )


def kinds(events: list[Any]) -> list[type]:
    return [type(event) for event in events]


async def test_allowed_call_runs_and_emits_requested_approved_finished(
    events: list[Any],
) -> None:
    tool = EchoTool()
    result = await registry(tool).invoke(
        ToolCall("c1", "echo", {"text": "hi"}), None, events.append
    )
    assert result.ok and result.content == "hi"
    assert kinds(events) == [ToolCallRequested, ToolCallApproved, ToolCallFinished]
    assert events[0].permission == "allow" and events[1].by == "policy"
    assert events[2].duration_s >= 0 and events[2].ok


async def test_denied_key_emits_denied_and_never_runs(events: list[Any]) -> None:
    tool = EchoTool()
    result = await registry(tool, file_read="deny").invoke(
        ToolCall("c1", "echo", {"text": "x"}), approve_all, events.append
    )
    assert not result.ok and "deny" in result.error
    assert kinds(events) == [ToolCallRequested, ToolCallDenied]
    assert tool.calls == []


async def test_ask_without_approver_is_denied_with_how_to_approve(
    events: list[Any],
) -> None:
    tool = EchoTool()
    result = await registry(tool).invoke(
        ToolCall("c1", "echo", {"text": "x", "key": "file_write"}), None, events.append
    )
    assert not result.ok
    assert "--yes" in result.error and "tools.permissions.file_write" in result.error
    assert tool.calls == [] and isinstance(events[-1], ToolCallDenied)


async def test_approve_all_flag_runs_ask_calls(events: list[Any]) -> None:
    tool = EchoTool()
    result = await registry(tool).invoke(
        ToolCall("c1", "echo", {"text": "x", "key": "file_write"}),
        approve_all,
        events.append,
    )
    assert result.ok
    assert (
        isinstance(events[1], ToolCallApproved)
        and events[1].by == "flag"
        and not events[1].always
    )


async def test_deny_all_flag_refuses_ask_calls_but_allows_allowed_ones(
    events: list[Any],
) -> None:
    tool = EchoTool()
    reg = registry(tool)
    refused = await reg.invoke(
        ToolCall("c1", "echo", {"text": "x", "key": "file_write"}),
        deny_all,
        events.append,
    )
    allowed = await reg.invoke(
        ToolCall("c2", "echo", {"text": "y"}), deny_all, events.append
    )
    assert not refused.ok and "--deny-all" in refused.error
    assert allowed.ok and tool.calls == [{"text": "y"}]


async def test_approver_sees_the_exact_call_detail(events: list[Any]) -> None:
    seen: list[ApprovalRequest] = []

    async def approver(request: ApprovalRequest) -> Decision:
        seen.append(request)
        return Decision.ALLOW_ONCE

    await registry(EchoTool()).invoke(
        ToolCall("c9", "echo", {"text": "rm me", "key": "file_write"}),
        approver,
        events.append,
    )
    assert seen[0].detail == "echo rm me" and seen[0].permission == "file_write"
    assert seen[0].call_id == "c9" and seen[0].title == "Write file"
    assert events[1].by == "user"


async def test_allow_always_is_remembered_for_the_session_per_key(
    events: list[Any],
) -> None:
    answers: list[Decision] = [Decision.ALLOW_ALWAYS]

    async def approver(request: ApprovalRequest) -> Decision:
        return answers.pop(0)  # a second question would fail with IndexError

    reg = registry(EchoTool())
    first = await reg.invoke(
        ToolCall("a", "echo", {"text": "1", "key": "file_write"}),
        approver,
        events.append,
    )
    second = await reg.invoke(
        ToolCall("b", "echo", {"text": "2", "key": "file_write"}),
        approver,
        events.append,
    )
    assert first.ok and second.ok
    assert events[1].always is True
    assert reg.policy.decide("file_write") == "allow"
    assert reg.policy.decide("http_write") == "ask"


def test_allow_always_never_overrides_deny_or_shell_keys() -> None:
    policy = PermissionPolicy({"sql_write": "deny", "execute_shell": "allow"})
    assert (
        policy.remember("sql_write") is False and policy.decide("sql_write") == "deny"
    )
    assert policy.decide("execute_shell") == "ask"
    assert (
        policy.remember("execute_shell") is False
        and policy.decide("execute_shell") == "ask"
    )
    assert policy.decide("something_new") == "ask"


async def test_unknown_tool_lists_available_tools(events: list[Any]) -> None:
    result = await registry(EchoTool()).invoke(
        ToolCall("c1", "ehco", {"text": "x"}), None, events.append
    )
    assert not result.ok and "unknown tool 'ehco'" in result.error
    assert (
        "Did you mean: echo" in result.error and "Available tools: echo" in result.error
    )


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({}, "missing required argument(s): text"),
        ({"text": 3}, "argument 'text' must be string"),
        ({"text": "x", "extra": 1}, "unknown argument(s): extra"),
        ("not an object", "arguments must be a JSON object"),
    ],
)
async def test_arguments_are_validated_against_the_schema(
    arguments: Any, message: str, events: list[Any]
) -> None:
    tool = EchoTool()
    result = await registry(tool).invoke(
        ToolCall("c1", "echo", arguments), approve_all, events.append
    )
    assert not result.ok and message in result.error
    assert tool.calls == []


async def test_unexpected_tool_exception_becomes_failure_result(
    events: list[Any],
) -> None:
    result = await registry(EchoTool(explode=True)).invoke(
        ToolCall("c1", "echo", {"text": "x"}), None, events.append
    )
    assert not result.ok and "RuntimeError: boom" in result.error
    assert isinstance(events[-1], ToolCallFinished) and not events[-1].ok


async def test_restrict_mode_narrows_what_may_run(events: list[Any]) -> None:
    tool = EchoTool()
    reg = ToolRegistry(
        [tool],
        PermissionPolicy(ToolSettings().permissions),
        skill_allowed_tools="restrict",
    )
    refused = await reg.invoke(
        ToolCall("c1", "echo", {"text": "x"}),
        approve_all,
        events.append,
        ("execute_sql",),
    )
    allowed = await reg.invoke(
        ToolCall("c2", "echo", {"text": "y"}), approve_all, events.append, ("echo",)
    )
    assert not refused.ok and "allows only: execute_sql" in refused.error
    assert allowed.ok and tool.calls == [{"text": "y"}]
    asked = await reg.invoke(
        ToolCall("c3", "echo", {"text": "x", "key": "file_write"}),
        None,
        events.append,
        ("echo",),
    )
    assert (
        not asked.ok and "needs approval" in asked.error
    )  # restrict never skips an ask


async def test_preapprove_mode_never_blocks_another_tool(events: list[Any]) -> None:
    """An Active skill that names only execute_sql used to block the right tool for a new question."""
    tool = EchoTool()
    result = await registry(tool).invoke(
        ToolCall("c1", "echo", {"text": "x"}), None, events.append, ("execute_sql",)
    )
    assert result.ok and tool.calls == [{"text": "x"}]


async def test_preapprove_mode_runs_a_named_call_without_asking_and_says_so(
    events: list[Any],
) -> None:
    tool = EchoTool()
    result = await registry(tool).invoke(
        ToolCall("c1", "echo", {"text": "x", "key": "file_write"}),
        None,
        events.append,
        ("echo",),
    )
    assert result.ok
    approved = [event for event in events if isinstance(event, ToolCallApproved)]
    assert approved and approved[0].by == "skill"


@pytest.mark.parametrize("key", ["execute_shell", "file_read_secret"])
async def test_preapproval_never_covers_keys_asked_every_time(
    events: list[Any], key: str
) -> None:
    result = await registry(EchoTool()).invoke(
        ToolCall("c1", "echo", {"text": "x", "key": key}),
        None,
        events.append,
        ("echo",),
    )
    assert not result.ok and "needs approval" in result.error


async def test_preapproval_never_overrides_deny(events: list[Any]) -> None:
    result = await registry(EchoTool(), file_write="deny").invoke(
        ToolCall("c1", "echo", {"text": "x", "key": "file_write"}),
        approve_all,
        events.append,
        ("echo",),
    )
    assert not result.ok and "deny" in result.error


async def test_ignore_mode_neither_blocks_nor_preapproves(events: list[Any]) -> None:
    reg = ToolRegistry(
        [EchoTool()],
        PermissionPolicy(ToolSettings().permissions),
        skill_allowed_tools="ignore",
    )
    asked = await reg.invoke(
        ToolCall("c1", "echo", {"text": "x", "key": "file_write"}),
        None,
        events.append,
        ("echo",),
    )
    other = await reg.invoke(
        ToolCall("c2", "echo", {"text": "y"}), None, events.append, ("execute_sql",)
    )
    assert not asked.ok and other.ok


@pytest.mark.parametrize(
    ("entry", "tool", "key", "arguments", "expected"),
    [
        ("execute_sql", "execute_sql", "sql_read", {}, True),
        ("sql_read", "execute_sql", "sql_read", {}, True),
        ("sql_read", "execute_sql", "sql_write", {}, False),
        ("EXECUTE_SQL", "execute_sql", "sql_write", {}, True),
        ("file_*", "file_operations", "file_read", {}, True),
        ("Read", "file_operations", "file_read", {}, True),
        ("Read", "file_operations", "file_write", {}, False),
        ("Write", "file_operations", "file_write", {}, True),
        ("Bash", "execute_command", "execute_command", {"command": ["ls"]}, True),
        (
            "Bash(git:*)",
            "execute_command",
            "execute_command",
            {"command": ["git", "status"]},
            True,
        ),
        (
            "Bash(git:*)",
            "execute_command",
            "execute_command",
            {"command": ["ls"]},
            False,
        ),
        (
            "Bash(ls -la)",
            "execute_command",
            "execute_command",
            {"command": "ls -la"},
            True,
        ),
        (
            "Bash(*)",
            "execute_command",
            "execute_command",
            {"command": ["cat", "x"]},
            True,
        ),
        ("WebFetch", "http_request", "http_get", {}, True),
        ("WebFetch", "http_request", "http_write", {}, False),
        ("Bash", "execute_sql", "sql_read", {}, False),
        (
            "http_request",
            "execute_command",
            "execute_command",
            {"command": ["ls"]},
            False,
        ),
    ],
)
def test_allowed_tools_matching_rules(
    entry: str, tool: str, key: str, arguments: dict[str, Any], expected: bool
) -> None:
    assert allowed_by_skill((entry,), tool, key, arguments) is expected


def test_use_skill_and_skill_tools_are_always_allowed_under_a_skill() -> None:
    assert allowed_by_skill(("execute_sql",), "use_skill", "use_skill", {})
    assert allowed_by_skill(("execute_sql",), "skill_pdf", "skill", {})
    assert allowed_by_skill(None, "anything", "whatever", {})
    assert not allowed_by_skill((), "execute_sql", "sql_read", {})


def test_default_permissions_allow_reads_and_ask_for_writes() -> None:
    policy = PermissionPolicy(ToolSettings().permissions)
    assert [
        policy.decide(k)
        for k in ("file_read", "http_get", "sql_read", "use_skill", "skill")
    ] == ["allow"] * 5
    assert [
        policy.decide(k)
        for k in ("file_write", "http_write", "sql_write", "execute_command")
    ] == ["ask"] * 4


def test_build_default_tools_registers_every_builtin_tool(
    home, project, write_skill, make_catalog, tmp_path
) -> None:
    write_skill("guide", "A reference guide")
    catalog = make_catalog(tmp_path / "skills")
    config = AppConfig()
    reg = build_default_tools(
        home,
        config,
        load_sources(home),
        catalog,
        cwd=project,
        on_activate=lambda n: None,
    )
    assert reg.names() == [
        "execute_command",
        "execute_sql",
        "file_operations",
        "http_request",
        "read_skill_resource",
        "skill_guide",
        "use_skill",
    ]
    for spec in reg.specs():
        assert spec.parameters["type"] == "object" and spec.description


def test_skills_disabled_registers_no_skill_tools(
    home, project, write_skill, make_catalog, tmp_path
) -> None:
    write_skill("guide")
    config = validate_config({"skills": {"enabled": False}})
    reg = build_default_tools(
        home, config, load_sources(home), make_catalog(tmp_path / "skills"), cwd=project
    )
    assert "use_skill" not in reg and not any(
        name.startswith("skill_") for name in reg.names()
    )


# -- found by `make mutate`: rules the examples above did not pin down ---------------------------


def test_a_scoped_key_is_denied_with_its_base_and_otherwise_asked_not_inherited() -> (
    None
):
    assert (
        PermissionPolicy({"http_get": "deny"}).configured("http_get:example.org")
        == "deny"
    )
    assert (
        PermissionPolicy({"http_get": "allow"}).configured("http_get:example.org")
        == "ask"
    )
    assert (
        PermissionPolicy({"http_get:example.org": "allow"}).configured(
            "http_get:example.org"
        )
        == "allow"
    )
    assert PermissionPolicy({}).configured("http_get") == "ask"


@pytest.mark.parametrize(
    "entries, command, allowed",
    [
        (
            ("Bash(git:*)",),
            "git log --oneline -5",
            True,
        ),  # the program is the first word, not all but the last
        (("Bash(git:*)",), ["/usr/bin/git", "status"], True),
        (("Bash(git:*)",), "gitk --all", False),
        (("", "  "), "git status", False),  # a blank allowed-tools entry grants nothing
        (
            ("Bash(git:*)",),
            "   ",
            False,
        ),  # malformed commands are refused, never a crash
        (("Bash(git:*)",), [], False),
        (("Bash(git:*)",), [5], False),
    ],
)
def test_a_skills_command_entries_name_the_program(
    entries: tuple[str, ...], command: object, allowed: bool
) -> None:
    assert (
        allowed_by_skill(
            entries, "execute_command", "execute_command", {"command": command}
        )
        is allowed
    )
