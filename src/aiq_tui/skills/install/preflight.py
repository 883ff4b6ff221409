"""Before anything is written: is the skill valid, what does the doctor say, what may it run.

For each skill about to be installed or updated, :func:`preflight` reads the folder in the
repository (nothing installed yet) and returns

* the lenient ``validate`` verdict (:func:`~aiq_tui.skills.check.check_file`), whose errors stop
  the install, and the strict one's problems as warnings (portability: a skill must stay valid
  for its harness);
* the risk checks the caller passes (:data:`RiskCheck`; the CLI passes the doctor's per-skill
  :func:`~aiq_tui.doctor.content.skill_findings`: the safety scan — dangerous commands, prompt
  injection, hidden text, exfiltration, tool grants — and the content checks) — errors stop
  it, naming file:line. They are passed in because the doctor sits above ``skills/`` (it
  reads the matcher and the prompt builder);
* what the skill may run: its scripts (every file the resource listing calls a script) and
  its ``allowed-tools`` — which the user is shown and asked about.

The doctor's whole-collection checks (routing, budget) judge a catalog, not one skill: they run
with ``skills doctor`` after the install.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiq_tui.config import SkillsSettings
from aiq_tui.problems import Problem, Severity
from aiq_tui.skills.model import Resource, SkillMeta

RiskCheck = Callable[[SkillMeta, str, Sequence[Resource]], list[tuple[bool, str]]]
"""A check of one skill (its meta, body and resources): ``(is_error, line)`` per finding."""


@dataclass(frozen=True)
class Preflight:
    """The verdict on one skill folder."""

    name: str
    folder: Path
    description: str = ""
    errors: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    scripts: tuple[str, ...] = ()
    allowed_tools: tuple[str, ...] = ()
    skill_type: str = "instruction"
    extras: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.errors

    @property
    def may_run(self) -> bool:
        """Whether there is anything to ask about (scripts or allowed-tools)."""
        return bool(self.scripts or self.allowed_tools or self.skill_type == "script")

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "ok": self.ok,
            "errors": list(self.errors),
            "warnings": list(self.warnings),
            "scripts": list(self.scripts),
            "allowed_tools": list(self.allowed_tools),
            "type": self.skill_type,
        }


def preflight(
    folder: Path, settings: SkillsSettings, risk_checks: Sequence[RiskCheck] = ()
) -> Preflight:
    """Validate, run ``risk_checks`` on and list what the skill at ``folder`` may run (see
    the module doc)."""
    from aiq_tui.skills.check import check_file
    from aiq_tui.skills.model import ResourceKind
    from aiq_tui.skills.resources import SKILL_FILE

    skill_md = folder / SKILL_FILE
    report = check_file(skill_md, settings)
    errors = [_say(p) for p in report.problems if p.severity is Severity.ERROR]
    warnings = [_say(p) for p in report.problems if p.severity is not Severity.ERROR]
    strict = check_file(skill_md, settings, strict=True)
    lenient_messages = {p.message for p in report.problems}
    warnings += [
        f"not portable (--strict): {_say(p)}"
        for p in strict.problems
        if p.severity is Severity.ERROR and p.message not in lenient_messages
    ]
    try:
        text = skill_md.read_text(encoding="utf-8-sig", errors="replace")
    except OSError as exc:
        return Preflight(
            folder.name, folder, errors=(f"{skill_md}: cannot read ({exc})",)
        )
    meta, body, resources = _read_skill(folder, text, report.name, settings)
    fields = dict(meta.extras)
    name, description = meta.name, meta.description
    risk_errors, risk_warnings = run_risk_checks(meta, body, resources, risk_checks)
    errors += risk_errors
    warnings += risk_warnings
    scripts = tuple(r.relpath for r in resources if r.kind is ResourceKind.SCRIPT)
    return Preflight(
        name=name,
        folder=folder,
        description=description,
        errors=tuple(errors),
        warnings=tuple(dict.fromkeys(warnings)),
        scripts=scripts,
        allowed_tools=tuple(meta.allowed_tools or ()),
        skill_type=meta.type,
        extras=fields,
    )


def risk_checks_of(
    folder: Path, settings: SkillsSettings, risk_checks: Sequence[RiskCheck]
) -> tuple[list[str], list[str]]:
    """``(errors, warnings)`` of ``risk_checks`` on the skill at ``folder`` alone (what
    ``skills import`` asks, having validated it itself)."""
    from aiq_tui.skills.resources import SKILL_FILE

    try:
        text = (folder / SKILL_FILE).read_text(encoding="utf-8-sig", errors="replace")
    except OSError as exc:
        return [f"{folder / SKILL_FILE}: cannot read ({exc})"], []
    meta, body, resources = _read_skill(folder, text, None, settings)
    return run_risk_checks(meta, body, resources, risk_checks)


def run_risk_checks(
    meta: SkillMeta,
    body: str,
    resources: Sequence[Resource],
    risk_checks: Sequence[RiskCheck],
) -> tuple[list[str], list[str]]:
    errors: list[str] = []
    warnings: list[str] = []
    for check in risk_checks:
        for is_error, line in check(meta, body, resources):
            (errors if is_error else warnings).append(line)
    return errors, warnings


def _read_skill(
    folder: Path, text: str, name: str | None, settings: SkillsSettings
) -> tuple[SkillMeta, str, tuple[Resource, ...]]:
    """The skill at ``folder`` as the risk checks take it: its meta (nothing installed yet,
    so read from the file), body and resource listing."""
    from aiq_tui.skills.parse import parse_skill_text
    from aiq_tui.skills.resources import SKILL_FILE, list_resources

    skill_md = folder / SKILL_FILE
    parsed = parse_skill_text(text, skill_md)
    fields = dict(parsed.meta_fields or {})
    name = str(fields.pop("name", "") or name or folder.name)
    description = str(fields.pop("description", "") or "")
    meta = SkillMeta(name, description, skill_md, folder.parent, extras=fields)
    resources, _problems = list_resources(folder, settings)
    return meta, parsed.body, tuple(resources)


def _say(problem: Problem) -> str:
    return str(problem)
