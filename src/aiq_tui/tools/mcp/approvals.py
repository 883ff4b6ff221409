"""The user's answers about a project's MCP servers, kept in the config home.

A project's ``.mcp.json`` server (see :mod:`.servers`) starts in an untrusted project only once
the user approved it. The answer is remembered by project folder (resolved), server name and
the definition's :func:`~.servers.fingerprint`: a project that changes the command, an argument,
the environment or the URL is asked about again. "Rejected" is remembered the same way so the
TUI does not ask at every start. The file lives in the config home, which neither the agent's
tools nor a project can write, so a project cannot approve itself.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from aiq_tui.locations import Home
    from aiq_tui.tools.mcp.servers import ServerDefinition

APPROVALS_FILE = "mcp-approvals.json"
Answer = Literal["approved", "rejected"]


def approvals_file(home: Home) -> Path:
    return home.config_dir / APPROVALS_FILE


def _key(project: str | os.PathLike[str], name: str) -> str:
    from aiq_tui.trust import resolved

    return f"{resolved(project)}::{name}"


def _load(home: Home) -> dict[str, dict[str, str]]:
    """Every recorded answer; a missing, unreadable or malformed file is no answers (so the
    user is asked again — never approved by a broken file)."""
    try:
        data = json.loads(approvals_file(home).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    servers = data.get("servers") if isinstance(data, dict) else None
    if not isinstance(servers, dict):
        return {}
    return {
        key: value
        for key, value in servers.items()
        if isinstance(value, dict)
        and value.get("answer") in ("approved", "rejected")
        and isinstance(value.get("fingerprint"), str)
    }


def answer_for(
    home: Home, project: str | os.PathLike[str], server: ServerDefinition
) -> Answer | None:
    """The user's answer for this definition of ``server`` in ``project``; None when there is
    none, or it was given for a different definition."""
    from aiq_tui.tools.mcp.servers import fingerprint

    entry = _load(home).get(_key(project, server.name))
    if entry is None or entry["fingerprint"] != fingerprint(server):
        return None
    return entry["answer"]  # type: ignore[return-value]


def record(
    home: Home,
    project: str | os.PathLike[str],
    server: ServerDefinition,
    answer: Answer | None,
) -> None:
    """Remember ``answer`` for this definition (None forgets the server's answer). Atomic."""
    from aiq_tui.file_io import atomic_write
    from aiq_tui.tools.mcp.servers import fingerprint

    entries = _load(home)
    key = _key(project, server.name)
    if answer is None:
        entries.pop(key, None)
    else:
        entries[key] = {
            "answer": answer,
            "fingerprint": fingerprint(server),
            "target": server.target,
        }
    payload = {"servers": dict(sorted(entries.items()))}
    atomic_write(
        approvals_file(home),
        json.dumps(payload, indent=2, ensure_ascii=False) + "\n",
        mode=0o600,
    )
