"""What changed in a skill between two versions: the description first, then the files.

The description comes first because it is what matching reads: a changed description changes
when the skill triggers. Then every file added, removed or changed (text files with the lines
added and removed), over the same files the hash counts.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiq_tui.skills.install.folder_hash import hashed_files

MAX_DIFF_BYTES = 256_000


@dataclass(frozen=True)
class FileChange:
    path: str
    change: str  # "added" | "removed" | "changed"
    added_lines: int = 0
    removed_lines: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "change": self.change,
            "added_lines": self.added_lines,
            "removed_lines": self.removed_lines,
        }

    def line(self) -> str:
        mark = {"added": "+", "removed": "-", "changed": "~"}[self.change]
        counts = (
            f" (+{self.added_lines} −{self.removed_lines} lines)"
            if self.change == "changed" and (self.added_lines or self.removed_lines)
            else ""
        )
        return f"{mark} {self.path}{counts}"


@dataclass(frozen=True)
class SkillChanges:
    """The difference between an old and a new version of one skill."""

    old_description: str | None
    new_description: str | None
    files: tuple[FileChange, ...] = field(default_factory=tuple)
    skill_md_diff: str = ""

    @property
    def description_changed(self) -> bool:
        return (self.old_description or "") != (self.new_description or "")

    @property
    def empty(self) -> bool:
        return not self.files and not self.description_changed

    def to_json(self) -> dict[str, Any]:
        return {
            "description_changed": self.description_changed,
            "old_description": self.old_description,
            "new_description": self.new_description,
            "files": [change.to_json() for change in self.files],
            "skill_md_diff": self.skill_md_diff,
        }

    def lines(self) -> list[str]:
        """The change as lines for a terminal: description, then one line a file."""
        out: list[str] = []
        if self.description_changed:
            out.append("description changed (this changes when the skill is matched):")
            out.append(f"  - {self.old_description or '(none)'}")
            out.append(f"  + {self.new_description or '(none)'}")
        out += [f"  {change.line()}" for change in self.files]
        return out


def description_of(folder: Path | None) -> str | None:
    """The ``description`` in ``folder``'s SKILL.md, None when there is none to read."""
    from aiq_tui.skills.parse import parse_skill_text

    if folder is None:
        return None
    try:
        text = (folder / "SKILL.md").read_text(encoding="utf-8-sig", errors="replace")
    except OSError:
        return None
    fields = parse_skill_text(text).meta_fields or {}
    value = fields.get("description")
    return " ".join(str(value).split()) if value is not None else None


def compare(old: Path | None, new: Path) -> SkillChanges:
    """What changed from ``old`` (None: nothing there before) to ``new``."""
    old_files = set(hashed_files(old)) if old is not None and old.is_dir() else set()
    new_files = set(hashed_files(new))
    changes: list[FileChange] = []
    for path in sorted(old_files | new_files):
        if path not in old_files:
            changes.append(
                FileChange(path, "added", added_lines=_line_count(new / path))
            )
        elif path not in new_files:
            changes.append(FileChange(path, "removed"))
        else:
            assert old is not None
            before, after = _read(old / path), _read(new / path)
            if before == after:
                continue
            added, removed = _line_delta(before, after)
            changes.append(FileChange(path, "changed", added, removed))
    diff = ""
    if old is not None and any(
        c.path == "SKILL.md" and c.change == "changed" for c in changes
    ):
        diff = _unified(old / "SKILL.md", new / "SKILL.md")
    return SkillChanges(description_of(old), description_of(new), tuple(changes), diff)


def _read(path: Path) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read(MAX_DIFF_BYTES + 1)
    except OSError:
        return b""


def _text(data: bytes) -> list[str] | None:
    if b"\0" in data[:8192] or len(data) > MAX_DIFF_BYTES:
        return None
    return data.decode("utf-8", errors="replace").splitlines()


def _line_count(path: Path) -> int:
    lines = _text(_read(path))
    return len(lines) if lines is not None else 0


def _line_delta(before: bytes, after: bytes) -> tuple[int, int]:
    old, new = _text(before), _text(after)
    if old is None or new is None:
        return 0, 0  # binary or large: changed, lines not counted
    added = removed = 0
    for line in difflib.unified_diff(old, new, lineterm="", n=0):
        if line.startswith("+") and not line.startswith("+++"):
            added += 1
        elif line.startswith("-") and not line.startswith("---"):
            removed += 1
    return added, removed


def _unified(old: Path, new: Path) -> str:
    before, after = _text(_read(old)), _text(_read(new))
    if before is None or after is None:
        return ""
    return "\n".join(
        difflib.unified_diff(before, after, "a/SKILL.md", "b/SKILL.md", lineterm="")
    )
