"""A doctor report as SARIF 2.1.0, the format code scanning reads (GitHub's upload-sarif).

Every rule the report can raise is listed in ``tool.driver.rules`` — the safety rules from
:mod:`.rules`, and one rule per other doctor check (``doctor/collision``, ``doctor/spec``, …).
A result's location is the file and line of a safety finding, or the first skill's SKILL.md
(line 1) for a finding about skills as a whole; a finding about the collection alone (no skill,
no file) has no place to point at and is left to the text and JSON reports. URIs are relative
to the current folder when the file is inside it (``%SRCROOT%``, where CI checks the repository
out), ``file://`` URIs otherwise.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from aiq_tui.doctor.model import DoctorReport, Finding, Kind, Level, Location
from aiq_tui.doctor.safety.rules import RULES

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
VERSION = "2.1.0"
_LEVELS = {Level.ERROR: "error", Level.WARNING: "warning", Level.INFO: "note"}
_CHECK_RULES = {
    Kind.COLLISION: ("skills that steal each other's queries", Level.ERROR),
    Kind.UNREACHABLE: ("a skill its own description does not reach", Level.ERROR),
    Kind.BUDGET: ("a skill or catalog that does not fit the window", Level.WARNING),
    Kind.RISK: (
        "scripts that cannot run, missing links, files over aiq-tui's limits",
        Level.WARNING,
    ),
    Kind.SPEC: ("a problem `skills validate --strict` reports", Level.ERROR),
}


def to_sarif(
    report: DoctorReport,
    skill_file: Callable[[str], Path | None] | Mapping[str, Path],
    root: Path | None = None,
) -> dict[str, Any]:
    """The SARIF log of ``report``; ``skill_file`` maps a skill name to its SKILL.md (for the
    findings without a line of their own); ``root``: what URIs are relative to (the cwd)."""
    from aiq_tui import __version__

    lookup = skill_file.get if isinstance(skill_file, Mapping) else skill_file
    base = (root or Path.cwd()).resolve()
    rules = _rules()
    index = {rule["id"]: i for i, rule in enumerate(rules)}
    results = []
    for finding in report.findings:
        location = finding.location or _skill_location(finding, lookup)
        if location is None:
            continue
        rule_id = finding.rule or f"doctor/{finding.kind.value}"
        results.append(
            {
                "ruleId": rule_id,
                "ruleIndex": index[rule_id],
                "level": _LEVELS[finding.level],
                "message": {
                    "text": f"{finding.title}: {finding.why} Fix: {finding.fix}"
                },
                "locations": [_physical(location, base)],
                "properties": {
                    "skills": list(finding.skills),
                    "kind": finding.kind.value,
                },
            }
        )
    return {
        "$schema": SCHEMA,
        "version": VERSION,
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "aiq-tui",
                        "semanticVersion": __version__,
                        "rules": rules,
                    }
                },
                "originalUriBaseIds": {"%SRCROOT%": {"uri": base.as_uri() + "/"}},
                "results": results,
            }
        ],
    }


def _rules() -> list[dict[str, Any]]:
    rules = [
        {
            "id": rule.id,
            "name": rule.id.replace("-", " ").title().replace(" ", ""),
            "shortDescription": {"text": rule.title},
            "fullDescription": {"text": rule.why},
            "help": {"text": rule.fix},
            "defaultConfiguration": {"level": _LEVELS[rule.level]},
            "properties": {"tags": ["security"]},
        }
        for rule in RULES
    ]
    rules += [
        {
            "id": f"doctor/{kind.value}",
            "name": kind.value.title(),
            "shortDescription": {"text": text},
            "defaultConfiguration": {"level": _LEVELS[level]},
        }
        for kind, (text, level) in _CHECK_RULES.items()
    ]
    return rules


def _skill_location(
    finding: Finding, lookup: Callable[[str], Path | None]
) -> Location | None:
    for name in finding.skills:
        path = lookup(name)
        if path is not None:
            return Location(str(path), 1)
    return None


def _physical(location: Location, base: Path) -> dict[str, Any]:
    path = Path(location.path)
    absolute = path if path.is_absolute() else (Path.cwd() / path)
    try:
        relative = Path(os.path.relpath(absolute, base))
    except ValueError:  # another drive (Windows)
        relative = None
    artifact: dict[str, Any]
    if relative is not None and not relative.as_posix().startswith("../"):
        artifact = {"uri": relative.as_posix(), "uriBaseId": "%SRCROOT%"}
    else:
        artifact = {"uri": absolute.as_uri()}
    region: dict[str, Any] = {"startLine": max(1, location.line)}
    if location.column > 0:
        region["startColumn"] = location.column
    return {"physicalLocation": {"artifactLocation": artifact, "region": region}}
