"""Changing one top-level section of ``config/config.yaml`` in place, atomically.

``aiq-tui mcp add`` / ``mcp rm`` use it: the new settings are validated against
:class:`~aiq_tui.config.AppConfig` before anything is written (a :class:`ConfigError` leaves
the file as it was), and only the section's own lines are rewritten — the rest of the file,
its comments and its order, stays byte for byte. When the file is laid out in a way that
cannot be edited so (flow style, anchors, several documents), the whole file is written from
the data instead, as the settings screen does (comments are then lost).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from aiq_tui.config import AppConfig, read_yaml_mapping, validate_config

_TOP_LEVEL = re.compile(r"^[^\s#]")


def section_lines(text: str, key: str) -> tuple[int, int] | None:
    """``(first, end)`` line indexes of the top-level ``key:`` block (``end`` exclusive,
    blank and column-0 comment lines before the next key left outside), or None."""
    lines = text.splitlines(keepends=True)
    start = next(
        (
            i
            for i, line in enumerate(lines)
            if re.match(rf"^{re.escape(key)}\s*:", line)
        ),
        None,
    )
    if start is None:
        return None
    end = next(
        (i for i in range(start + 1, len(lines)) if _TOP_LEVEL.match(lines[i])),
        len(lines),
    )
    while end - 1 > start and (
        not lines[end - 1].strip() or lines[end - 1].startswith("#")
    ):
        end -= 1
    return start, end


def _render(text: str, key: str, data: dict[str, Any]) -> str:
    import yaml

    block = (
        yaml.safe_dump(
            {key: data[key]},
            sort_keys=False,
            allow_unicode=True,
            default_flow_style=False,
        )
        if key in data
        else ""
    )
    where = section_lines(text, key)
    lines = text.splitlines(keepends=True)
    if where is None:
        if not block:
            return text
        glue = "" if not text or text.endswith("\n") else "\n"
        return text + glue + ("\n" if text.strip() else "") + block
    start, end = where
    return "".join(lines[:start]) + block + "".join(lines[end:])


def edit_section(
    path: Path, key: str, change: Callable[[dict[str, Any]], None]
) -> AppConfig:
    """Apply ``change`` to the parsed file's data (in place), validate, write; returns the new
    config. Raises :class:`~aiq_tui.config.ConfigError` (nothing written) when the result is
    invalid or the file cannot be read."""
    import yaml

    data = read_yaml_mapping(path)
    updated = copy.deepcopy(data)
    change(updated)
    config = validate_config(updated, path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        text = ""
    rendered = _render(text, key, updated)
    try:
        same = (yaml.safe_load(rendered) or {}) == updated
    except yaml.YAMLError:
        same = False
    if not same:  # a layout the line edit cannot follow: write the data whole
        rendered = yaml.safe_dump(updated, sort_keys=False, allow_unicode=True)
    from aiq_tui.file_io import atomic_write

    mode = path.stat().st_mode & 0o777 if path.exists() else 0o600
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, rendered, mode=mode)
    return config


__all__ = ["edit_section", "section_lines"]
