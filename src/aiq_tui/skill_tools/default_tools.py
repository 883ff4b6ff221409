"""Every built-in tool, wired to one home, config and catalog: the tools of ``tools/`` and the
tools that wrap skills (``use_skill``, ``read_skill_resource``, ``skill_<name>``), behind one
permission policy. The engine builds its registry here.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiq_tui.tools.base import Tool
from aiq_tui.tools.policy import PermissionPolicy
from aiq_tui.tools.registry import ToolRegistry, project_layout_of

if TYPE_CHECKING:
    from aiq_tui.config import AppConfig, SourcesFile
    from aiq_tui.locations import Home


def build_default_tools(
    home: Home,
    config: AppConfig,
    sources: SourcesFile,
    catalog: Any,
    cwd: Path | None = None,
    on_activate: Callable[[str], None] | None = None,
    executor: Any = None,
) -> ToolRegistry:
    """Every built-in tool, wired to this home/config/catalog, behind the config's policy.

    ``use_skill`` and the ``skill_<name>`` tools are registered only when
    ``config.skills.enabled`` (seed 002: skill system disabled → no skill tools).
    """
    from aiq_tui.skill_tools.skill_as_tool import skill_tools
    from aiq_tui.skill_tools.use_skill import ReadSkillResourceTool, UseSkillTool
    from aiq_tui.skills.executor import SkillExecutor
    from aiq_tui.tools.command import CommandTool
    from aiq_tui.tools.files import FileOperationsTool
    from aiq_tui.tools.http import HttpRequestTool
    from aiq_tui.tools.launch_policy import LaunchPolicy
    from aiq_tui.tools.sql import SqlTool

    working = (cwd or Path.cwd()).resolve()
    settings = config.tools
    layout = project_layout_of(working, config, catalog)
    # One launcher policy for every process: commands and script skills share it.
    if executor is None:
        executor = SkillExecutor(
            settings,
            cwd=working,
            launch=LaunchPolicy(settings, home=home, project=working, layout=layout),
        )
    launch = executor.launch
    tools: list[Tool] = [
        HttpRequestTool(settings),
        CommandTool(settings, home=home, cwd=working, launch=launch),
        FileOperationsTool(
            settings,
            home=home,
            cwd=working,
            catalog=catalog,
            resource_cap=config.skills.max_resource_bytes,
            layout=layout,
        ),
        SqlTool(settings, home=home, sources=sources),
    ]
    if config.skills.enabled and catalog is not None:
        tools.append(UseSkillTool(catalog, on_activate=on_activate))
        tools.append(ReadSkillResourceTool(catalog))
        tools.extend(skill_tools(catalog, executor, home))
    return ToolRegistry(
        tools,
        PermissionPolicy(settings.permissions),
        skill_allowed_tools=config.agent.skill_allowed_tools,
    )
