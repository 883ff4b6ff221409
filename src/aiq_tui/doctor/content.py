"""Risky content: what would trip the agent up in a skill's files — scripts that cannot run,
links to missing files, files over aiq-tui's own limits — and, through the safety scan
(:mod:`aiq_tui.doctor.safety`: dangerous commands, prompt injection, hidden text,
exfiltration, tool grants), what a stranger's skill could make it do.

:func:`skill_findings` reads each of a skill's files once and hands the same text to both.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

from aiq_tui.doctor.model import Finding, Kind, Level
from aiq_tui.doctor.safety.files import FileKind, ScannedFile, skill_files
from aiq_tui.doctor.safety.scan import scan_skill
from aiq_tui.skills.model import Resource, ResourceKind, SkillMeta

# "[" not preceded by "!" (not an image), checked after the "[": a pattern that starts with a
# literal is searched for by that literal, ~20× faster over long bodies than one that starts
# with a look-behind.
_LINK = re.compile(r"\[(?<!!\[)[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_IMAGE = re.compile(r"!\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?")
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def skill_findings(
    meta: SkillMeta, resources: Sequence[Resource], skill_text: str | None = None
) -> list[Finding]:
    """The content and safety findings of one skill, each file read once (``skill_text``: the
    SKILL.md text when the caller has it)."""
    files = skill_files(meta, resources, skill_text)
    return content_findings(meta, resources, files) + scan_skill(
        meta, resources, files=files
    )


def content_findings(
    meta: SkillMeta, resources: Sequence[Resource], files: Sequence[ScannedFile]
) -> list[Finding]:
    findings: list[Finding] = []
    folder = meta.folder
    texts = {f.relpath: f for f in files}
    no_shebang: list[str] = []
    not_executable: list[str] = []
    over_limit: list[str] = []
    for resource in resources:
        if resource.rejected:  # aiq-tui's own limit, not a harness's: one note a skill
            over_limit.append(f"{resource.relpath} ({resource.rejected})")
            continue
        if resource.kind is not ResourceKind.SCRIPT:
            continue
        path = folder / resource.relpath
        scanned = texts.get(resource.relpath)
        if scanned is None:
            continue  # unreadable, binary or past the scan's bounds
        if not scanned.text.startswith("#!"):
            no_shebang.append(resource.relpath)
        if not os.access(path, os.X_OK):
            not_executable.append(resource.relpath)
    if over_limit:
        findings.append(
            Finding(
                Kind.RISK,
                Level.INFO,
                (meta.name,),
                f"{meta.name}: {len(over_limit)} file(s) over aiq-tui's own resource limit",
                why="aiq-tui's agent cannot read "
                + "; ".join(over_limit[:3])
                + (" …" if len(over_limit) > 3 else "")
                + " — no harness limits resource sizes: this is about aiq-tui alone",
                fix="raise skills.max_resource_bytes / max_skill_bytes in config.yaml to read "
                "them here, or split the files",
            )
        )
    if no_shebang or not_executable:
        parts = []
        if no_shebang:
            parts.append(
                f"no shebang: {', '.join(no_shebang[:5])}"
                + (" …" if len(no_shebang) > 5 else "")
            )
        if not_executable:
            parts.append(
                f"not executable: {', '.join(not_executable[:5])}"
                + (" …" if len(not_executable) > 5 else "")
            )
        findings.append(
            Finding(
                Kind.RISK,
                Level.WARNING,
                (meta.name,),
                f"{meta.name}: scripts cannot run as they are",
                why="; ".join(parts)
                + " — the agent has to guess the interpreter or fails with 'permission denied'",
                fix="start each script with a shebang (#!/usr/bin/env python3) and `chmod +x` it",
            )
        )
    skill = next((f for f in files if f.kind is FileKind.SKILL), None)
    body = skill.text[skill.body_start :] if skill is not None else ""
    if body:
        missing = broken_links(body, folder)
        if missing:
            findings.append(
                Finding(
                    Kind.RISK,
                    Level.WARNING,
                    (meta.name,),
                    f"{meta.name}: {len(missing)} link(s) to missing files",
                    why=f"SKILL.md links to {', '.join(missing[:5])}"
                    + (" …" if len(missing) > 5 else "")
                    + ", which do not exist; the agent will try to read them and fail",
                    fix="fix the paths (relative to the skill folder) or remove the links",
                    terms=tuple(missing),
                )
            )
    return findings


def broken_links(body: str, folder: Path) -> list[str]:
    """Relative link targets in the markdown ``body`` that do not exist under ``folder``."""
    missing: list[str] = []
    if "](" not in body:
        return missing  # both link patterns need "](": no links at all
    for match in list(_LINK.finditer(body)) + list(_IMAGE.finditer(body)):
        target = match.group(1)
        if _SCHEME.match(target) or target.startswith(("#", "/", "//")):
            continue
        relative = target.split("#", 1)[0].split("?", 1)[0]
        if not relative:
            continue
        if not (folder / relative).exists() and target not in missing:
            missing.append(target)
    return missing
