"""The one mapping between a skill's name and its ``skill_<name>`` tool (seed 002).

The engine, ``aiq-tui run``, the disclosure text and the TUI all ask here, so a skill and its
tool never disagree on a name; the tools themselves are :mod:`aiq_tui.skill_tools.skill_as_tool`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
MAX_TOOL_NAME = 64  # OpenAI / Anthropic function-name limit


def tool_name_for(skill_name: str) -> str:
    """``skill_<name>`` with characters function names may not hold replaced by ``_``."""
    return ("skill_" + _UNSAFE.sub("_", skill_name))[:MAX_TOOL_NAME]


def tool_owners(metas: Iterable[Any]) -> dict[str, str]:
    """``skill_<name>`` tool → skill name for ``metas``. Two names that sanitise alike: the
    first by name wins, as in :func:`~aiq_tui.skill_tools.skill_as_tool.skill_tools`."""
    owners: dict[str, str] = {}
    for meta in metas:
        owners.setdefault(tool_name_for(meta.name), meta.name)
    return owners


def skill_for_tool(catalog: Any, tool_name: str) -> str | None:
    """The active skill whose ``skill_<name>`` tool is ``tool_name``, or None (never raises).

    A :class:`~aiq_tui.skills.catalog.SkillCatalog` keeps the map, rebuilt after each rescan;
    any other collection of metadata is mapped on the spot."""
    if not isinstance(tool_name, str) or not tool_name.startswith("skill_"):
        return None
    kept = getattr(catalog, "tool_owners", None)
    owners = kept() if callable(kept) else tool_owners(catalog)
    return owners.get(tool_name)
