"""Helpers for skills tests: write skill folders in tmp_path."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

SkillWriter = Callable[..., Path]


def skill_text(
    name: str | None = "demo",
    description: str | None = "A demo skill",
    body: str = "# Demo\n\nDo it.\n",
    extra: str = "",
) -> str:
    lines = []
    if name is not None:
        lines.append(f"name: {name}")
    if description is not None:
        lines.append(f"description: {description}")
    return "---\n" + "\n".join(lines) + ("\n" if lines else "") + extra + "---\n" + body


@pytest.fixture
def write_skill() -> SkillWriter:
    """write_skill(root, folder, text=None, **skill_text kwargs) -> path of SKILL.md."""

    def write(
        root: Path, folder: str, text: str | bytes | None = None, **kwargs: object
    ) -> Path:
        directory = root / folder
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / "SKILL.md"
        if text is None:
            kwargs.setdefault("name", folder)
            text = skill_text(**kwargs)  # type: ignore[arg-type]
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8", newline="")
        return path

    return write
