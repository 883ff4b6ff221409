"""Spec problems: exactly what ``aiq-tui skills validate --strict`` reports, grouped by problem.

Resource-limit warnings are left to :mod:`aiq_tui.doctor.content`, which reports them per
file; everything else the strict validator says about a SKILL.md is here, once per kind of
problem with every skill that has it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from aiq_tui.config import SkillsSettings
from aiq_tui.doctor.model import Finding, Kind, Level
from aiq_tui.problems import Problem, Severity
from aiq_tui.skills.check import ListedProblems, check_file, check_paths
from aiq_tui.skills.validate import EXTENSION_FIELDS

_VARIABLE = re.compile(r"'[^']*'|\"[^\"]*\"|\d+")


def is_portability(problem: Problem) -> bool:
    """aiq's own extension fields (a script skill's `type`, `status`, …) work here: outside
    the spec they make a skill less portable, not broken, so they warn rather than fail."""
    return (
        problem.field or ""
    ) in EXTENSION_FIELDS and "not part of the Agent Skills" in problem.message


def skill_verdict(
    skill_md: Path, settings: SkillsSettings, target: str | None = "auto"
) -> tuple[Problem, ...]:
    """The doctor's spec verdict on one SKILL.md, as the skill viewer shows it: the same
    problems at the same severities as :func:`spec_findings` (one verdict on both screens),
    judged for the harness the skill lives in by default."""
    return tuple(
        replace(p, severity=Severity.WARNING) if is_portability(p) else p
        for p in check_file(skill_md, settings, strict=True, target=target).problems
    )


def spec_findings(
    skill_dirs: Sequence[Path],
    settings: SkillsSettings,
    listed: ListedProblems | None = None,
    target: str | None = None,
    layout_dirs: Sequence[Path] = (),
) -> list[Finding]:
    """``listed`` gives a folder's resource problems already listed (by the catalog), if any;
    ``target`` is the harness judged for ("auto": each skill by its folder; None: the Agent
    Skills specification); ``layout_dirs`` are the folders searched in the layouts collections
    use (the ones the user named, as discovery searches them)."""
    searched = {os.path.realpath(path) for path in layout_dirs}
    reports = []
    seen: set[str] = set()
    for directory in skill_dirs:
        for report in check_paths(
            [directory],
            settings,
            strict=True,
            containers=True,
            listed=listed,
            target=target,
            search_layouts=os.path.realpath(directory) in searched,
        ):
            key = os.path.realpath(report.path)
            if (
                key not in seen
            ):  # one file reached twice (a link, an ancestor) counts once
                seen.add(key)
                reports.append(report)
    groups: dict[tuple[str, str, str], dict] = {}
    for report in reports:
        skill = report.name or report.path.parent.name
        for problem in report.problems:
            if (
                problem.path is not None
                and problem.path != report.path
                and report.path.parent in problem.path.parents
            ):
                continue  # a resource: reported per file under risky content
            template = _VARIABLE.sub("…", problem.message)
            group_key = (problem.severity.value, problem.field or "", template)
            group = groups.setdefault(group_key, {"skills": [], "example": problem})
            if skill not in group["skills"]:
                group["skills"].append(skill)
    findings = []
    for (severity, field, template), group in groups.items():
        example = group["example"]
        skills = tuple(group["skills"])
        level = {
            Severity.ERROR.value: Level.ERROR,
            Severity.WARNING.value: Level.WARNING,
        }.get(severity, Level.INFO)
        portability = is_portability(example)
        if portability:
            level = Level.WARNING
        where = f" [{field}]" if field else ""
        title = (
            example.message
            if len(skills) == 1
            else f"{template}{where} — {len(skills)} skills"
        )
        note = (
            " — aiq reads this extension field, but other Agent Skills clients reject it"
            if portability
            else ""
        )
        findings.append(
            Finding(
                Kind.SPEC,
                level,
                skills,
                title if len(skills) > 1 else f"{skills[0]}: {title}",
                why=f"{example}"
                + (f" (and {len(skills) - 1} more)" if len(skills) > 1 else "")
                + note,
                fix=example.hint or "see `aiq-tui skills validate --strict`",
            )
        )
    return findings
