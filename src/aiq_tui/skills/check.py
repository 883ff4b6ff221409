"""Validate skills on disk (what ``aiq-tui skills validate`` runs): read, parse, check, report.

Unlike discovery, which skips bad skills with a warning, this reports *every* problem of
every skill it is pointed at — including the ones discovery would skip.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from aiq_tui.config import SkillsSettings
from aiq_tui.problems import Problem, Severity
from aiq_tui.skills.discover import misnamed_problem, missing_skill_file_problem
from aiq_tui.skills.parse import BOM, bom_problem, decode_skill_bytes, parse_skill_text
from aiq_tui.skills.resources import SKILL_FILE, list_resources
from aiq_tui.skills.validate import validate


@dataclass(frozen=True)
class SkillReport:
    path: Path
    """The SKILL.md checked (or the path given, when it could not be found)."""
    name: str | None
    problems: tuple[Problem, ...]

    @property
    def valid(self) -> bool:
        """No errors (warnings, e.g. an oversized resource, do not make a skill invalid)."""
        return not any(problem.severity is Severity.ERROR for problem in self.problems)

    def to_json(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "name": self.name,
            "valid": self.valid,
            "problems": [problem.to_json() for problem in self.problems],
        }


# A folder's resource problems when the caller has them already listed (the doctor's catalog
# lists every skill's resources for its other checks), else None: list them here.
ListedProblems = Callable[[Path], "tuple[Problem, ...] | None"]


def check_file(
    skill_md: Path,
    settings: SkillsSettings,
    strict: bool = False,
    listed: ListedProblems | None = None,
) -> SkillReport:
    """Every problem of one SKILL.md (and its folder's resources)."""
    try:
        with open(skill_md, "rb") as handle:
            data = handle.read(settings.max_skill_md_bytes + 1)
    except OSError as exc:
        return SkillReport(
            skill_md,
            None,
            (
                Problem(
                    skill_md,
                    f"cannot read: {exc.strerror or exc}",
                    hint="check the file's permissions and links",
                ),
            ),
        )
    if len(data) > settings.max_skill_md_bytes:
        return SkillReport(
            skill_md,
            None,
            (
                Problem(
                    skill_md,
                    f"SKILL.md is over the {settings.max_skill_md_bytes}-byte limit",
                    hint="move long material into resource files, or raise skills.max_skill_md_bytes",
                ),
            ),
        )
    text, problem = decode_skill_bytes(data, skill_md)
    if text is None:
        return SkillReport(skill_md, None, (problem,) if problem else ())
    result = parse_skill_text(text, skill_md)
    problems = list(result.problems)
    if (
        data.startswith(BOM) and result.has_frontmatter
    ):  # (decoding dropped it; discovery reports it too)
        problems.insert(0, bom_problem(skill_md))
    if skill_md.name != SKILL_FILE and skill_md.name.lower() == SKILL_FILE.lower():
        problems.insert(0, misnamed_problem(skill_md))
    if strict:
        # The specification requires valid YAML: a tolerated defect is an error here.
        problems = [replace(p, severity=Severity.ERROR) for p in problems]
    fields = result.meta_fields
    name = None
    if fields is not None:
        # Lenient: what loads here still hears which specification rules it breaks (warnings).
        problems += validate(
            fields,
            skill_md,
            skill_md.parent.name,
            strict=strict,
            lines=result.field_lines,
            body=result.body,
            spec_warnings=not strict,
        )
        if strict:  # the executable types are lango's: their definition is checked leniently too
            problems += [
                p
                for p in validate(
                    fields, skill_md, None, lines=result.field_lines, body=result.body
                )
                if p.field in ("steps", "script", "template", "status")
            ]
        raw = fields.get("name")
        name = raw if isinstance(raw, str) else None
    resource_problems = listed(skill_md.parent) if listed is not None else None
    if resource_problems is None:
        _, resource_problems = list_resources(skill_md.parent, settings)
    problems += resource_problems
    return SkillReport(skill_md, name, tuple(problems))


def _resolved_skill_file(child: Path, real_parent: str) -> str | None:
    """``os.path.realpath(child / SKILL.md)`` if that is a file, else None. ``real_parent`` is
    the resolved folder ``child`` is in. Cheap in the usual case: neither the folder nor its
    SKILL.md is a link (one lstat each), so the resolved path is the parent's plus two names."""
    skill_md = child / SKILL_FILE
    try:
        if not stat.S_ISLNK(os.lstat(child).st_mode):
            info = os.lstat(skill_md)
            if stat.S_ISREG(info.st_mode):
                return os.path.join(real_parent, child.name, SKILL_FILE)
            if not stat.S_ISLNK(info.st_mode):
                return None
    except OSError:
        return None
    return os.path.realpath(skill_md) if skill_md.is_file() else None


def check_paths(
    paths: Sequence[Path],
    settings: SkillsSettings,
    strict: bool = False,
    containers: bool = False,
    listed: ListedProblems | None = None,
) -> list[SkillReport]:
    """Reports for each path: a SKILL.md file, a skill folder, or a folder of skill folders.

    With ``containers`` the paths are skill directories found by discovery: one without
    skills is fine. Otherwise a path holding no skill is itself a problem.
    """
    reports: list[SkillReport] = []
    seen: set[str] = set()

    def add(skill_md: Path, key: str | None = None) -> None:
        key = key or os.path.realpath(skill_md)
        if key not in seen:
            seen.add(key)
            reports.append(check_file(skill_md, settings, strict, listed))

    def unreadable(folder: Path) -> bool:
        """A folder whose SKILL.md cannot be: misnamed or a broken link (reported, as discovery
        reports it)."""
        problem = missing_skill_file_problem(folder)
        if problem is not None:
            reports.append(
                SkillReport(
                    problem.path or folder / SKILL_FILE,
                    None,
                    (replace(problem, severity=Severity.ERROR),),
                )
            )
        return problem is not None

    for path in paths:
        if path.is_file():
            add(path)
        elif (path / SKILL_FILE).is_file():
            add(path / SKILL_FILE)
        elif path.is_dir():
            if unreadable(path):
                continue
            try:
                children = sorted(
                    child for child in path.iterdir() if not child.name.startswith(".")
                )
            except OSError as exc:
                reports.append(
                    SkillReport(
                        path,
                        None,
                        (Problem(path, f"cannot list: {exc.strerror or exc}"),),
                    )
                )
                continue
            real_parent = os.path.realpath(path)
            resolved = [
                (child, _resolved_skill_file(child, real_parent)) for child in children
            ]
            found = [
                (child / SKILL_FILE, key) for child, key in resolved if key is not None
            ]
            for skill_md, key in found:
                add(skill_md, key)
            broken = [
                child for child, key in resolved if key is None and unreadable(child)
            ]
            if not found and not broken and not containers:
                reports.append(
                    SkillReport(
                        path,
                        None,
                        (
                            Problem(
                                path,
                                "no SKILL.md here or in its sub-folders",
                                hint="give a skill folder, a SKILL.md file, or a folder of skill folders",
                            ),
                        ),
                    )
                )
        else:
            reports.append(
                SkillReport(
                    path,
                    None,
                    (Problem(path, "path does not exist", hint="check the spelling"),),
                )
            )
    return reports
