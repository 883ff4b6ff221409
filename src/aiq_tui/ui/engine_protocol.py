"""What the TUI may ask of the engine: commands in, events out (through ``subscribe``).

The app and its screens hold an :class:`UiEngine`, not the :class:`~aiq_tui.agent.engine.Engine`
class: mypy checks every use against this list, so a screen that reaches for anything else is
caught, and the tests' ``FakeEngine`` needs exactly this much. The engine meets it as it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from aiq_tui.agent.sessions import Session, SessionStore
    from aiq_tui.config import AppConfig
    from aiq_tui.context.model import Breakdown, CompressionPlan
    from aiq_tui.events import CatalogReloaded, EventSink
    from aiq_tui.llm.base import Provider
    from aiq_tui.problems import Problem
    from aiq_tui.skills.model import Ranking
    from aiq_tui.skills.skill_view import SkillView
    from aiq_tui.tools.base import Approver
    from aiq_tui.tools.mcp.fleet import McpFleet
    from aiq_tui.tools.registry import ToolRegistry
    from aiq_tui.workspace import Workspace


class UiEngine(Protocol):
    # -- what it works over ----------------------------------------------------------------
    workspace: Workspace
    config: AppConfig
    provider: Provider
    tools: ToolRegistry
    mcp: McpFleet
    session: Session
    sessions: SessionStore
    approver: Approver | None

    @property
    def provider_label(self) -> str: ...
    @property
    def is_demo(self) -> bool: ...
    @property
    def breakdown(self) -> Breakdown: ...
    @property
    def problems(self) -> tuple[Problem, ...]: ...

    # -- events out --------------------------------------------------------------------------
    def subscribe(self, sink: EventSink) -> None: ...

    # -- commands in -------------------------------------------------------------------------
    async def send(self, text: str) -> str: ...
    def cancel(self) -> None: ...
    def clear(self) -> None: ...
    async def resume(self, session_id: str) -> Session: ...
    async def compact(self) -> CompressionPlan: ...
    async def activate(self, name: str, arguments: str | None = None) -> bool: ...
    def reload(self) -> CatalogReloaded: ...
    async def start_mcp(self) -> None: ...

    # -- questions -----------------------------------------------------------------------------
    def skill_views(self) -> list[SkillView]: ...
    def rank(self, query: str, context: Sequence[str] = ()) -> Ranking: ...
    def explain(self, query: str, name: str, context: Sequence[str] = ()) -> str: ...
    def signal_words(self, query: str, name: str) -> dict[str, str]: ...
    def conversation_context(self, query: str) -> tuple[str, ...]: ...
