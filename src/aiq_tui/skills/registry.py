"""lango's skill registry (seed 002): create, validate, activate and load store skills as tools.

The registry keeps the *base* tools it was created with apart from the *dynamic* skill tools
it loads from the store: :meth:`SkillRegistry.loaded_skills` returns only the latter, so an
app assembling its tool list never registers a base tool twice. All state is guarded by an
``RLock`` so a reload can run while another thread reads.

Every loaded skill becomes a ``skill_<name>`` tool: instruction skills return their content
(:mod:`aiq_tui.tools.skill_tools`); composite / script / template skills run through the
:class:`~aiq_tui.skills.executor.SkillExecutor` (scripts under the ``execute_skill_script``
permission, the rest under ``skill``).
"""

from __future__ import annotations

import dataclasses
import threading
from typing import Any, Iterable, Mapping, Protocol

from aiq_tui.conversation import ToolSpec
from aiq_tui.skills.executor import SkillExecutionError, SkillExecutor, find_dangerous, plan_steps
from aiq_tui.skills.store import SkillEntry
from aiq_tui.skills.validate import SKILL_TYPES
from aiq_tui.tools.base import Tool, ToolResult
from aiq_tui.tools.skill_tools import entry_tool, tool_name_for

__all__ = ["SkillEntry", "SkillRegistry", "SkillRegistryError", "SkillStore", "validate_entry"]


class SkillStore(Protocol):
    """What the registry needs from a store (``FileSkillStore`` implements it)."""

    def save(self, entry: SkillEntry) -> Any: ...

    def get(self, name: str) -> SkillEntry: ...

    def list_active(self) -> list[SkillEntry]: ...

    def delete(self, name: str) -> None: ...


class SkillRegistryError(Exception):
    """A skill was refused; ``str()`` lists every problem."""


def validate_entry(entry: SkillEntry) -> list[str]:
    """Every problem with ``entry`` for its type (empty when valid)."""
    problems: list[str] = []
    if not entry.name:
        problems.append("name is required")
    if entry.type not in SKILL_TYPES:
        problems.append(f"unknown skill type {entry.type!r}; valid types: {', '.join(SKILL_TYPES)}")
        return problems
    definition = entry.definition or {}
    if entry.type == "composite":
        steps = definition.get("steps")
        if not isinstance(steps, (list, tuple)) or not steps:
            problems.append("a composite skill needs a non-empty 'steps' array in its definition")
        else:
            try:
                plan_steps(steps)
            except SkillExecutionError as exc:
                problems.append(str(exc))
    elif entry.type == "script":
        script = definition.get("script")
        if not isinstance(script, str) or not script.strip():
            problems.append("a script skill needs a 'script' string in its definition")
        else:
            danger = find_dangerous(script)
            if danger:
                problems.append(f"script matches the dangerous pattern '{danger}'")
    elif entry.type == "template":
        if not isinstance(definition.get("template"), str):
            problems.append("a template skill needs a 'template' string in its definition")
    # instruction: accepted even with an empty definition (seed 002)
    return problems


class ExecutableSkillTool:
    """A composite / script / template store skill as a ``skill_<name>`` tool."""

    def __init__(self, entry: SkillEntry, executor: SkillExecutor) -> None:
        self.entry = entry
        self._executor = executor
        properties: dict[str, Any] = {}
        required: list[str] = []
        for name, spec in (entry.parameters or {}).items():
            schema = dict(spec) if isinstance(spec, Mapping) else {"description": str(spec)}
            is_required = bool(schema.pop("required", False))
            schema = {k: v for k, v in schema.items() if k in ("type", "description", "enum", "default")}
            properties[str(name)] = schema
            if is_required:
                required.append(str(name))
        parameters: dict[str, Any] = {"type": "object", "properties": properties}
        if required:
            parameters["required"] = required
        self._spec = ToolSpec(
            name=tool_name_for(entry.name),
            description=entry.description or f"Run the {entry.type} skill {entry.name}",
            parameters=parameters,
        )

    @property
    def spec(self) -> ToolSpec:
        return self._spec

    def permission_key(self, arguments: dict[str, Any]) -> str:
        return "execute_skill_script" if self.entry.type == "script" else "skill"

    def describe(self, arguments: dict[str, Any]) -> str:
        if self.entry.type == "script":
            first = str(self.entry.definition.get("script", "")).strip().splitlines()
            return f"sh {self.entry.name}: {first[0] if first else ''}"
        return f"{self._spec.name} ({self.entry.type})"

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        try:
            result = await self._executor.execute(self.entry, arguments)
        except SkillExecutionError as exc:
            return ToolResult.failure(f"skill {self.entry.name!r}: {exc}")
        if self.entry.type == "script":
            if result.get("timed_out"):
                return ToolResult.failure(f"skill {self.entry.name!r}: script timed out", result)
            return ToolResult(ok=result["exit_code"] == 0, content=result,
                              summary=f"exit {result['exit_code']}",
                              error=None if result["exit_code"] == 0 else f"script exited with {result['exit_code']}")
        if self.entry.type == "composite":
            return ToolResult(ok=True, content=result, summary=f"plan of {len(result['plan'])} steps")
        return ToolResult(ok=True, content=result, summary=f"rendered {self.entry.name}")


class SkillRegistry:
    """Skills from a store, validated on create, exposed as tools once loaded."""

    def __init__(self, store: SkillStore, base_tools: Iterable[Tool] = (),
                 executor: SkillExecutor | None = None) -> None:
        self._store = store
        self._base: tuple[Tool, ...] = tuple(base_tools)
        self._executor = executor or SkillExecutor()
        self._lock = threading.RLock()
        self._loaded: dict[str, Tool] = {}
        self._entries: dict[str, SkillEntry] = {}

    def store(self) -> SkillStore:
        """The underlying store (seed 002 ``Store()``)."""
        return self._store

    @property
    def executor(self) -> SkillExecutor:
        return self._executor

    def create_skill(self, entry: SkillEntry) -> SkillEntry:
        """Validate ``entry``, persist it with status ``active`` and load it as a tool."""
        problems = validate_entry(entry)
        if problems:
            raise SkillRegistryError(f"skill {entry.name!r} refused: " + "; ".join(problems))
        saved = dataclasses.replace(entry, status="active")
        with self._lock:
            self._store.save(saved)
            self._load_one(saved)
        return saved

    def activate_skill(self, name: str) -> SkillEntry:
        """Set ``status: active`` in the store and load the skill."""
        with self._lock:
            entry = dataclasses.replace(self._store.get(name), status="active")
            self._store.save(entry)
            self._load_one(entry)
            return entry

    def load_skills(self) -> int:
        """(Re)load every active skill of the store; invalid ones are skipped. Returns the count."""
        entries = self._store.list_active()
        with self._lock:
            self._loaded.clear()
            self._entries.clear()
            for entry in entries:
                if not validate_entry(entry):
                    self._load_one(entry)
            return len(self._loaded)

    def _load_one(self, entry: SkillEntry) -> None:
        tool: Tool = entry_tool(entry) if entry.type == "instruction" else ExecutableSkillTool(entry, self._executor)
        self._loaded[entry.name] = tool
        self._entries[entry.name] = entry

    def loaded_skills(self) -> list[Tool]:
        """Only the dynamically loaded skill tools (never the base tools), sorted by name."""
        with self._lock:
            return [self._loaded[name] for name in sorted(self._loaded)]

    def all_tools(self) -> list[Tool]:
        """Base tools followed by the loaded skill tools."""
        with self._lock:
            return [*self._base, *self.loaded_skills()]

    def get(self, name: str) -> SkillEntry | None:
        with self._lock:
            return self._entries.get(name)
