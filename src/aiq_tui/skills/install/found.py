"""The skills a source holds: where each one is, its name and description.

Where skills live in a tree is the layouts module's answer (the same one discovery uses,
:mod:`aiq_tui.skills.layouts`); this module turns its folders into :class:`FoundSkill` rows,
named as the harness names them (``name:``, else the folder), and reports a name found twice
(the shallower folder wins, as the ``skills`` CLI keeps the first).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class FoundSkill:
    name: str
    folder: Path
    relative: str
    """The folder relative to the source's root, ``/``-separated ('' for a skill at the root)."""
    description: str

    @property
    def skill_path(self) -> str:
        """The lockfile's ``skillPath``: ``relative/SKILL.md``."""
        return f"{self.relative}/SKILL.md" if self.relative else "SKILL.md"


def skill_folders(root: Path) -> list[Path]:
    """Every skill folder at or below ``root`` (the layouts module's walk)."""
    try:
        from aiq_tui.skills import layouts  # type: ignore[attr-defined]
    except ImportError:
        from aiq_tui.skills.install.layout_adapter import find_skill_folders

        return find_skill_folders(root)
    return [Path(folder) for folder in layouts.skill_folders(root)]  # pragma: no cover


def find_skills(root: Path, subpath: str = "") -> tuple[list[FoundSkill], list[str]]:
    """The skills at or below ``root / subpath``, and notes on names found twice."""
    from aiq_tui.skills.parse import read_frontmatter

    start = root / subpath if subpath else root
    found: dict[str, FoundSkill] = {}
    notes: list[str] = []
    for folder in skill_folders(start):
        result = read_frontmatter(folder / "SKILL.md", 1_000_000)
        fields = result.meta_fields or {}
        name = str(fields.get("name") or folder.name).strip()
        description = " ".join(str(fields.get("description") or "").split())
        relative = folder.relative_to(root).as_posix()
        relative = "" if relative == "." else relative
        if name in found:
            notes.append(
                f"{name} is in {found[name].relative or '.'} and in {relative or '.'}; "
                f"the first is used"
            )
            continue
        found[name] = FoundSkill(name, folder, relative, description)
    return list(found.values()), notes
