"""Who may run what: allow / ask / deny per permission key, plus a skill's ``allowed-tools``.

Rules a caller may rely on:

* Every tool call maps to one *permission key* (``file_read``, ``http_write``, …). The
  configured value for that key decides: ``allow`` runs, ``ask`` needs the user's approval,
  ``deny`` refuses. A key missing from the config is ``ask`` (unknown means careful).
* "Allow always" answers are remembered for the rest of the session, per key
  (:meth:`PermissionPolicy.remember`). They never turn a configured ``deny`` into a run.
* A scoped key (``http_get:example.org``, ``http_private:10.0.0.5``) is asked per scope and
  remembered per scope; ``deny`` on its base key denies it.
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

import fnmatch
import os
import re
import threading
from typing import Any, Literal, Mapping

from aiq_tui.secret_guard import looks_secret  # noqa: F401 - the one guard, re-exported for callers
from aiq_tui.tools.mcp.servers import server_key

Permission = Literal["allow", "ask", "deny"]

ALWAYS_ASK_KEYS: frozenset[str] = frozenset({"execute_shell", "file_read_secret", "file_write:runs"})
"""Permission keys that are asked every time (never auto-allowed, never remembered): a shell
running a command string, reading a file that looks like a secret, writing a file that git, a
hook manager or aiq-tui itself runs (``file_write:runs``; denied whenever ``file_write`` is)."""

INTERACTIVE_ONLY_KEYS: frozenset[str] = frozenset({"file_write:runs"})
"""Permission keys only a person's interactive "yes" approves, to a dialog that names what will
run the file: never ``--yes``, a config ``allow`` or an "always" (as Claude Code asks before
writing its own settings). A write that git, a hook manager or aiq-tui itself runs later acts
outside the sandbox with the user's full rights."""

SCOPED_SEPARATOR = ":"
"""``http_get:example.org`` is ``http_get`` scoped to one host: it is asked (and remembered)
per host, and a ``deny`` on the base key denies every scope."""

DISCLOSURE_TOOLS: frozenset[str] = frozenset({"use_skill", "read_skill_resource"})
"""Tools that only return skill text; a skill's allowed-tools never blocks them."""

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

_CLAUDE_PATTERN = re.compile(r"^(?P<family>[A-Za-z]+)\((?P<inner>[^)]*)\)$")


class PermissionPolicy:
    """allow / ask / deny per permission key, with session memory for "allow always"."""

    def __init__(self, permissions: Mapping[str, Permission]) -> None:
        self._configured: dict[str, Permission] = dict(permissions)
        self._remembered: set[str] = set()
        self._lock = threading.Lock()

    def configured(self, key: str) -> Permission:
        """What config.yaml says for ``key``; unknown keys are ``ask``. A scoped key
        (``http_get:host``) is ``deny`` when its base key is, else ``ask`` unless configured.
        An MCP tool (``mcp__time__get_current_time``) follows its own key, else its server's
        (``mcp__time``), else ``ask``; ``deny`` on either one denies it."""
        server = server_key(key)
        if server is not None:
            # Server names compare ignoring case everywhere (`mcp__github: deny` denies `GitHub`).
            own, shared = self._mcp_configured(key.lower()), self._mcp_configured(server.lower())
            if "deny" in (own, shared):
                return "deny"
            return own or shared or "ask"
        if key in self._configured:
            return self._configured[key]
        base, scoped, _ = key.partition(SCOPED_SEPARATOR)
        if scoped and self._configured.get(base) == "deny":
            return "deny"
        return "ask"

    def _mcp_configured(self, lowered: str) -> Permission | None:
        """The configured value of an MCP key, ignoring case; of several spellings, the strictest."""
        found = [value for name, value in self._configured.items() if name.lower() == lowered]
        for strictest in ("deny", "ask", "allow"):
            if strictest in found:
                return strictest  # type: ignore[return-value]
        return None

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


def _program_of(arguments: Mapping[str, Any]) -> str | None:
    command = arguments.get("command")
    if isinstance(command, str):
        first = command.strip().split(maxsplit=1)
        return os.path.basename(first[0]) if first else None
    if isinstance(command, (list, tuple)) and command and isinstance(command[0], str):
        return os.path.basename(command[0])
    return None


def _entry_allows(entry: str, tool: str, key: str, arguments: Mapping[str, Any]) -> bool:
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
    if tool in DISCLOSURE_TOOLS or (tool.startswith("skill_") and key != "execute_skill_script"):
        return True  # a skill's script runs commands: it needs an allowed-tools entry like any tool
    return any(_entry_allows(entry, tool, key, arguments or {}) for entry in allowed_tools)
