"""What the user does to one skill from the TUI: activate it (``/skill``), open it in the viewer,
enable or disable it, confirm an imported skill's allowed-tools, save the last turn as a composite
skill (``/save-skill``) and open its trigger evals.

:class:`SkillActions` (``app.skill_actions``) calls the same catalog functions as the headless
``aiq-tui skills`` commands; file work runs in workers, never on the UI's time.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from aiq_tui.problems import Problem
    from aiq_tui.ui.app import AiqApp


class SkillActions:
    """Skill-level actions; each one that writes runs in the ``engine`` worker group."""

    def __init__(self, app: AiqApp) -> None:
        self.app = app

    def _worker(self, work: Any, name: str) -> None:
        self.app.run_worker(work, name=name, group="engine", exit_on_error=False)

    def _find(self, name: str) -> Any:
        catalog = self.app.live_engine.workspace.catalog
        return catalog.find(name) if hasattr(catalog, "find") else catalog.get(name)

    def activate(self, name: str, arguments: str | None = None) -> None:
        """``/skill NAME [ARGS]``, the viewer's ``a``: the skill is loaded now, whatever the match
        says (with ARGS in its ``$ARGUMENTS``)."""
        self._worker(self._activate(name, arguments), "_activate")

    def invoke(self, name: str, arguments: str, line: str) -> None:
        """``/NAME ARGS``: the skill loaded with ARGS, then ``line`` sent as the user's message."""
        self._worker(self._activate(name, arguments, then_send=line), "_activate")

    async def _activate(
        self, name: str, arguments: str | None = None, then_send: str | None = None
    ) -> None:
        from aiq_tui.skills.invocation import refused_for_user, user_invocable

        app = self.app
        meta = app.live_engine.workspace.catalog.get(name)
        if meta is not None and not user_invocable(meta.extras):
            await app.note(refused_for_user(name), "warning")
            return
        if not await app.live_engine.activate(name, arguments):
            catalog = app.live_engine.workspace.catalog
            dormant = catalog.find(name) if hasattr(catalog, "find") else None
            if (
                dormant is not None
            ):  # disabled, not gone: say so and open it where e enables it
                await app.note(
                    f"{name} is {status_label(dormant.status)} — e in its viewer (or 'Enable skill: {name}' "
                    "in Ctrl+P) enables it",
                    "warning",
                )
                self.open(name)
                return
            close = catalog.close_names(name) if hasattr(catalog, "close_names") else []
            hint = f" — did you mean {', '.join(close)}?" if close else ""
            await app.note(f"no skill named {name!r}{hint}", "warning")
        else:
            given = f" with arguments {arguments!r}" if arguments else ""
            await app.note(f"activated {name}{given}", "info")
            if (
                app.screen is not app.screen_stack[0]
            ):  # e.g. from the skill viewer: say so there
                app.notify(f"Activated {name}.")
            if then_send is not None:
                app.send(then_send)

    def harness_view(self, which: str = "all") -> None:
        """What Claude Code, Codex, Copilot… would load from here (``/harness [NAME]``, the
        palette), in a modal: the folders are read in a worker."""
        self._worker(self._harness_view(which), "_harness_view")

    async def _harness_view(self, which: str) -> None:
        from aiq_tui.harnesses import UnknownHarness
        from aiq_tui.skills.harness_view import render_text, views_for
        from aiq_tui.ui.screens.text_modal import TextModal

        app = self.app
        workspace = app.live_engine.workspace
        try:
            views = await asyncio.to_thread(
                views_for, which or "all", workspace.cwd, workspace.skill_dirs
            )
        except UnknownHarness as exc:
            await app.note(str(exc), "warning")
            return
        text = "\n\n".join(
            "\n".join(render_text(view, workspace.cwd)) for view in views
        )
        app.push_screen(
            TextModal("What each agent would load", f"```text\n{text}\n```\n")
        )

    def save(self, name: str) -> None:
        """``/save-skill NAME``: the last turn's tool calls → a composite skill, opened in the viewer."""
        self._worker(self._save(name), "_save_skill")

    async def _save(self, name: str) -> None:
        from aiq_tui.skills.builder import composite_from_last_turn

        app = self.app
        try:
            entry = composite_from_last_turn(name, app.live_engine.session.messages)
            path = await asyncio.to_thread(
                app.live_engine.workspace.catalog.save, entry
            )
        except Exception as exc:
            await app.note(f"/save-skill: {exc}", "warning")
            return
        app.live_engine.reload()
        from aiq_tui.ui.text_fit import counted

        await app.note(
            f"saved {name} ({counted(len(entry.definition['steps']), 'step')}) → {path}",
            "info",
        )
        self.open(name)

    def set_status(self, name: str, status: str) -> None:
        """Enable / disable a skill from the viewer (the same catalog call as ``skills enable``)."""
        self._worker(self._set_status(name, status), "action_set_skill_status")

    async def _set_status(self, name: str, status: str) -> None:
        app = self.app
        try:
            await asyncio.to_thread(
                app.live_engine.workspace.catalog.set_status, name, status
            )
        except Exception as exc:
            app.notify(f"cannot change {name}: {exc}", severity="error")
            return
        app.live_engine.reload()
        app.notify(
            f"{name}: {'enabled' if status == 'active' else status_label(status)}"
        )
        await self._reopen(name)

    async def _reopen(self, name: str) -> None:
        from aiq_tui.ui.screens.skill_viewer import SkillViewerScreen

        if isinstance(
            self.app.screen, SkillViewerScreen
        ):  # show the skill as it is now
            await self.app.pop_screen()
            self.open(name)

    def open(self, name: str) -> None:
        """The skill viewer on ``name``: its body, resources and the doctor's verdict."""
        from aiq_tui.ui.screens.skill_viewer import SkillDocument, SkillViewerScreen

        app = self.app
        catalog = app.live_engine.workspace.catalog
        meta = self._find(name)
        if meta is None:
            app.notify(f"No skill named {name!r}.", severity="warning")
            return
        from aiq_tui.skills.imported import pending_tools
        from aiq_tui.skills.install.provenance import installed_line

        skill = catalog.load(name)
        document = SkillDocument(
            meta,
            skill.body,
            catalog.resources(name),  # the listing, with its walk's stop note
            validation_problems(meta, app.live_engine.config.skills),
            app.shown(meta.path),
            pending_tools(app.live_engine.workspace.home, meta),
            installed_line(meta, app.live_engine.workspace.home),
        )
        app.push_screen(SkillViewerScreen(document))

    def confirm_tools(self, name: str) -> None:
        """The viewer's ``c``: the user confirms an imported skill's allowed-tools (as
        ``aiq-tui skills trust NAME``)."""
        self._worker(self._confirm_tools(name), "action_confirm_skill_tools")

    async def _confirm_tools(self, name: str) -> None:
        from aiq_tui.skills.imported import confirm

        app = self.app
        meta = self._find(name)
        if meta is None:
            return
        try:
            await asyncio.to_thread(confirm, app.live_engine.workspace.home, meta)
        except OSError as exc:
            app.notify(f"cannot record it: {exc}", severity="error")
            return
        app.notify(
            f"{name}: its allowed-tools now pre-approve those calls while the skill is in use"
        )
        await self._reopen(name)

    def trigger_eval(self, name: str = "") -> None:
        """The trigger eval view of ``name`` (default: the Active skill)."""
        from aiq_tui.skills.model import SkillState
        from aiq_tui.ui.screens.trigger_eval import TriggerEvalScreen, eval_file_of

        app = self.app
        if not name:
            name = next(
                (
                    v.name
                    for v in app.live_engine.skill_views()
                    if v.state is SkillState.ACTIVE
                ),
                "",
            )
        meta = app.live_engine.workspace.catalog.get(name) if name else None
        if meta is None:
            app.notify(
                "Which skill? Open it in the viewer and press t, or type 'Trigger evals' and its name "
                "in the palette.",
                severity="warning",
            )
            return
        app.push_screen(
            TriggerEvalScreen(app.live_engine, name, app.shown(eval_file_of(meta)))
        )


def status_label(status: str) -> str:
    """How a skill's status reads on screen: ``inactive`` is what the user did, "disabled"."""
    return "disabled" if status == "inactive" else status


def validation_problems(meta: Any, settings: Any) -> tuple[Problem, ...]:
    """The doctor's verdict on this skill (``skills validate --strict``, aiq's extension fields
    as warnings): the viewer and /doctor never disagree."""
    from aiq_tui.doctor.spec import skill_verdict

    return skill_verdict(meta.path, settings)
