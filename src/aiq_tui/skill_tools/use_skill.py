"""``use_skill``: activate a skill by name and hand the model its instructions (seed 004).

Level 2 of disclosure: the full instructions and the list of bundled resources (relative
paths with kinds). Resource *contents* are level 3 and are read on demand with
``file_operations`` (skill folders are readable roots). The engine learns about the
activation through the ``on_activate(name)`` callback and marks the skill Active.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from aiq_tui.conversation import ToolSpec
from aiq_tui.ranking.disclose import use_skill_text
from aiq_tui.skills.invocation import model_invocable, refused_for_model
from aiq_tui.tools.base import ToolResult

SPEC = ToolSpec(
    name="use_skill",
    # What the engine does with the reply (agent/engine.py): the instructions go into the system
    # prompt as `## Skill: NAME`, where compression keeps them, and the tool's answer points
    # there rather than repeating them in the history (paid once, not twice). The description
    # says exactly that, so the model looks for them in the right place.
    description=(
        "Activate a skill by its exact name: its full instructions and the list of resource "
        "files it bundles are put in your system prompt under `## Skill: <name>`, and stay "
        "there while it is active; the reply says so (it carries the instructions itself only "
        "when they could not be put there). Read a resource with read_skill_resource."
    ),
    parameters={
        "type": "object",
        "properties": {
            "skill_name": {
                "type": "string",
                "description": "The skill's name, as listed.",
            }
        },
        "required": ["skill_name"],
        "additionalProperties": False,
    },
)


class UseSkillTool:
    """The ``use_skill`` tool over a catalog (``get``/``load``/``resources``/``names``/``close_names``)."""

    def __init__(
        self, catalog: Any, on_activate: Callable[[str], None] | None = None
    ) -> None:
        self._catalog = catalog
        self._on_activate = on_activate

    @property
    def spec(self) -> ToolSpec:
        return SPEC

    def _listed(self) -> list[str]:
        """The names the model may know: never a skill only the user runs."""
        return [
            name
            for name in self._catalog.names()
            if not (meta := self._catalog.get(name)) or model_invocable(meta.extras)
        ]

    def permission_key(self, arguments: dict[str, Any]) -> str:
        return "use_skill"

    def describe(self, arguments: dict[str, Any]) -> str:
        return f"use_skill {arguments.get('skill_name', '')}"

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        name = arguments.get("skill_name")
        if not isinstance(name, str) or not name.strip():
            return ToolResult.failure("skill_name must be a skill's name")
        name = name.strip()
        if self._catalog.get(name) is None:
            close = list(self._catalog.close_names(name))
            hint = f" Did you mean: {', '.join(close)}?" if close else ""
            known = ", ".join(self._listed()) or "none"
            return ToolResult.failure(
                f"skill {name!r} not found.{hint} Available skills: {known}"
            )
        meta = self._catalog.get(name)
        if meta.extras and not model_invocable(meta.extras):
            return ToolResult.failure(refused_for_model(name))
        try:
            skill = self._catalog.load(name)
            resources = self._catalog.resources(name)  # its walk's stop note too
        except Exception as exc:  # a file vanished or broke since discovery
            return ToolResult.failure(f"skill {name!r} cannot be loaded: {exc}")
        text = use_skill_text(skill, resources)
        if self._on_activate is not None:
            self._on_activate(name)
        usable = sum(1 for resource in resources if not resource.rejected)
        return ToolResult(
            ok=True,
            content=text,
            summary=f"activated {name} ({usable} resource{'' if usable == 1 else 's'})",
        )


READ_RESOURCE_SPEC = ToolSpec(
    name="read_skill_resource",
    description=(
        "Read one resource file bundled with a skill (level 3 of disclosure): give the skill's "
        "name and the file's path relative to the skill folder, as use_skill listed it."
    ),
    parameters={
        "type": "object",
        "properties": {
            "skill_name": {"type": "string", "description": "The skill's name."},
            "path": {
                "type": "string",
                "description": "Path relative to the skill folder, e.g. scripts/run.sh",
            },
        },
        "required": ["skill_name", "path"],
        "additionalProperties": False,
    },
)


class ReadSkillResourceTool:
    """``read_skill_resource``: one resource's text, through the catalog's reader (containment,
    allowed globs and ``skills.max_resource_bytes`` hold)."""

    def __init__(self, catalog: Any) -> None:
        self._catalog = catalog

    @property
    def spec(self) -> ToolSpec:
        return READ_RESOURCE_SPEC

    def permission_key(self, arguments: dict[str, Any]) -> str:
        return "use_skill"  # reads only files the skill itself bundles

    def describe(self, arguments: dict[str, Any]) -> str:
        return f"read {arguments.get('skill_name', '')}:{arguments.get('path', '')}"

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        from aiq_tui.skills.resources import ResourceError

        name = str(arguments.get("skill_name", "")).strip()
        path = str(arguments.get("path", "")).strip()
        if path.startswith("skill://"):  # skill://NAME/path names both at once
            name, _, path = path[len("skill://") :].partition("/")
        try:
            text = self._catalog.read_resource(name, path)
        except ResourceError as exc:
            return ToolResult.failure(str(exc))
        return ToolResult(
            ok=True, content=text, summary=f"{len(text)} chars of {name}:{path}"
        )
