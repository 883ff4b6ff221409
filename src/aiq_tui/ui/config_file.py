"""Writing the settings screen's changes to ``config/config.yaml`` atomically.

Only the keys the screen edits are changed; everything else in the user's file is kept.
The result is validated against :class:`AppConfig` before anything is written.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import yaml

from aiq_tui.config import AppConfig, ConfigError, read_yaml_mapping, validate_config


def apply_settings(
    data: dict[str, Any], changes: dict[str, dict[str, Any]]
) -> dict[str, Any]:
    """``changes`` is ``{"llm": {...}, "context": {...}, "ui": {...}}`` (any of them);
    ``llm.model`` goes to the chosen provider."""
    merged = {
        key: dict(value) if isinstance(value, dict) else value
        for key, value in data.items()
    }
    llm = dict(merged.get("llm") or {})
    llm_changes = dict(changes.get("llm", {}))
    model = llm_changes.pop("model", None)
    llm.update(llm_changes)
    provider = llm.get("provider", "demo")
    if model is not None and model == _current_model(llm, provider):
        model = None  # unchanged: writing an entry would hide the provider's built-in settings
    if model is not None:
        providers = {k: dict(v) for k, v in (llm.get("providers") or {}).items()}
        entry = providers.setdefault(provider, {})
        if "kind" not in entry:
            entry["kind"] = (
                AppConfig().llm.providers.get(provider, AppConfig().llm.active()).kind
            )
        entry["model"] = model
        llm["providers"] = providers
    merged["llm"] = llm
    context = dict(merged.get("context") or {})
    context.update(changes.get("context", {}))
    merged["context"] = context
    if changes.get("ui"):
        merged["ui"] = {**dict(merged.get("ui") or {}), **changes["ui"]}
    return merged


def validation_message(exc: ConfigError) -> str:
    """The problem as ``field: what is wrong`` (or ``line N: …``), without the file's path —
    the settings screen names the file in its title."""
    where = exc.field or (f"line {exc.line}" if exc.line else None)
    return f"{where}: {exc.message}" if where else exc.message


def _current_model(llm: dict[str, Any], provider: str) -> str | None:
    own = (llm.get("providers") or {}).get(provider) or {}
    if "model" in own:
        return str(own["model"])
    default = AppConfig().llm.providers.get(provider)
    return default.model if default is not None else None


def save_settings(path: Path, changes: dict[str, dict[str, Any]]) -> AppConfig:
    """Validate and write; raises :class:`ConfigError` (nothing written) when invalid."""
    data = apply_settings(read_yaml_mapping(path), changes)
    config = validate_config(data, path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(prefix=".config-", suffix=".yaml", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            yaml.safe_dump(data, stream, sort_keys=False, allow_unicode=True)
        os.replace(
            temp, path
        )  # atomic: readers see the old file or the new one, never half
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    return config
