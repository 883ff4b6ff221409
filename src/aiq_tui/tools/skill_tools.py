"""Instruction skills as ``skill_<name>`` tools (seed 002).

The tool's description is the skill's own description (so the model can reason about when
to call it), defaulting to "Reference guide for <name>". Calling it returns the reference
content as plain markdown (a body wrapped whole in one code fence is unwrapped), plus
source, description and type. Content is read when called, never at registration.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Iterable

from aiq_tui.conversation import ToolSpec
from aiq_tui.tools.base import ToolResult

_FENCED = re.compile(r"\A\s*(```|~~~)[^\n]*\n(?P<inner>.*)\n\1\s*\Z", re.DOTALL)
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
MAX_TOOL_NAME = 64  # OpenAI / Anthropic function-name limit


def tool_name_for(skill_name: str) -> str:
    """``skill_<name>`` with characters function names may not hold replaced by ``_``."""
    return ("skill_" + _UNSAFE.sub("_", skill_name))[:MAX_TOOL_NAME]


def render_content(content: str) -> str:
    """The content as plain markdown: a body that is one whole code block is unwrapped."""
    match = _FENCED.match(content)
    if match and "```" not in match.group("inner") and "~~~" not in match.group("inner"):
        return match.group("inner").strip("\n")
    return content.strip("\n")


class InstructionSkillTool:
    """One ``skill_<name>`` tool; ``load_content`` is called on each invocation."""

    def __init__(self, name: str, description: str, load_content: Callable[[], str],
                 source: str = "", skill_type: str = "instruction") -> None:
        self.skill_name = name
        self._description = description.strip()
        self._load = load_content
        self._source = source
        self._type = skill_type
        self._spec = ToolSpec(
            name=tool_name_for(name),
            description=self._description or f"Reference guide for {name}",
            parameters={"type": "object", "properties": {}, "additionalProperties": False},
        )

    @property
    def spec(self) -> ToolSpec:
        return self._spec

    def permission_key(self, arguments: dict[str, Any]) -> str:
        return "skill"

    def describe(self, arguments: dict[str, Any]) -> str:
        return f"{self._spec.name} (reference: {self.skill_name})"

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        try:
            content = render_content(self._load())
        except Exception as exc:
            return ToolResult.failure(f"skill {self.skill_name!r} cannot be read: {exc}")
        payload = {
            "name": self.skill_name,
            "content": content,
            "source": self._source,
            "description": self._description,
            "type": self._type,
        }
        return ToolResult(ok=True, content=payload, summary=f"{len(content)} chars of {self.skill_name}")


def instruction_skill_tools(catalog: Iterable[Any]) -> list[InstructionSkillTool]:
    """A tool for every instruction-type skill of a catalog (``SkillMeta`` iterable + ``load``)."""
    tools: list[InstructionSkillTool] = []
    seen: set[str] = set()
    for meta in catalog:
        if meta.type != "instruction":
            continue
        tool = InstructionSkillTool(
            meta.name,
            meta.description,
            (lambda name=meta.name: catalog.load(name).body),  # type: ignore[attr-defined]
            source=str(meta.extras.get("source") or ""),
        )
        if tool.spec.name not in seen:  # two names that sanitise alike: first wins
            seen.add(tool.spec.name)
            tools.append(tool)
    return tools


def entry_tool(entry: Any) -> InstructionSkillTool:
    """A ``skill_<name>`` tool for a store :class:`~aiq_tui.skills.store.SkillEntry`."""
    return InstructionSkillTool(
        entry.name,
        entry.description,
        lambda: str(entry.definition.get("content", "")),
        source=entry.source,
        skill_type=entry.type,
    )
