"""Settings: provider, model, context window and compression thresholds (``/model``: the
provider and model only).

Edits a copy; Save validates and writes ``config/config.yaml`` atomically, and the app
switches the running engine to the saved provider, model, window and thresholds at once.
A provider that could not answer (no API key) is said before it is saved: Save then asks
to be pressed again. The dialog scrolls, so every field is reachable at 80×24.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Horizontal
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Input, Label, Select

from aiq_tui.config import AppConfig, ConfigError
from aiq_tui.llm.windows import resolve_window
from aiq_tui.ui.config_file import save_settings, validation_message
from aiq_tui.ui.plain import PlainLabel
from aiq_tui.ui.screens.dialog import Dialog


class SettingsScreen(ModalScreen[AppConfig | None]):
    """Dismisses with the saved config, or None when cancelled."""

    BINDINGS = [
        Binding("escape", "dismiss(None)", "Cancel"),
        Binding("ctrl+s", "save", "Save"),
    ]

    def __init__(
        self,
        config: AppConfig,
        config_path: Path,
        shown_path: str,
        *,
        model_only: bool = False,
        readiness: Callable[[AppConfig, str], str | None] | None = None,
    ) -> None:
        super().__init__(classes="modal")
        self.config = copy.deepcopy(config)
        self.config_path = config_path
        self.shown_path = shown_path
        self.model_only = model_only
        """``/model``: only the provider and the model (the context settings stay as they are)."""
        self.readiness = readiness
        """Why a provider could not answer (no API key…), or None: asked before saving it."""
        self._warned_for: str | None = None

    def compose(self) -> ComposeResult:
        config = self.config
        context = config.context
        providers = sorted(config.llm.providers)
        with Dialog(classes="dialog", id="settings-dialog"):
            what = "Model" if self.model_only else "Settings"
            yield PlainLabel(
                f"{what} — saved to {self.shown_path}", classes="dialog-title"
            )
            with Grid(id="settings-grid"):
                yield PlainLabel("Provider")
                yield Select(
                    [(p, p) for p in providers],
                    value=config.llm.provider,
                    allow_blank=False,
                    id="provider",
                )
                yield PlainLabel("Model")
                yield Input(config.llm.active().model, id="model")
                if not self.model_only:
                    yield PlainLabel("Window (tokens)")
                    yield Input(
                        str(context.window or ""),
                        placeholder=f"provider default ({resolve_window(config).tokens:,})",
                        id="window",
                        type="integer",
                    )
                    yield PlainLabel("Compress at")
                    yield Input(
                        str(context.compress_at), id="compress_at", type="number"
                    )
                    yield PlainLabel("Evict at")
                    yield Input(str(context.evict_at), id="evict_at", type="number")
                    yield PlainLabel("Aggressive at")
                    yield Input(
                        str(context.aggressive_at), id="aggressive_at", type="number"
                    )
            yield PlainLabel("", id="settings-warning")
            yield PlainLabel("", id="settings-error")
            yield PlainLabel(
                "API keys come from the environment (e.g. OPENAI_API_KEY); changes apply as soon as you save."
                + ("" if not self.model_only else " F2 has the window and thresholds."),
                classes="dim",
                id="settings-hint",
            )
            with Horizontal(classes="buttons"):
                yield Button("Save (ctrl+s)", id="save", variant="primary")
                yield Button("Cancel (esc)", id="cancel")
        yield Footer()  # this dialog's own keys (the main screen's are off while it is open)

    def on_mount(self) -> None:
        # Tab goes from field to field; the dialog scrolls itself to the focused one.
        self.query_one("#provider", Select).focus()
        self._check_provider(str(self.query_one("#provider", Select).value))

    def _check_provider(self, name: str) -> str | None:
        """Say now, not on the next turn, when the chosen provider could not answer."""
        problem = (
            self.readiness(self.config, name) if self.readiness is not None else None
        )
        warning = self.query_one("#settings-warning", Label)
        warning.update(f"⚠ {name} cannot answer yet: {problem}" if problem else "")
        warning.display = bool(problem)
        return problem

    @on(Select.Changed, "#provider")
    def _provider(self, event: Select.Changed) -> None:
        provider = self.config.llm.providers.get(str(event.value))
        if provider is not None:
            self.query_one("#model", Input).value = provider.model
        self._warned_for = None
        self._check_provider(str(event.value))

    def changes(self) -> dict[str, dict[str, Any]]:
        value = lambda widget_id: self.query_one(f"#{widget_id}", Input).value.strip()  # noqa: E731
        llm = {
            "provider": str(self.query_one("#provider", Select).value),
            "model": value("model"),
        }
        if self.model_only:
            return {"llm": llm}
        window = value("window")
        return {
            "llm": llm,
            "context": {
                "window": int(window) if window else None,
                "compress_at": float(value("compress_at") or 0),
                "evict_at": float(value("evict_at") or 0),
                "aggressive_at": float(value("aggressive_at") or 0),
            },
        }

    @on(Button.Pressed, "#save")
    def action_save(self) -> None:
        provider = str(self.query_one("#provider", Select).value)
        if self._check_provider(provider) and self._warned_for != provider:
            self._warned_for = (
                provider  # said once; a second Save means "save it anyway"
            )
            self.query_one("#settings-error", Label).update(
                f"not saved yet — the next turn would fail on {provider}; press Save again to save anyway"
            )
            return
        try:
            saved = save_settings(self.config_path, self.changes())
        except (
            ConfigError
        ) as exc:  # the message without the path: the title already names the file
            self.query_one("#settings-error", Label).update(
                f"not saved — {validation_message(exc)}"
            )
            return
        except ValueError as exc:
            self.query_one("#settings-error", Label).update(f"not saved — {exc}")
            return
        self.dismiss(saved)

    @on(Button.Pressed, "#cancel")
    def _cancel(self) -> None:
        self.dismiss(None)
