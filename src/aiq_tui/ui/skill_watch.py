"""Watching the skill folders: a change on disk reloads the catalog (the engine emits
``CatalogReloaded``, the skills pane and the warnings banner follow).

:class:`SkillWatch` (``app.skill_watch``) runs one exclusive ``watch`` worker over every skill
folder that exists (``skills.watch`` in the config turns it off; so does ``AiqApp(watch=False)``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aiq_tui.ui.app import AiqApp


class SkillWatch:
    """The skill-folder watcher; reloading is the engine's."""

    def __init__(self, app: AiqApp) -> None:
        self.app = app

    def dirs(self) -> list[Path]:
        return [
            entry.path
            for entry in self.app.live_engine.workspace.skill_dirs
            if entry.path.is_dir()
        ]

    def start(self) -> None:
        self.app.run_worker(
            self._watch(),
            name="watch_skills",
            group="watch",
            exclusive=True,
            exit_on_error=False,
        )

    async def _watch(self) -> None:
        from watchfiles import awatch

        dirs = self.dirs()
        if not dirs:
            return
        async for _changes in awatch(*dirs, debounce=200, step=50):
            self.app.live_engine.reload()
