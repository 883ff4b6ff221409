"""Keys of ``tools.permissions`` that name nothing, as warnings the user sees.

A typo (``mcp__tiem: allow``, ``file_wirte: deny``) is otherwise silently a no-op: the tool
keeps asking, or keeps running. Start-up (:class:`~aiq_tui.workspace.Workspace` problems: the
app's warnings, ``skills doctor``, ``sources list``) judges every key against the permission
keys and the configured MCP servers; once servers run, the fleet judges tool rules against
their tools (:func:`permission_problems` with ``tools``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from aiq_tui.problems import Problem, Severity
from aiq_tui.tools.policy import unmatched_rules

if TYPE_CHECKING:
    from aiq_tui.config import AppConfig

FIELD = "tools.permissions"


def permission_problems(
    permissions: Iterable[str],
    config_file: Path,
    servers: Iterable[str],
    tools: Mapping[str, Sequence[str]] | None = None,
) -> list[Problem]:
    """One warning per key of ``permissions`` that names nothing (see
    :func:`~aiq_tui.tools.policy.unmatched_rules`), naming config.yaml and the key."""
    return [
        Problem(
            config_file,
            f"{FIELD}.{rule} {why}",
            field=f"{FIELD}.{rule}",
            hint="fix or remove the key",
            severity=Severity.WARNING,
        )
        for rule, why in unmatched_rules(permissions, servers, tools)
    ]


def startup_permission_problems(
    config: AppConfig, config_file: Path, cwd: Path
) -> list[Problem]:
    """The start-up check: every key against the permission keys and the servers of
    config.yaml and the project's ``.mcp.json`` (read, not started; a broken file names no
    server here and is reported where servers start)."""
    from aiq_tui.tools.mcp.servers import all_servers

    try:
        servers, _ = all_servers(config, config_file, cwd)
    except Exception:
        servers = []
    return permission_problems(
        config.tools.permissions, config_file, [server.name for server in servers]
    )


def of_permissions(problems: Iterable[Problem]) -> list[Problem]:
    """The warnings of :func:`permission_problems` among ``problems`` (what ``skills doctor`` and
    ``sources list`` repeat from the start-up's warnings)."""
    return [
        problem for problem in problems if (problem.field or "").startswith(f"{FIELD}.")
    ]
