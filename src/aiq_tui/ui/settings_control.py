"""What the app keeps between runs: the settings (F2, ``/model``), the theme (Ctrl+T or the
palette's picker) and the prompt's history.

:class:`SettingsControl` (``app.settings_control``) applies saved settings to the engine — after
a running turn, on the old provider — and writes the theme and the history in threads.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiq_tui.ui.history import append_history, history_path
from aiq_tui.ui.widgets.budget_gauge import BudgetGauge

if TYPE_CHECKING:
    from aiq_tui.config import AppConfig
    from aiq_tui.ui.app import AiqApp


class SettingsControl:
    """Settings, theme and history: read at start, saved when they change."""

    def __init__(self, app: AiqApp) -> None:
        self.app = app

    # -- the prompt's history ------------------------------------------------------------------
    def history_file(self) -> Path:
        return history_path(self.app.home.data_dir)

    def history_size(self) -> int:
        return self.app.config.ui.history_size

    def keep_history(self, text: str) -> None:
        """``text`` is appended to the history file, in a thread."""
        self.app.run_worker(
            lambda: append_history(self.history_file(), text, self.history_size()),
            name="_keep_history",
            thread=True,
            group="history",
            exit_on_error=False,
        )

    # -- the theme -----------------------------------------------------------------------------
    def theme_changed(self, theme: str) -> None:
        """Ctrl+T or the palette's theme picker: the choice is kept for the next run."""
        app = self.app
        if not app.is_running or theme == app.config.ui.theme:
            return
        app.config.ui.theme = theme
        app.run_worker(
            lambda: self._save_ui_settings({"theme": theme}),
            name="_save_ui_settings",
            thread=True,
            group="settings",
            exit_on_error=False,
        )

    def _save_ui_settings(self, changes: dict[str, Any]) -> None:
        from aiq_tui.ui.config_file import save_settings

        app = self.app
        try:
            save_settings(app.home.config_file, {"ui": changes})
        except Exception as exc:
            app.call_from_thread(
                app.notify, f"could not save the theme: {exc}", severity="warning"
            )

    # -- settings ------------------------------------------------------------------------------
    def open(self, model_only: bool = False) -> None:
        """F2: every setting; ``/model`` (``model_only``): the provider and model picker."""
        from aiq_tui.llm.factory import readiness_problem
        from aiq_tui.ui.screens.settings import SettingsScreen

        app = self.app
        home = app.live_engine.workspace.home

        def saved(config: AppConfig | None) -> None:
            if config is not None:
                app.run_worker(
                    self._apply(config, app.shown(home.config_file)),
                    name="_apply_settings",
                    group="settings-apply",
                    exclusive=True,
                    exit_on_error=False,
                )

        app.push_screen(
            SettingsScreen(
                app.live_engine.config,
                home.config_file,
                app.shown(home.config_file),
                model_only=model_only,
                readiness=readiness_problem,
            ),
            saved,
        )

    async def _apply(self, config: AppConfig, where: str) -> None:
        """The saved settings take effect now; a running turn finishes on the old provider first."""
        app = self.app
        apply = getattr(app.engine, "apply_settings", None)
        if apply is None:
            app.notify(f"Settings saved to {where}; they apply on the next start.")
            return
        worker = app.bridge.turn_worker
        if worker is not None and worker.is_running:
            app.notify("Settings saved; they apply when the running turn ends.")
            await worker.wait()
        try:
            await apply(config)
        except ValueError as exc:
            app.notify(
                f"Settings saved to {where}, but not applied: {exc}", severity="error"
            )
            return
        context = app.live_engine.config.context
        gauge = app.query_one(BudgetGauge)
        gauge.thresholds = (
            context.compress_at,
            context.evict_at,
            context.aggressive_at,
        )
        gauge.refresh(
            layout=True
        )  # the new budget arrived as an event (apply_settings emits it)
        app.chrome.show_banner()
        app.chrome.update_subtitle()
        window = app.live_engine.breakdown.window
        await app.note(
            f"now using {app.live_engine.provider_label} · window {window:,} tokens (saved to {where})",
            "info",
        )
