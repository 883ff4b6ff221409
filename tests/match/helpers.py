"""Builders shared by the matching tests: in-memory skill metadata and skills."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from aiq_tui.skills.model import Skill, SkillMeta

ROOT = Path("/nonexistent/skills")


def meta(name: str, description: str, **extras: Any) -> SkillMeta:
    return SkillMeta(
        name=name,
        description=description,
        path=ROOT / name / "SKILL.md",
        source_dir=ROOT,
        extras=extras,
    )


def skill(name: str, description: str, body: str, **extras: Any) -> Skill:
    return Skill(meta(name, description, **extras), body)
