"""Who may run what: allow / ask / deny per permission key, plus a skill's ``allowed-tools``.

Rules a caller may rely on:

* Every tool call maps to one *permission key* (``file_read``, ``http_write``, …). The
  configured value for that key decides: ``allow`` runs, ``ask`` needs the user's approval,
  ``deny`` refuses. A key missing from the config is ``ask`` (unknown means careful).
* "Allow always" answers are remembered for the rest of the session, per key
  (:meth:`PermissionPolicy.remember`). They never turn a configured ``deny`` into a run.
* A scoped key (``http_get:example.org``, ``http_private:10.0.0.5``) is asked per scope and
  remembered per scope; ``deny`` on its base key denies it.
* An MCP tool's key is its name (``mcp__time__get_current_time``); the rules that name it are
  Claude Code's forms, compared ignoring case: the tool itself, ``mcp__time__get_*`` (a pattern
  of one server's tools), ``mcp__time`` and ``mcp__time__*`` (every tool of the server). ``deny``
  in any of them denies; otherwise the narrowest decides, and of several spellings at one level
  the strictest. :meth:`PermissionPolicy.ruling` names the key that decided, as the user wrote it;
  :func:`unmatched_rules` finds keys that name nothing (a typo would otherwise be a silent no-op).
* Keys in :data:`ALWAYS_ASK_KEYS` (a shell running a command string, reading a file that
  looks like a secret, writing a file that runs outside the sandbox) are asked every time:
  ``allow`` in the config is read as ``ask`` and "allow always" is not remembered. Of them,
  :data:`INTERACTIVE_ONLY_KEYS` are not approved by ``--yes`` either (the registry refuses).
* A call that comes from an *untrusted source* (a script of a project the user has not
  trusted, a tool of a project's MCP server) is asked every time in the same way:
  ``decide(key, trusted_source=False)``. ``deny`` stays ``deny`` for it.
* A skill's ``allowed-tools`` (:func:`allowed_by_skill` says whether a call matches one of
  its entries) is applied by the registry per ``agent.skill_allowed_tools``: ``preapprove``
  (default) runs matching calls without asking while the skill is in use — never over a
  ``deny``, never for :data:`ALWAYS_ASK_KEYS`, never for a tool of a project's MCP server (a
  project source: a user skill's ``mcp__github`` names the user's own server); ``restrict`` blocks non-matching calls (and
  matching ones still ask); ``ignore``. Matching rules, case-insensitive:

  - an entry equal to the tool name (``execute_sql``) or the permission key (``sql_read``);
  - ``skill_*``-style globs (``fnmatch``) against both names (``mcp__github__*``) — never a
    bare ``*``, which would name every tool (refused with a warning by validation);
  - ``mcp__<server>`` names every tool of that MCP server;
  - Claude-style names map to our tool families: ``Bash`` → ``execute_command``,
    ``Read``/``Glob``/``Grep``/``LS`` → ``file_read``, ``Write``/``Edit``/``MultiEdit`` →
    ``file_write``, ``WebFetch`` → ``http_get``, ``WebSearch`` → ``http_get``;
  - ``Bash(git:*)`` / ``Bash(git status)`` name the family *and* the program: the call must
    run that program (its basename); ``Bash(*)`` or ``Bash`` allows any allowlisted program;
  - ``use_skill`` and ``skill_<name>`` tools only disclose text, so they are always allowed
    (otherwise a skill could never hand over to another one).
"""

from __future__ import annotations

import difflib
import fnmatch
import os
import re
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from aiq_tui.secret_guard import looks_secret  # noqa: F401 - the one guard, re-exported for callers
from aiq_tui.tools.mcp.servers import TOOL_PREFIX, server_key

Permission = Literal["allow", "ask", "deny"]

ALWAYS_ASK_KEYS: frozenset[str] = frozenset(
    {
        "execute_shell",
        "file_read_secret",
        "file_write:runs",
        "execute_skill_script:first-run",
    }
)
"""Permission keys that are asked every time (never auto-allowed, never remembered): a shell
running a command string, reading a file that looks like a secret, writing a file another
program runs (``file_write:runs``; denied whenever ``file_write`` is), the first run of an
imported skill's script (``execute_skill_script:first-run``)."""

INTERACTIVE_ONLY_KEYS: frozenset[str] = frozenset(
    {"file_write:runs", "execute_skill_script:first-run"}
)
"""Permission keys only a person's interactive "yes" approves, to a dialog that names what will
run: never ``--yes``, a config ``allow`` or an "always" (as Claude Code asks before writing its
own settings). A write that another program runs later acts outside the sandbox with the user's
full rights; an imported skill's script was written by someone else (the yes is kept for its
content: :mod:`aiq_tui.skills.imported`)."""

SCOPED_SEPARATOR = ":"
"""``http_get:example.org`` is ``http_get`` scoped to one host: it is asked (and remembered)
per host, and a ``deny`` on the base key denies every scope."""

DISCLOSURE_TOOLS: frozenset[str] = frozenset(
    {"use_skill", "read_skill_resource", "tool_search"}
)
"""Tools that only return skill text or tool definitions; a skill's allowed-tools never blocks them."""

# Claude Code tool names → (tool name, permission key) of our families.
CLAUDE_FAMILIES: Mapping[str, tuple[str, str | None]] = {
    "bash": ("execute_command", None),
    "read": ("file_operations", "file_read"),
    "glob": ("file_operations", "file_read"),
    "grep": ("file_operations", "file_read"),
    "ls": ("file_operations", "file_read"),
    "write": ("file_operations", "file_write"),
    "edit": ("file_operations", "file_write"),
    "multiedit": ("file_operations", "file_write"),
    "webfetch": ("http_request", "http_get"),
    "websearch": ("http_request", "http_get"),
}

_STRICTNESS: Mapping[str, int] = {"deny": 0, "ask": 1, "allow": 2}

_CLAUDE_PATTERN = re.compile(r"^(?P<family>[A-Za-z]+)\((?P<inner>[^)]*)\)$")


@dataclass(frozen=True)
class Ruling:
    """What ``tools.permissions`` says for one permission key, and which of its keys said it."""

    permission: Permission
    rule: str | None = None
    """The key as the user wrote it (``mcp__time__*``, ``http_get``); None when no key matched
    and the default (``ask``) applies."""

    @property
    def where(self) -> str:
        """``tools.permissions.<rule>`` (the rule that decided), for messages."""
        return (
            f"tools.permissions.{self.rule}"
            if self.rule is not None
            else "tools.permissions (no key names it)"
        )


_MCP_SPECIFIC, _MCP_GLOB, _MCP_SERVER = 0, 1, 2  # how narrowly an MCP rule names a tool


def mcp_rule_level(rule: str, tool: str) -> int | None:
    """How ``rule`` names the MCP tool ``tool`` (both compared ignoring case), or None when it
    does not: the tool itself (``mcp__time__get_current_time``), a pattern of the server's tools
    (``mcp__time__get_*``), or the whole server (``mcp__time`` or ``mcp__time__*``, Claude Code's
    two spellings of one set)."""
    lowered, name = rule.lower(), tool.lower()
    server = server_key(name)
    if server is None:
        return None
    if lowered == name:
        return _MCP_SPECIFIC
    if lowered in (server, f"{server}__*"):
        return _MCP_SERVER
    prefix = f"{server}__"
    if (
        lowered.startswith(prefix)
        and any(ch in lowered[len(prefix) :] for ch in "*?[")
        and fnmatch.fnmatchcase(name[len(prefix) :], lowered[len(prefix) :])
    ):
        return _MCP_GLOB
    return None


class PermissionPolicy:
    """allow / ask / deny per permission key, with session memory for "allow always"."""

    def __init__(self, permissions: Mapping[str, Permission]) -> None:
        self._configured: dict[str, Permission] = dict(permissions)
        self._remembered: set[str] = set()
        self._lock = threading.Lock()

    def configured(self, key: str) -> Permission:
        """What config.yaml says for ``key`` (:meth:`ruling` says which of its keys said it)."""
        return self.ruling(key).permission

    def ruling(self, key: str) -> Ruling:
        """What config.yaml says for ``key`` and the key that decided; unknown keys are ``ask``.
        A scoped key (``http_get:host``) is ``deny`` when its base key is, else ``ask`` unless
        configured. An MCP tool (``mcp__time__get_current_time``) follows the rules that name it
        (Claude Code's forms, ignoring case): ``deny`` in any of them denies it; otherwise the
        narrowest decides — the tool's own key, then a pattern (``mcp__time__get_*``), then the
        server (``mcp__time`` or ``mcp__time__*``); of several at one level, the strictest."""
        if server_key(key) is not None:
            return self._mcp_ruling(key)
        if key in self._configured:
            return Ruling(self._configured[key], key)
        base, scoped, _ = key.partition(SCOPED_SEPARATOR)
        if scoped and self._configured.get(base) == "deny":
            return Ruling("deny", base)
        return Ruling("ask")

    def _mcp_ruling(self, key: str) -> Ruling:
        matching: list[tuple[int, int, str, Permission]] = []
        for rule, value in self._configured.items():
            level = mcp_rule_level(rule, key)
            if level is not None:
                matching.append((level, _STRICTNESS[value], rule, value))
        if not matching:
            return Ruling("ask")
        denials = sorted(m for m in matching if m[3] == "deny")
        if denials:
            return Ruling("deny", denials[0][2])  # the narrowest rule that denies it
        level, _, rule, value = min(
            matching
        )  # narrowest level, then strictest (ask before allow)
        return Ruling(value, rule)

    def decide(self, key: str, *, trusted_source: bool = True) -> Permission:
        """The permission in force now for ``key`` (config + this session's answers).
        ``trusted_source=False`` (a project's script or server the user has not trusted):
        never ``allow`` — asked every time, denied when configured so."""
        configured = self.configured(key)
        if configured == "deny":
            return "deny"
        if key in ALWAYS_ASK_KEYS or not trusted_source:
            return "ask"
        with self._lock:
            if key in self._remembered:
                return "allow"
        return configured

    def remember(self, key: str) -> bool:
        """Record an "allow always" answer; False when the key may not be remembered."""
        if key in ALWAYS_ASK_KEYS or self.configured(key) == "deny":
            return False
        with self._lock:
            self._remembered.add(key)
        return True

    def remembered(self) -> frozenset[str]:
        with self._lock:
            return frozenset(self._remembered)

    def forget(self) -> None:
        """Drop every session answer (e.g. a new session)."""
        with self._lock:
            self._remembered.clear()


PERMISSION_KEYS: frozenset[str] = frozenset(
    {
        "use_skill",
        "skill",
        "tool_search",
        "file_read",
        "file_read_secret",
        "file_read_unscoped",
        "file_write",
        "file_write:runs",
        "http_get",
        "http_write",
        "http_private",
        "sql_read",
        "sql_write",
        "execute_command",
        "execute_shell",
        "execute_skill_script",
    }
)
"""Every permission key a built-in tool asks about; ``http_get:HOST``-style scopes add a host."""

_MCP_FORMS = "mcp__SERVER, mcp__SERVER__* or mcp__SERVER__TOOL"


def unmatched_rules(
    permissions: Iterable[str],
    servers: Iterable[str],
    tools: Mapping[str, Sequence[str]] | None = None,
) -> list[tuple[str, str]]:
    """Each key of ``tools.permissions`` that names no permission key, MCP server or tool,
    with why and what to write instead (a typo is otherwise silently a no-op: the tool still
    asks). ``servers``: every configured server's name; ``tools``: the tool names of the
    servers that are running, by server name (a tool rule of a server not running is not
    judged)."""
    known = {name.lower(): name for name in servers}
    running = {name.lower(): names for name, names in (tools or {}).items()}
    found: list[tuple[str, str]] = []
    for rule in permissions:
        if rule.lower().startswith(TOOL_PREFIX):
            problem = _mcp_rule_problem(rule, known, running)
        else:
            problem = _key_problem(rule)
        if problem is not None:
            found.append((rule, problem))
    return found


def _mcp_rule_problem(
    rule: str, known: Mapping[str, str], running: Mapping[str, Sequence[str]]
) -> str | None:
    server, _, tool = rule[len(TOOL_PREFIX) :].partition("__")
    if not server or any(ch in server for ch in "*?["):
        return (
            f"names no single MCP server (a rule names one server: {_MCP_FORMS}); "
            "it has no effect"
        )
    name = known.get(server.lower())
    if name is None:
        close = difflib.get_close_matches(server.lower(), list(known), n=1, cutoff=0.6)
        servers = ", ".join(sorted(known.values())) or "none are configured"
        hint = f"; did you mean mcp__{known[close[0]]}?" if close else ""
        return f"names no MCP server (servers: {servers}){hint}; it has no effect"
    names = running.get(name.lower())
    if not tool or tool == "*" or names is None:
        return None
    if any(mcp_rule_level(rule, full) is not None for full in names):
        return None
    short = [
        full.split("__", 2)[-1] for full in names
    ]  # mcp, server (no "__" in it), tool
    close = difflib.get_close_matches(
        tool.lower(), [s.lower() for s in short], n=1, cutoff=0.6
    )
    hint = f"; did you mean mcp__{name}__{close[0]}?" if close else ""
    return f"names no tool of MCP server {name} (its tools: {', '.join(short) or 'none'}){hint}; it has no effect"


def _key_problem(rule: str) -> str | None:
    base, scoped, _ = rule.partition(SCOPED_SEPARATOR)
    if rule in PERMISSION_KEYS or (scoped and base in PERMISSION_KEYS):
        return None
    match = _CLAUDE_PATTERN.match(rule.strip())
    family = CLAUDE_FAMILIES.get(
        (match.group("family") if match else rule.strip()).lower()
    )
    if family is not None:
        ours = family[1] or "execute_command"
        return (
            f"is Claude Code's tool name, not a permission key here; write {ours} "
            "(programs: tools.command_allowlist)"
        )
    close = difflib.get_close_matches(rule, sorted(PERMISSION_KEYS), n=1, cutoff=0.6)
    hint = f"did you mean {close[0]}? " if close else ""
    return (
        f"is not a permission key; {hint}keys: {', '.join(sorted(PERMISSION_KEYS))}, or an MCP rule "
        f"({_MCP_FORMS}); it has no effect"
    )


def _program_of(arguments: Mapping[str, Any]) -> str | None:
    command = arguments.get("command")
    if isinstance(command, str):
        first = command.strip().split(maxsplit=1)
        return os.path.basename(first[0]) if first else None
    if isinstance(command, (list, tuple)) and command and isinstance(command[0], str):
        return os.path.basename(command[0])
    return None


def _entry_allows(
    entry: str, tool: str, key: str, arguments: Mapping[str, Any]
) -> bool:
    text = entry.strip()
    if not text or not text.strip("*"):
        return False  # a bare `*` would name every tool through fnmatch: refused, never matched
    lowered = text.lower()
    names = (tool.lower(), key.lower())
    if lowered in names or any(fnmatch.fnmatchcase(name, lowered) for name in names):
        return True
    if lowered.startswith("mcp__") and server_key(tool.lower()) == lowered:
        return True  # `mcp__github`: every tool of that MCP server (Claude Code's form)
    match = _CLAUDE_PATTERN.match(text)
    family_name = (match.group("family") if match else text).lower()
    family = CLAUDE_FAMILIES.get(family_name)
    if family is None:
        return False
    family_tool, family_key = family
    if tool != family_tool or (family_key is not None and key != family_key):
        return False
    if not match or family_tool != "execute_command":
        return True
    # Bash(git:*) / Bash(git status) / Bash(*): the first word names the program.
    inner = match.group("inner").strip()
    wanted = re.split(r"[:\s]", inner, maxsplit=1)[0] if inner else "*"
    if wanted in ("", "*"):
        return True
    return _program_of(arguments) == wanted


def allowed_by_skill(
    allowed_tools: tuple[str, ...] | None,
    tool: str,
    key: str,
    arguments: Mapping[str, Any] | None = None,
) -> bool:
    """Whether a call may run while a skill with ``allowed_tools`` is active (see module doc)."""
    if allowed_tools is None:
        return True
    if tool in DISCLOSURE_TOOLS or (
        tool.startswith("skill_") and key != "execute_skill_script"
    ):
        return True  # a skill's script runs commands: it needs an allowed-tools entry like any tool
    return any(
        _entry_allows(entry, tool, key, arguments or {}) for entry in allowed_tools
    )
