"""Check parsed frontmatter; return every problem at once, each with field, line and a fix.

Two levels:

* lenient (default, what loading uses): ``name`` and ``description`` are required non-empty
  strings; the extension fields of the source systems are accepted and type-checked (lango
  ``type``/``status``/``parameters``/``steps``/``script``/``template``/``source``, SISU
  ``version``/``author``/``tags``, apex-bridge ``triggers``); unknown fields pass. With
  ``spec_warnings`` (what ``skills validate`` asks for) every rule of the specification that
  strict mode would fail — name format and length, name equal to the folder, description and
  compatibility length, fields outside the specification — is also a *warning* naming the
  rule: the skill still loads here, but other clients refuse it.
* strict (``--strict``): exactly the Agent Skills specification (agentskills.io), with the
  verdicts of its reference validator, skills-ref (tests/skills/test_reference_validator.py;
  the deliberate differences are in docs/skills.md): the name is compared stripped and in NFKC
  form, an empty ``compatibility`` or an unusual ``license`` is a warning, not a failure.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiq_tui.harnesses import AIQ_EXTENSION_FIELDS, PROFILES, HarnessProfile
from aiq_tui.problems import Problem, Severity
from aiq_tui.skills.definition import DEFINITION_FIELD, DefinitionError, definition_of

STATUSES = ("active", "inactive", "draft")
SKILL_TYPES = ("composite", "script", "template", "instruction")
"""What ``type:`` may say; the executor runs each (instruction skills are only read)."""
"""lango skill status; only ``active`` skills are loaded (no status means active)."""


def status_of(fields: Mapping[str, Any]) -> str:
    """A skill's status: lango's top-level ``status``, else ``metadata.status`` (where aiq
    writes it: the specification allows ``metadata``, so a disabled skill stays portable),
    else ``active``."""
    value = fields.get("status")
    if not (isinstance(value, str) and value):
        metadata = fields.get("metadata")
        value = metadata.get("status") if isinstance(metadata, dict) else None
    return value if isinstance(value, str) and value else "active"


SPEC_FIELDS = (
    "name",
    "description",
    "license",
    "allowed-tools",
    "metadata",
    "compatibility",
)
"""The only frontmatter fields the Agent Skills specification allows."""
EXTENSION_FIELDS = AIQ_EXTENSION_FIELDS  # one list: the harness registry's aiq profile
"""Fields of the source systems (lango, SISU, apex-bridge) that aiq reads; strict mode still
reports them, since other Agent Skills clients reject them."""

NAME_MAX = 64
DESCRIPTION_MAX = 1024
COMPATIBILITY_MAX = 500
NAME_PATTERN = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*\Z")


def validate(
    fields: Mapping[str, Any],
    path: Path | str | None,
    folder_name: str | None,
    strict: bool = False,
    lines: Mapping[str, int] | None = None,
    body: str | None = None,
    spec_warnings: bool = False,
    target: HarnessProfile | None = None,
) -> list[Problem]:
    """All problems of ``fields`` (frontmatter of ``path``); empty when valid.

    ``folder_name`` is the skill's folder (the spec requires ``name`` to equal it in strict
    mode); ``lines`` maps fields to their line in the file, for messages. ``body`` (when the
    caller read it) lets an executable skill's fenced-block definition be checked too;
    without it (metadata-only discovery) a definition that is not in the frontmatter is
    checked when the skill is loaded as a tool. Warnings (severity WARNING) do not stop a
    skill from loading. ``spec_warnings`` (lenient only): the specification's rules that strict
    mode fails are warnings too (see the module doc).

    ``target``: the harness the skill is judged for (``--target``; None or ``agentskills`` is
    the reference's verdict). Its documented fields are the skill's to use: checked for their
    type, never reported as outside the specification with advice to remove them; a field it
    does not document is what strict mode fails; where the harness names a skill after its
    folder (Claude Code), a missing ``name`` is a warning.
    """
    report = _Report(path, lines or {})
    harness = target if target is not None and target.name != "agentskills" else None
    _check_required(fields, report, strict, harness)
    if strict:
        _check_spec(fields, folder_name, report, harness)
        if harness is not None:
            _check_harness_fields(fields, report, harness, Severity.ERROR)
    else:
        _check_extensions(fields, report, body)
        _check_harness_fields(fields, report, harness, Severity.WARNING)
        if spec_warnings:
            for finding in spec_rule_findings(fields, folder_name, harness):
                if finding.rule == HARNESS_RULE:
                    report.add(
                        finding.field, finding.message, finding.hint, Severity.WARNING
                    )
                    continue
                report.add(
                    finding.field,
                    f"{finding.message} (the Agent Skills specification's rule: "
                    f"{finding.rule}; loads here, but --strict and other clients refuse it)",
                    finding.hint,
                    Severity.WARNING,
                )
    return report.problems


@dataclass(frozen=True)
class SpecFinding:
    """One rule of the Agent Skills specification that a frontmatter breaks."""

    rule: str  # what the specification says, in a few words
    field: str
    message: str
    hint: str


_NAME_HINT = "use lowercase letters, digits and single hyphens, e.g. pdf-tools"
FOLDER_RULE = "the name equals its folder's name"
FIELDS_RULE = f"only its six fields ({', '.join(SPEC_FIELDS)})"
HARNESS_RULE = "a field the target harness documents"


def readers_of(field: str) -> list[HarnessProfile]:
    """The harnesses (aiq-tui's own profile aside) that document ``field``."""
    return [
        profile
        for profile in PROFILES.values()
        if field in profile.fields and profile.name not in ("aiq", "agentskills")
    ]


def _readers_text(readers: list[HarnessProfile]) -> str:
    titles = [profile.title for profile in readers]
    return (
        titles[0] if len(titles) == 1 else ", ".join(titles[:-1]) + " and " + titles[-1]
    )


def outside_field_hint(field: str, harness: HarnessProfile | None = None) -> str:
    """What to do about a field outside the specification — never "remove it" for a field a
    harness reads (that switches off what it does there)."""
    readers = readers_of(field)
    if harness is not None and field in harness.fields:
        return (
            f"keep it: {harness.title} reads it; only a copy for clients that follow the "
            "specification alone (skills-ref, claude.ai uploads, the Skills API) must go without it"
        )
    if readers:
        first = readers[0].name
        return (
            f"keep it if the skill is for {_readers_text(readers)}, which read it "
            f"(`skills validate --target {first}` judges it as {readers[0].title} does); "
            "clients that follow the specification alone (skills-ref, claude.ai uploads) refuse it"
        )
    where = f"{harness.title} ignores it: " if harness is not None else ""
    return f"{where}move it under `metadata:` or remove it"


def name_rules(name: str) -> list[tuple[str, str]]:
    """Every naming rule ``name`` breaks, as (rule, why); empty when it is a valid Agent Skills
    name. As skills-ref: NFKC-normalised, unicode lowercase letters and digits allowed (données)."""
    if not name:
        return [("a name has 1-64 characters", "name is empty")]
    name = unicodedata.normalize("NFKC", name)
    broken: list[tuple[str, str]] = []
    if len(name) > NAME_MAX:
        broken.append(
            (
                f"a name has at most {NAME_MAX} characters",
                f"name is {len(name)} characters long; the limit is {NAME_MAX}",
            )
        )
    if name != name.lower():
        broken.append(("a name is lowercase", "name must be lowercase"))
    if name.startswith("-") or name.endswith("-"):
        broken.append(
            (
                "a name neither starts nor ends with a hyphen",
                "name must not start or end with a hyphen",
            )
        )
    if "--" in name:
        broken.append(
            (
                "a name has no consecutive hyphens",
                "name must not contain consecutive hyphens",
            )
        )
    bad = sorted({ch for ch in name if not (ch.isalnum() or ch == "-")})
    if bad:
        broken.append(
            (
                "a name has letters, digits and hyphens only",
                f"name may contain only lowercase letters, digits and hyphens "
                f"(found {' '.join(repr(c) for c in bad)})",
            )
        )
    return broken


def name_problem(name: str) -> str | None:
    """Why ``name`` is not a valid Agent Skills name (the first rule it breaks), or None."""
    broken = name_rules(name)
    return broken[0][1] if broken else None


def spec_rule_findings(
    fields: Mapping[str, Any],
    folder_name: str | None,
    harness: HarnessProfile | None = None,
) -> list[SpecFinding]:
    """The specification's rules the lenient check lets pass: the name's format and length, the
    name equal to its folder, the description's and compatibility's length, fields outside the
    specification (aiq-tui's extension fields included: other clients reject them). A field
    ``harness`` documents is a :data:`HARNESS_RULE` note that says to keep it."""
    found: list[SpecFinding] = []
    name = fields.get("name")
    if isinstance(name, str) and name.strip():
        name = name.strip()
        found += [
            SpecFinding(rule, "name", why, _NAME_HINT) for rule, why in name_rules(name)
        ]
        if folder_name is not None and _nfkc(name) != _nfkc(folder_name):
            found.append(
                SpecFinding(
                    FOLDER_RULE,
                    "name",
                    f"name {name!r} differs from its folder {folder_name!r}",
                    "rename the folder or the skill so they are equal",
                )
            )
    description = fields.get("description")
    if isinstance(description, str) and len(description) > DESCRIPTION_MAX:
        found.append(
            SpecFinding(
                f"a description has at most {DESCRIPTION_MAX} characters",
                "description",
                f"description is {len(description)} characters; the limit is {DESCRIPTION_MAX}",
                "shorten it to what the skill does and when to use it",
            )
        )
    compatibility = fields.get("compatibility")
    if isinstance(compatibility, str) and len(compatibility) > COMPATIBILITY_MAX:
        found.append(
            SpecFinding(
                f"compatibility has at most {COMPATIBILITY_MAX} characters",
                "compatibility",
                f"compatibility is {len(compatibility)} characters; the limit is {COMPATIBILITY_MAX}",
                "shorten it",
            )
        )
    outside = [key for key in fields if key not in SPEC_FIELDS]
    for key in outside:
        if (
            harness is not None
            and key in harness.fields
            and key not in EXTENSION_FIELDS
        ):
            found.append(
                SpecFinding(
                    HARNESS_RULE,
                    key,
                    f"field `{key}` is {harness.title}'s (it reads it), not the Agent Skills "
                    "specification's",
                    outside_field_hint(key, harness),
                )
            )
        elif key not in EXTENSION_FIELDS:
            found.append(
                SpecFinding(
                    FIELDS_RULE,
                    key,
                    f"field `{key}` is not one of the specification's",
                    outside_field_hint(key, harness),
                )
            )
    extensions = [key for key in outside if key in EXTENSION_FIELDS]
    if extensions:  # one note for all: they are what aiq-tui reads, not mistakes to fix
        named = ", ".join(f"`{key}`" for key in extensions)
        found.append(
            SpecFinding(
                FIELDS_RULE,
                extensions[0],
                f"{named}: aiq-tui extension field{'s' if len(extensions) > 1 else ''} "
                "(lango, SISU, apex-bridge), not the specification's",
                "keep them for aiq-tui; a client that follows the specification alone "
                "will not read this skill as aiq-tui does",
            )
        )
    return found


class _Report:
    def __init__(self, path: Path | str | None, lines: Mapping[str, int]):
        self.path = Path(path) if path is not None else None
        self.lines = lines
        self.problems: list[Problem] = []

    def add(
        self, field: str, message: str, hint: str, severity: Severity = Severity.ERROR
    ) -> None:
        self.problems.append(
            Problem(
                self.path,
                message,
                field=field,
                line=self.lines.get(field),
                hint=hint,
                severity=severity,
            )
        )


def _kind(value: Any) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


def _check_required(
    fields: Mapping[str, Any],
    report: _Report,
    strict: bool = False,
    harness: HarnessProfile | None = None,
) -> None:
    for key, example in (
        ("name", "my-skill"),
        ("description", "What it does and when to use it"),
    ):
        optional = harness is not None and (
            not harness.requires_name
            if key == "name"
            else not harness.requires_description
        )
        if key not in fields and optional:
            stands_in = (
                "names the skill after its folder"
                if key == "name"
                else "uses the first paragraph of the body"
            )
            report.add(
                key,
                f"no `{key}`: {harness.title} {stands_in}; the Agent Skills specification "  # type: ignore[union-attr]
                "requires one",
                f"add `{key}: {example}` so other clients load it too",
                Severity.WARNING,
            )
        elif key not in fields:
            report.add(
                key,
                f"missing required field `{key}`",
                f"add `{key}: {example}` to the frontmatter",
            )
        elif not isinstance(fields[key], str):
            report.add(
                key,
                f"`{key}` must be text, found {_kind(fields[key])}",
                f'quote it: {key}: "…"',
            )
        elif not fields[key].strip():
            # lango loads an instruction skill without a description ("Reference guide for NAME");
            # the Agent Skills specification (strict) does not.
            lenient = (
                key == "description"
                and not strict
                and fields.get("type", "instruction") == "instruction"
            )
            report.add(
                key,
                f"`{key}` is empty"
                + ("; matching will only see the name" if lenient else ""),
                f"write a {key} (`{key}: {example}`)",
                Severity.WARNING if lenient else Severity.ERROR,
            )


def _check_extensions(
    fields: Mapping[str, Any], report: _Report, body: str | None = None
) -> None:
    _check_type(fields, report, body)
    if "status" in fields and fields["status"] not in STATUSES:
        report.add(
            "status",
            f"unknown status {fields['status']!r}; valid: {', '.join(STATUSES)}",
            "use active, inactive or draft (or remove `status` for active)",
        )
    for key in ("status", "source", "author", "compatibility"):
        if key in fields and not isinstance(fields[key], str):
            report.add(
                key,
                f"`{key}` must be text, found {_kind(fields[key])}",
                f'quote it: {key}: "…"',
            )
    _check_license(fields, report)
    if "version" in fields and (
        isinstance(fields["version"], bool)
        or not isinstance(fields["version"], (str, int, float))
    ):
        report.add(
            "version",
            f"`version` must be text, found {_kind(fields['version'])}",
            'e.g. version: "1.0.0"',
        )
    for key in ("tags", "triggers"):
        if key in fields and not _is_str_list(fields[key]):
            report.add(
                key,
                f"`{key}` must be a list of strings, found {_kind(fields[key])}",
                f"write {key}: [first, second] or one `- item` per line",
            )
    if "parameters" in fields and not isinstance(fields["parameters"], (dict, list)):
        report.add(
            "parameters",
            f"`parameters` must be a mapping or list, found {_kind(fields['parameters'])}",
            "write parameters as `name: description` lines under `parameters:`",
        )
    if "metadata" in fields and not isinstance(fields["metadata"], dict):
        report.add(
            "metadata",
            f"`metadata` must be a mapping, found {_kind(fields['metadata'])}",
            "write metadata as indented `key: value` lines",
        )
    tools = fields.get("allowed-tools", fields.get("allowed_tools"))
    key = "allowed-tools" if "allowed-tools" in fields else "allowed_tools"
    if tools is not None and not (isinstance(tools, str) or _is_str_list(tools)):
        report.add(
            key,
            f"`{key}` must be a space-separated string or a list, found {_kind(tools)}",
            "e.g. allowed-tools: http_request execute_sql",
        )
    elif tools is not None:
        entries = tools.replace(",", " ").split() if isinstance(tools, str) else tools
        if any(
            str(entry).strip() and not str(entry).strip().strip("*")
            for entry in entries
        ):
            report.add(
                key,
                f"`{key}` names `*`, which would pre-approve every tool; it is refused (matches nothing)",
                "name the tools the skill needs, e.g. allowed-tools: Read Bash(git:*)",
                Severity.WARNING,
            )


def _check_type(fields: Mapping[str, Any], report: _Report, body: str | None) -> None:
    if "type" not in fields:
        return
    # Only skills that declare a type pay for the executor's module (a listing of 10,000
    # instruction skills never loads it).
    from aiq_tui.skills.executor import definition_problems

    kind = fields["type"]
    if kind not in SKILL_TYPES:
        report.add(
            "type",
            f"unknown skill type {kind!r}; valid types: {', '.join(SKILL_TYPES)}",
            "use one of the valid types, or remove `type` for an instruction skill",
        )
        return
    key = DEFINITION_FIELD.get(kind)
    if key is None or (key not in fields and body is None):
        return  # instruction, or a fenced definition the caller has not read (discovery reads it itself)
    try:
        definition = definition_of(kind, fields, body)
    except DefinitionError as exc:
        report.add(key, str(exc), "fix the JSON of the ```json block")
        return
    for problem in definition_problems(kind, definition, fenced=key not in fields):
        report.add(key, problem.message, problem.hint)


def _check_license(fields: Mapping[str, Any], report: _Report) -> None:
    """The specification says only "license name or reference to a bundled license file";
    skills-ref accepts any value. A name or a list of names (dual licensing) is fine; another
    shape is only worth a note, never a reason to skip or fail a skill."""
    if "license" in fields and not (
        isinstance(fields["license"], str) or _is_str_list(fields["license"])
    ):
        report.add(
            "license",
            f"`license` is {_kind(fields['license'])}; clients expect a licence name",
            'e.g. license: MIT, or license: "Proprietary. LICENSE.txt has complete terms"',
            Severity.WARNING,
        )


def _check_spec(
    fields: Mapping[str, Any],
    folder_name: str | None,
    report: _Report,
    harness: HarnessProfile | None = None,
) -> None:
    by_rule = {
        (f.field, f.rule): f for f in spec_rule_findings(fields, folder_name, harness)
    }
    # As skills-ref (and discovery, which strips the name): surrounding whitespace is not part
    # of the name, and the folder is compared in the same Unicode normal form (NFKC). The name's
    # first broken format rule is said (one fix at a time), then the folder.
    name_findings = [f for f in by_rule.values() if f.field == "name"]
    format_findings = [f for f in name_findings if f.rule != FOLDER_RULE]
    for finding in format_findings[:1]:
        report.add("name", finding.message, finding.hint)
    for finding in [f for f in name_findings if f.rule == FOLDER_RULE]:
        # A harness that takes the command from the folder shows `name` as a label only.
        label_only = (
            f" ({harness.title} runs it by its folder's name)"
            if harness is not None and not harness.requires_name
            else ""
        )
        report.add(
            "name",
            finding.message + label_only,
            finding.hint,
            Severity.WARNING if label_only else Severity.ERROR,
        )
    for finding in by_rule.values():
        if finding.field != "description":
            continue
        if harness is not None and not harness.rejects_long_description:
            report.add(
                "description",
                f"{finding.message} (the specification's); {harness.title} loads it and lists "
                f"the first {harness.entry_chars:,} characters",
                finding.hint,
                Severity.WARNING,
            )
        else:
            report.add("description", finding.message, finding.hint)
    if "compatibility" in fields:
        value = fields["compatibility"]
        if value is not None and not isinstance(value, str):
            report.add(
                "compatibility",
                f"`compatibility` must be text, found {_kind(value)}",
                "describe the environment the skill needs, or remove the field",
            )
        elif not (value or "").strip():
            # The specification says 1-500 characters; skills-ref accepts an empty one, and an
            # empty field harms nobody: a note, not a failure.
            report.add(
                "compatibility",
                "`compatibility` is empty (the specification wants 1-500 characters)",
                "describe the environment the skill needs, or remove the field",
                Severity.WARNING,
            )
        else:
            for finding in by_rule.values():
                if finding.field == "compatibility":
                    report.add("compatibility", finding.message, finding.hint)
    _check_license(fields, report)
    if "allowed-tools" in fields and not isinstance(fields["allowed-tools"], str):
        report.add(
            "allowed-tools",
            f"`allowed-tools` must be a space-separated string, found "
            f"{_kind(fields['allowed-tools'])}",
            "e.g. allowed-tools: Bash(git:*) Read",
        )
    if "metadata" in fields:
        value = fields["metadata"]
        if not isinstance(value, dict):
            report.add(
                "metadata",
                f"`metadata` must be a mapping, found {_kind(value)}",
                "write metadata as indented `key: value` lines",
            )
        else:
            odd = [
                str(k)
                for k, v in value.items()
                if not isinstance(k, str) or not isinstance(v, str)
            ]
            if odd:
                report.add(
                    "metadata",
                    f"metadata values must be strings (not: {', '.join(odd[:5])})",
                    'quote the values, e.g. version: "1.0"',
                )
    allowed = frozenset(SPEC_FIELDS) | (harness.fields if harness else frozenset())
    for key in fields:
        if key in allowed:
            continue
        if harness is None:
            report.add(
                key,
                f"field `{key}` is not part of the Agent Skills specification",
                f"{outside_field_hint(key)} (allowed: {', '.join(SPEC_FIELDS)})",
            )
        else:
            report.add(
                key,
                f"field `{key}` is not part of the Agent Skills specification, and "
                f"{harness.title} does not document it",
                outside_field_hint(key, harness),
            )


_FLAGS = ("disable-model-invocation", "user-invocable", "background")
_TEXTS = (
    "argument-hint",
    "model",
    "agent",
    "effort",
    "when_to_use",
    "shell",
    "context",
)
_TEXT_OR_LIST = ("paths", "arguments", "disallowed-tools")


def _check_harness_fields(
    fields: Mapping[str, Any],
    report: _Report,
    harness: HarnessProfile | None,
    severity: Severity,
) -> None:
    """The types of the harness fields a skill sets (Claude Code's, which the other harnesses
    that read some of them share): a value the harness cannot read is ignored there."""
    from aiq_tui.skills.invocation import flag

    reader = harness.title if harness is not None else "Claude Code"
    for key in _FLAGS:
        if key in fields and flag(fields[key]) is None:
            report.add(
                key,
                f"`{key}` must be true or false (yes/no, on/off, 1/0), found "
                f"{_kind(fields[key])}; {reader} ignores it",
                f"write {key}: true",
                severity,
            )
    for key in _TEXTS:
        if key in fields and not isinstance(fields[key], str):
            report.add(
                key,
                f"`{key}` must be text, found {_kind(fields[key])}; {reader} ignores it",
                f'quote it: {key}: "…"',
                severity,
            )
    for key in _TEXT_OR_LIST:
        value = fields.get(key)
        if key in fields and not (isinstance(value, str) or _is_str_list(value)):
            report.add(
                key,
                f"`{key}` must be text or a list of text, found {_kind(value)}",
                f"e.g. {key}: [first, second]",
                severity,
            )
    if "hooks" in fields and not isinstance(fields["hooks"], dict):
        report.add(
            "hooks",
            f"`hooks` must be a mapping of events to hooks, found {_kind(fields['hooks'])}",
            "see code.claude.com/docs/en/hooks (hooks in skills)",
            severity,
        )


def _nfkc(text: str) -> str:
    return unicodedata.normalize("NFKC", text)


def _is_str_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


# -- what a harness stands in for a missing field -------------------------------------------------


def with_stand_ins(
    fields: Mapping[str, Any], folder_name: str | None, path: Path | str | None
) -> tuple[dict[str, Any], list[Problem]]:
    """``fields`` with the folder's name standing in for a missing ``name``, as Claude Code
    names such a skill, and the warning that says so (the specification requires ``name``).
    Fields given are returned as they are. (A missing description is not stood in for: Claude
    Code uses the body's first paragraph, the seeds skip the skill — docs/skills.md.)"""
    filled = dict(fields)
    problems: list[Problem] = []
    if "name" not in filled and folder_name:
        filled["name"] = folder_name
        problems.append(
            Problem(
                Path(path) if path is not None else None,
                f"no `name`: named {folder_name!r} after its folder, as Claude Code does; the "
                "Agent Skills specification requires `name` (skills-ref refuses the file)",
                field="name",
                hint=f"add `name: {folder_name}`",
                severity=Severity.WARNING,
            )
        )
    return filled, problems
