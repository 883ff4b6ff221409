"""What one harness would load from this machine and project: its folders, the skills in them in
its order of precedence, the ones shadowed, and what its skill listing costs.

:func:`harness_view` reads the folders a profile names (:mod:`~aiq_tui.skills.harnesses`) as
the harness reads them — one level deep, a link followed and the same file loaded once — and
only their frontmatter. A skill's key is its command name where the harness takes that from the
folder (Claude Code), else its ``name``. ``aiq-tui sources list --harness NAME``, ``aiq-tui
prompt --harness NAME`` and the TUI's "What each agent loads" show the same view.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from aiq_tui.skills.harnesses import (
    HarnessProfile,
    ListingBudget,
    ResolvedFolder,
    listing_budget,
    skill_folders,
)
from aiq_tui.skills.invocation import model_invocable

SKILL_FILE = "SKILL.md"
MAX_ENTRIES = 10_000
"""Most entries of one folder read (a bound on a hostile folder)."""
FRONTMATTER_BYTES = 65_536

if TYPE_CHECKING:  # discover reads the config: not imported to draw a view
    from aiq_tui.skills.discover import SkillDir


class FolderView(msgspec.Struct, frozen=True):
    path: str
    scope: str
    exists: bool
    skills: int
    """Skills this folder gives the harness (shadowed ones not counted)."""
    note: str = ""


class SkillEntry(msgspec.Struct, frozen=True):
    name: str
    description: str
    path: str
    scope: str
    manual_only: bool = False
    """``disable-model-invocation``: loaded, but never listed to the model."""
    shadowed_by: str | None = None
    """The SKILL.md that wins the name (this one is not loaded), or None."""
    problem: str | None = None
    """Why the harness would not load it (unreadable frontmatter, no description)."""

    @property
    def listed(self) -> bool:
        return not (self.manual_only or self.shadowed_by or self.problem)


class HarnessView(msgspec.Struct, frozen=True):
    harness: str
    title: str
    folders: tuple[FolderView, ...]
    skills: tuple[SkillEntry, ...]
    """Every skill found, in the harness's precedence (shadowed ones after their winner's
    folder, where they sit)."""
    listing_chars: int
    budget: int | None
    budget_why: str

    @property
    def loaded(self) -> list[SkillEntry]:
        return [s for s in self.skills if not s.shadowed_by and not s.problem]

    @property
    def shadowed(self) -> list[SkillEntry]:
        return [s for s in self.skills if s.shadowed_by]

    def to_json(self) -> dict[str, object]:
        return {
            "harness": self.harness,
            "title": self.title,
            "folders": [msgspec.to_builtins(f) for f in self.folders],
            "skills": [msgspec.to_builtins(s) for s in self.skills],
            "loaded": len(self.loaded),
            "shadowed": len(self.shadowed),
            "listing_chars": self.listing_chars,
            "budget": self.budget,
            "budget_why": self.budget_why,
            "over_budget": self.budget is not None and self.listing_chars > self.budget,
        }


def harness_view(
    harness: HarnessProfile,
    project: Path | None,
    env: Mapping[str, str] | None = None,
    folders: Sequence[ResolvedFolder] | None = None,
) -> HarnessView:
    """What ``harness`` would load for ``project`` (see the module doc); ``folders`` replaces
    the profile's (aiq-tui's own, as configured)."""
    views: list[FolderView] = []
    skills: list[SkillEntry] = []
    winners: dict[str, str] = {}
    seen_files: set[tuple[int, int]] = set()
    chosen = skill_folders(harness, project, env) if folders is None else folders
    for resolved in chosen:
        found = _read_folder(harness, resolved, winners, seen_files)
        views.append(
            FolderView(
                str(resolved.path),
                resolved.scope,
                resolved.path.is_dir(),
                sum(1 for s in found if not s.shadowed_by and not s.problem),
                resolved.folder.note,
            )
        )
        skills += found
    budget: ListingBudget = listing_budget(harness, None, env)
    chars = sum(entry_chars(harness, s) for s in skills if s.listed)
    return HarnessView(
        harness.name,
        harness.title,
        tuple(views),
        tuple(skills),
        chars,
        budget.chars,
        budget.why,
    )


def views_for(
    which: str, project: Path | None, aiq_dirs: Sequence[SkillDir] = ()
) -> list[HarnessView]:
    """The views of the harness ``which`` names, or of every one (``all``); aiq-tui's own reads
    ``aiq_dirs`` (the workspace's :class:`~aiq_tui.skills.discover.SkillDir` list, as
    configured) instead of the profile's defaults."""
    from aiq_tui.skills.harnesses import PROFILES, SkillFolder, profile

    chosen = list(PROFILES.values()) if which == "all" else [profile(which)]
    views = []
    for harness in chosen:
        folders = None
        if harness.name == "aiq" and aiq_dirs:
            folders = [
                ResolvedFolder(
                    Path(d.path),
                    "project" if d.origin == "project" else "user",
                    SkillFolder(
                        "user",
                        str(d.path),
                        note=f"from {d.origin}",
                    ),
                )
                for d in aiq_dirs
            ]
        views.append(harness_view(harness, project, folders=folders))
    return views


def entry_chars(harness: HarnessProfile, skill: SkillEntry) -> int:
    """What one skill's line costs in the harness's listing (its description cut at the
    harness's per-entry cap)."""
    text = skill.description
    if harness.entry_chars is not None:
        text = text[: harness.entry_chars]
    return len(skill.name) + len(text) + 4


def listing_text(harness: HarnessProfile, view: HarnessView) -> tuple[str, int]:
    """The listing as the harness would send it — ``- name: description`` lines, each cut at its
    cap; past the budget, names alone (Claude Code keeps every name and drops descriptions) —
    and how many lines lost their description."""
    lines: list[str] = []
    used = 0
    bare = 0
    for skill in view.skills:
        if not skill.listed:
            continue
        text = skill.description
        if harness.entry_chars is not None:
            text = text[: harness.entry_chars]
        line = f"- {skill.name}: {text}"
        if view.budget is not None and used + len(line) > view.budget:
            line = f"- {skill.name}"
            bare += 1
        lines.append(line)
        used += len(line) + 1
    return "\n".join(lines), bare


def _read_folder(
    harness: HarnessProfile,
    resolved: ResolvedFolder,
    winners: dict[str, str],
    seen_files: set[tuple[int, int]],
) -> list[SkillEntry]:
    from aiq_tui.skills.parse import read_frontmatter

    root = str(resolved.path)
    try:
        with os.scandir(root) as entries:
            names = sorted(entry.name for entry in entries if entry.name[:1] != ".")[
                :MAX_ENTRIES
            ]
    except OSError:
        return []
    found: list[SkillEntry] = []
    for name in names:
        skill_md = os.path.join(root, name, SKILL_FILE)
        try:
            info = os.stat(skill_md)
        except OSError:
            continue
        identity = (info.st_dev, info.st_ino)
        if identity in seen_files:
            continue  # one file reached by two paths (a link): loaded once
        seen_files.add(identity)
        parsed = read_frontmatter(skill_md, FRONTMATTER_BYTES)
        fields = parsed.meta_fields or {}
        raw_name = fields.get("name")
        description = fields.get("description")
        label = (
            raw_name.strip() if isinstance(raw_name, str) and raw_name.strip() else name
        )
        key = name if not harness.requires_name else label
        problem = None
        if parsed.meta_fields is None:
            problem = parsed.problems[0].message if parsed.problems else "unreadable"
        elif harness.requires_description and not (
            isinstance(description, str) and description.strip()
        ):
            problem = "no description"
        winner = winners.get(key) if problem is None else None
        if problem is None and winner is None:
            winners[key] = skill_md
        found.append(
            SkillEntry(
                key,
                " ".join(description.split()) if isinstance(description, str) else "",
                skill_md,
                resolved.scope,
                manual_only=bool(fields)
                and "disable-model-invocation" in harness.fields
                and not model_invocable(fields),
                shadowed_by=winner,
                problem=problem,
            )
        )
    return found


def render_text(view: HarnessView, project: Path | None) -> list[str]:
    """The view as lines of text (the CLI prints them; the TUI shows them in a modal)."""
    where = f" for {project}" if project is not None else ""
    lines = [f"{view.title} would load{where}:"]
    for folder in view.folders:
        state = (
            f"{folder.skills} skill{'s' if folder.skills != 1 else ''}"
            if folder.exists
            else "absent"
        )
        note = f" — {folder.note}" if folder.note else ""
        lines.append(f"  {folder.scope:<7} {folder.path}: {state}{note}")
    loaded = view.loaded
    lines.append(
        f"skills, in {view.title}'s order of precedence ({len(loaded)} loaded):"
    )
    for skill in view.skills:
        if skill.problem:
            lines.append(
                f"  ✗ {skill.name}  {skill.path} — not loaded: {skill.problem}"
            )
        elif skill.shadowed_by:
            lines.append(
                f"  · {skill.name}  {skill.path} — shadowed by {skill.shadowed_by}"
            )
        else:
            manual = " (only you run it: not listed)" if skill.manual_only else ""
            lines.append(f"  ✓ {skill.name}  {skill.path}{manual}")
    budget = (
        f" of a {view.budget:,}-character budget ({view.budget_why})"
        if view.budget is not None
        else f" ({view.budget_why})"
    )
    over = (
        " — over it: descriptions are shortened or dropped"
        if view.budget is not None and view.listing_chars > view.budget
        else ""
    )
    lines.append(f"listing: {view.listing_chars:,} characters{budget}{over}")
    return lines
