"""Which MCP servers exist, where each came from, and how its tools are named. No SDK here.

Two sources, decided once at this boundary (docs/mcp.md):

* ``config.yaml`` ``mcp.servers`` — the user's own: trusted, started as configured;
* the project's ``.mcp.json`` (Claude Code's ``{"mcpServers": {...}}``) — a project's file,
  so input, not authority: :attr:`ServerDefinition.trusted` is False and the fleet starts it
  only in a trusted project or after the user approved this very definition
  (:func:`fingerprint`). A config server of the same name wins.

``${VAR}`` and ``${VAR:-default}`` in ``command``, ``args``, ``env``, ``url`` and ``headers`` take
the user's environment variables by name, as Claude Code does; :func:`variables` lists the names
a definition reads so an approval can show them.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import msgspec

from aiq_tui.env_vars import VARIABLE
from aiq_tui.env_vars import fill as fill_variables
from aiq_tui.json_bounds import loads_bounded
from aiq_tui.problems import Problem, Severity

if TYPE_CHECKING:
    from aiq_tui.config import AppConfig, McpServerSettings

PROJECT_FILE = ".mcp.json"
TOOL_PREFIX = "mcp__"
MAX_TOOL_NAME = 64  # OpenAI / Anthropic function-name limit
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")

Source = Literal["config", "project"]


class ServerDefinition(msgspec.Struct, frozen=True):
    """One MCP server as configured (templates not yet expanded)."""

    name: str
    source: Source
    origin: Path
    """The file it was read from (config.yaml or .mcp.json)."""
    transport: Literal["stdio", "http", "sse"]
    command: str | None = None
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    cwd: str | None = None
    url: str | None = None
    headers: tuple[tuple[str, str], ...] = ()
    enabled: bool = True

    @property
    def trusted(self) -> bool:
        """The user's own config; a project's server needs trust or an approval first."""
        return self.source == "config"

    @property
    def target(self) -> str:
        """What it runs or reaches, in one line (``mcp-server-time --local-timezone UTC``, a URL)."""
        if self.command is not None:
            return " ".join([self.command, *self.args])
        return f"{self.url} ({self.transport})"


class Expanded(msgspec.Struct, frozen=True):
    """A definition with ``${VAR}`` filled in from the environment: what is started."""

    command: str | None
    args: tuple[str, ...]
    env: dict[str, str]
    url: str | None
    headers: dict[str, str]
    missing: tuple[str, ...] = ()
    """Variables named without a default that are not set (the server is not started)."""


def from_settings(
    name: str, settings: McpServerSettings, origin: Path, source: Source = "config"
) -> ServerDefinition:
    return ServerDefinition(
        name=name,
        source=source,
        origin=origin,
        transport=settings.transport or "stdio",
        command=settings.command,
        args=tuple(settings.args),
        env=tuple(sorted(settings.env.items())),
        cwd=settings.cwd,
        url=settings.url,
        headers=tuple(sorted(settings.headers.items())),
        enabled=settings.enabled,
    )


def config_servers(config: AppConfig, config_file: Path) -> list[ServerDefinition]:
    """The user's servers from ``mcp.servers``, in the file's order."""
    return [
        from_settings(name, settings, config_file)
        for name, settings in config.mcp.servers.items()
    ]


def server_name(raw: str) -> str:
    """A server's name in the form tool names can hold: letters, digits, ``-`` and single
    ``_`` (no ``__``, which separates the parts of ``mcp__<server>__<tool>``), at most 40
    characters; any other character becomes ``-``. The one rule for ``.mcp.json`` and
    ``aiq-tui mcp add``: a name that changes is used changed, and the user is told
    (:func:`renamed`); "" when nothing usable is left."""
    name = re.sub(r"_+", "_", _UNSAFE.sub("-", raw)).strip("_")[:40].rstrip("_")
    return (
        name if re.search(r"[A-Za-z0-9]", name) else ""
    )  # `...` would name nothing anyone could read


def renamed(raw: str, name: str) -> str:
    """What :func:`server_name` did to ``raw``, for a warning."""
    return (
        f"server name {raw!r} is used as {name!r} (tool names hold letters, digits, - and single _, "
        f"at most 40 characters): its tools are mcp__{name}__TOOL, and tools.permissions and allowed-tools "
        f"name it mcp__{name}"
    )


def project_servers(
    cwd: Path, max_bytes: int | None = None
) -> tuple[list[ServerDefinition], list[Problem]]:
    """The servers of ``cwd/.mcp.json`` (none when it does not exist), and the problems with it:
    a broken file or entry is reported, never fatal — whatever it holds (nested 100,000 deep,
    larger than ``max_bytes`` (default ``mcp.project_file_max_bytes``), a FIFO, a link to a
    device)."""
    try:
        return _project_servers(cwd, max_bytes)
    except (
        RecursionError
    ):  # nesting that json/msgspec only notice by running out of stack
        return [], [
            Problem(
                cwd / PROJECT_FILE,
                "nested too deeply to read",
                hint="fix the file; its servers are not started",
                severity=Severity.WARNING,
            )
        ]


def _project_servers(
    cwd: Path, max_bytes: int | None
) -> tuple[list[ServerDefinition], list[Problem]]:
    from aiq_tui.config import (
        ConfigError,
        McpServerSettings,
        McpSettings,
        parse_settings,
    )
    from aiq_tui.file_io import read_regular

    path = cwd / PROJECT_FILE
    try:
        raw = read_regular(
            path, max_bytes or McpSettings().project_file_max_bytes
        ).decode("utf-8-sig")
    except FileNotFoundError:
        return [], []
    except (OSError, UnicodeDecodeError) as exc:
        return [], [
            Problem(
                path,
                f"cannot read the project's MCP servers: {exc}",
                severity=Severity.WARNING,
                hint="its servers are not started (mcp.project_file_max_bytes caps its size)",
            )
        ]
    try:
        data = loads_bounded(raw)
    except ValueError as exc:
        return [], [
            Problem(
                path,
                f"not valid JSON: {exc}",
                hint="fix the file; its servers are not started",
                severity=Severity.WARNING,
            )
        ]
    servers = data.get("mcpServers") if isinstance(data, dict) else None
    if not isinstance(servers, dict):
        return [], [
            Problem(
                path,
                'expected {"mcpServers": {NAME: {...}}}',
                field="mcpServers",
                hint="Claude Code's .mcp.json format",
                severity=Severity.WARNING,
            )
        ]
    found: list[ServerDefinition] = []
    problems: list[Problem] = []
    for raw_name, entry in servers.items():
        name = server_name(str(raw_name))
        where = f"mcpServers.{raw_name}"
        if not name:
            problems.append(
                Problem(
                    path,
                    "a server needs a name of letters or digits",
                    field=where,
                    severity=Severity.WARNING,
                )
            )
            continue
        if name != raw_name:
            problems.append(
                Problem(
                    path,
                    renamed(str(raw_name), name),
                    field=where,
                    hint=f"rename it to {name} in the file to silence this",
                    severity=Severity.WARNING,
                )
            )
        if not isinstance(entry, dict):
            problems.append(
                Problem(
                    path,
                    "must be an object with `command` or `url`",
                    field=where,
                    severity=Severity.WARNING,
                )
            )
            continue
        settings = _claude_entry(entry)
        try:
            parsed = parse_settings(McpServerSettings, settings, path)
        except ConfigError as exc:
            field_name = f"{where}.{exc.field}" if exc.field else where
            problems.append(
                Problem(
                    path,
                    exc.message,
                    field=field_name,
                    hint="this server is not started",
                    severity=Severity.WARNING,
                )
            )
            continue
        found.append(from_settings(name, parsed, path, "project"))
    return found, problems


def add_project_server(
    cwd: Path, name: str, entry: Mapping[str, Any]
) -> ServerDefinition:
    """Add ``name`` (already :func:`server_name`-shaped) with ``entry`` (Claude Code's keys:
    ``type``, ``command``, ``args``, ``env`` | ``url``, ``headers``) to ``cwd/.mcp.json``,
    keeping every other entry and key, written atomically. Raises ValueError (a message for the
    user) when the file cannot be read as Claude Code's format, the name is taken (ignoring
    case) or the entry is not a valid server."""
    from aiq_tui.config import (
        ConfigError,
        McpServerSettings,
        McpSettings,
        parse_settings,
    )
    from aiq_tui.file_io import atomic_write, read_regular

    path = cwd / PROJECT_FILE
    try:
        data = loads_bounded(
            read_regular(path, McpSettings().project_file_max_bytes).decode("utf-8-sig")
        )
    except FileNotFoundError:
        data = {}
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ValueError(f"cannot read {path}: {exc}; fix it first") from exc
    servers = data.setdefault("mcpServers", {}) if isinstance(data, dict) else None
    if not isinstance(servers, dict):
        raise ValueError(
            f'{path} is not {{"mcpServers": {{NAME: {{...}}}}}} (Claude Code\'s format); fix it first'
        )
    taken = next(
        (
            str(other)
            for other in servers
            if server_name(str(other)).lower() == name.lower()
        ),
        None,
    )
    if taken is not None:
        raise ValueError(
            f"a server named {taken!r} is already in {path} (names compare ignoring case); "
            "edit or remove it there first"
        )
    try:
        settings = parse_settings(McpServerSettings, _claude_entry(entry), path)
    except ConfigError as exc:
        raise ValueError(str(exc)) from exc
    servers[name] = dict(entry)
    atomic_write(
        path, json.dumps(data, indent=2, ensure_ascii=False) + "\n", mode=0o644
    )
    return from_settings(name, settings, path, "project")


def remove_project_server(cwd: Path, name: str) -> str | None:
    """Remove the server ``name`` (compared as :func:`server_name` makes it, ignoring case) from
    ``cwd/.mcp.json``, keeping the rest, atomically; the key as the file spelled it, or None
    when it is not there. Raises ValueError when the file cannot be read."""
    from aiq_tui.config import McpSettings
    from aiq_tui.file_io import atomic_write, read_regular

    path = cwd / PROJECT_FILE
    try:
        data = loads_bounded(
            read_regular(path, McpSettings().project_file_max_bytes).decode("utf-8-sig")
        )
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ValueError(f"cannot read {path}: {exc}") from exc
    servers = data.get("mcpServers") if isinstance(data, dict) else None
    if not isinstance(servers, dict):
        return None
    wanted = (server_name(name) or name).lower()
    key = next((str(k) for k in servers if server_name(str(k)).lower() == wanted), None)
    if key is None:
        return None
    del servers[key]
    atomic_write(
        path, json.dumps(data, indent=2, ensure_ascii=False) + "\n", mode=0o644
    )
    return key


def _claude_entry(entry: Mapping[str, Any]) -> dict[str, Any]:
    """Claude Code's keys as ours: ``type`` (stdio | http | streamable-http | sse) is our
    ``transport``; keys we do not use (``timeout``, ``oauth``, …) are left out."""
    settings = {
        key: entry[key]
        for key in ("command", "args", "env", "cwd", "url", "headers")
        if key in entry
    }
    kind = entry.get("type")
    if kind is not None:
        settings["transport"] = "http" if kind == "streamable-http" else kind
    return settings


def all_servers(
    config: AppConfig, config_file: Path, cwd: Path
) -> tuple[list[ServerDefinition], list[Problem]]:
    """The user's servers, then the project's (when ``mcp.project_servers``) whose names the
    user's do not already take."""
    servers = config_servers(config, config_file)
    if not config.mcp.project_servers:
        return servers, []
    project, problems = project_servers(cwd, config.mcp.project_file_max_bytes)
    # Case-insensitively, as tools.permissions and allowed-tools match them: a project's
    # `GitHub` must not load beside the user's `github` and borrow what names it.
    taken = {server.name.lower(): server for server in servers}
    for server in project:
        first = taken.get(server.name.lower())
        if first is not None:
            where = (
                "in your config.yaml; yours"
                if first.trusted
                else "earlier in this file; that one"
            )
            problems.append(
                Problem(
                    server.origin,
                    f"server {server.name!r} is also {where} is used (server names "
                    "are compared ignoring case)",
                    field=f"mcpServers.{server.name}",
                    severity=Severity.WARNING,
                )
            )
            continue
        taken[server.name.lower()] = server
        servers.append(server)
    return servers, problems


# -- templates ------------------------------------------------------------------------------


def expand(
    server: ServerDefinition, environ: Mapping[str, str] | None = None
) -> Expanded:
    """``server`` with every ``${VAR}`` filled in from ``environ`` (default: this process's)."""
    env_source = os.environ if environ is None else environ
    missing: list[str] = []
    fill = lambda text: fill_variables(text, env_source, missing)  # noqa: E731 - one closure, five uses
    return Expanded(
        command=fill(server.command) if server.command is not None else None,
        args=tuple(fill(arg) for arg in server.args),
        env={key: fill(value) for key, value in server.env},
        url=fill(server.url) if server.url is not None else None,
        headers={key: fill(value) for key, value in server.headers},
        missing=tuple(dict.fromkeys(missing)),
    )


def variables(server: ServerDefinition) -> tuple[str, ...]:
    """The environment variables the definition reads (``${NAME}``), in order, once each."""
    texts: Iterable[str] = (
        server.command or "",
        *server.args,
        *(v for _, v in server.env),
        server.url or "",
        *(v for _, v in server.headers),
    )
    return tuple(
        dict.fromkeys(
            m.group("name") for text in texts for m in VARIABLE.finditer(text)
        )
    )


def fingerprint(server: ServerDefinition) -> str:
    """A hash of everything that decides what runs (program, arguments, environment, URL,
    headers, working directory): an approval holds for this definition only."""
    payload = json.dumps(
        [
            server.transport,
            server.command,
            list(server.args),
            list(server.env),
            server.cwd,
            server.url,
            list(server.headers),
        ],
        ensure_ascii=False,
        sort_keys=True,
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


# -- tool names -----------------------------------------------------------------------------


def tool_name(server: str, tool: str) -> str:
    """``mcp__<server>__<tool>`` as function names allow (``[A-Za-z0-9_-]``, ≤ 64 characters);
    a longer name keeps its start and gets a short hash of the whole, so it stays unique."""
    name = f"{TOOL_PREFIX}{server}__{_UNSAFE.sub('_', tool)}"
    if len(name) <= MAX_TOOL_NAME:
        return name
    digest = hashlib.sha1(f"{server}/{tool}".encode()).hexdigest()[:8]
    return f"{name[: MAX_TOOL_NAME - 9]}_{digest}"


def server_key(tool: str) -> str | None:
    """``mcp__time`` for ``mcp__time__get_current_time`` (None for a name that is not an MCP
    tool's). Server names hold no ``__``, so the first one after the prefix ends the server."""
    if not tool.startswith(TOOL_PREFIX):
        return None
    server, separator, rest = tool[len(TOOL_PREFIX) :].partition("__")
    return f"{TOOL_PREFIX}{server}" if separator and server and rest else None
