"""The skills a source holds: where each one is, its name and description.

Where skills live in a tree is the layouts module's answer (the same one discovery uses,
:func:`aiq_tui.skills.layouts.find_skills`); this module turns its folders into :class:`FoundSkill` rows,
named as the harness names them (``name:``, else the folder), and reports a name found twice
(the shallower folder wins, as the ``skills`` CLI keeps the first).
"""

from __future__ import annotations

import os
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


def skill_folders(root: Path) -> tuple[list[Path], list[str]]:
    """Every skill folder at or below ``root``, in the layouts module's precedence, and notes
    (a bound that cut the search short, SKILL.md files deeper than it looks)."""
    from aiq_tui.skills.layouts import find_skills as find_layout
    from aiq_tui.skills.layouts import skill_files

    layout = find_layout(root)
    notes = (
        [f"the search stopped early: {layout.truncated}"] if layout.truncated else []
    )
    if not layout.count and layout.deeper:
        notes.append("SKILL.md files further down: " + ", ".join(layout.deeper))
    notes += [str(problem) for problem in layout.problems]
    return [Path(path).parent for path in skill_files(layout)], notes


def find_skills(root: Path, subpath: str = "") -> tuple[list[FoundSkill], list[str]]:
    """The skills at or below ``root / subpath``, and notes on names found twice."""
    from aiq_tui.skills.parse import read_frontmatter

    start = root / subpath if subpath else root
    found: dict[str, FoundSkill] = {}
    folders, notes = skill_folders(start)
    for folder in folders:
        result = read_frontmatter(folder / "SKILL.md", 1_000_000)
        fields = result.meta_fields or {}
        name = str(fields.get("name") or folder.name).strip()
        description = " ".join(str(fields.get("description") or "").split())
        relative = Path(os.path.relpath(folder, root)).as_posix()
        relative = "" if relative == "." else relative
        if name in found:
            notes.append(
                f"{name} is in {found[name].relative or '.'} and in {relative or '.'}; "
                f"the first is used"
            )
            continue
        found[name] = FoundSkill(name, folder, relative, description)
    return list(found.values()), notes
