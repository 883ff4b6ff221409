"""The one mapping between a skill's name and its ``skill_<name>`` tool (seed 002).

The engine, ``aiq-tui run``, the disclosure text and the TUI all ask here, so a skill and its
tool never disagree on a name; the tools themselves are :mod:`aiq_tui.skill_tools.skill_as_tool`.
"""

from __future__ import annotations

import re
import threading
import weakref
from typing import Any

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
MAX_TOOL_NAME = 64  # OpenAI / Anthropic function-name limit


def tool_name_for(skill_name: str) -> str:
    """``skill_<name>`` with characters function names may not hold replaced by ``_``."""
    return ("skill_" + _UNSAFE.sub("_", skill_name))[:MAX_TOOL_NAME]


# Per catalog object (weakly held: a catalog that goes away takes its map with it).
_MAPPINGS: weakref.WeakKeyDictionary[Any, tuple[int, dict[str, str]]] = (
    weakref.WeakKeyDictionary()
)
_MAPPING_LOCK = threading.Lock()


def skill_for_tool(catalog: Any, tool_name: str) -> str | None:
    """The active skill whose ``skill_<name>`` tool is ``tool_name``, or None (never raises).

    One cached map per catalog, rebuilt when the catalog's ``generation`` changes (a rescan);
    the engine, ``aiq-tui run`` and the TUI all ask here. Two names that sanitise alike: the
    first by name wins, as in :func:`skill_tools`.
    """
    if not isinstance(tool_name, str) or not tool_name.startswith("skill_"):
        return None
    generation = getattr(catalog, "generation", 0)
    with _MAPPING_LOCK:
        cached = _MAPPINGS.get(catalog)
        if cached is None or cached[0] != generation:
            mapping: dict[str, str] = {}
            for meta in catalog:
                mapping.setdefault(tool_name_for(meta.name), meta.name)
            cached = (generation, mapping)
            _MAPPINGS[catalog] = cached
    return cached[1].get(tool_name)
