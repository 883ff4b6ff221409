"""The tool registry: look a call up, check it, ask the policy, run it, report every step.

:meth:`ToolRegistry.invoke` never raises for anything a model or a tool can get wrong: the
answer is always a :class:`ToolResult`, and the event sink sees, in order,
``ToolCallRequested`` → ``ToolCallApproved`` | ``ToolCallDenied`` → ``ToolCallFinished``
(the last only when the tool ran or the call was malformed).
"""

from __future__ import annotations

import difflib
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiq_tui.conversation import ToolCall, ToolSpec
from aiq_tui.tools.base import (
    ApprovalRequest,
    Approver,
    CallObserver,
    Decision,
    Tool,
    ToolResult,
)
from aiq_tui.tools.events import (
    ToolCallApproved,
    ToolCallDenied,
    ToolCallFinished,
    ToolCallRequested,
    ToolEventSink,
)
from aiq_tui.tools.policy import (
    ALWAYS_ASK_KEYS,
    INTERACTIVE_ONLY_KEYS,
    PermissionPolicy,
    Ruling,
    allowed_by_skill,
)
from aiq_tui.trace_context import TraceContextSource

if TYPE_CHECKING:
    from aiq_tui.config import AppConfig

_JSON_TYPES: Mapping[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list, tuple),
    "object": (dict,),
    "null": (type(None),),
}

# Approval titles per permission key, as the TUI modal and CLI prompt show them.
_TITLES: Mapping[str, str] = {
    "execute_command": "Run command",
    "execute_shell": "Run shell command string",
    "file_write": "Write file",
    "file_write:runs": "Write a file that runs outside an ordinary edit (hooks, project skills)",
    "file_read": "Read file",
    "file_read_secret": "Read a file that looks like a secret",
    "file_read_unscoped": "Read file (started outside a project)",
    "http_private": "Reach a private/loopback address",
    "http_write": "Send HTTP request",
    "http_get": "Fetch URL",
    "sql_write": "Write SQL",
    "sql_read": "Query SQL",
    "execute_skill_script": "Run skill script",
}


async def approve_all(request: ApprovalRequest) -> Decision:
    """Headless ``--yes``: approve every "ask" call once (deny in config still denies) — except a
    write that something will run (:data:`~aiq_tui.tools.policy.INTERACTIVE_ONLY_KEYS`), which
    the registry refuses before asking it."""
    return Decision.ALLOW_ONCE


async def deny_all(request: ApprovalRequest) -> Decision:
    """Headless ``--deny-all``: refuse every call that would need approval."""
    return Decision.DENY


_FLAG_APPROVERS = (approve_all, deny_all)
_UNSET: Any = object()


def _refuses_everything(approver: Approver | None) -> bool:
    """``--deny-all`` is absolute: nothing that would ask runs — not by a skill's allowed-tools
    either."""
    return approver is deny_all


def source_trusted(tool: Tool, arguments: Any) -> bool:
    """Whether the call comes from a trusted source. A tool that runs what a project brought
    (a project skill's script, a project MCP server's tool) answers with ``source_trusted``;
    every other tool is the app's own."""
    check = getattr(tool, "source_trusted", None)
    if check is None:
        return True
    try:
        return bool(check(arguments))
    except Exception:
        return False


def _refused_whatever_the_answer(tool: Tool, arguments: dict[str, Any]) -> str | None:
    """Why the tool would refuse this call even once approved (``refusal``), so the user is
    asked only about what can run — never "allow python3 -c …?" and then "python3 is not
    allowed"."""
    check = getattr(tool, "refusal", None)
    if check is None:
        return None
    try:
        return check(arguments)
    except Exception as exc:
        return f"cannot check the call: {type(exc).__name__}: {exc}"


def _type_error(name: str, value: Any, schema: Mapping[str, Any]) -> str | None:
    expected = schema.get("type")
    if expected is None:
        return None
    names = expected if isinstance(expected, list) else [expected]
    for type_name in names:
        kinds = _JSON_TYPES.get(type_name)
        if kinds is None:
            return None
        # bool is an int in Python, never in JSON.
        if isinstance(value, bool) and type_name in ("integer", "number"):
            continue
        if isinstance(value, kinds):
            enum = schema.get("enum")
            if enum is not None and value not in enum:
                return f"argument {name!r} must be one of {', '.join(map(str, enum))}; got {value!r}"
            return None
    return f"argument {name!r} must be {' or '.join(names)}; got {type(value).__name__}"


def validate_arguments(spec: ToolSpec, arguments: Any) -> str | None:
    """The first problem with ``arguments`` against the spec's schema, or None.

    Checks what models get wrong in practice: not an object, missing required fields, wrong
    top-level types, values outside an ``enum``, unknown fields when the schema forbids them.
    """
    if not isinstance(arguments, dict):
        return f"arguments must be a JSON object; got {type(arguments).__name__}"
    schema = spec.parameters or {}
    properties: Mapping[str, Any] = schema.get("properties") or {}
    missing = [name for name in schema.get("required") or () if name not in arguments]
    if missing:
        return f"missing required argument(s): {', '.join(missing)}"
    if schema.get("additionalProperties") is False:
        unknown = sorted(set(arguments) - set(properties))
        if unknown:
            return (
                f"unknown argument(s): {', '.join(unknown)}; "
                f"expected: {', '.join(properties) or 'none'}"
            )
    for name, value in arguments.items():
        if name in properties:
            problem = _type_error(name, value, properties[name])
            if problem:
                return problem
    return None


class ToolRegistry:
    """The tools the agent may call, by name, behind one permission policy."""

    def __init__(
        self,
        tools: Iterable[Tool],
        policy: PermissionPolicy | None = None,
        *,
        skill_allowed_tools: str = "preapprove",
    ) -> None:
        # What an active skill's allowed-tools means: "preapprove" | "restrict" | "ignore".
        self.skill_allowed_tools = skill_allowed_tools
        self._tools: dict[str, Tool] = {}
        self.trace_context: TraceContextSource | None = (
            None  # set while telemetry exports (attach_telemetry)
        )
        for tool in tools:
            self.add(tool)
        if policy is None:
            from aiq_tui.config import ToolSettings

            policy = PermissionPolicy(ToolSettings().permissions)
        self.policy = policy

    def add(self, tool: Tool) -> None:
        name = tool.spec.name
        if name in self._tools:
            raise ValueError(f"a tool named {name!r} is already registered")
        self._tools[name] = tool

    def remove(self, name: str) -> None:
        self._tools.pop(name, None)

    def names(self) -> list[str]:
        return sorted(self._tools)

    def specs(self) -> list[ToolSpec]:
        return [self._tools[name].spec for name in self.names()]

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __len__(self) -> int:
        return len(self._tools)

    async def invoke(
        self,
        call: ToolCall,
        approver: Approver | None,
        emit: ToolEventSink,
        active_allowed_tools: tuple[str, ...] | None = None,
        *,
        preapproving: tuple[str, ...] | None = _UNSET,
    ) -> ToolResult:
        """Run ``call`` under the policy; always returns a result (see module doc).

        ``active_allowed_tools`` is what the active skills name (``restrict`` blocks the rest);
        ``preapproving`` what of it may pre-approve — the engine passes only trusted skills'
        entries (default: the same as ``active_allowed_tools``)."""
        tool = self._tools.get(call.name)
        arguments: Any = call.arguments
        if tool is None:
            close = difflib.get_close_matches(call.name, self.names(), n=3)
            hint = f" Did you mean: {', '.join(close)}?" if close else ""
            result = ToolResult.failure(
                f"unknown tool {call.name!r}.{hint} Available tools: {', '.join(self.names())}"
            )
            emit(ToolCallRequested(call.id, call.name, _as_mapping(arguments), "deny"))
            emit(
                ToolCallFinished(
                    call.id, call.name, False, result.summary, 0.0, result.error
                )
            )
            return result

        problem = validate_arguments(tool.spec, arguments)
        if problem is None:
            problem = _refused_whatever_the_answer(tool, arguments)
        if problem:
            result = ToolResult.failure(f"{call.name}: {problem}")
            emit(ToolCallRequested(call.id, call.name, _as_mapping(arguments), "deny"))
            emit(
                ToolCallFinished(
                    call.id, call.name, False, result.summary, 0.0, result.error
                )
            )
            return result

        try:
            key = tool.permission_key(arguments)
            detail = tool.describe(arguments)
        except Exception as exc:  # a tool bug must not break the turn
            result = ToolResult.failure(f"{call.name}: cannot prepare call: {exc}")
            emit(ToolCallRequested(call.id, call.name, arguments, "deny"))
            emit(
                ToolCallFinished(
                    call.id, call.name, False, result.summary, 0.0, result.error
                )
            )
            return result

        trusted = source_trusted(tool, arguments)
        permission = self.policy.decide(key, trusted_source=trusted)
        mode = self.skill_allowed_tools
        if preapproving is _UNSET:
            preapproving = active_allowed_tools
        if mode == "ignore":
            active_allowed_tools = preapproving = None
        named_by_skill = preapproving is not None and allowed_by_skill(
            preapproving, call.name, key.partition(":")[0], arguments
        )
        # Pre-approval (Claude Code's meaning of allowed-tools): a call a trusted active skill
        # names skips the question — never a configured deny, never under --deny-all, never a
        # key that is asked every time (a shell string, a secret, a hook), never a private
        # address, never what an untrusted project brought, never a project MCP server's tool.
        preapproved = (
            mode == "preapprove"
            and named_by_skill
            and permission == "ask"
            and trusted
            and not getattr(tool, "from_project", False)
            and not _refuses_everything(approver)
            and key not in ALWAYS_ASK_KEYS
            and not key.startswith("http_private")
        )
        if mode == "restrict" and not allowed_by_skill(
            active_allowed_tools, call.name, key.partition(":")[0], arguments
        ):
            emit(ToolCallRequested(call.id, call.name, arguments, "deny"))
            allowed = ", ".join(active_allowed_tools or ()) or "nothing"
            reason = f"the active skill allows only: {allowed}; {call.name} ({key}) is not among them"
            emit(ToolCallDenied(call.id, call.name, reason))
            return ToolResult.failure(f"denied: {reason}")

        emit(
            ToolCallRequested(
                call.id, call.name, arguments, permission, tool.spec.description
            )
        )
        if permission == "deny":
            reason = _denied_reason(key, self.policy.ruling(key))
            emit(ToolCallDenied(call.id, call.name, reason))
            return ToolResult.failure(f"denied: {reason}")

        if preapproved:
            emit(ToolCallApproved(call.id, call.name, always=False, by="skill"))
        elif permission == "ask":
            granted = await self._ask(
                call, key, detail, approver, emit, rememberable=trusted
            )
            if granted is not None:
                return granted
        else:
            emit(ToolCallApproved(call.id, call.name, always=False, by="policy"))

        started = time.perf_counter()
        try:
            run_with_approval = getattr(tool, "run_with_approval", None)
            if run_with_approval is not None:

                async def ask_more(more_key: str, more_detail: str) -> bool:
                    # What only shows up while running (a private address, a redirect's host)
                    # goes through the same policy and approver as the call itself.
                    decided = self.policy.decide(more_key, trusted_source=trusted)
                    if decided == "deny":
                        emit(
                            ToolCallDenied(
                                call.id,
                                call.name,
                                _denied_reason(more_key, self.policy.ruling(more_key)),
                            )
                        )
                        return False
                    if decided == "allow":
                        return True
                    return (
                        await self._ask(
                            call,
                            more_key,
                            more_detail,
                            approver,
                            emit,
                            rememberable=trusted,
                        )
                        is None
                    )

                result = await run_with_approval(arguments, ask_more)
            elif (observed := getattr(tool, "run_observed", None)) is not None:
                # A tool that calls out (an MCP server) reports its request and sends the call's
                # trace context along, so the server's own spans join the turn's trace.
                result = await observed(
                    arguments, CallObserver(call.id, emit, self.trace_context)
                )
            else:
                result = await tool.run(arguments)
        except (
            Exception
        ) as exc:  # tools return failures; this is the safety net for bugs
            result = ToolResult.failure(
                f"{call.name} failed unexpectedly: {type(exc).__name__}: {exc}"
            )
        duration = time.perf_counter() - started
        emit(
            ToolCallFinished(
                call.id,
                call.name,
                result.ok,
                result.summary,
                duration,
                result.content if result.ok else result.error,
            )
        )
        return result

    async def _ask(
        self,
        call: ToolCall,
        key: str,
        detail: str,
        approver: Approver | None,
        emit: ToolEventSink,
        *,
        rememberable: bool = True,
    ) -> ToolResult | None:
        """None when approved (events emitted); a failure result when refused. "Always" is
        remembered only when ``rememberable`` (never for what an untrusted project brought)."""
        if approver is None or (
            approver is approve_all and key in INTERACTIVE_ONLY_KEYS
        ):
            reason = f"{call.name} needs approval ({key}) and no one can answer here; {_how_to_approve(key)}"
            if key in INTERACTIVE_ONLY_KEYS and detail:
                # Who would run the file: the model (and the user) learn why it is refused.
                reason += f" ({detail.splitlines()[-1].lstrip('⚠ ')})"
            emit(ToolCallDenied(call.id, call.name, reason))
            return ToolResult.failure(f"denied: {reason}")
        request = ApprovalRequest(
            call_id=call.id,
            tool=call.name,
            permission=key,
            title=_TITLES.get(
                key, _TITLES.get(key.partition(":")[0], _title_for(call.name))
            ),
            detail=detail,
            arguments=dict(call.arguments),
            rememberable=rememberable and key not in ALWAYS_ASK_KEYS,
        )
        try:
            decision = await approver(request)
        except Exception as exc:
            reason = f"approval failed: {exc}"
            emit(ToolCallDenied(call.id, call.name, reason))
            return ToolResult.failure(f"denied: {reason}")
        by = "flag" if approver in _FLAG_APPROVERS else "user"
        if decision == Decision.DENY:
            reason = (
                "--deny-all refuses calls that need approval"
                if by == "flag"
                else "the user declined"
            )
            emit(ToolCallDenied(call.id, call.name, reason))
            return ToolResult.failure(f"denied: {reason} ({call.name}: {detail})")
        always = (
            decision == Decision.ALLOW_ALWAYS
            and rememberable
            and self.policy.remember(key)
        )
        emit(ToolCallApproved(call.id, call.name, always=always, by=by))
        return None


def _how_to_approve(key: str) -> str:
    """What can approve a call of ``key`` when no one could answer (only what is honoured)."""
    if key in INTERACTIVE_ONLY_KEYS:
        return (
            "only a person's interactive yes approves it (the TUI, or `aiq-tui ask` at a terminal without "
            '--yes): --yes, tools.permissions and "always" never do; or make the change by hand'
        )
    if key in ALWAYS_ASK_KEYS:
        return "rerun with --yes to approve it (it is asked every time: tools.permissions cannot allow it)"
    return f"rerun with --yes to approve, or set tools.permissions.{key}: allow in config.yaml"


def _denied_reason(key: str, ruling: Ruling) -> str:
    """Why a call of ``key`` is refused, naming the rule that decided as the user wrote it."""
    return (
        f"permission {key!r} is 'deny' in config.yaml ({ruling.where}: deny); change that key to "
        "'ask' or 'allow' to use this tool"
    )


def _title_for(tool: str) -> str:
    return "Call MCP server tool" if tool.startswith("mcp__") else f"Run {tool}"


def _as_mapping(arguments: Any) -> Mapping[str, Any]:
    return arguments if isinstance(arguments, Mapping) else {"_raw": arguments}


def project_layout_of(project: Path, config: AppConfig, catalog: Any = None) -> Any:
    """What aiq-tui itself reads in ``project``: the configured skill folders, every folder the
    catalog scans (``--skills-dir`` too) and ``.mcp.json`` (:class:`~aiq_tui.tools.run_outside.ProjectLayout`)."""
    from aiq_tui.tools.run_outside import project_layout

    scanned = [directory.path for directory in getattr(catalog, "dirs", ()) or ()]
    return project_layout(project, config.skills, scanned)
