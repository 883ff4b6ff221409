"""Project trust in the TUI: the first start in an undecided folder asks, and a trusted project's
MCP servers are asked about before they start.

:class:`ProjectTrust` (``app.project_trust``) asks as Claude Code asks "Do you trust the files in
this folder?" (:mod:`aiq_tui.trust` keeps the answer), records the answer in a thread, applies it
to the engine (which may still be building) and opens the MCP server question
(:class:`~aiq_tui.ui.screens.mcp_approval.McpApprovalScreen`) for the fleet. :attr:`settled`
is set once the trust question is answered or none was asked: the MCP servers wait for it.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from aiq_tui.ui.widgets.prompt import PromptInput

if TYPE_CHECKING:
    from aiq_tui.ui.app import AiqApp


class ProjectTrust:
    """The trust question for the project folder, and the MCP server questions."""

    def __init__(self, app: AiqApp, project: Path | None) -> None:
        self.app = app
        self.project = (
            project  # the folder whose trust the first start asks about (default: cwd)
        )
        self.changed = (
            False  # answered while the engine was built from the old decision
        )
        self.settled = (
            asyncio.Event()
        )  # the project's trust question answered (or none asked)

    def project_dir(self) -> Path:
        workspace = getattr(self.app.engine, "workspace", None)
        return self.project or getattr(workspace, "cwd", None) or Path.cwd()

    def ask(self) -> None:
        """First start in an undecided folder that brings skills or a .mcp.json: ask, as Claude
        Code asks "Do you trust the files in this folder?" (see aiq_tui.trust)."""
        from aiq_tui.trust import needs_decision

        app = self.app
        offers = needs_decision(
            app.home, self.project_dir(), app.config.skills.project_dirs
        )
        if offers:
            from aiq_tui.ui.screens.trust import TrustScreen

            app.push_screen(
                TrustScreen(self.project_dir(), offers), callback=self._answered
            )
        else:
            self.settled.set()

    def _answered(self, level: Any) -> None:
        self.app.query_one("#prompt", PromptInput).focus()
        if level is not None:
            self.app.run_worker(
                lambda: self._record(level),
                name="_record_trust",
                thread=True,
                group="trust",
                exit_on_error=False,
            )
        else:  # decided later: untrusted for this run
            self.settled.set()

    def _record(self, level: Any) -> None:
        """In a thread: the decision is written to the trust file."""
        from aiq_tui.trust import TrustFileError, record

        app = self.app
        try:
            record(app.home, self.project_dir(), level)
        except (OSError, TrustFileError) as exc:
            app.call_from_thread(
                app.notify, f"could not remember the decision: {exc}", severity="error"
            )
            app.call_from_thread(self.settled.set)
            return
        app.call_from_thread(self._recorded, level)

    def _recorded(self, level: Any) -> None:
        self.settled.set()  # recorded: the MCP servers start under it
        self.changed = True
        self.app.notify(
            f"{self.project_dir()}: {level.value}; `aiq-tui trust` changes it",
            timeout=4,
        )
        if self.app.engine is not None:
            self.apply()

    def apply(self) -> None:
        """The engine reads the new decision (project skills' grants, scripts that ask)."""
        refresh = getattr(self.app.engine, "refresh_trust", None)
        if refresh is not None:
            refresh()
        self.changed = False

    async def approve_mcp_server(
        self, server: Any
    ) -> Literal["approved", "rejected"] | None:
        """The fleet's question about an untrusted project's server: a modal, answered once."""
        from aiq_tui.ui.screens.mcp_approval import McpApprovalScreen

        app = self.app
        future: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()

        def decided(answer: str | None) -> None:
            if not future.done():
                future.set_result(answer)

        app.call_later(
            lambda: (
                None
                if future.done()
                else app.push_screen(McpApprovalScreen(server), callback=decided)
            )
        )
        answer = await future
        if answer == "approved":
            return "approved"
        if answer == "rejected":
            return "rejected"
        return None  # dismissed: asked again next time
