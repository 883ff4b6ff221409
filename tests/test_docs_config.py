"""The "Every setting and its default" block of docs/configuration.md says what the config
model's defaults are.

The block is read as YAML (its comments dropped) and each value it gives is compared with
``AppConfig()``'s, so a default changed in the code cannot leave the documentation behind.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import yaml

from aiq_tui.config import AppConfig

ROOT = Path(__file__).resolve().parents[1]


def documented_defaults() -> dict[str, Any]:
    page = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    section = page.split("## Every setting and its default", 1)[1]
    block = section.split("```yaml\n", 1)[1].split("```", 1)[0]
    return yaml.safe_load(block)


def leaves(tree: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in tree.items():
        if isinstance(value, dict) and value:
            out |= leaves(value, f"{prefix}{key}.")
        else:
            out[f"{prefix}{key}"] = value
    return out


def same(shown: Any, actual: Any) -> bool:
    """Equal, reading a list the page cuts short with "…" as the start of the real one."""
    if isinstance(actual, (list, tuple)) and isinstance(shown, list):
        if shown and shown[-1] == "…":
            return list(actual[: len(shown) - 1]) == shown[:-1]
        return list(actual) == shown
    return shown == actual


def test_every_default_the_docs_give_is_the_config_models_default() -> None:
    shown = leaves(documented_defaults())
    actual = leaves(msgspec.to_builtins(AppConfig()))
    assert len(shown) > 30  # the block was found and read
    wrong = {
        key: (value, actual.get(key, "no such setting"))
        for key, value in shown.items()
        if key not in actual or not same(value, actual[key])
    }
    assert wrong == {}, (
        "docs/configuration.md shows (value, but the code has): " + repr(wrong)
    )
