"""What only the app's chrome shows, around the panes that draw the folded state: the header's
subtitle (provider, session, semantic matching), the demo / provider banner, the problems banner,
the MCP tab, toasts for errors and failed skills, and the flash of a skill that changed state.

:class:`Chrome` (``app.chrome``) handles the engine events listed in :data:`CHROME` besides their
fold into the view state (``AiqApp.apply_event`` calls both).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.widgets import Static

from aiq_tui.terminal_text import printable
from aiq_tui.ui import mcp_prompts
from aiq_tui.ui.plain import plain
from aiq_tui.ui.widgets.prompt import PromptInput
from aiq_tui.ui.widgets.skills_pane import SkillsPane

if TYPE_CHECKING:
    from aiq_tui.events import SemanticProgress
    from aiq_tui.problems import Problem
    from aiq_tui.ui.app import AiqApp

# Fits 80 columns: one line saying how to connect a real model.
DEMO_BANNER = (
    "Offline demo model — set OPENAI_API_KEY or ANTHROPIC_API_KEY; Settings: F2"
)

# Events that change the app's chrome besides the view state: the app's handler per type
# (each hands the event to the :class:`Chrome` method of the same name without the underscore).
CHROME = {
    "ErrorRaised": "_on_error",
    "SessionSaved": "_on_session_saved",
    "SemanticProgress": "_on_semantic",
    "CatalogReloaded": "_on_reloaded",
    "McpServerChanged": "_mcp_changed",
    "McpProgress": "_mcp_progress",
    "McpResourceUpdated": "_mcp_resource",
    "McpResourceRefreshed": "_mcp_resource",
}


def semantic_label(event: SemanticProgress) -> str:
    """The header's note on semantic matching: progress while embedding, "semantic" when on."""
    if event.state == "failed":
        return "keyword matching (model failed)"
    if event.state == "ready" and event.done >= event.total:
        return "semantic on"
    return f"embedding skills {event.done}/{event.total}"


class Chrome:
    """The header, the banners, the MCP tab and the toasts."""

    def __init__(self, app: AiqApp) -> None:
        self.app = app
        self.semantic_label = (
            ""  # "embedding skills 42/199", then "semantic on"; shown in the header
        )
        self._problems_shown: set[tuple[str, str, str]] = set()
        """The problems the banner counted last: a reload toasts only the ones it brought."""

    # -- banners and the header -----------------------------------------------------------------
    def banner_text(self) -> str | None:
        """The demo notice, or — before the first message fails on it — a provider that cannot
        answer (no API key): asked of the provider's own readiness check."""
        app = self.app
        # Still starting: the config says whether it is the demo (a real provider is checked once built).
        demo = (
            app.engine.is_demo
            if app.engine is not None
            else app.config.llm.active().kind == "demo"
        )
        if demo:
            return DEMO_BANNER if app.config.ui.show_banner else None
        if app.engine is None:
            return None
        try:
            app.engine.provider.check_ready()
        except Exception as exc:
            return f"⚠ {exc} — F2 Settings"
        return None

    def show_banner(self) -> None:
        banner = self.app.query_one("#banner", Static)
        text = self.banner_text()
        banner.display = text is not None
        banner.update(text or "")

    def problems(self) -> tuple[Problem, ...]:
        return tuple(self.app.engine.problems) if self.app.engine is not None else ()

    def shown_problem(self, problem: Problem) -> str:
        return f"{self.app.shown(problem.path)}: {problem.message}" + (
            f" — {problem.hint}" if problem.hint else ""
        )

    def show_problems(self) -> None:
        from aiq_tui.tools.launcher import sandbox_warning

        app = self.app
        problems = self.problems()
        self._problems_shown = {_problem_key(p) for p in problems}
        banner = app.query_one("#problems-banner", Static)
        # "" while Landlock confines commands in a project; a warning otherwise
        sandbox = sandbox_warning(
            app.engine.workspace.cwd if app.engine is not None else None
        )
        banner.display = bool(problems) or bool(sandbox)
        if problems:
            count = len(problems)
            what = (
                "problem"
                if any(
                    p.message.startswith(("MCP server", "tools.permissions."))
                    for p in problems
                )
                else "skill problem"
            )
            banner.update(
                f"⚠ {count} {what}{'s' if count != 1 else ''} — F6 shows what to fix"
                + (f"\n{sandbox}" if sandbox else "")
            )
        elif sandbox:
            banner.update(sandbox)

    def update_subtitle(self) -> None:
        app = self.app
        if app.engine is None:
            app.sub_title = "starting…"
            return
        session = app.engine.session
        title = (
            printable(session.display_title, one_line=True)
            if session.messages
            else "new session"
        )
        app.sub_title = f"{app.engine.provider_label} · {title} [{session.id}]"
        if self.semantic_label:
            app.sub_title += f" · {self.semantic_label}"

    def flash(self, names: Any) -> None:
        """Skills that just changed state are highlighted for a moment."""
        app = self.app
        pane = app.query_one(SkillsPane)
        for name in names:
            pane.flash(name)
            app.set_timer(app.flash_seconds, lambda name=name: pane.unflash(name))

    # -- events (CHROME above names these per event type) ------------------------------------------
    async def on_error(self, event: Any) -> None:
        self.app.notify(event.message, title="Error", severity="error", markup=False)

    async def on_session_saved(self, event: Any) -> None:
        self.update_subtitle()

    async def on_semantic(self, event: Any) -> None:
        self.semantic_label = semantic_label(event)
        self.update_subtitle()

    async def on_reloaded(self, event: Any) -> None:
        # A reload lists every problem of the rescan: the toast names the ones this reload
        # brought (the skill just edited), not a broken skill the banner already counted.
        new = [p for p in event.problems if _problem_key(p) not in self._problems_shown]
        if new:
            more = f" (+{len(new) - 1} more — F6)" if len(new) > 1 else ""
            self.app.notify(
                self.shown_problem(new[0]) + more,
                title="Skill failed to load",
                severity="warning",
                markup=False,
            )
        self.show_problems()
        self.app.refresh_skills()

    def reloaded_by_you(self, event: Any) -> None:
        """F5 / Ctrl+R: what the reload found, said whichever tab is in front."""
        parts = [
            f"{len(names)} {what}"
            + (
                f" ({', '.join(names[:3])}{'…' if len(names) > 3 else ''})"
                if names
                else ""
            )
            for what, names in (
                ("added", event.added),
                ("changed", event.changed),
                ("removed", event.removed),
                ("disabled", event.disabled),
            )
            if names
        ]
        problems = len(event.problems)
        found = "; ".join(parts) if parts else "nothing changed"
        if problems:
            found += (
                f"; {problems} problem{'s' if problems != 1 else ''} — F6 shows them"
            )
        self.app.notify(printable(f"Skills reloaded: {found}."), markup=False)

    async def mcp_changed(self, event: Any) -> None:
        """An MCP server started, failed, changed its tools: the MCP tab (added with the first
        server) redraws, the timeline and the warnings banner say what happened."""
        from aiq_tui.ui.widgets.mcp_pane import McpPane

        app = self.app
        old = app.mcp_servers.get(event.name)
        app.mcp_servers[event.name] = event
        from textual.widgets import TabPane

        tabs: Any = app.query_one("#activity")
        if not app.query("#mcp-pane"):
            await tabs.add_pane(TabPane("MCP", McpPane(id="mcp-pane"), id="tab-mcp"))
        app.query_one("#mcp-pane", McpPane).show(app.mcp_servers)
        if old is None or (old.state, old.tools, old.omitted) != (
            event.state,
            event.tools,
            event.omitted,
        ):
            detail = (
                f"{len(event.tools)} tools"
                if event.state == "ready"
                else (event.message.splitlines() or [""])[0]
            )
            await app.take(
                {
                    "type": "mcp_server_changed",
                    "line": f"{event.name}: {event.state} — {detail}",
                }
            )
        if event.state in ("failed", "not approved") and (
            old is None or old.state != event.state
        ):
            app.notify(
                (event.message.splitlines() or [""])[0],
                title=f"MCP server {event.name}: {event.state}",
                severity="warning",
            )
        self.show_problems()

    async def mcp_resource(self, event: Any) -> None:
        """A watched resource was updated (marked in the MCP tab), or the update went with a
        message (unmarked)."""
        from aiq_tui.events import McpResourceUpdated
        from aiq_tui.ui.widgets.mcp_pane import McpPane

        for pane in self.app.query("#mcp-pane").results(McpPane):
            pane.mark_updated(
                event.server, event.uri, isinstance(event, McpResourceUpdated)
            )

    async def mcp_progress(self, event: Any) -> None:
        if self.app.busy:  # the status line under the prompt, while the call runs
            self.app.query_one("#prompt", PromptInput).border_subtitle = plain(
                mcp_prompts.progress_line(event)
            )


def _problem_key(problem: Problem) -> tuple[str, str, str]:
    return (str(problem.path), str(problem.field or ""), problem.message)
