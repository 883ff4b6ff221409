"""Validate skills on disk (what ``aiq-tui skills validate`` runs): read, parse, check, report.

Unlike discovery, which skips bad skills with a warning, this reports *every* problem of
every skill it is pointed at — including the ones discovery would skip.

A *target* is the harness a skill is judged for (:mod:`~aiq_tui.skills.harnesses`): a
profile, ``"auto"`` (each skill by where it lives: ``.claude/skills`` → claude-code) or None
(the Agent Skills specification, as skills-ref judges it). Limits that are aiq-tui's own (a
resource over ``skills.max_resource_bytes``) are never a harness's rule: they are notes
(severity INFO) named as aiq-tui's.
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
from aiq_tui.skills.harnesses import HarnessProfile, infer_harness
from aiq_tui.skills.harnesses import profile as harness_profile
from aiq_tui.skills.layouts import LIMITS, Layout, find_skills
from aiq_tui.skills.parse import BOM, bom_problem, decode_skill_bytes, parse_skill_text
from aiq_tui.skills.resources import SKILL_FILE, list_resources
from aiq_tui.skills.validate import validate, with_stand_ins

Target = HarnessProfile | str | None
"""A harness profile, its name, ``"auto"`` (inferred per skill) or None (the reference)."""


def target_for(skill_md: Path, target: Target) -> HarnessProfile | None:
    """The profile a skill at ``skill_md`` is judged by (None: the specification's verdict)."""
    if target is None:
        return None
    if isinstance(target, HarnessProfile):
        chosen = target
    elif target == "auto":
        chosen = infer_harness(skill_md)
    else:
        chosen = harness_profile(target)
    return None if chosen.name == "agentskills" else chosen


def own_limit(problem: Problem) -> Problem:
    """A resource problem of aiq-tui's own limits, as the note it is."""
    return replace(
        problem,
        message=f"{problem.message} — aiq-tui's own limit (skills.max_resource_bytes / "
        "max_skill_bytes), not a rule of the Agent Skills format or any harness",
        severity=Severity.INFO,
    )


@dataclass(frozen=True)
class SkillReport:
    path: Path
    """The SKILL.md checked (or the path given, when it could not be found)."""
    name: str | None
    problems: tuple[Problem, ...]
    target: str = "agentskills"
    """The harness it was judged for (``agentskills``: the specification's verdict)."""

    @property
    def valid(self) -> bool:
        """No errors (warnings, e.g. an oversized resource, do not make a skill invalid)."""
        return not any(problem.severity is Severity.ERROR for problem in self.problems)

    def to_json(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "name": self.name,
            "valid": self.valid,
            "target": self.target,
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
    target: Target = None,
) -> SkillReport:
    """Every problem of one SKILL.md (and its folder's resources), judged for ``target``."""
    harness = target_for(skill_md, target)
    report = _check_file(skill_md, settings, strict, listed, harness)
    return replace(report, target=harness.name if harness else "agentskills")


def _check_file(
    skill_md: Path,
    settings: SkillsSettings,
    strict: bool,
    listed: ListedProblems | None,
    harness: HarnessProfile | None,
) -> SkillReport:
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
        named_by_folder = (harness or infer_harness(skill_md)).requires_name is False
        if not strict and named_by_folder:  # what loads here, as discovery stands it in
            fields, stood_in = with_stand_ins(fields, skill_md.parent.name, skill_md)
            problems += stood_in
        # Lenient: what loads here still hears which specification rules it breaks (warnings).
        problems += validate(
            fields,
            skill_md,
            skill_md.parent.name,
            strict=strict,
            lines=result.field_lines,
            body=result.body,
            spec_warnings=not strict,
            target=harness,
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
    problems += [own_limit(problem) for problem in resource_problems]
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
    target: Target = None,
    search_layouts: bool | None = None,
) -> list[SkillReport]:
    """Reports for each path: a SKILL.md file, a skill folder, or a folder of skills — with
    ``search_layouts`` (default: unless ``containers``) in any layout collections use
    (:mod:`~aiq_tui.skills.layouts`: ``skills/``, hidden sub-collections, plugin manifests,
    nested folders), else its direct sub-folders, as a harness reads its own folder.

    With ``containers`` the paths are skill directories found by discovery: one without
    skills is fine. Otherwise a path holding no skill is itself a problem, naming SKILL.md
    files further down when there are some.
    """
    walk = not containers if search_layouts is None else search_layouts
    reports: list[SkillReport] = []
    seen: set[str] = set()
    by_folder: dict[
        Path, HarnessProfile | None
    ] = {}  # "auto": one inference a skills folder

    def judged_for(skill_md: Path) -> Target:
        if target != "auto":
            return target
        parent = skill_md.parent.parent
        if parent not in by_folder:
            by_folder[parent] = target_for(skill_md, "auto")
        return by_folder[parent] or "agentskills"

    def add(skill_md: Path, key: str | None = None) -> None:
        key = key or os.path.realpath(skill_md)
        if key not in seen:
            seen.add(key)
            reports.append(
                check_file(skill_md, settings, strict, listed, judged_for(skill_md))
            )

    def collection(path: Path) -> None:
        """Each sub-folder of ``path`` that holds a SKILL.md (or should: a broken link, a
        misnamed file — reported)."""
        try:
            children = sorted(
                child for child in path.iterdir() if not child.name.startswith(".")
            )
        except OSError as exc:
            reports.append(
                SkillReport(
                    path, None, (Problem(path, f"cannot list: {exc.strerror or exc}"),)
                )
            )
            return
        real_parent = os.path.realpath(path)
        resolved = [
            (child, _resolved_skill_file(child, real_parent)) for child in children
        ]
        for child, key in resolved:
            if key is not None:
                add(child / SKILL_FILE, key)
            else:
                unreadable(child)

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
            layout = find_skills(path) if walk else None
            # The folder's own entries first (a broken link or a misnamed file among them is
            # reported), then the collections a layout search found below it.
            folders = [path] + [
                Path(c.path)
                for c in (layout.collections if layout is not None else ())
                if os.path.realpath(c.path) != os.path.realpath(path)
            ]
            before = len(reports)
            for folder in folders:
                collection(folder)
            for single, _how in layout.singles if layout is not None else ():
                add(Path(single) / SKILL_FILE)
            if len(reports) == before and not containers:
                reports.append(_nothing_found(path, layout))
        else:
            reports.append(
                SkillReport(
                    path,
                    None,
                    (Problem(path, "path does not exist", hint="check the spelling"),),
                )
            )
    return reports


def _nothing_found(path: Path, layout: Layout | None) -> SkillReport:
    """The report for a folder given that holds no skill: where SKILL.md files are, if any."""
    deeper = layout.deeper if layout is not None else ()
    if deeper:
        shown = ", ".join(os.path.relpath(found, path) for found in deeper)
        return SkillReport(
            path,
            None,
            (
                Problem(
                    path,
                    f"no skills in the layouts searched (skills/, plugin manifests, folders "
                    f"{LIMITS.depth} levels down), but SKILL.md files "
                    f"further down: {shown}",
                    hint="give the folder that holds them",
                ),
            ),
        )
    return SkillReport(
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
