"""lango's skill builder (seed 002): store entries from tool traces, scripts and instruction text.

Built entries are ``active`` and carry ``source`` and ``allowed_tools`` unchanged, so both
round-trip through :meth:`SkillCatalog.save <aiq_tui.skills.catalog.SkillCatalog.save>` and
:func:`~aiq_tui.skills.store.read_entry`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from aiq_tui.skills.store import SkillEntry

CREATED_BY_BUILDER = "builder"


def _step(step: Any) -> dict[str, Any]:
    """A ``{"tool", "params"}`` step from a dict or a ``ToolCall``-like object."""
    if isinstance(step, Mapping):
        tool = step.get("tool", step.get("name"))
        params = step.get("params", step.get("parameters", step.get("arguments", {})))
    else:
        tool, params = getattr(step, "name", None), getattr(step, "arguments", {})
    if not isinstance(tool, str) or not tool:
        raise ValueError(f"each step needs a tool name; got {step!r}")
    return {"tool": tool, "params": dict(params or {})}


def build_from_steps(
    name: str,
    description: str,
    steps: Iterable[Any],
    *,
    source: str = "",
    allowed_tools: Iterable[str] = (),
) -> SkillEntry:
    """A composite skill whose definition holds ``steps`` (dicts or tool calls), in order."""
    return SkillEntry(
        name,
        description,
        "composite",
        "active",
        {"steps": [_step(s) for s in steps]},
        source=source,
        allowed_tools=tuple(allowed_tools),
        created_by=CREATED_BY_BUILDER,
    )


def build_script(
    name: str,
    description: str,
    script: str,
    *,
    source: str = "",
    allowed_tools: Iterable[str] = (),
) -> SkillEntry:
    """A script skill (validated against dangerous patterns when the registry creates it)."""
    return SkillEntry(
        name,
        description,
        "script",
        "active",
        {"script": script},
        source=source,
        allowed_tools=tuple(allowed_tools),
        created_by=CREATED_BY_BUILDER,
    )


def build_instruction_skill(
    name: str,
    description: str,
    content: str,
    source: str = "",
    allowed_tools: Iterable[str] = (),
) -> SkillEntry:
    """lango ``BuildInstructionSkill``: type instruction, status active, created_by import."""
    return SkillEntry(
        name,
        description,
        "instruction",
        "active",
        {"content": content},
        source=source,
        allowed_tools=tuple(allowed_tools),
        created_by="import",
    )


_DISCLOSURE_TOOLS = frozenset({"use_skill", "read_skill_resource"})


def composite_from_last_turn(
    name: str, messages: Sequence[Any], description: str = ""
) -> SkillEntry:
    """``/save-skill NAME``: the tool calls of the last turn (after the last user message), in
    order, as a composite skill. Calls that only disclose skills (use_skill, read_skill_resource)
    are left out. Raises ValueError when the name is invalid or the turn called no tool."""
    from aiq_tui.skills.validate import name_problem

    why = name_problem(name)
    if why:
        raise ValueError(f"invalid skill name {name!r}: {why}")
    last_user = max(
        (
            i
            for i, m in enumerate(messages)
            if getattr(m.role, "value", m.role) == "user"
            and not getattr(m, "summary", False)
        ),
        default=None,
    )
    if last_user is None:
        raise ValueError(
            "there is no turn yet: ask something that uses tools, then /save-skill NAME"
        )
    calls = [
        call
        for message in messages[last_user + 1 :]
        for call in getattr(message, "tool_calls", ())
        if call.name not in _DISCLOSURE_TOOLS
    ]
    if not calls:
        raise ValueError("the last turn called no tools; nothing to save")
    question = " ".join(str(messages[last_user].content).split())
    text = description or f"Replays the tool calls that answered: {question[:300]}"
    return build_from_steps(name, text, calls, source="")
