"""Slash commands typed at the prompt (``/skill NAME``, ``/skills``, ``/demo``, ``/mcp__…`` …).

:class:`SlashCommands` (``app.slash``) turns each into the app action it names — the same actions
the keys and the command palette (:mod:`aiq_tui.ui.commands`) run — or into a note saying how to
use it. The list the prompt completes from is :data:`aiq_tui.ui.widgets.prompt.SLASH_COMMANDS`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aiq_tui.skills.model import SkillState
from aiq_tui.ui import mcp_prompts
from aiq_tui.ui.widgets.prompt import SLASH_COMMANDS
from aiq_tui.ui.widgets.skills_pane import SkillsPane

if TYPE_CHECKING:
    from aiq_tui.ui.app import AiqApp


class SlashCommands:
    """Runs one slash command line."""

    def __init__(self, app: AiqApp) -> None:
        self.app = app

    async def run(self, text: str) -> None:
        app = self.app
        command, _, rest = text.partition(" ")
        rest = rest.strip()
        if command == "/skill":
            if not rest:
                await app.note("usage: /skill NAME [ARGUMENTS]", "warning")
            else:
                name, _, arguments = rest.partition(" ")
                app.skill_actions.activate(
                    name, arguments.strip() if arguments else None
                )
        elif command == "/skills":
            pane = app.query_one(SkillsPane)
            counts = ", ".join(f"{len(pane.views_in(s))} {s.value}" for s in SkillState)
            await app.note(f"skills: {counts}", "info")
            # The first section with something in it; with no skills at all the prompt keeps focus.
            filled = next((state for state in SkillState if pane.views_in(state)), None)
            if filled is not None:
                pane.section(filled).focus()
        elif command == "/match":
            app.action_inspector(rest)
        elif command == "/compact":
            app.bridge.compact()
        elif command == "/demo":
            await app.action_long_demo(play=rest == "play")
        elif command == "/clear":
            await app.action_clear()
        elif command == "/model":
            await app.note(f"model: {app.live_engine.provider_label}", "info")
            app.action_settings(model_only=True)
        elif command == "/session":
            app.action_sessions()
        elif command == "/save-skill":
            if not rest:
                await app.note("usage: /save-skill NAME", "warning")
            else:
                app.skill_actions.save(rest)
        elif command == "/help":
            app.action_show_help()
        elif command == "/replay":
            app.action_replay(rest)
        elif command == "/doctor":
            app.action_doctor()
        elif command == "/harness":
            app.skill_actions.harness_view(rest or "all")
        elif command.startswith("/mcp__") and await mcp_prompts.run_prompt_command(
            app, command, rest
        ):
            pass  # an MCP server's prompt, sent as the user's message
        elif command[1:] in app.live_engine.workspace.catalog:
            # /NAME ARGS, as in Claude Code: the skill is loaded with ARGS in its $ARGUMENTS
            # and the line goes to the model as the user's message.
            app.skill_actions.invoke(command[1:], rest, text)
        else:
            known = " ".join(SLASH_COMMANDS)
            await app.note(f"unknown command {command}; try: {known}", "warning")
