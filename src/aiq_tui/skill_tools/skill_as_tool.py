"""Skills as ``skill_<name>`` tools (seed 002); the names come from :mod:`aiq_tui.skills.tool_names`.

Every active skill of the catalog becomes a tool; the engine offers a ``skill_<name>`` tool to
the model only while its skill is loaded (thousands of skills must not become thousands of
tool definitions).

* instruction → :class:`InstructionSkillTool`: description = the skill's own (default
  "Reference guide for <name>"); returns content (plain markdown), source, description, type.
* composite / script / template → :class:`ExecutableSkillTool`: a JSON schema from the
  skill's ``parameters``; runs through :class:`~aiq_tui.skills.executor.SkillExecutor`.
  Scripts ask under the ``execute_skill_script`` permission (the approval shows the script);
  composites and templates only produce text (``skill`` permission).

Content and definitions are read when the tool is called, never at registration.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from aiq_tui.conversation import ToolSpec
from aiq_tui.skills.tool_names import tool_name_for
from aiq_tui.tools.base import ToolResult

_FENCED = re.compile(r"\A\s*(```|~~~)[^\n]*\n(?P<inner>.*)\n\1\s*\Z", re.DOTALL)


def render_content(content: str) -> str:
    """The content as plain markdown: a body that is one whole code block is unwrapped."""
    match = _FENCED.match(content)
    if (
        match
        and "```" not in match.group("inner")
        and "~~~" not in match.group("inner")
    ):
        return match.group("inner").strip("\n")
    return content.strip("\n")


class InstructionSkillTool:
    """One ``skill_<name>`` tool; ``load_content`` is called on each invocation."""

    def __init__(
        self,
        name: str,
        description: str,
        load_content: Callable[[], str],
        source: str = "",
        skill_type: str = "instruction",
    ) -> None:
        self.skill_name = name
        self._description = (description or "").strip()
        self._load = load_content
        self._source = source
        self._type = skill_type
        self._spec = ToolSpec(
            name=tool_name_for(name),
            description=self._description or f"Reference guide for {name}",
            parameters={
                "type": "object",
                "properties": {},
                "additionalProperties": False,
            },
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
            return ToolResult.failure(
                f"skill {self.skill_name!r} cannot be read: {exc}"
            )
        payload = {
            "name": self.skill_name,
            "content": content,
            "source": self._source,
            "description": self._description,
            "type": self._type,
        }
        return ToolResult(
            ok=True,
            content=payload,
            summary=f"{len(content)} chars of {self.skill_name}",
        )


def parameters_schema(parameters: Any) -> dict[str, Any]:
    """A JSON schema (object) from a skill's ``parameters``.

    Accepted forms: ``{name: "description"}``, ``{name: {type, description, enum, default,
    required}}`` and a list of ``{name, type, description, required}``. Declared parameters
    without a default are required unless ``required: false``.
    """
    items: list[tuple[str, Any]] = []
    if isinstance(parameters, Mapping):
        items = [(str(k), v) for k, v in parameters.items()]
    elif isinstance(parameters, list):
        items = [
            (str(p["name"]), p)
            for p in parameters
            if isinstance(p, Mapping) and "name" in p
        ]
    properties: dict[str, Any] = {}
    required: list[str] = []
    for name, spec in items:
        if isinstance(spec, Mapping):
            schema = {
                k: spec[k]
                for k in ("type", "description", "enum", "default", "items")
                if k in spec
            }
            if schema.get("type") not in (
                "string",
                "integer",
                "number",
                "boolean",
                "array",
                "object",
            ):
                schema.pop("type", None)
            needed = spec.get("required", "default" not in spec)
        else:
            schema, needed = {"type": "string", "description": str(spec)}, True
        properties[name] = schema
        if needed:
            required.append(name)
    # Undeclared parameters (a template that just uses {{.name}}): accept any, the executor
    # names a missing one.
    schema_out: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "additionalProperties": not items,
    }
    if required:
        schema_out["required"] = required
    return schema_out


class ExecutableSkillTool:
    """A composite / script / template skill as a ``skill_<name>`` tool."""

    def __init__(self, meta: Any, catalog: Any, executor: Any) -> None:
        self.skill_name = meta.name
        self.skill_type = meta.type
        self._meta = meta
        self._catalog = catalog
        self._executor = executor
        description = (
            meta.description or ""
        ).strip() or f"Run the {meta.type} skill {meta.name}"
        self._spec = ToolSpec(
            name=tool_name_for(meta.name),
            description=description,
            parameters=parameters_schema(meta.extras.get("parameters")),
        )

    @property
    def spec(self) -> ToolSpec:
        return self._spec

    def permission_key(self, arguments: dict[str, Any]) -> str:
        return "execute_skill_script" if self.skill_type == "script" else "skill"

    def source_trusted(self, arguments: dict[str, Any]) -> bool:
        """A script someone else wrote always asks, whatever ``execute_skill_script`` says, and
        "always" is not remembered for it (the registry reads this): an untrusted project's, and
        an imported skill's — it sits in the config home, but ``skills import`` brought it from
        elsewhere. Asked of the catalog at call time: trusting the project in the TUI takes
        effect at once."""
        if self.skill_type != "script":
            return True
        return self._origin() is None

    def _origin(self) -> str | None:
        """Why this script is not the user's own (None when it is)."""
        from aiq_tui.skills.imported import source_of

        meta = (
            self._catalog.get(self.skill_name)
            if hasattr(self._catalog, "get")
            else None
        ) or self._meta
        if not meta.trusted_source:
            return "from an untrusted project"
        source = source_of(
            meta
        )  # a lockfile's entry (skills install / import), or source:
        if source:
            return f"imported from {source}"
        return None

    def program(self) -> Any:
        from aiq_tui.skills.executor import SkillProgram

        return SkillProgram(
            self.skill_name,
            self.skill_type,
            self._catalog.definition(self.skill_name),
            self._meta.extras.get("parameters"),
        )

    def describe(self, arguments: dict[str, Any]) -> str:
        if self.skill_type == "script":
            # The approval shows exactly what would run.
            try:
                script = str(self.program().definition.get("script", ""))
            except Exception as exc:
                script = f"(cannot read the script: {exc})"
            env = "".join(f"\nSKILL_{k.upper()}={v!r}" for k, v in arguments.items())
            origin = self._origin()
            origin = f" — {origin}" if origin else ""
            return (
                f"sh script of skill {self.skill_name}{origin} (cwd: project directory){env}\n\n"
                f"{script.rstrip()}"
            )
        return f"{self._spec.name} ({self.skill_type})"

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        return await self.run_with_approval(arguments, None)

    async def run_with_approval(
        self, arguments: dict[str, Any], ask_more: Any
    ) -> ToolResult:
        """Run; a script that needs more than its approval (a secret the sandbox cannot hide
        here) asks through ``ask_more``."""
        from aiq_tui.skills.executor import SkillExecutionError

        try:
            result = await self._executor.execute(
                self.program(), arguments, ask_more=ask_more
            )
        except SkillExecutionError as exc:
            return ToolResult.failure(f"skill {self.skill_name!r}: {exc}")
        except Exception as exc:
            return ToolResult.failure(f"skill {self.skill_name!r} cannot run: {exc}")
        if self.skill_type == "script":
            if result.get("timed_out"):
                return ToolResult(
                    ok=False,
                    content=result,
                    summary="timed out",
                    error=f"skill {self.skill_name!r}: script timed out",
                )
            ok = result["exit_code"] == 0
            return ToolResult(
                ok=ok,
                content=result,
                summary=f"exit {result['exit_code']}",
                error=None
                if ok
                else f"script exited with {result['exit_code']}: {result['stderr'][-500:]}",
            )
        if self.skill_type == "composite":
            return ToolResult(
                ok=True, content=result, summary=f"plan of {len(result['plan'])} steps"
            )
        return ToolResult(
            ok=True, content=result, summary=f"rendered {len(result['output'])} chars"
        )


def _body_of(catalog: Any, name: str) -> Callable[[], str]:
    """Reads the skill's instructions when the tool runs, not when the tools are built."""
    return lambda: catalog.load(name).body


def skill_tools(catalog: Iterable[Any], executor: Any = None) -> list[Any]:
    """A ``skill_<name>`` tool for every active skill of ``catalog`` (any type)."""
    from aiq_tui.skills.executor import SkillExecutor

    executor = executor or SkillExecutor()
    tools: list[Any] = []
    seen: set[str] = set()
    for meta in catalog:
        if meta.type == "instruction":
            tool: Any = InstructionSkillTool(
                meta.name,
                meta.description,
                _body_of(catalog, meta.name),
                source=meta.source,
            )
        else:
            tool = ExecutableSkillTool(meta, catalog, executor)
        if tool.spec.name not in seen:  # two names that sanitise alike: first wins
            seen.add(tool.spec.name)
            tools.append(tool)
    return tools
