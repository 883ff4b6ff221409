"""Risky content: what a skill would have the agent run or trust, checked before it does.

Dangerous script patterns come from the executor's own check
(:func:`aiq_tui.skills.executor.find_dangerous`) — the filter that refuses them at run time —
so the doctor and the runtime never disagree. These are first-filter text checks; the
sandbox is what enforces (docs/SANDBOX.md).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

from aiq_tui.doctor.model import Finding, Kind, Level
from aiq_tui.skills.executor import find_dangerous
from aiq_tui.skills.model import Resource, ResourceKind, SkillMeta

# Shell tools of clients that read ``allowed-tools`` as pre-approval (Claude Code, and aiq-tui
# under the default agent.skill_allowed_tools: preapprove). ``Bash(git:*)`` is scoped; bare
# ``Bash`` is not.
SHELL_TOOLS = ("bash", "shell", "sh", "zsh", "terminal", "powershell")
# "[" not preceded by "!" (not an image), checked after the "[": a pattern that starts with a
# literal is searched for by that literal, ~20× faster over long bodies than one that starts
# with a look-behind.
_LINK = re.compile(r"\[(?<!!\[)[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_IMAGE = re.compile(r"!\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?")
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
_SCRIPT_READ_LIMIT = 256 * 1024
# Commands in instructions sit in code: fenced blocks, indented blocks and `inline` spans.
_FENCED = re.compile(r"^(`{3,}|~{3,})[^\n]*\n(.*?)^\1", re.MULTILINE | re.DOTALL)
_INDENTED = re.compile(r"^(?: {4}|\t)\S.*$", re.MULTILINE)
_INLINE = re.compile(r"`([^`\n]+)`")


def content_findings(
    meta: SkillMeta, body: str | None, resources: Sequence[Resource]
) -> list[Finding]:
    findings: list[Finding] = []
    folder = meta.folder
    findings += _allowed_tools(meta)
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
        text = _read(path)
        if text is None:
            continue
        pattern = find_dangerous(text)
        if pattern:
            findings.append(
                Finding(
                    Kind.RISK,
                    Level.ERROR,
                    (meta.name,),
                    f"{meta.name}: {resource.relpath} matches '{pattern}'",
                    why="the script runner refuses it, and an agent told to run it by hand could do real damage",
                    fix="remove the command, or scope it to paths inside the skill's working folder",
                )
            )
        if not text.startswith("#!"):
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
    if body:
        pattern = find_dangerous(code_of(body))
        if pattern:
            findings.append(
                Finding(
                    Kind.RISK,
                    Level.ERROR,
                    (meta.name,),
                    f"{meta.name}: its instructions contain '{pattern}'",
                    why="the agent follows SKILL.md literally; a dangerous command there is one tool call away",
                    fix="remove the command from the instructions",
                )
            )
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


def code_of(body: str) -> str:
    """The code in a markdown body (one snippet per line): what an agent would run."""
    # Each pattern needs its marker somewhere in the body: prose-only bodies skip the scans.
    snippets = (
        [m.group(2) for m in _FENCED.finditer(body)]
        if "```" in body or "~~~" in body
        else []
    )
    if "    " in body or "\t" in body:
        snippets += _INDENTED.findall(body)
    if "`" in body:
        snippets += _INLINE.findall(body)
    return "\n".join(snippets)


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


def _allowed_tools(meta: SkillMeta) -> list[Finding]:
    tools = meta.allowed_tools or ()
    open_shell = [
        t
        for t in tools
        if t.split("(", 1)[0].lower() in SHELL_TOOLS
        and ("(" not in t or t.replace(" ", "").endswith(("(*)", "(*:*)")))
    ]
    if not open_shell:
        return []
    return [
        Finding(
            Kind.RISK,
            Level.WARNING,
            (meta.name,),
            f"{meta.name}: allowed-tools pre-approves a shell",
            why=(
                f"`allowed-tools: {' '.join(open_shell)}` lets the agent run any command without asking "
                "once this skill is invoked, in clients that pre-approve listed tools (aiq-tui too, by default: "
                "any program on tools.command_allowlist, never a shell string)"
            ),
            fix="scope it to the commands the skill needs, e.g. Bash(git:*) Bash(python3 scripts/*:*)",
        )
    ]


def _read(path: Path) -> str | None:
    try:
        with open(path, "rb") as handle:
            data = handle.read(_SCRIPT_READ_LIMIT)
    except OSError:
        return None
    return data.decode("utf-8", errors="replace")
