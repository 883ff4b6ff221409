"""Command-palette provider: every workbench action, plus "Open skill: NAME"."""

from __future__ import annotations

from functools import partial
from typing import Any

from textual.command import DiscoveryHit, Hit, Hits, Provider

from aiq_tui.skills.invocation import user_invocable
from aiq_tui.terminal_text import printable

# (palette label, help text, app action string)
ACTIONS: tuple[tuple[str, str, str], ...] = (
    ("Match inspector", "Rank skills for a query, per-term breakdown", "inspector"),
    ("Sessions", "Resume, replay, rename or delete saved sessions", "sessions"),
    (
        "Replay session",
        "Step through this session's turns and events (read-only)",
        "replay",
    ),
    (
        "Skills doctor",
        "Collisions, unreachable skills, budget hogs, risky content, spec problems",
        "doctor",
    ),
    (
        "Trigger evals",
        "The active skill's trigger queries, pass/fail and scores (type a skill name for another)",
        "trigger_eval",
    ),
    (
        "What each agent loads",
        "The skills Claude Code, Codex, Copilot, Cursor, Gemini CLI, OpenCode would load here",
        "harness_view",
    ),
    ("Settings", "Provider, model, window and thresholds", "settings"),
    ("Switch model", "Pick the provider and model (/model)", "settings(True)"),
    ("Help", "All keys and slash commands", "show_help"),
    (
        "Skill load warnings",
        "Skills that failed to load and how to fix them",
        "warnings",
    ),
    ("Compact context", "Compress the conversation now", "compact"),
    (
        "Play the long demo",
        "Demo model: grow the context until compression fires at 80/90/95 %",
        "long_demo",
    ),
    ("Clear conversation", "Start a new session (the old one stays saved)", "clear"),
    (
        "Copy last answer",
        "Copy the last assistant answer to the clipboard",
        "copy_answer",
    ),
    (
        "Toggle light/dark theme",
        "Switch between textual-dark and textual-light",
        "toggle_theme",
    ),
    ("Reload skills", "Rescan skill directories now", "reload_skills"),
    (
        "Switch Tools/Timeline",
        "Show the tool log or the event timeline",
        "toggle_activity",
    ),
    (
        "Cancel turn",
        "Stop the running turn (the partial answer is kept)",
        "cancel_turn",
    ),
    ("Quit", "Leave the app; the session is saved", "quit"),
)
SKILL_HITS = 20  # enough to find one skill by name without flooding the palette


class AiqCommands(Provider):
    """Actions by name; typing a skill name also offers to open it."""

    async def discover(self) -> Hits:
        for label, help_text, action in ACTIONS:
            yield DiscoveryHit(
                label, partial(self.app.run_action, action), help=help_text
            )

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for label, help_text, action in ACTIONS:
            score = matcher.match(label)
            if score > 0:
                yield Hit(
                    score,
                    matcher.highlight(label),
                    partial(self.app.run_action, action),
                    help=help_text,
                )
        engine: Any = getattr(self.app, "engine", None)
        if engine is None or len(query) < 2:
            return
        shown = 0
        catalog = engine.workspace.catalog
        dormant = (
            [meta.name for meta in catalog.dormant()]
            if hasattr(catalog, "dormant")
            else []
        )
        for name in [*dormant, *catalog.names()]:
            if (
                name in dormant
            ):  # disabled or draft: still reachable by name, and enabled from here
                entries = (
                    (
                        f"Open skill: {name} (disabled)",
                        f"open_skill({name!r})",
                        "Skill viewer; e enables it",
                    ),
                    (
                        f"Enable skill: {name}",
                        f"set_skill_status({name!r}, 'active')",
                        "Load it again (writes its SKILL.md, as `skills enable`)",
                    ),
                )
            else:
                meta = catalog.get(name)
                runnable = (
                    meta is None or not meta.extras or user_invocable(meta.extras)
                )
                entries = (
                    (f"Open skill: {name}", f"open_skill({name!r})", "Skill viewer"),
                    *(
                        (
                            (
                                f"Run skill: {name}",
                                f"activate_skill({name!r})",
                                "Load it in full now (/skill NAME); a skill only you run too",
                            ),
                        )
                        if runnable
                        else ()
                    ),
                    (
                        f"Trigger evals: {name}",
                        f"trigger_eval({name!r})",
                        "Its trigger queries (evals/trigger_eval.json), pass/fail, scores",
                    ),
                )
            for label, action, help_text in entries:
                score = matcher.match(label)
                if score > 0:
                    yield Hit(
                        score,
                        # highlight() gives Content (never markup); printable: a skill's
                        # name comes from its file
                        matcher.highlight(printable(label, one_line=True)),
                        partial(self.app.run_action, action),
                        help=help_text,
                    )
                    shown += 1
            if shown >= SKILL_HITS:
                break
