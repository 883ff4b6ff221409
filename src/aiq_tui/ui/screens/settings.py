"""Settings: provider, model, context window and compression thresholds.

Edits a copy; Save validates and writes ``config/config.yaml`` atomically, and the app
switches the running engine to the saved provider, model, window and thresholds at once.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Select

from aiq_tui.config import AppConfig, ConfigError
from aiq_tui.ui.config_file import save_settings, validation_message


class SettingsScreen(ModalScreen[AppConfig | None]):
    """Dismisses with the saved config, or None when cancelled."""

    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel"), Binding("ctrl+s", "save", "Save")]

    def __init__(self, config: AppConfig, config_path: Path, shown_path: str) -> None:
        super().__init__(classes="modal")
        self.config = copy.deepcopy(config)
        self.config_path = config_path
        self.shown_path = shown_path

    def compose(self) -> ComposeResult:
        config = self.config
        context = config.context
        providers = sorted(config.llm.providers)
        with Vertical(classes="dialog", id="settings-dialog"):
            yield Label(f"Settings — saved to {self.shown_path}", classes="dialog-title")
            with Grid(id="settings-grid"):
                yield Label("Provider")
                yield Select([(p, p) for p in providers], value=config.llm.provider, allow_blank=False,
                             id="provider")
                yield Label("Model")
                yield Input(config.llm.active().model, id="model")
                yield Label("Window (tokens)")
                yield Input(str(context.window or ""), placeholder=f"provider default ({config.context_window():,})",
                            id="window", type="integer")
                yield Label("Compress at")
                yield Input(str(context.compress_at), id="compress_at", type="number")
                yield Label("Evict at")
                yield Input(str(context.evict_at), id="evict_at", type="number")
                yield Label("Aggressive at")
                yield Input(str(context.aggressive_at), id="aggressive_at", type="number")
            yield Label("", id="settings-error")
            yield Label("API keys come from the environment (e.g. OPENAI_API_KEY); changes apply as soon as you save.",
                        classes="dim")
            with Horizontal(classes="buttons"):
                yield Button("Save (ctrl+s)", id="save", variant="primary")
                yield Button("Cancel (esc)", id="cancel")

    @on(Select.Changed, "#provider")
    def _provider(self, event: Select.Changed) -> None:
        provider = self.config.llm.providers.get(str(event.value))
        if provider is not None:
            self.query_one("#model", Input).value = provider.model

    def changes(self) -> dict[str, dict[str, Any]]:
        value = lambda widget_id: self.query_one(f"#{widget_id}", Input).value.strip()  # noqa: E731
        window = value("window")
        return {
            "llm": {"provider": str(self.query_one("#provider", Select).value), "model": value("model")},
            "context": {
                "window": int(window) if window else None,
                "compress_at": float(value("compress_at") or 0),
                "evict_at": float(value("evict_at") or 0),
                "aggressive_at": float(value("aggressive_at") or 0),
            },
        }

    @on(Button.Pressed, "#save")
    def action_save(self) -> None:
        try:
            saved = save_settings(self.config_path, self.changes())
        except ConfigError as exc:  # the message without the path: the title already names the file
            self.query_one("#settings-error", Label).update(f"not saved — {validation_message(exc)}")
            return
        except ValueError as exc:
            self.query_one("#settings-error", Label).update(f"not saved — {exc}")
            return
        self.dismiss(saved)

    @on(Button.Pressed, "#cancel")
    def _cancel(self) -> None:
        self.dismiss(None)
